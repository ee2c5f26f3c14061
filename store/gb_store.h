/* gb_store: the results store. The rows of the results CSV
 * (docs/results-schema.md) in a database, SQLite (one file, WAL mode: the
 * default) or PostgreSQL (a team's server), with one schema for both
 * (docs/store.md): gb_runs (one row per run_id: its campaign, host, GPU,
 * versions, build, profile, start, whether it finished) and gb_rows (every
 * column of the results format, keyed by run and figure + rep), and
 * gb_meta, which holds the schema version.
 *
 * A store is named by a URL: "postgresql://..." or "postgres://..." (a libpq
 * URI) or "pg:CONNINFO" ("pg:service=gpubench") for PostgreSQL; "sqlite:PATH"
 * or a plain PATH for SQLite. Credentials come from the URL, the environment
 * (PGPASSWORD, PGSERVICE, ...) or libpq's service and password files; no
 * message ever holds a password (gb_store_mask).
 *
 * Readers take a selection, "KEY=VALUE,KEY=VALUE" (or "all"): campaign, run,
 * host, gpu_type, build (git_sha), since and until (the run's start, ISO
 * 8601 in UTC, until exclusive), benchmark, case, dtype, metric, m, n, k,
 * bytes, before=CAMPAIGN (runs started before that campaign) and last=N (the
 * N newest campaigns the other keys allow). A value holding a comma or
 * starting with a quote is written quoted, "a,b", a quote inside it twice
 * (gb_store_sel_quote). It is parsed strictly: an empty selection or part, a
 * key that is not one, a time that is not a real one, a number key that is
 * not a whole number, is GB_E_USAGE naming the part; a selection that
 * matches no row is GB_E_INPUT ("selected nothing"), in every reader. Only
 * the selected rows leave the engine.
 *
 * Library code: returns gb_err with gb_errmsg() set, never prints. */
#ifndef GB_STORE_H
#define GB_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "gb_results.h"

/* The schema version this gpubench writes; an older store is upgraded to it
 * when opened, a newer one refused. */
#define GB_STORE_VERSION 7

typedef struct gb_store gb_store;

/* Opens (creating a missing SQLite file, and the tables of an empty
 * database) and upgrades the store at url. */
gb_err gb_store_open(const char *url, gb_store **out);

/* Same, upgrading no further than version (tests of the migrations). */
gb_err gb_store_open_at(const char *url, int version, gb_store **out);

/* Opens the store at url for reading only: a reader's connection
 * (SQLite: read-only, no journal mode set, a missing file is not created;
 * a store in a folder this user cannot write is read as immutable) in one
 * snapshot held until gb_store_close (SQLite's read transaction,
 * PostgreSQL's REPEATABLE READ READ ONLY), so every selection read through
 * it sees the same rows and no writer is waited for. An older store is
 * upgraded first through a writer's connection. */
gb_err gb_store_open_read(const char *url, gb_store **out);

void gb_store_close(gb_store *s);

/* "sqlite" or "postgresql". */
const char *gb_store_engine(const gb_store *s);

/* The schema version of the open store. */
int gb_store_version(const gb_store *s);

/* ---- URLs and secrets (gb_store_url.c) ---- */

typedef enum { GB_STORE_SQLITE, GB_STORE_PG } gb_store_kind;

/* The engine url names and what it connects to (a libpq conninfo or URI, a
 * SQLite path). postgresql://, postgres:// and pg: are PostgreSQL, sqlite:
 * and a bare PATH SQLite; a bare PATH that could be a misspelt URL (a
 * scheme such as "postgres:" or "postgresq:", "//", "@", "?", or a keyword
 * string "host=...") is GB_E_USAGE, never a new SQLite file of that name. */
gb_err gb_store_url_parse(const char *url, gb_store_kind *kind, const char **target);
gb_err gb_store_url_check(const char *url);

/* The store's name for messages, every secret masked ("***"), into buf:
 * a SQLite URL as given, a PostgreSQL one as the keyword string libpq
 * parses from it (PQconninfoParse; "pg:(...not shown)" when it does not
 * parse). */
void gb_store_mask(const char *url, char *buf, size_t n);

/* The file of the SQLite store url names; NULL for PostgreSQL. */
const char *gb_store_sqlite_path(const char *url);

/* The output-path guard of a command that takes --store url (NULL: none;
 * core/gb_output.h gb_output_guard): outs against ins and the store's
 * files (a SQLite file, its -wal and -shm), so that no output path
 * replaces the database with text; with writes (import, run --store) the
 * store's files are outputs too (never an input, never another output).
 * Standard output that is one of the store's files is refused as well.
 * GB_E_USAGE naming both paths. */
gb_err gb_store_guard(const char *url, bool writes, const char *const outs[], size_t nout, const char *const ins[],
                      size_t nin, unsigned flags);

/* The same for an output directory (gb_output_check_dir: report --out,
 * history --plot): the directory is not a file of the store, and none of
 * ins and the store's files lies in it with a name ending in suffixes. */
gb_err gb_store_guard_dir(const char *url, const char *dir, const char *const suffixes[], const char *const ins[],
                          size_t nin);

/* text (a message of libpq, say) onto out with every secret of url masked:
 * each value libpq parses from url under a secret key (password,
 * sslpassword), PGPASSWORD, and url's own text; when libpq does not parse
 * url, everything between the text's first and last double quote. */
gb_err gb_store_redact(const char *url, const char *text, gb_buf *out);

/* ---- a server that does not answer (gb_store_url.c keeps the value) ---- */

/* The longest, in seconds, a PostgreSQL store may take to connect and to
 * answer each statement (a query, a COPY): libpq's connect_timeout, the
 * client's own deadline on every wait for the server (nonblocking libpq
 * and poll, so a server that accepts and then goes silent, at connect or
 * mid-COPY, cannot hold a command), the server's statement_timeout, TCP
 * keepalives (idle 10 s, every 5 s, 3 lost) and tcp_user_timeout. The
 * default, GB_STORE_TIMEOUT_S, is set for the whole process by
 * --store-timeout. */
#define GB_STORE_TIMEOUT_S 60
void gb_store_set_timeout(double seconds);
double gb_store_timeout(void);

/* gb_opt setters of every command's --store and --store-timeout: a URL
 * gb_store_url_check refuses, and a timeout that is not a number of
 * seconds in [1, 86400], are usage errors at once, before anything else
 * runs (no GPU is touched, no file created). */
struct gb_opt;
int gb_store_opt_url(void *args, const struct gb_opt *o, const char *val, char *err, size_t errlen);
int gb_store_opt_timeout(void *args, const struct gb_opt *o, const char *val, char *err, size_t errlen);
#define GB_STORE_TIMEOUT_OPT                                                                                    \
  {"store-timeout", 0, "SECONDS", "with a PostgreSQL --store: the longest to wait for it to\nconnect and for "    \
   "each statement's answer (default 60)", GB_OPT_CALL, .set = gb_store_opt_timeout, .group = "Store"}

/* Where the open store is, for the line every writer prints: "SQLite file
 * /abs/path (new)" or "PostgreSQL database D on HOST:PORT as USER". */
const char *gb_store_where(const gb_store *s);

/* ---- writing ---- */

typedef struct gb_store_counts {
  size_t rows_added, rows_present; /* rows written, and rows the store already held (skipped) */
  size_t runs_added;
  size_t runs_completed; /* runs stored unfinished that these rows, of a finished run, marked finished */
} gb_store_counts;

/* Adds rows (of one or several runs) in one transaction: each run they
 * name is registered (campaign: its campaign, NULL: the run_id; complete:
 * whether the run finished) unless the store holds it already. A run held
 * already keeps its campaign: another campaign given is GB_E_INPUT naming
 * both, and nothing is added (NULL keeps it); with complete, a run held
 * unfinished is marked finished (counts->runs_completed). Each row
 * is added unless the store holds a row of the same run, host, GPU, figure
 * (benchmark, case, dtype, m, n, k, bytes, gpu_count, settings, variant,
 * metric) and rep, so adding the same rows twice adds nothing. counts may
 * be NULL; otherwise it is added to. */
gb_err gb_store_add(gb_store *s, const gb_row *rows, size_t n, const char *campaign, bool complete,
                    gb_store_counts *counts);

/* Imports a results file (validated as every reader does): gb_store_add of
 * all its rows; a file with a PATH.committed marker beside it (a campaign
 * that was killed) is imported as incomplete. */
gb_err gb_store_import(gb_store *s, const char *path, const char *campaign, gb_store_counts *counts);

/* Marks run_id finished (complete) or not. */
gb_err gb_store_run_mark(gb_store *s, const char *run_id, bool complete);

/* ---- a campaign's rows as they are measured (run --store) ---- */

typedef struct gb_store_sink gb_store_sink;

/* Opens the store at url for one campaign's rows. */
gb_err gb_store_sink_open(const char *url, gb_store_sink **out);

/* gb_store_where of the sink's store (run says it before it measures). */
const char *gb_store_sink_where(const gb_store_sink *k);

/* Queues a row of the case being written (ctx: the sink). */
gb_err gb_store_sink_row(void *ctx, const gb_row *r);

/* Adds the queued rows in one transaction, their run registered as
 * unfinished (the rows' campaign column names its campaign; empty: the
 * run_id); call it once the case's rows are in the results file. */
gb_err gb_store_sink_commit(void *ctx);

/* Adds what is queued and closes the sink; finished: the campaign ended
 * normally, so its run is marked finished (complete). NULL is a no-op. */
gb_err gb_store_sink_close(gb_store_sink *k, bool finished);

/* ---- reading ---- */

/* value as a selection's value: as it is, or quoted ("a,b", a quote
 * inside written twice) when it is empty, holds a comma or starts with a
 * quote; KEY= and it select exactly value. */
gb_err gb_store_sel_quote(const char *value, gb_buf *out);

/* Appends the rows of the selection sel to res as gb_results_read_lean
 * would (strings interned, ok rows' detail dropped), in the order they were
 * added; a selection that matches no row is GB_E_INPUT naming it. Each row's
 * file is "sel", its line the row's number in the store. */
gb_err gb_store_read(gb_store *s, const char *sel, gb_results *res);

/* Calls fn on each selected row, in the order they were added, holding only
 * that row (every column, detail too); fn's error stops it. Sets *n to the
 * rows seen. */
typedef gb_err (*gb_store_row_fn)(void *ctx, const gb_row *r);
gb_err gb_store_each(gb_store *s, const char *sel, gb_store_row_fn fn, void *ctx, size_t *n);

/* Writes the selection to out as a results CSV (the header, then
 * gb_results_put_row of every row): a file every reader takes. A selection
 * that matches no row writes nothing and is GB_E_INPUT, as in
 * gb_store_read. */
gb_err gb_store_write_csv(gb_store *s, const char *sel, FILE *out, size_t *n);

/* Opens url, reads each selection into res (appending) and closes it: what
 * a command that reads files does with --store. */
gb_err gb_store_read_url(const char *url, char *const *sels, size_t nsels, gb_results *res);

/* Writes each selection of the store at url to a results file of its own
 * (t->path[i], "NN-SELECTION.csv") in a new folder under TMPDIR (or /tmp):
 * what report and plan, which read files, take with --store. A selection
 * that matches no row is GB_E_INPUT naming it. gb_store_tmp_free removes
 * the files and the folder (also after a failure). */
typedef struct gb_store_tmp {
  char dir[4096];
  char **path;
  size_t n;
} gb_store_tmp;
gb_err gb_store_export_tmp(const char *url, const char *const *sels, size_t n, gb_store_tmp *t);
void gb_store_tmp_free(gb_store_tmp *t);

/* ---- what history and compare find, recorded (gb_store_record.c) ---- */

/* A change point or drift of one node's figure (history --record). Strings
 * are borrowed; NaN numbers are stored as NULL. */
typedef struct gb_store_change {
  const char *kind;                  /* "change" or "drift" */
  const char *host, *gpu_type;
  const char *figure;                /* gb_gate_key_label: GPU type and count, benchmark, case, dtype, shape, metric */
  const char *benchmark, *case_name, *dtype, *metric, *unit;
  int64_t gpu_count, m, n, k, bytes;  /* GB_NA: none (NULL) */
  bool headline;                     /* a headline figure (gb_desc_class) */
  const char *run_before, *run_after; /* a change: the runs either side; a drift: its first and last run */
  const char *at_before, *at_after;  /* their times (ISO 8601 UTC) */
  size_t points;                     /* the series' points */
  const char *direction;             /* "worse", "better", "changed" */
  double p_value, mean_before, mean_after, change_pct; /* a drift: its line's start and end, change over the series */
  const char *env;                   /* the environment change at the point ("" none) */
} gb_store_change;

/* A judged figure's verdict of a stored run (compare --record). */
typedef struct gb_store_verdict {
  const char *run_id, *host, *gpu_type, *figure;
  const char *benchmark, *case_name, *dtype, *metric, *unit;
  int64_t gpu_count, m, n, k, bytes;  /* GB_NA: none (NULL) */
  bool headline, fails;
  const char *verdict;               /* gb_verdict_name */
  double change_pct, ratio, threshold_pct, p_value, base_median, cur_median;
} gb_store_verdict;

/* Adds the n changes in one transaction, each unless the store holds it
 * (one per host, figure, kind, run before and run after): a second call
 * with the same changes adds nothing. *added: those written. */
gb_err gb_store_record_changes(gb_store *s, const gb_store_change *c, size_t n, size_t *added);

/* Adds the n verdicts in one transaction, each unless the store holds one
 * of its run and figure; a verdict of a run the store does not hold is
 * GB_E_INPUT naming it, and nothing is added. *added: those written. */
gb_err gb_store_record_verdicts(gb_store *s, const gb_store_verdict *v, size_t n, size_t *added);

/* What was recorded, read back (the trend report). fn's error stops it;
 * the strings are the callback's for its call only; shapes are GB_NA.
 * gb_store_each_change: each change and drift of a headline figure whose
 * run after lies at or after since (ISO 8601 UTC), newest first.
 * gb_store_each_verdict: each verdict of campaign's runs, headline
 * figures first, failing ones first, then by node and figure. */
typedef gb_err (*gb_store_change_fn)(void *ctx, const gb_store_change *c);
gb_err gb_store_each_change(gb_store *s, const char *since, gb_store_change_fn fn, void *ctx);
typedef gb_err (*gb_store_verdict_fn)(void *ctx, const gb_store_verdict *v);
gb_err gb_store_each_verdict(gb_store *s, const char *campaign, gb_store_verdict_fn fn, void *ctx);

/* Each stored run (run_id, campaign, host, start), by run_id. */
typedef gb_err (*gb_store_run_fn)(void *ctx, const char *run_id, const char *campaign, const char *host,
                                  const char *started);
gb_err gb_store_each_run(gb_store *s, gb_store_run_fn fn, void *ctx);

/* The hosts of the store's runs, sorted, into *hosts (malloc'd, each
 * malloc'd; gb_store_strs_free). */
gb_err gb_store_hosts(gb_store *s, char ***hosts, size_t *n);
void gb_store_strs_free(char **v, size_t n);

#endif
