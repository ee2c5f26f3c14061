/* gb_csv: RFC 4180 tables read and written through libcsv.
 *
 * A table is read whole: a header row, then data rows, each remembering the
 * physical line it starts on, so every error names file:line:column. A UTF-8
 * byte-order mark is skipped; CRLF and LF line ends are both accepted; quoted
 * fields may hold commas, quotes and newlines. Cells live in one arena owned
 * by the table; gb_csv_stream_file hands the records to a callback one at a
 * time instead, keeping none (for inputs larger than memory should hold). */
#ifndef GB_CSV_H
#define GB_CSV_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "gb_error.h"

/* Longest field accepted by the reader: a larger one is an input error. */
#define GB_CSV_MAX_FIELD (1u << 20)

/* The offsets of one record's cells, found by gb_csv_cell on first use. */
typedef struct gb_csv_rowcache {
  size_t row;  /* record (0 = header) whose offsets are in offs; SIZE_MAX: none */
  size_t *offs;
} gb_csv_rowcache;

typedef struct gb_csv_table {
  char *name;        /* file name used in messages */
  size_t ncols;      /* header fields */
  size_t nrows;      /* data rows (header excluded) */
  char *arena;       /* every cell's text, NUL-terminated, a record's cells one after another */
  size_t *base;      /* nrows + 1 arena offsets of each record's first cell; [0] = header. Only
                      * this per record: a table costs its text plus 16 bytes a row (per-cell
                      * offsets, 8 bytes a cell, were as large as the text itself) */
  size_t *hdr;       /* ncols offsets of the header's cells */
  long *lines;       /* nrows + 1 physical start lines; [0] = header line */
  gb_csv_rowcache *cache; /* the last record gb_csv_cell walked (not thread-safe) */
} gb_csv_table;

/* Reads and validates a CSV file, 1 MiB at a time (the file is never held
 * whole beside the table). It is opened non-blocking and must be a regular
 * file (core/gb_input.h: a FIFO, directory or device is GB_E_IO, named).
 * Errors (GB_E_IO, GB_E_INPUT) carry "path:line:column: what" in
 * gb_errmsg(). An empty file is an input error; a header-only file is a
 * valid table of 0 rows. On error *out is empty. A cell that starts with a
 * single quote followed by what gb_csv_put_field guards (="'=x") reads
 * without that quote. */
gb_err gb_csv_read_file(const char *path, gb_csv_table *out);

/* One data record of a streamed table: its cells and the header's names
 * (ncols each, NUL-terminated, valid until the callback returns), the
 * physical line it starts on and its 0-based number. */
typedef struct gb_csv_record {
  const char *name; /* the file, for messages */
  size_t ncols;
  const char *const *header;
  const char *const *cells;
  long line;
  long header_line; /* the header's physical line */
  size_t index;
} gb_csv_record;

/* Called for each data record; an error stops the read and is returned. */
typedef gb_err (*gb_csv_record_fn)(void *ctx, const gb_csv_record *rec);

/* Reads path with every check of gb_csv_read_file, but hands each data
 * record to fn as it is parsed and keeps none of them: memory stays that
 * of one record, whatever the file's size. *out then holds the header only
 * (nrows 0; gb_csv_col and gb_csv_header work); on error it is empty. */
gb_err gb_csv_stream_file(const char *path, gb_csv_table *out, gb_csv_record_fn fn, void *ctx);

/* Same, from memory (tests and fuzzing). */
gb_err gb_csv_stream_mem(const char *name, const char *data, size_t len, gb_csv_table *out, gb_csv_record_fn fn,
                         void *ctx);

/* Same, from memory; name is used in messages. */
gb_err gb_csv_read_mem(const char *name, const char *data, size_t len, gb_csv_table *out);

void gb_csv_free(gb_csv_table *t);

/* How much of data to keep when its end may have been cut short by a kill
 * in the middle of a write(): the longest prefix that ends at a record
 * boundary (just after a line end outside quotes; 0 when there is none).
 * What follows it -- a last line without its line end, or one cut inside a
 * quoted field that holds a newline -- is the torn record. Malformed CSV
 * (which a cut cannot produce) keeps all of len. */
size_t gb_csv_complete_prefix(const char *data, size_t len);

/* Column index of a header name, or -1. */
int gb_csv_col(const gb_csv_table *t, const char *name);

/* Header name of column c. */
const char *gb_csv_header(const gb_csv_table *t, size_t c);

/* Cell text of data row r (0-based) in column c; "" when c < 0. The first
 * access to a row walks its cells once (linear in the row's length); later
 * ones in the same row are direct. */
const char *gb_csv_cell(const gb_csv_table *t, size_t r, int c);

/* Physical line a data row starts on (1-based). */
long gb_csv_line(const gb_csv_table *t, size_t r);

/* True when s[0..n) is valid UTF-8 (no overlong forms, surrogates or code
 * points above U+10FFFF); otherwise false with *bad the offset of the first
 * byte that is not. */
bool gb_utf8_valid(const char *s, size_t n, size_t *bad);

/* A growable byte buffer. */
typedef struct gb_buf {
  char *data;
  size_t len, cap;
} gb_buf;

/* Room in b for n more bytes and the NUL after them (grows by doubling). */
gb_err gb_buf_reserve(gb_buf *b, size_t n);

/* s[0..n) onto b, NUL-terminated; inline, as callers that build keys per
 * row append a few bytes at a time and b mostly has room already. */
static inline gb_err gb_buf_append(gb_buf *b, const char *s, size_t n) {
  if (b->len + n + 1 > b->cap) {
    gb_err e = gb_buf_reserve(b, n);
    if (e) return e;
  }
  if (n) memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = '\0';
  return GB_OK;
}

gb_err gb_buf_puts(gb_buf *b, const char *s);
gb_err gb_buf_printf(gb_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void gb_buf_free(gb_buf *b);

/* Whether a CSV field needs the formula guard: it starts with = + - @ tab
 * or CR and is not a plain number ("-1.5", "+3e4"), or it is such a field
 * already prefixed with single quotes ("'=x", "'-1"): the reader
 * (gb_csv_read_*) strips one leading quote from exactly these, so every
 * field reads back as it was written. */
bool gb_csv_formula_risk(const char *s);

/* Appends one CSV field to b, quoted through libcsv only when it must be
 * (comma, quote, CR, LF or surrounding blanks); sep != 0 is written first.
 * Bytes that are not valid UTF-8 are written as U+FFFD, so that the reader
 * (which refuses them) reads back every field written. A field that would
 * start a spreadsheet formula (= + - @ tab CR, not a plain number: see
 * gb_csv_formula_risk below) gets a single quote first (OWASP);
 * the reader strips it again. */
gb_err gb_csv_put_field(gb_buf *b, const char *field, char sep);

/* Appends a number field (C locale, round-trip precision; NaN = empty). */
gb_err gb_csv_put_double(gb_buf *b, double v, char sep);

/* Writes all of buf to path atomically (an exclusive temporary file in the
 * same directory, synced and renamed: core/gb_output.h); on failure or
 * SIGINT/SIGTERM path is as it was (absent, or its old content) and no
 * temp file is left. Through a symbolic link at path the file it names is
 * replaced. A device or pipe (/dev/stdout, a FIFO) is written in place; a
 * directory is an error. */
gb_err gb_write_file_atomic(const char *path, const char *data, size_t len);

#endif
