/* gb_store: opening a store (the URL, the engine), its schema and the
 * migrations that bring an older store up to GB_STORE_VERSION. The top of
 * the store's own files: called by the commands (cli/) and by the readers
 * and writers (gb_store_io.c, gb_store_sink.c, gb_store_tmp.c,
 * gb_store_guard.c); it calls down into the URL (gb_store_url.c), the
 * engines (gb_store_sqlite.c, gb_store_pg.c, through their tables), a row's
 * identity (gb_store_key.c: schema step 5) and the statements' helpers
 * (gb_store_sql.c), and none of them calls back up. */
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_num.h"
#include "gb_store_int.h"

/* Each version's statements; a store at version v is brought to v+1 by
 * step v+1 inside one transaction with the version's update. Only add
 * steps: a released one never changes. Step 1's gb_rows holds the first
 * V1_COLS columns of the results format (all of them at the time); a
 * column the format gains later needs a step that adds it. */
#define V1_COLS 42

static const char *const k_step1[] = {
    "CREATE TABLE gb_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    "INSERT INTO gb_meta (key, value) VALUES ('schema_version', '0')",
    "CREATE TABLE gb_runs (run_id TEXT PRIMARY KEY, campaign TEXT NOT NULL, host TEXT NOT NULL, "
    "gpu_type TEXT NOT NULL, gpu_name TEXT NOT NULL, gpu_uuid TEXT NOT NULL, driver TEXT NOT NULL, "
    "cuda TEXT NOT NULL, git_sha TEXT NOT NULL, profile TEXT NOT NULL, started TEXT NOT NULL)",
    "@rows", /* gb_rows, written from the results format's column table (rows_ddl) */
    "CREATE INDEX gb_rows_figure ON gb_rows (benchmark, metric, \"case\", gpu_type)",
    NULL};
static const char *const k_step2[] = {
    "ALTER TABLE gb_runs ADD COLUMN complete INTEGER NOT NULL DEFAULT 1",
    "CREATE INDEX gb_runs_started ON gb_runs (started)",
    "CREATE INDEX gb_runs_campaign ON gb_runs (campaign, started)",
    NULL};
/* the results format's columns 43 and 44: a grouped GEMM's group count and
 * the fleet campaign id */
static const char *const k_step3[] = {
    "ALTER TABLE gb_rows ADD COLUMN \"groups\" BIGINT",
    "ALTER TABLE gb_rows ADD COLUMN \"campaign\" TEXT",
    NULL};
/* history of one node's figure: the rows of that host and figure, not every
 * node's rows of the figure; a run's rows in the order they were added */
static const char *const k_step4[] = {
    "CREATE INDEX gb_rows_host_figure ON gb_rows (host, benchmark, metric, \"case\")",
    "CREATE INDEX gb_rows_run ON gb_rows (run_id, id)",
    NULL};
/* a row's identity: rkey (gb_store_key.c, collision-free) instead of the
 * 64-bit khash of a '|'-joined key cut at 4 KB, which made distinct rows
 * "already stored"; khash stays, no longer unique. SQLite cannot drop a
 * table's UNIQUE: the table is rebuilt (@rebuild5); PostgreSQL's is
 * dropped by the name it gave it. Existing rows get their key (@rkey5). */
static const char *const k_step5[] = {
    "@pg:ALTER TABLE gb_rows DROP CONSTRAINT IF EXISTS gb_rows_run_id_khash_key",
    "@pg:ALTER TABLE gb_rows ADD COLUMN rkey TEXT",
    "@rebuild5",
    "@rkey5",
    "@pg:ALTER TABLE gb_rows ADD CONSTRAINT gb_rows_run_rkey UNIQUE (run_id, rkey)",
    NULL};
/* the results format's columns 45 to 48: energy over the timed window from
 * the board's energy counter, its wall time, why there is none, and the
 * instantaneous power */
static const char *const k_step6[] = {
    "ALTER TABLE gb_rows ADD COLUMN \"energy_j\" DOUBLE PRECISION",
    "ALTER TABLE gb_rows ADD COLUMN \"energy_s\" DOUBLE PRECISION",
    "ALTER TABLE gb_rows ADD COLUMN \"energy_note\" TEXT",
    "ALTER TABLE gb_rows ADD COLUMN \"power_instant_w\" DOUBLE PRECISION",
    NULL};
/* what history --record and compare --record find (gb_store_record.c):
 * each change point and drift of a node's figure (gb_changes) and each
 * judged figure's verdict of a run (gb_verdicts), each once (the UNIQUE
 * keys), and the latest verdict of each node's headline figure
 * (gb_latest_verdicts: DISTINCT ON in PostgreSQL, a NOT EXISTS in SQLite).
 * "@id:" statements take the engine's row-number type. */
static const char *const k_step7[] = {
    "@id:CREATE TABLE gb_changes (id %s, kind TEXT NOT NULL, host TEXT NOT NULL, gpu_type TEXT NOT NULL, "
    "figure TEXT NOT NULL, benchmark TEXT NOT NULL, \"case\" TEXT NOT NULL, dtype TEXT NOT NULL, "
    "gpu_count BIGINT, m BIGINT, n BIGINT, k BIGINT, bytes BIGINT, "
    "metric TEXT NOT NULL, unit TEXT NOT NULL, headline INTEGER NOT NULL, run_before TEXT NOT NULL, "
    "run_after TEXT NOT NULL, at_before TEXT NOT NULL, at_after TEXT NOT NULL, points BIGINT NOT NULL, "
    "direction TEXT NOT NULL, p_value DOUBLE PRECISION, mean_before DOUBLE PRECISION, mean_after DOUBLE PRECISION, "
    "change_pct DOUBLE PRECISION, env TEXT NOT NULL, UNIQUE (host, figure, kind, run_before, run_after))",
    "CREATE INDEX gb_changes_at ON gb_changes (at_after)",
    "CREATE INDEX gb_changes_figure ON gb_changes (benchmark, metric, \"case\", host, at_after)",
    "@id:CREATE TABLE gb_verdicts (id %s, run_id TEXT NOT NULL, campaign TEXT NOT NULL, started TEXT NOT NULL, "
    "host TEXT NOT NULL, gpu_type TEXT NOT NULL, figure TEXT NOT NULL, benchmark TEXT NOT NULL, "
    "\"case\" TEXT NOT NULL, dtype TEXT NOT NULL, gpu_count BIGINT, m BIGINT, n BIGINT, k BIGINT, bytes BIGINT, "
    "metric TEXT NOT NULL, unit TEXT NOT NULL, "
    "headline INTEGER NOT NULL, verdict TEXT NOT NULL, fails INTEGER NOT NULL, change_pct DOUBLE PRECISION, "
    "ratio DOUBLE PRECISION, threshold_pct DOUBLE PRECISION, p_value DOUBLE PRECISION, "
    "base_median DOUBLE PRECISION, cur_median DOUBLE PRECISION, UNIQUE (run_id, figure))",
    "CREATE INDEX gb_verdicts_node ON gb_verdicts (host, figure, started)",
    "CREATE INDEX gb_verdicts_campaign ON gb_verdicts (campaign, host)",
    "CREATE INDEX gb_verdicts_started ON gb_verdicts (started)",
    "CREATE INDEX gb_runs_host ON gb_runs (host, started)", /* one node's runs: a drill-down's environment changes */
    "@pg:CREATE VIEW gb_latest_verdicts AS SELECT DISTINCT ON (host, figure) * FROM gb_verdicts "
    "WHERE headline = 1 ORDER BY host, figure, started DESC, id DESC",
    "@sqlite:CREATE VIEW gb_latest_verdicts AS SELECT v.* FROM gb_verdicts v WHERE v.headline = 1 AND NOT EXISTS "
    "(SELECT 1 FROM gb_verdicts w WHERE w.headline = 1 AND w.host = v.host AND w.figure = v.figure AND "
    "(w.started > v.started OR (w.started = v.started AND w.id > v.id)))",
    NULL};
static const char *const *const k_steps[GB_STORE_VERSION] = {k_step1, k_step2, k_step3, k_step4, k_step5, k_step6,
                                                             k_step7};

/* The engine and what it connects to, from the URL. */
static gb_err engine_of(const char *url, const gb_store_drv **eng, const char **target) {
  gb_store_kind kind;
  gb_err e = gb_store_url_parse(url, &kind, target);
  *eng = kind == GB_STORE_PG ? &gb_store_pg : &gb_store_sqlite;
  return e;
}

const char *gb_store_sqlite_path(const char *url) {
  const gb_store_drv *eng;
  const char *target;
  return engine_of(url, &eng, &target) == GB_OK && eng == &gb_store_sqlite ? target : NULL;
}

static gb_err get_int(void *ctx, const gb_sql_val *val, size_t n) {
  long *out = ctx;
  *out = n && val[0].kind == GB_SQL_INT ? (long)val[0].i : 0;
  return GB_OK;
}

/* The stored schema version, as read: nothing trusted yet. */
typedef struct ver_read {
  size_t rows;
  bool whole;      /* a whole number (in v) */
  int64_t v;
  char text[64];   /* as stored, for the message */
} ver_read;

static gb_err get_version(void *ctx, const gb_sql_val *val, size_t n) {
  ver_read *r = ctx;
  char num[32];
  const char *t = n ? gb_sql_text(&val[0], num) : NULL;
  r->rows++;
  snprintf(r->text, sizeof r->text, "%s", t ? t : "NULL");
  r->whole = n && (val[0].kind == GB_SQL_INT ? (r->v = val[0].i, true)
                   : val[0].kind == GB_SQL_TEXT && t[0] >= '0' && t[0] <= '9' && gb_parse_i64(t, &r->v));
  return GB_OK;
}

/* The schema version of the store (0: an empty database), checked as any
 * value read from a store is: one row, a whole number from 1 to
 * GB_STORE_VERSION, or above it up to 1000 (a newer gpubench's, refused by
 * the caller); anything else is a damaged store, refused, never indexed
 * with. */
static gb_err read_version(gb_store *s, long *v) {
  const char *sql = s->eng == &gb_store_pg
                        ? "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() "
                          "AND table_name = 'gb_meta'"
                        : "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'gb_meta'";
  long have = 0;
  gb_err e = s->eng->query(s, -1, sql, NULL, 0, get_int, &have, NULL);
  *v = 0;
  if (e || !have) return e;
  ver_read r = {0};
  e = s->eng->query(s, -1, "SELECT value FROM gb_meta WHERE key = 'schema_version'", NULL, 0, get_version, &r, NULL);
  if (e) return e;
  if (r.rows != 1 || !r.whole || r.v < 1 || r.v > 1000)
    return gb_fail(GB_E_INPUT, "%s: the store's schema version is %s%s%s, not a whole number from 1 to %d: the store is "
                   "damaged or not a gpubench store; it was not changed", s->name, r.rows == 1 ? "\"" : "",
                   r.rows == 1 ? r.text : r.rows ? "given twice" : "missing", r.rows == 1 ? "\"" : "", GB_STORE_VERSION);
  *v = (long)r.v;
  return GB_OK;
}

static gb_err apply_step(gb_store *s, int to) {
  gb_err e = GB_OK;
  for (const char *const *q = k_steps[to - 1]; *q && !e; q++) {
    bool pg = s->eng == &gb_store_pg;
    if (strcmp(*q, "@rows") == 0) {
      gb_buf b = {0};
      e = gb_store_rows_ddl(s, "gb_rows", V1_COLS, false, &b);
      if (!e) e = gb_sql_exec(s, b.data);
      gb_buf_free(&b);
    } else if (strncmp(*q, "@pg:", 4) == 0) {
      if (pg) e = gb_sql_exec(s, *q + 4);
    } else if (strncmp(*q, "@sqlite:", 8) == 0) {
      if (!pg) e = gb_sql_exec(s, *q + 8);
    } else if (strncmp(*q, "@id:", 4) == 0) {
      gb_buf b = {0};
      e = gb_buf_printf(&b, *q + 4, s->eng->id_type);
      if (!e) e = gb_sql_exec(s, b.data);
      gb_buf_free(&b);
    } else if (strcmp(*q, "@rebuild5") == 0) {
      if (!pg) e = gb_store_rebuild_v5(s, V1_COLS + 2);
    } else if (strcmp(*q, "@rkey5") == 0) {
      e = gb_store_fill_rkey(s);
    } else {
      e = gb_sql_exec(s, *q);
    }
  }
  char v[16];
  snprintf(v, sizeof v, "%d", to);
  const char *p[1] = {v};
  if (!e) e = s->eng->query(s, -1, "UPDATE gb_meta SET value = $1 WHERE key = 'schema_version'", p, 1, NULL, NULL, NULL);
  return e;
}

/* Brings the store to version target in one transaction (one process at a
 * time: the writing lock of SQLite, an advisory lock on PostgreSQL). */
static gb_err migrate(gb_store *s, int target) {
  gb_err e = gb_sql_exec(s, s->eng->begin);
  if (!e && s->eng == &gb_store_pg) e = gb_sql_exec(s, "SELECT pg_advisory_xact_lock(7340392)");
  long v = 0;
  if (!e) e = read_version(s, &v);
  if (!e && v > GB_STORE_VERSION)
    e = gb_fail(GB_E_INPUT, "%s: the store has schema version %ld, written by a newer gpubench; this one reads "
                "versions up to %d: use a newer gpubench", s->name, v, GB_STORE_VERSION);
  for (int to = (int)v + 1; !e && to <= target; to++) e = apply_step(s, to);
  if (e) {
    gb_err keep = e;
    char msg[2048];
    snprintf(msg, sizeof msg, "%s", gb_errmsg());
    gb_sql_exec(s, "ROLLBACK");
    return gb_fail(keep, "%s", msg);
  }
  s->version = v > target ? (int)v : target;
  return gb_sql_exec(s, "COMMIT");
}

/* A connection to url: a writer's, or with readonly a reader's (the
 * engine opens it read-only and changes nothing on it). */
static gb_err connect_url(const char *url, bool readonly, gb_store **out) {
  gb_store *s = calloc(1, sizeof *s);
  *out = s;
  if (!s) return gb_fail(GB_E_NOMEM, "out of memory");
  const char *target;
  gb_err e = engine_of(url, &s->eng, &target);
  if (e) return e; /* the caller closes s */
  s->readonly = readonly;
  gb_store_mask(url, s->name, sizeof s->name);
  if (!(s->url = strdup(url))) return gb_fail(GB_E_NOMEM, "out of memory");
  return s->eng->connect(s, target);
}

gb_err gb_store_open_at(const char *url, int version, gb_store **out) {
  *out = NULL;
  if (version < 1 || version > GB_STORE_VERSION) return gb_fail(GB_E_USAGE, "no store schema version %d", version);
  gb_store *s;
  gb_err e = connect_url(url, false, &s);
  if (!e) e = migrate(s, version);
  if (e) {
    gb_store_close(s);
    return e;
  }
  *out = s;
  return GB_OK;
}

gb_err gb_store_open(const char *url, gb_store **out) { return gb_store_open_at(url, GB_STORE_VERSION, out); }

/* A reader's connection in its snapshot, at the version this gpubench
 * reads; *old: the store is older (a writer must upgrade it first). */
static gb_err open_snapshot(const char *url, gb_store **out, bool *old) {
  gb_store *s;
  long v = 0;
  gb_err e = connect_url(url, true, &s);
  if (e) {
    gb_store_close(s);
    *out = NULL;
    return e;
  }
  e = gb_sql_exec(s, s->eng->begin_read);
  s->reading = !e;
  if (!e) e = read_version(s, &v);
  if (!e && v == 0)
    e = gb_fail(GB_E_INPUT, "%s: not a gpubench store (it holds no schema version): import results into it first",
                s->name);
  if (!e && v > GB_STORE_VERSION)
    e = gb_fail(GB_E_INPUT, "%s: the store has schema version %ld, written by a newer gpubench; this one reads "
                "versions up to %d: use a newer gpubench", s->name, v, GB_STORE_VERSION);
  *old = !e && v < GB_STORE_VERSION;
  s->version = (int)v;
  if (e || *old) {
    gb_store_close(s);
    s = NULL;
  }
  *out = s;
  return e;
}

gb_err gb_store_open_read(const char *url, gb_store **out) {
  bool old = false;
  gb_err e = open_snapshot(url, out, &old);
  if (e || !old) return e;
  gb_store *w; /* an older store: upgraded once by a writer's connection, then read */
  if ((e = gb_store_open(url, &w))) {
    char msg[2048];
    snprintf(msg, sizeof msg, "%s", gb_errmsg());
    return gb_fail(e, "the store must be upgraded to schema version %d before it is read: %s", GB_STORE_VERSION, msg);
  }
  gb_store_close(w);
  e = open_snapshot(url, out, &old);
  return e || !old ? e : gb_fail(GB_E_INTERNAL, "the store was not upgraded");
}

void gb_store_close(gb_store *s) {
  if (!s) return;
  if (s->h && s->reading) gb_sql_exec(s, "ROLLBACK"); /* the snapshot ends; nothing was written in it */
  if (s->h) s->eng->disconnect(s);
  free(s->url);
  free(s);
}

const char *gb_store_engine(const gb_store *s) { return s->eng->name; }

const char *gb_store_where(const gb_store *s) { return s->where; }

int gb_store_version(const gb_store *s) { return s->version; }
