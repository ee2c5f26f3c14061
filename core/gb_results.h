/* gb_results: the results CSV of ../shared/results-schema.md (version 1).
 *
 * One row per measured point and metric. The writer appends whole cases and
 * syncs them to disk, so a kill loses at most the case in flight and leaves a
 * file that parses; the reader validates every field and names file:line:column
 * on bad input. Readers find columns by name and ignore unknown ones. */
#ifndef GB_RESULTS_H
#define GB_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gb_csv.h"
#include "gb_error.h"

#define GB_SCHEMA_VERSION 1
#define GB_NA INT64_MIN /* an empty integer field */

typedef enum gb_status {
  GB_STATUS_OK = 0,
  GB_STATUS_INVALID,   /* the result check failed */
  GB_STATUS_ERROR,     /* the case could not run */
  GB_STATUS_THROTTLED, /* ran, but clocks were held down by power or heat */
  GB_STATUS_UNSUPPORTED /* this device (or its library) cannot run the case: no measurement, no failure */
} gb_status;

#define GB_STATUS_COUNT 5

const char *gb_status_name(gb_status s);
bool gb_status_parse(const char *s, gb_status *out);

/* One results row. Strings are borrowed (the writer copies them out at once;
 * rows from the reader point into their table, or into the string pool of
 * the lean reader). Empty integers are GB_NA,
 * empty doubles NaN, an absent rep -1. */
typedef struct gb_row {
  const char *run_id, *timestamp, *host, *gpu_type, *gpu_name, *driver, *cuda;
  int gpu_count;
  const char *benchmark, *case_name, *dtype;
  int64_t m, n, k, bytes;
  const char *metric, *unit;
  double value;
  int64_t samples;
  double min, max, stddev;
  gb_status status;
  const char *detail;
  double sm_clock_mhz, mem_clock_mhz, temp_c, power_w;
  int rep;
  const char *variant;
  double peak;
  const char *git_sha;
  const char *cublaslt, *nvrtc, *nccl; /* library versions of the run ("" where unknown or not recorded) */
  const char *settings; /* the run's non-default measurement settings ("warmup=5,gemm.timing=pairs");
                         * "" for the defaults. Part of the row's identity. */
  /* typed columns for what readers need (docs/results-schema.md); detail is for people only */
  int64_t l2_bytes;     /* membw: the device's L2 size, bytes (GB_NA: not recorded) */
  const char *regime;   /* membw: where the working set lives: "l2", "transition", "hbm", "hbm-cold" ("": not recorded) */
  int headline;         /* 1: the row holds its benchmark's headline figure by gb_desc's rule; 0: it does
                         * not (empty in a file that has the column); -1: the file has no headline column */
  const char *profile;  /* the campaign's profile, "quick" or "full" ("" where not recorded) */
  const char *gpu_uuid; /* the measured GPU's UUID ("GPU-..."; "" where not recorded): the gate's
                         * noise floor tells one card's run-to-run noise from card-to-card offsets */
  int64_t groups;       /* gemm: the products of one grouped GEMM (the experts; GB_NA: not grouped) */
  const char *campaign; /* the fleet campaign the row belongs to (GPUBENCH_CAMPAIGN; "" where none) */
  /* energy over the row's timed window(s) from the board's energy counter (core/gb_energy.h):
   * power = energy_j / energy_s (gb_row_energy_power_w). NaN where none: energy_note says why
   * ("" in older files and where nothing was timed). power_w above is the driver's 1-s
   * average: telemetry, never a window's power. */
  double energy_j, energy_s;
  const char *energy_note;
  double power_instant_w; /* median instantaneous board power in the window (NaN: not read) */
  /* where a read row came from (not written) */
  const char *file;
  long line;
} gb_row;

/* A row with every optional field empty (NaN, GB_NA, "", rep and headline -1). */
gb_row gb_row_empty(void);

/* The identity of a measured case, used by --resume: benchmark, case, dtype,
 * m, n, k, bytes, gpu_count, rep and settings, '|'-joined. With with_metric,
 * the metric is appended too; a row with a group count ends in "|groups=G". */
void gb_row_case_key(const gb_row *r, bool with_metric, char *buf, size_t n);

/* ---- reading ---- */

typedef struct gb_results {
  size_t nrows;
  gb_row *rows;
  size_t rows_cap;
  size_t ntables;
  gb_csv_table *tables;    /* owns the text the rows of gb_results_read point into */
  struct gb_strpool *pool; /* owns the strings of gb_results_read_lean's rows */
} gb_results;

/* Reads and validates one results file and appends its rows to *res (which
 * starts zeroed). On error nothing is appended and gb_errmsg() names
 * file:line:column. */
gb_err gb_results_read(const char *path, gb_results *res);

/* Reads path as gb_results_read does (the same checks, messages and
 * all-or-nothing contract), streaming: no copy of the file is kept, each
 * distinct string is stored once, and the detail of rows with status ok
 * is dropped (""): memory is the rows (~300 bytes each) whatever the
 * size of their text. For the readers of many runs (report, compare,
 * history, plan), which show detail only for rows that are not ok. */
gb_err gb_results_read_lean(const char *path, gb_results *res);

/* gb_results_read_lean for the commands that analyze results (compare,
 * report, history, plan --measured): a file with a header and no rows --
 * a campaign that wrote nothing -- is bad input there, GB_E_INPUT
 * "PATH: a header and no rows: no results in it", not an empty result. */
gb_err gb_results_read_input(const char *path, gb_results *res);

/* Same, from memory (tests and fuzzing). */
gb_err gb_results_read_lean_mem(const char *name, const char *data, size_t len, gb_results *res);

/* Same, from memory (tests and fuzzing). */
gb_err gb_results_read_mem(const char *name, const char *data, size_t len, gb_results *res);

void gb_results_free(gb_results *res);

/* ---- the columns, for other stores of the same rows (store/) ---- */

typedef enum gb_col_type { GB_COL_TEXT, GB_COL_INT, GB_COL_REAL } gb_col_type;

/* The columns in the order written, "schema" first (index 0). */
size_t gb_results_ncols(void);
const char *gb_results_col_name(size_t i);
gb_col_type gb_results_col_type(size_t i);

/* Column i of r as its field text, unquoted ("" for an empty field): a
 * string column's own text, a number written into num as a file holds it;
 * headline is "1", "0", or "" when not recorded (-1). */
const char *gb_results_field(const gb_row *r, size_t i, char num[64]);

/* A row from its fields' text, field[i] for column i (NULL: the column is
 * absent; field[0], the schema, is not checked), validated as a file's row
 * is; a bad field is GB_E_INPUT naming name:line and the column. Strings
 * point into field. */
gb_err gb_results_parse_fields(const char *name, long line, const char *const *field, gb_row *out);

/* A number column's value already read (a store's typed column): set, and
 * i (an integer column: gb_results_col_type GB_COL_INT) or d (GB_COL_REAL). */
typedef struct gb_field_num {
  bool set;
  int64_t i;
  double d;
} gb_field_num;

/* gb_results_parse_fields where num (may be NULL) gives some columns as
 * numbers (num[i].set; field[i] is then not read), checked as their text
 * would be: no printing and parsing of numbers the store holds as such. */
gb_err gb_results_parse_typed(const char *name, long line, const char *const *field, const gb_field_num *num,
                              gb_row *out);

/* Appends a copy of r to res (strings interned as gb_results_read_lean
 * does; with lean, an ok row's detail is dropped as it does). */
gb_err gb_results_add_row(gb_results *res, const gb_row *r, bool lean);

/* ---- writing ---- */

typedef struct gb_results_writer {
  char *path;
  int fd;
  gb_buf pending;          /* rows of the case in flight */
  size_t pending_rows;
  size_t written;          /* rows committed so far by this writer */
  int64_t committed_bytes; /* file length at the last commit */
  char *marker_path;       /* path.committed */
  int marker_fd;           /* -1 when there is no marker */
  int *cols;               /* appending to an existing file: per column of its header, the writer's column
                            * (index into the header gb_results_put_header writes) or -1 for one it does not
                            * know (written empty); NULL: the writer's own order */
  size_t ncols;
  char missing[256];       /* the writer's columns that existing file lacks (not recorded), space-separated */
} gb_results_writer;

/* Opens path for appending results. A missing or empty file gets the header;
 * an existing one must be a valid results file, and rows are then written in
 * its columns (found by name: one the writer lacks stays empty, one the file
 * lacks is left out and named in w->missing), so that a file begun by an
 * older gpubench stays a valid CSV when a newer one resumes it. What a killed writer left
 * unfinished is cut off first: back to its last commit when its marker file
 * path.committed agrees (see below); without one, only a last line that
 * lacks its line end (a record cut inside a quoted field that holds a
 * newline is then reported by the reader, naming the line, and left).
 *
 * While open, path.committed records the committed length and the size of
 * the commit in flight, so that a kill inside a write() of several pages --
 * which the kernel may stop between pages -- never leaves part of a case
 * that a resume would take for finished. gb_writer_close removes it; one
 * left beside a results file marks a killed campaign.
 *
 * One writer at a time: an exclusive flock() on path is taken before
 * anything is cut or written and held until gb_writer_close (or the
 * process's end). A second writer is refused at once (GB_E_IO) with a
 * message naming path and the holder's pid, read from its marker, which
 * records it. A failed commit cuts back only this writer's own bytes.
 *
 * Fails before any measurement if path cannot be written. "-" writes to
 * standard output (no marker, no lock). */
gb_err gb_writer_open(gb_results_writer *w, const char *path);

/* Whether rows written through w keep column (always, unless w appends to
 * an older file that lacks it). */
bool gb_writer_records(const gb_results_writer *w, const char *column);

/* Queues one row; nothing reaches the file before gb_writer_commit. */
gb_err gb_writer_add(gb_results_writer *w, const gb_row *r);

/* Writes the queued rows with one write(), syncs them to disk and then
 * moves the marker past them. On a failed write (a full disk) the partial
 * rows are cut back out: the file ends at the last commit. */
gb_err gb_writer_commit(gb_results_writer *w);

/* Drops the queued rows (the case in flight) and closes the file. */
gb_err gb_writer_close(gb_results_writer *w);

/* Appends the header line to b (the column order every writer uses). */
gb_err gb_results_put_header(gb_buf *b);

/* Appends one row as a CSV line to b. */
gb_err gb_results_put_row(gb_buf *b, const gb_row *r);

#endif
