/* gb_csv: libcsv-based table reader with line tracking, and field writers. */
#include "gb_csv.h"

#include <csv.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gb_input.h"
#include "gb_num.h"

/* ---- growable buffer ---- */

gb_err gb_buf_reserve(gb_buf *b, size_t n) {
  if (b->len + n + 1 <= b->cap) return GB_OK;
  if (n > SIZE_MAX - 1 - b->len) return gb_fail(GB_E_NOMEM, "buffer too large");
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->len + n + 1) {
    if (cap > SIZE_MAX / 2) return gb_fail(GB_E_NOMEM, "buffer too large");
    cap *= 2;
  }
  char *p = realloc(b->data, cap);
  if (!p) return gb_fail(GB_E_NOMEM, "out of memory growing a buffer to %zu bytes", cap);
  b->data = p;
  b->cap = cap;
  return GB_OK;
}

gb_err gb_buf_puts(gb_buf *b, const char *s) { return gb_buf_append(b, s, strlen(s)); }

gb_err gb_buf_printf(gb_buf *b, const char *fmt, ...) {
  char small[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n < 0) return gb_fail(GB_E_INTERNAL, "format error");
  if ((size_t)n < sizeof small) return gb_buf_append(b, small, (size_t)n);
  char *big = malloc((size_t)n + 1);
  if (!big) return gb_fail(GB_E_NOMEM, "out of memory formatting text");
  va_start(ap, fmt);
  vsnprintf(big, (size_t)n + 1, fmt, ap);
  va_end(ap);
  gb_err e = gb_buf_append(b, big, (size_t)n);
  free(big);
  return e;
}

void gb_buf_free(gb_buf *b) {
  free(b->data);
  b->data = NULL;
  b->len = b->cap = 0;
}

/* ---- field writing ---- */

static bool needs_quotes(const char *s) {
  size_t n = strlen(s);
  if (n == 0) return false;
  if (s[0] == ' ' || s[0] == '\t' || s[n - 1] == ' ' || s[n - 1] == '\t') return true;
  return strpbrk(s, ",\"\r\n") != NULL;
}

/* A copy of s in which every byte that is not part of valid UTF-8 is
 * replaced by U+FFFD (malloc'd), so that the reader, which refuses invalid
 * UTF-8, reads back whatever was written. */
static char *utf8_repaired(const char *s, size_t n, size_t *out_n) {
  gb_buf b = {0};
  size_t pos = 0, bad;
  while (!gb_utf8_valid(s + pos, n - pos, &bad)) {
    if (gb_buf_append(&b, s + pos, bad) || gb_buf_append(&b, "\xEF\xBF\xBD", 3)) {
      gb_buf_free(&b);
      return NULL;
    }
    pos += bad + 1;
  }
  if (gb_buf_append(&b, s + pos, n - pos)) {
    gb_buf_free(&b);
    return NULL;
  }
  *out_n = b.len;
  return b.data;
}

/* A plain decimal number: [+-]digits[.digits][(e|E)[+-]digits]. */
static bool plain_number(const char *s) {
  if (*s == '+' || *s == '-') s++;
  bool digits = false;
  while (*s >= '0' && *s <= '9') s++, digits = true;
  if (*s == '.') {
    s++;
    while (*s >= '0' && *s <= '9') s++, digits = true;
  }
  if (!digits) return false;
  if (*s == 'e' || *s == 'E') {
    s++;
    if (*s == '+' || *s == '-') s++;
    if (!(*s >= '0' && *s <= '9')) return false;
    while (*s >= '0' && *s <= '9') s++;
  }
  return *s == '\0';
}

bool gb_csv_formula_risk(const char *s) {
  if (!s) return false;
  const char *t = s;
  while (*t == '\'') t++; /* "'=x" is guarded too, so that reading strips exactly one quote */
  if (*t == '\0' || !strchr("=+-@\t\r", *t)) return false;
  return t != s || !plain_number(t);
}

gb_err gb_csv_put_field(gb_buf *b, const char *field, char sep) {
  gb_err e;
  if (sep && (e = gb_buf_append(b, &sep, 1))) return e;
  if (!field) return GB_OK;
  size_t n = strlen(field), bad;
  char *fixed = NULL;
  if (!gb_utf8_valid(field, n, &bad)) {
    if (!(fixed = utf8_repaired(field, n, &n))) return gb_fail(GB_E_NOMEM, "out of memory writing a CSV field");
    field = fixed;
  }
  /* OWASP: a leading = + - @ tab or CR would make a spreadsheet run a
   * formula; a single quote first keeps it text (the reader strips it) */
  if (gb_csv_formula_risk(field)) {
    char *guarded = malloc(n + 2);
    if (!guarded) {
      free(fixed);
      return gb_fail(GB_E_NOMEM, "out of memory writing a CSV field");
    }
    guarded[0] = '\'';
    memcpy(guarded + 1, field, n + 1);
    free(fixed);
    field = fixed = guarded;
    n++;
  }
  if (!needs_quotes(field)) {
    e = gb_buf_append(b, field, n);
  } else {
    size_t need = csv_write(NULL, 0, field, n);
    char *tmp = malloc(need + 1);
    if (!tmp) {
      free(fixed);
      return gb_fail(GB_E_NOMEM, "out of memory quoting a CSV field");
    }
    csv_write(tmp, need, field, n);
    e = gb_buf_append(b, tmp, need);
    free(tmp);
  }
  free(fixed);
  return e;
}

gb_err gb_csv_put_double(gb_buf *b, double v, char sep) {
  char num[64];
  gb_fmt_double(num, sizeof num, v);
  return gb_csv_put_field(b, num, sep);
}

/* ---- reading ---- */

typedef struct parse_ctx {
  gb_csv_table *t;
  gb_buf arena;
  size_t *rec;       /* offsets of the fields of the record being read */
  size_t rec_n, rec_cap;
  size_t *base;      /* committed records' first-cell offsets */
  size_t base_n, base_cap;
  size_t *hdr;       /* the header's cell offsets */
  long *lines;
  size_t lines_n, lines_cap;
  long line;         /* physical line being fed */
  long rec_line;     /* line the current record started on (0 = none yet) */
  gb_err err;
  /* streaming (gb_csv_stream_file): each data record goes to fn and its text
   * is dropped again; only the header stays in the arena */
  gb_csv_record_fn fn;
  void *fn_ctx;
  size_t hdr_end;           /* arena length after the header */
  const char **cells;       /* ncols pointers handed to fn, then the header's */
  size_t nrec;              /* data records streamed */
} parse_ctx;

bool gb_utf8_valid(const char *text, size_t n, size_t *bad) {
  const unsigned char *s = (const unsigned char *)text;
  size_t i = 0;
  while (i < n) {
    unsigned c = s[i];
    size_t len;
    unsigned min;
    if (c < 0x80) { i++; continue; }
    else if ((c & 0xE0) == 0xC0) { len = 2; min = 0x80; c &= 0x1F; }
    else if ((c & 0xF0) == 0xE0) { len = 3; min = 0x800; c &= 0x0F; }
    else if ((c & 0xF8) == 0xF0) { len = 4; min = 0x10000; c &= 0x07; }
    else { *bad = i; return false; }
    if (i + len > n) { *bad = i; return false; }
    for (size_t j = 1; j < len; j++) {
      if ((s[i + j] & 0xC0) != 0x80) { *bad = i; return false; }
      c = (c << 6) | (s[i + j] & 0x3F);
    }
    if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) { *bad = i; return false; }
    i += len;
  }
  return true;
}

static void on_field(void *s, size_t len, void *data) {
  parse_ctx *c = data;
  if (c->err) return;
  long col = (long)c->rec_n + 1;
  if (len > GB_CSV_MAX_FIELD) {
    c->err = gb_fail(GB_E_INPUT, "%s:%ld:%ld: field of %zu bytes is longer than the %u-byte limit",
                     c->t->name, c->rec_line, col, len, GB_CSV_MAX_FIELD);
    return;
  }
  if (len && memchr(s, '\0', len)) {
    c->err = gb_fail(GB_E_INPUT, "%s:%ld:%ld: field holds a NUL byte", c->t->name, c->rec_line, col);
    return;
  }
  size_t bad;
  if (!gb_utf8_valid(s, len, &bad)) {
    c->err = gb_fail(GB_E_INPUT, "%s:%ld:%ld: field is not valid UTF-8 (byte %zu)", c->t->name,
                     c->rec_line, col, bad + 1);
    return;
  }
  /* the formula guard of gb_csv_put_field: one leading quote goes */
  if (len > 1 && ((const char *)s)[0] == '\'' && gb_csv_formula_risk((const char *)s + 1)) {
    s = (char *)s + 1;
    len--;
  }
  if (c->rec_n == c->rec_cap) {
    size_t cap = c->rec_cap ? c->rec_cap * 2 : 32;
    size_t *p = realloc(c->rec, cap * sizeof *p);
    if (!p) { c->err = gb_fail(GB_E_NOMEM, "out of memory reading %s", c->t->name); return; }
    c->rec = p;
    c->rec_cap = cap;
  }
  c->rec[c->rec_n++] = c->arena.len;
  if ((c->err = gb_buf_append(&c->arena, s ? s : "", s ? len : 0))) return;
  c->err = gb_buf_append(&c->arena, "", 1); /* the cell's terminating NUL */
}

static gb_err push_sizes(size_t **arr, size_t *n, size_t *cap, size_t v) {
  if (*n == *cap) {
    size_t nc = *cap ? *cap * 2 : 1024;
    size_t *p = realloc(*arr, nc * sizeof *p);
    if (!p) return gb_fail(GB_E_NOMEM, "out of memory reading a CSV table");
    *arr = p;
    *cap = nc;
  }
  (*arr)[(*n)++] = v;
  return GB_OK;
}

/* Whether the header (c->rec[0..c->rec_n)) names a column twice: a hash
 * set of the names, linear in the header's size (it was quadratic). On a
 * duplicate, *dup is the index of its second occurrence. */
static gb_err header_duplicate(parse_ctx *c, size_t *dup, bool *found) {
  *found = false;
  size_t cap = 16;
  while (cap < c->rec_n * 2) cap *= 2;
  size_t *slot = calloc(cap, sizeof *slot); /* index + 1; 0 = empty */
  if (!slot) return gb_fail(GB_E_NOMEM, "out of memory reading %s", c->t->name);
  for (size_t i = 0; i < c->rec_n && !*found; i++) {
    const char *h = c->arena.data + c->rec[i];
    uint64_t x = 14695981039346656037ULL;
    for (const unsigned char *q = (const unsigned char *)h; *q; q++) x = (x ^ *q) * 1099511628211ULL;
    for (size_t k = (size_t)x & (cap - 1);; k = (k + 1) & (cap - 1)) {
      if (!slot[k]) {
        slot[k] = i + 1;
        break;
      }
      if (strcmp(c->arena.data + c->rec[slot[k] - 1], h) == 0) {
        *found = true;
        *dup = i;
        break;
      }
    }
  }
  free(slot);
  return GB_OK;
}

static void on_record(int term, void *data) {
  (void)term;
  parse_ctx *c = data;
  if (c->err) return;
  gb_csv_table *t = c->t;
  long line = c->rec_line ? c->rec_line : c->line;
  if (c->lines_n == 0) {
    /* header */
    t->ncols = c->rec_n;
    for (size_t i = 0; i < c->rec_n; i++) {
      const char *h = c->arena.data + c->rec[i];
      if (h[0] == '\0') {
        c->err = gb_fail(GB_E_INPUT, "%s:%ld:%zu: empty column name in the header", t->name, line, i + 1);
        return;
      }
      /* only a BOM at the very start of the file is skipped; one after blank
       * lines (or a second one) would become an invisible part of the name,
       * and the column would then be "missing" */
      if (strncmp(h, "\xEF\xBB\xBF", 3) == 0) {
        c->err = gb_fail(GB_E_INPUT,
                         "%s:%ld:%zu: column name starts with a byte-order mark (U+FEFF) that is not the "
                         "file's first bytes: remove it",
                         t->name, line, i + 1);
        return;
      }
    }
    size_t dup;
    bool found;
    if ((c->err = header_duplicate(c, &dup, &found))) return;
    if (found) {
      c->err = gb_fail(GB_E_INPUT, "%s:%ld:%zu: duplicate column \"%s\" in the header", t->name, line, dup + 1,
                       c->arena.data + c->rec[dup]);
      return;
    }
  } else if (c->rec_n != t->ncols) {
    c->err = gb_fail(GB_E_INPUT, "%s:%ld: %zu fields where the header has %zu", t->name, line,
                     c->rec_n, t->ncols);
    return;
  } else if (c->fn) {
    /* a streamed record: to fn, then its text goes */
    for (size_t i = 0; i < t->ncols; i++) {
      c->cells[i] = c->arena.data + c->rec[i];
      c->cells[t->ncols + i] = c->arena.data + c->hdr[i];
    }
    gb_csv_record rec = {t->name, t->ncols, c->cells + t->ncols, c->cells, line, c->lines[0], c->nrec++};
    c->err = c->fn(c->fn_ctx, &rec);
    c->arena.len = c->hdr_end;
    c->rec_n = 0;
    c->rec_line = 0;
    return;
  }
  if (c->lines_n == 0) {
    c->hdr = malloc((c->rec_n ? c->rec_n : 1) * sizeof *c->hdr);
    if (!c->hdr) { c->err = gb_fail(GB_E_NOMEM, "out of memory reading %s", t->name); return; }
    memcpy(c->hdr, c->rec, c->rec_n * sizeof *c->hdr);
    c->hdr_end = c->arena.len;
    if (c->fn && !(c->cells = malloc((2 * c->rec_n + 1) * sizeof *c->cells))) {
      c->err = gb_fail(GB_E_NOMEM, "out of memory reading %s", t->name);
      return;
    }
  }
  /* cells are consecutive in the arena: the first one's offset finds them all */
  if ((c->err = push_sizes(&c->base, &c->base_n, &c->base_cap, c->rec_n ? c->rec[0] : c->arena.len))) return;
  if (c->lines_n == c->lines_cap) {
    size_t nc = c->lines_cap ? c->lines_cap * 2 : 1024;
    long *p = realloc(c->lines, nc * sizeof *p);
    if (!p) { c->err = gb_fail(GB_E_NOMEM, "out of memory reading %s", t->name); return; }
    c->lines = p;
    c->lines_cap = nc;
  }
  c->lines[c->lines_n++] = line;
  c->rec_n = 0;
  c->rec_line = 0;
}

/* Bytes handed to libcsv per call (see gb_csv_read_mem). */
#define FEED_BYTES ((size_t)64 * 1024)

static bool blank_line(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (s[i] != '\r' && s[i] != '\n') return false;
  return true;
}

/* A table read in pieces: gb_csv_read_mem feeds all of its text at once,
 * gb_csv_read_file a buffer at a time, so that the file's text is never
 * held whole beside the table (the table's arena is the only copy). */
typedef struct csv_reader {
  parse_ctx c;
  struct csv_parser p;
  bool at_line_start;
  bool started; /* the byte-order mark check is done */
} csv_reader;

static gb_err reader_init(csv_reader *r, const char *name, gb_csv_table *out) {
  memset(out, 0, sizeof *out);
  memset(r, 0, sizeof *r);
  out->name = strdup(name ? name : "<memory>");
  if (!out->name) return gb_fail(GB_E_NOMEM, "out of memory");
  r->c.t = out;
  r->at_line_start = true;
  if (csv_init(&r->p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL) != 0) {
    gb_csv_free(out);
    return gb_fail(GB_E_NOMEM, "csv_init failed");
  }
  return GB_OK;
}

static void reader_feed(csv_reader *r, const char *data, size_t len) {
  parse_ctx *c = &r->c;
  if (!r->started && len) {
    r->started = true;
    if (len >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0) {
      data += 3;
      len -= 3;
    }
  }
  size_t pos = 0;
  while (pos < len && !c->err) {
    const char *nl = memchr(data + pos, '\n', len - pos);
    size_t n = nl ? (size_t)(nl - (data + pos)) + 1 : len - pos;
    if (r->at_line_start) c->line++;
    r->at_line_start = nl != NULL;
    if (c->rec_line == 0 && c->rec_n == 0 && !blank_line(data + pos, n)) c->rec_line = c->line;
    /* A line goes to libcsv in pieces of at most FEED_BYTES, so that a field
     * over the limit is refused while it is read (libcsv would otherwise
     * gather all of it first), and libcsv's field buffer grows by doubling
     * (its own step is a fixed 128 bytes: quadratic copying on a long field). */
    for (size_t done = 0; done < n && !c->err;) {
      size_t piece = n - done < FEED_BYTES ? n - done : FEED_BYTES;
      csv_set_blk_size(&r->p, r->p.entry_size < 128 ? 128 : r->p.entry_size);
      if (csv_parse(&r->p, data + pos + done, piece, on_field, on_record, c) != piece && !c->err)
        c->err = gb_fail(GB_E_INPUT, "%s:%ld: malformed CSV (%s): check quotes", c->t->name, c->line,
                         csv_strerror(csv_error(&r->p)));
      if (!c->err && r->p.entry_pos > GB_CSV_MAX_FIELD)
        c->err = gb_fail(GB_E_INPUT, "%s:%ld:%ld: field is longer than the %u-byte limit", c->t->name,
                         c->rec_line ? c->rec_line : c->line, (long)c->rec_n + 1, GB_CSV_MAX_FIELD);
      done += piece;
    }
    pos += n;
  }
}

/* Ends the table (with err: an error met outside the parser, e.g. a read). */
static gb_err reader_finish(csv_reader *r, gb_err err) {
  parse_ctx *c = &r->c;
  gb_csv_table *out = c->t;
  if (!c->err) c->err = err;
  if (!c->err && csv_fini(&r->p, on_field, on_record, c) != 0 && !c->err)
    c->err = gb_fail(GB_E_INPUT, "%s:%ld: malformed CSV at end of file (%s): unterminated quote?", out->name,
                     c->rec_line ? c->rec_line : c->line, csv_strerror(csv_error(&r->p)));
  csv_free(&r->p);
  free(c->rec);
  free(c->cells);
  if (!c->err && c->lines_n == 0)
    c->err = gb_fail(GB_E_INPUT, "%s: empty file: expected a header row", out->name);
  if (c->err) {
    free(c->base);
    free(c->hdr);
    free(c->lines);
    gb_buf_free(&c->arena);
    gb_csv_free(out);
    return c->err;
  }
  /* give back what doubling left unused (the arena may be most of memory) */
  char *arena = c->arena.data ? realloc(c->arena.data, c->arena.len + 1) : NULL;
  out->arena = arena ? arena : c->arena.data ? c->arena.data : calloc(1, 1);
  size_t *base = realloc(c->base, (c->base_n ? c->base_n : 1) * sizeof *base);
  out->base = base ? base : c->base;
  out->hdr = c->hdr;
  out->lines = c->lines;
  out->nrows = c->lines_n - 1;
  out->cache = malloc(sizeof *out->cache);
  if (out->cache) {
    out->cache->row = SIZE_MAX;
    out->cache->offs = malloc((out->ncols ? out->ncols : 1) * sizeof *out->cache->offs);
  }
  if (!out->arena || !out->cache || !out->cache->offs) {
    gb_csv_free(out);
    return gb_fail(GB_E_NOMEM, "out of memory");
  }
  return GB_OK;
}

static gb_err read_mem(const char *name, const char *data, size_t len, gb_csv_table *out, gb_csv_record_fn fn,
                       void *ctx) {
  csv_reader r;
  GB_TRY(reader_init(&r, name, out));
  r.c.fn = fn;
  r.c.fn_ctx = ctx;
  reader_feed(&r, data, len);
  return reader_finish(&r, GB_OK);
}

gb_err gb_csv_read_mem(const char *name, const char *data, size_t len, gb_csv_table *out) {
  return read_mem(name, data, len, out, NULL, NULL);
}

gb_err gb_csv_stream_mem(const char *name, const char *data, size_t len, gb_csv_table *out, gb_csv_record_fn fn,
                         void *ctx) {
  return read_mem(name, data, len, out, fn, ctx);
}

size_t gb_csv_complete_prefix(const char *data, size_t len) {
  struct csv_parser p;
  if (csv_init(&p, CSV_STRICT) != 0) return 0;
  size_t pos = 0, boundary = 0;
  while (pos < len) {
    const char *nl = memchr(data + pos, '\n', len - pos);
    if (!nl) break; /* a last line without its line end is never complete */
    size_t n = (size_t)(nl - (data + pos)) + 1;
    /* in pieces, with a doubling buffer, as gb_csv_read_mem feeds it */
    for (size_t done = 0; done < n && boundary != len;) {
      size_t piece = n - done < FEED_BYTES ? n - done : FEED_BYTES;
      csv_set_blk_size(&p, p.entry_size < 128 ? 128 : p.entry_size);
      /* malformed (a cut never adds a character after a closing quote), or
       * a field over the reader's limit: not a torn tail; keep everything,
       * for the reader to point at */
      if (csv_parse(&p, data + pos + done, piece, NULL, NULL, NULL) != piece || p.entry_pos > GB_CSV_MAX_FIELD)
        boundary = len;
      done += piece;
    }
    if (boundary == len) break;
    pos += n;
    /* after a line end, libcsv holds nothing back unless the line end was
     * inside a quoted field */
    if (!p.quoted && p.entry_pos == 0) boundary = pos;
  }
  csv_free(&p);
  return boundary;
}

/* Bytes read from a file at a time. */
#define READ_BYTES ((size_t)1 << 20)

static gb_err read_file(const char *path, gb_csv_table *out, gb_csv_record_fn fn, void *ctx) {
  memset(out, 0, sizeof *out);
  int fd;
  GB_TRY(gb_input_open(path, false, &fd)); /* non-blocking open; regular files only */
  char *buf = malloc(READ_BYTES);
  if (!buf) {
    close(fd);
    return gb_fail(GB_E_NOMEM, "%s: out of memory", path);
  }
  csv_reader r;
  gb_err e = reader_init(&r, path, out);
  if (e) {
    free(buf);
    close(fd);
    return e;
  }
  r.c.fn = fn;
  r.c.fn_ctx = ctx;
  for (;;) {
    ssize_t got = read(fd, buf, READ_BYTES);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      e = gb_fail(GB_E_IO, "%s: read failed: %s", path, strerror(errno));
      break;
    }
    if (got == 0) break;
    reader_feed(&r, buf, (size_t)got);
    if (r.c.err) break;
  }
  free(buf);
  close(fd);
  return reader_finish(&r, e);
}

gb_err gb_csv_read_file(const char *path, gb_csv_table *out) { return read_file(path, out, NULL, NULL); }

gb_err gb_csv_stream_file(const char *path, gb_csv_table *out, gb_csv_record_fn fn, void *ctx) {
  return read_file(path, out, fn, ctx);
}

void gb_csv_free(gb_csv_table *t) {
  if (!t) return;
  free(t->name);
  free(t->arena);
  free(t->base);
  free(t->hdr);
  free(t->lines);
  if (t->cache) free(t->cache->offs);
  free(t->cache);
  memset(t, 0, sizeof *t);
}

int gb_csv_col(const gb_csv_table *t, const char *name) {
  for (size_t i = 0; i < t->ncols; i++)
    if (strcmp(t->arena + t->hdr[i], name) == 0) return (int)i;
  return -1;
}

const char *gb_csv_header(const gb_csv_table *t, size_t c) { return t->arena + t->hdr[c]; }

const char *gb_csv_cell(const gb_csv_table *t, size_t r, int c) {
  if (c < 0 || (size_t)c >= t->ncols || r >= t->nrows) return "";
  gb_csv_rowcache *k = t->cache;
  if (k->row != r + 1) {
    size_t o = t->base[r + 1];
    for (size_t i = 0; i < t->ncols; i++) {
      k->offs[i] = o;
      o += strlen(t->arena + o) + 1;
    }
    k->row = r + 1;
  }
  return t->arena + k->offs[c];
}

long gb_csv_line(const gb_csv_table *t, size_t r) { return t->lines[r + 1]; }

/* gb_write_file_atomic: core/gb_output.c */
