/* gb_runner: runs registered benchmarks case by case into the results CSV,
 * with progress, telemetry, --resume, --repeat and clean stops on signals. */
#include "gb_runner.h"

#include <cuda_runtime_api.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gb_cuda.h"
#include "gb_desc.h"
#include "gb_num.h"
#include "gb_progress.h"
#include "gb_runinfo.h"
#include "gb_telemetry.h"

static volatile sig_atomic_t g_stop;

void gb_campaign_request_stop(void) { g_stop = 1; }

static void on_signal(int sig) {
  g_stop = 1;
  signal(sig, SIG_DFL); /* a second signal ends the process at once; rows are on disk */
}

/* ---- a set of case keys (open addressing over strdup'd strings) ---- */

typedef struct keyset {
  char **slot;
  size_t cap, n;
} keyset;

static uint64_t hash_str(const char *s) {
  uint64_t h = 14695981039346656037ULL;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
  return h;
}

static bool keyset_has(const keyset *k, const char *s) {
  if (!k->cap) return false;
  for (size_t i = hash_str(s) & (k->cap - 1);; i = (i + 1) & (k->cap - 1)) {
    if (!k->slot[i]) return false;
    if (strcmp(k->slot[i], s) == 0) return true;
  }
}

static gb_err keyset_add(keyset *k, const char *s) {
  if (keyset_has(k, s)) return GB_OK;
  if ((k->n + 1) * 2 > k->cap) {
    size_t cap = k->cap ? k->cap * 2 : 256;
    char **slot = calloc(cap, sizeof *slot);
    if (!slot) return gb_fail(GB_E_NOMEM, "out of memory");
    for (size_t i = 0; i < k->cap; i++)
      if (k->slot[i]) {
        size_t j = hash_str(k->slot[i]) & (cap - 1);
        while (slot[j]) j = (j + 1) & (cap - 1);
        slot[j] = k->slot[i];
      }
    free(k->slot);
    k->slot = slot;
    k->cap = cap;
  }
  size_t j = hash_str(s) & (k->cap - 1);
  while (k->slot[j]) j = (j + 1) & (k->cap - 1);
  k->slot[j] = strdup(s);
  if (!k->slot[j]) return gb_fail(GB_E_NOMEM, "out of memory");
  k->n++;
  return GB_OK;
}

static void keyset_free(keyset *k) {
  for (size_t i = 0; i < k->cap; i++) free(k->slot[i]);
  free(k->slot);
  memset(k, 0, sizeof *k);
}

/* ---- progress ---- */

static gb_progress g_progress; /* the campaign's clock and ETA (gb_progress.h) */

static void progress(const gb_campaign *c, size_t done, size_t total, const char *bench, const gb_case *cs,
                     const char *result) {
  char what[160], size[32] = "";
  if (cs->bytes != GB_NA) gb_fmt_size(size, sizeof size, cs->bytes);
  if (cs->m != GB_NA)
    snprintf(what, sizeof what, "%s %s %lldx%lldx%lld", bench, cs->name, (long long)cs->m, (long long)cs->n,
             (long long)cs->k);
  else
    snprintf(what, sizeof what, "%s %s%s%s%s%s", bench, cs->name, cs->dtype[0] ? " " : "", cs->dtype,
             size[0] ? " " : "", size);
  gb_progress_draw(&g_progress, c->progress, c->progress_bar, done, total, what, result);
}

/* ---- the run ---- */

typedef struct run_state {
  const gb_campaign *c;
  const gb_system_info *sys;
  const gb_device_info *dev;
  gb_results_writer w;
  char run_id[128];
  keyset done;
  gb_telemetry *tel;
  gb_campaign_result *res;
  char settings[1024]; /* the benchmark running now: its rows' settings (gb_run_settings) */
} run_state;

static void count_row(gb_campaign_result *res, const gb_row *r) {
  res->rows_written++;
  switch (r->status) {
  case GB_STATUS_OK: res->rows_ok++; break;
  case GB_STATUS_INVALID: res->rows_invalid++; break;
  case GB_STATUS_ERROR: res->rows_error++; break;
  case GB_STATUS_THROTTLED: res->rows_throttled++; break;
  case GB_STATUS_UNSUPPORTED: res->rows_unsupported++; break;
  }
}

static void fill_identity(run_state *st, gb_row *r, int rep, const gb_telemetry_summary *tel) {
  static char ts[32];
  gb_iso8601_utc(time(NULL), ts, sizeof ts);
  r->run_id = st->run_id;
  r->timestamp = ts;
  r->host = gb_hostname();
  r->gpu_type = st->dev->gpu_type;
  r->gpu_name = st->dev->name;
  r->gpu_uuid = st->dev->uuid; /* the campaign's (first) GPU */
  r->campaign = getenv("GPUBENCH_CAMPAIGN") ? getenv("GPUBENCH_CAMPAIGN") : ""; /* a fleet's campaign id */
  if (r->l2_bytes == GB_NA) r->l2_bytes = st->dev->l2_bytes; /* gb_desc's L2-resident rules read it */
  r->driver = st->sys->driver;
  r->cuda = st->sys->cuda_runtime;
  r->git_sha = gb_git_sha();
  r->cublaslt = st->sys->cublaslt;
  r->nvrtc = st->sys->nvrtc;
  r->nccl = st->sys->nccl;
  if (!r->settings || !r->settings[0]) r->settings = st->settings;
  r->profile = st->c->run.profile == GB_PROFILE_FULL ? "full" : "quick";
  r->rep = rep;
  if (tel && tel->nsamples > 0) {
    if (isnan(r->sm_clock_mhz)) r->sm_clock_mhz = tel->sm_clock_mhz;
    if (isnan(r->mem_clock_mhz)) r->mem_clock_mhz = tel->mem_clock_mhz;
    if (isnan(r->temp_c)) r->temp_c = tel->temp_c;
    if (isnan(r->power_w)) r->power_w = tel->power_w;
    if (isnan(r->power_instant_w)) r->power_instant_w = tel->power_instant_w;
    bool ran = r->status != GB_STATUS_ERROR && r->status != GB_STATUS_UNSUPPORTED;
    if (isnan(r->energy_j) && ran && r->gpu_count > 1) {
      r->energy_note = "the energy counter is read on the campaign's first GPU only: a row of several GPUs gets none";
    } else if (isnan(r->energy_j) && ran) { /* the window's energy (gb_energy_judge) */
      r->energy_j = tel->energy_j;
      r->energy_s = tel->energy_s;
      r->energy_note = tel->energy_note;
    }
    if (tel->throttled && r->status == GB_STATUS_OK) r->status = GB_STATUS_THROTTLED;
  }
}

/* Appends "; clock events: ..." to a row's detail when power/heat reasons
 * showed up, or "; telemetry off" when the campaign sampled nothing. */
static void note_reasons(gb_row *r, const gb_telemetry_summary *tel, bool off, char *buf, size_t n) {
  if (off) {
    snprintf(buf, n, "%.4000s%stelemetry off (--telemetry-ms 0)", r->detail, r->detail[0] ? "; " : "");
    r->detail = buf;
    return;
  }
  if (!tel || !tel->reasons[0]) return;
  snprintf(buf, n, "%.4000s%sclock events: %s", r->detail, r->detail[0] ? "; " : "", tel->reasons);
  r->detail = buf;
}

/* Writes a case's rows. headline: whether the case holds its benchmark's
 * headline figure (case_headlines), -1 for a benchmark the description
 * table lacks (the rows keep what the benchmark set). */
static gb_err write_case_rows(run_state *st, gb_rowset *rows, int rep, const gb_telemetry_summary *tel, int headline) {
  for (size_t i = 0; i < rows->n; i++) {
    gb_row r = rows->v[i];
    char detail[4200];
    fill_identity(st, &r, rep, tel);
    if (headline >= 0) r.headline = headline && gb_desc_is_headline_metric(r.benchmark, r.metric);
    note_reasons(&r, tel, st->c->telemetry_ms < 0, detail, sizeof detail);
    GB_TRY(gb_writer_add(&st->w, &r));
    if (st->c->sink) GB_TRY(st->c->sink->row(st->c->sink->ctx, &r));
    count_row(st->res, &r);
  }
  GB_TRY(gb_writer_commit(&st->w));
  return st->c->sink ? st->c->sink->commit(st->c->sink->ctx) : GB_OK;
}

static void case_key(const char *bench, const gb_case *cs, int rep, const char *settings, char *buf, size_t n) {
  gb_row r = gb_case_row(bench, cs);
  r.rep = rep;
  r.settings = settings;
  gb_row_case_key(&r, false, buf, n);
}

/* Rows of this run, benchmark and settings now in the output file. */
static gb_err rows_of_run(run_state *st, const char *bench, gb_results *all, gb_row **out, size_t *n) {
  *out = NULL;
  *n = 0;
  if (strcmp(st->c->out_path, "-") == 0) return GB_OK;
  GB_TRY(gb_results_read(st->c->out_path, all));
  gb_row *v = malloc((all->nrows + 1) * sizeof *v);
  if (!v) return gb_fail(GB_E_NOMEM, "out of memory");
  for (size_t i = 0; i < all->nrows; i++)
    if (strcmp(all->rows[i].run_id, st->run_id) == 0 && strcmp(all->rows[i].benchmark, bench) == 0 &&
        strcmp(all->rows[i].settings, st->settings) == 0)
      v[(*n)++] = all->rows[i];
  *out = v;
  return GB_OK;
}

static gb_err finish_bench(run_state *st, const gb_bench *b, gb_run_ctx *ctx) {
  if (!b->derive && !b->summarize) return GB_OK;
  gb_results all = {0};
  gb_row *rows = NULL;
  size_t n = 0;
  gb_err err = rows_of_run(st, b->name, &all, &rows, &n);
  if (err) goto done;
  if (b->derive && n) {
    gb_rowset derived = {0};
    err = b->derive(ctx, rows, n, &derived);
    if (!err) {
      /* on --resume, derived rows of this run may already be in the file */
      keyset have = {0};
      char key[2048];
      for (size_t i = 0; i < n && !err; i++) {
        gb_row_case_key(&rows[i], true, key, sizeof key);
        err = keyset_add(&have, key);
      }
      gb_rowset fresh = {0};
      for (size_t i = 0; i < derived.n && !err; i++) {
        gb_row r = derived.v[i];
        r.rep = -1;
        if (!r.settings[0]) r.settings = st->settings;
        gb_row_case_key(&r, true, key, sizeof key);
        if (!keyset_has(&have, key)) err = gb_rowset_add(&fresh, &r);
      }
      GB_TRY_ON(err, write_case_rows(st, &fresh, -1, NULL, gb_desc_find(b->name) ? 0 : -1));
      gb_rowset_free(&fresh);
      keyset_free(&have);
    }
    gb_rowset_free(&derived);
    if (err) goto done;
    free(rows);
    gb_results_free(&all);
    err = rows_of_run(st, b->name, &all, &rows, &n);
    if (err) goto done;
  }
  if (b->summarize && n && st->c->table) b->summarize(ctx, rows, n, st->c->table);
done:
  free(rows);
  gb_results_free(&all);
  return err;
}

/* Which planned cases hold their benchmark's headline figure, by the
 * description table's rule over the whole plan (gb_desc_is_headline): known
 * before any case runs, so each row is marked as it is written. out[i] is
 * 1 or 0, or -1 for every case of a benchmark the table lacks. */
static gb_err case_headlines(const run_state *st, const gb_bench *b, const gb_case_list *cases, int *out) {
  const gb_bench_desc *d = gb_desc_find(b->name);
  gb_row *rows = malloc((cases->n ? cases->n : 1) * sizeof *rows);
  if (!rows) return gb_fail(GB_E_NOMEM, "out of memory");
  for (size_t i = 0; i < cases->n; i++) {
    rows[i] = gb_case_row(b->name, &cases->v[i]);
    rows[i].metric = d ? d->headline_metric : "";
    rows[i].l2_bytes = st->dev->l2_bytes; /* the HBM rule's L2 */
  }
  for (size_t i = 0; i < cases->n; i++) out[i] = d ? gb_desc_is_headline(&rows[i], rows, cases->n) : -1;
  free(rows);
  return GB_OK;
}

/* One repetition of one benchmark: setup, every case once, teardown, so
 * that each repetition is an independent sample (a fresh NCCL communicator,
 * fresh handles and buffers). rep is the repetition (0-based) of reps; the
 * derived rows and the summary follow the last one. */
static gb_err run_bench(run_state *st, const gb_bench *b, int rep, int reps, size_t *done_cases, size_t total_cases,
                        gb_case_list *cases, bool *broken) {
  const gb_campaign *c = st->c;
  gb_run_ctx ctx = {.sys = st->sys, .cfg = &c->run, .dev = st->dev, .state = NULL, .tel = st->tel};
  gb_run_settings(b, &c->run, st->settings, sizeof st->settings);
  gb_err setup_err = b->setup ? b->setup(&ctx) : GB_OK;
  char setup_msg[2048] = "";
  if (setup_err) snprintf(setup_msg, sizeof setup_msg, "%s", gb_errmsg());
  gb_rowset rows = {0};
  int *headline = malloc((cases->n ? cases->n : 1) * sizeof *headline);
  gb_err err = headline ? case_headlines(st, b, cases, headline) : gb_fail(GB_E_NOMEM, "out of memory");
  for (size_t i = 0; i < cases->n && !err && !g_stop && !*broken; i++) {
    {
      const gb_case *cs = &cases->v[i];
      int rep_col = reps > 1 ? rep : -1;
      char key[2048];
      case_key(b->name, cs, rep_col, st->settings, key, sizeof key);
      (*done_cases)++;
      if (keyset_has(&st->done, key)) {
        st->res->cases_skipped++;
        continue;
      }
      progress(c, *done_cases - 1, total_cases, b->name, cs, NULL);
      gb_telemetry_begin(st->tel);
      gb_rowset_clear(&rows);
      gb_errclear();
      gb_err e = setup_err ? setup_err : b->run(&ctx, cs, &rows);
      gb_telemetry_summary tel = gb_telemetry_end(st->tel);
      char result[256];
      if (e) {
        const char *why = setup_err ? setup_msg : gb_errmsg();
        gb_rowset_clear(&rows);
        gb_row r = gb_bench_error_row(b, cs);
        /* a case this device or its library cannot run (a precision below its
         * compute capability, no peer access, too few GPUs) measured nothing
         * and failed nothing: its own status, not error (the gate, the report) */
        r.status = e == GB_E_UNSUPPORTED ? GB_STATUS_UNSUPPORTED : GB_STATUS_ERROR;
        char detail[2200];
        snprintf(detail, sizeof detail, "%s: %.2100s", gb_strerror(e), why[0] ? why : "no detail");
        r.detail = detail;
        if ((err = gb_rowset_add(&rows, &r))) break;
        snprintf(result, sizeof result, "error: %.200s", why);
        /* A sticky error (an illegal address in a kernel) leaves the context
         * unusable: stop after writing this row. Any other (out of memory,
         * not supported) is cleared, or the next case's cudaGetLastError()
         * after a launch would report it as its own. */
        if (gb_cuda_context_broken()) *broken = true;
        else (void)cudaGetLastError();
      } else {
        const gb_row *first = rows.n ? &rows.v[0] : NULL;
        if (first)
          gb_snprintf_c(result, sizeof result, "%.4g %s %s%s", first->value, first->unit,
                        gb_status_name(first->status),
                        tel.throttled && first->status == GB_STATUS_OK ? " (throttled)" : "");
        else
          snprintf(result, sizeof result, "no rows");
      }
      if ((err = write_case_rows(st, &rows, rep_col, &tel, headline[i]))) break;
      if ((err = keyset_add(&st->done, key))) break;
      st->res->cases_run++;
      progress(c, *done_cases, total_cases, b->name, cs, result);
    }
    if (err) break;
  }
  if (c->progress && c->progress_bar) fputc('\n', c->progress);
  gb_rowset_free(&rows);
  free(headline);
  if (!err && !*broken && !g_stop && rep == reps - 1) err = finish_bench(st, b, &ctx);
  if (b->teardown && !setup_err) b->teardown(&ctx);
  return err;
}

/* Opens the output, refusing an existing file that lacks a column this run
 * needs (rep under --repeat, settings); the writer is closed on a refusal. */
static gb_err open_output(run_state *st) {
  const gb_campaign *c = st->c;
  GB_TRY(gb_writer_open(&st->w, c->out_path));
  st->res->opened = true;
  gb_err err = GB_OK;
  if (c->run.repeat > 1 && !gb_writer_records(&st->w, "rep"))
    err = gb_fail(GB_E_INPUT,
                  "%s: has no rep column (an older gpubench began it), so --repeat %d could not tell its "
                  "repetitions apart; write them to a new file",
                  c->out_path, c->run.repeat);
  for (int i = 0; i < c->nbenches && !err; i++) {
    gb_run_settings(c->benches[i], &c->run, st->settings, sizeof st->settings);
    if (st->settings[0] && !gb_writer_records(&st->w, "settings"))
      err = gb_fail(GB_E_INPUT,
                    "%s: has no settings column (an older gpubench began it), so its rows could not say they "
                    "were measured under %s; write them to a new file",
                    c->out_path, st->settings);
  }
  if (err) {
    gb_writer_close(&st->w);
    return err;
  }
  if (st->w.missing[0] && c->progress)
    fprintf(c->progress,
            "%s: written in the columns it already has; not recorded there: %s (a new file records them)\n",
            c->out_path, st->w.missing);
  return GB_OK;
}

/* --resume: the case keys the output already holds, and its run id. */
static gb_err resume_keys(run_state *st) {
  const gb_campaign *c = st->c;
  if (!c->resume || strcmp(c->out_path, "-") == 0) return GB_OK;
  gb_results prev = {0};
  GB_TRY(gb_results_read(c->out_path, &prev));
  gb_err err = GB_OK;
  for (size_t i = 0; i < prev.nrows && !err; i++) {
    char key[2048];
    gb_row_case_key(&prev.rows[i], false, key, sizeof key);
    err = keyset_add(&st->done, key);
  }
  if (prev.nrows) snprintf(st->run_id, sizeof st->run_id, "%s", prev.rows[prev.nrows - 1].run_id);
  gb_results_free(&prev);
  return err;
}

gb_err gb_campaign_run(const gb_campaign *c, const gb_system_info *sys, gb_campaign_result *res) {
  memset(res, 0, sizeof *res);
  g_stop = 0;
  run_state st = {.c = c, .sys = sys, .res = res};
  if (c->run.ndevices < 1) return gb_fail(GB_E_USAGE, "no device selected");
  int ord = c->run.devices[0];
  if (ord < 0 || ord >= sys->ndev) return gb_fail(GB_E_USAGE, "device %d does not exist", ord);
  st.dev = &sys->dev[ord];

  /* plan every benchmark first, so progress knows the total and a refused
   * option (a bad --opt) stops the run before its output file is touched */
  gb_case_list lists[32];
  memset(lists, 0, sizeof lists);
  if (c->nbenches > (int)(sizeof lists / sizeof lists[0]))
    return gb_fail(GB_E_USAGE, "%d benchmarks selected, at most %zu", c->nbenches, sizeof lists / sizeof lists[0]);
  size_t total = 0;
  int reps = c->run.repeat > 0 ? c->run.repeat : 1;
  for (int i = 0; i < c->nbenches; i++) {
    gb_run_ctx ctx = {.sys = sys, .cfg = &c->run, .dev = st.dev};
    gb_err pe = c->benches[i]->plan(&ctx, &lists[i]);
    if (pe) {
      for (int j = 0; j <= i; j++) gb_case_list_free(&lists[j]);
      return pe;
    }
    total += lists[i].n * (size_t)reps;
  }

  /* the output must be writable before anything is measured */
  gb_err err = open_output(&st);
  if (err) goto free_lists;
  gb_make_run_id(st.run_id, sizeof st.run_id);
  GB_TRY_GOTO(resume_keys(&st), err, done);

  GB_CUDA_GOTO(cudaSetDevice(ord), err, done);
  /* no sampling: a sampler with no device, whose summaries are empty */
  GB_TRY_GOTO(gb_telemetry_start(c->telemetry_ms < 0 ? NULL : st.dev->pci_bus_id,
                                 c->telemetry_ms > 0 ? c->telemetry_ms : GB_TELEMETRY_DEFAULT_MS, &st.tel),
              err, done);
  gb_telemetry_set_max_sm(st.tel, st.dev->max_sm_clock_mhz);

  struct sigaction sa, old_int, old_term;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);

  size_t done_cases = 0;
  bool broken = false;
  gb_progress_start(&g_progress, gb_progress_now());
  /* --repeat: the whole campaign in turn (every case once, then again), not
   * each case N times in a row, so that repetitions are independent samples */
  for (int rep = 0; rep < reps && !err && !g_stop && !broken; rep++)
    for (int i = 0; i < c->nbenches && !err && !g_stop && !broken; i++)
      err = run_bench(&st, c->benches[i], rep, reps, &done_cases, total, &lists[i], &broken);

  sigaction(SIGINT, &old_int, NULL);
  sigaction(SIGTERM, &old_term, NULL);
  res->interrupted = g_stop != 0;
  if (!err && broken)
    err = gb_fail(GB_E_CUDA, "the CUDA context broke (a kernel faulted); the campaign stopped and every finished "
                             "row is in %s: rerun with --resume %s to continue", c->out_path, c->out_path);
  if (!err && res->interrupted)
    err = gb_fail(GB_E_INTERRUPTED, "interrupted: every finished case is in %s; continue with --resume %s",
                  c->out_path, c->out_path);
done:
  gb_telemetry_stop(st.tel);
  keyset_free(&st.done);
  gb_err ce = gb_writer_close(&st.w);
  GB_TRY_ON(err, ce);
free_lists:
  for (int i = 0; i < c->nbenches; i++) gb_case_list_free(&lists[i]);
  return err;
}
