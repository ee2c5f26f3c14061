/* gpubench compare: the regression gate. Reads a baseline (one or several
 * runs) and a current results CSV, prints a verdict per figure that moved
 * and a summary, optionally writes markdown and JUnit XML, and picks the exit
 * code. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gb_cli.h"
#include "gb_cli_args.h"
#include "gb_escape.h"
#include "gb_gate.h"
#include "gb_noise.h"
#include "gb_num.h"
#include "gb_runinfo.h"
#include "gb_output.h"
#include "gb_store.h"

/* --format: text or short (a setter, not a choice list: the completion
 * offers files after it) */
static int set_format(void *args, const gb_opt *o, const char *val, char *err, size_t errlen) {
  (void)o;
  gb_compare_args *a = args;
  if (strcmp(val, "text") == 0) a->format = 0;
  else if (strcmp(val, "short") == 0) a->format = 1;
  else {
    snprintf(err, errlen, "--format: text or short, not \"%s\"", val);
    return 1;
  }
  return 0;
}

#define A(m) GB_OPT_AT(gb_compare_args, m)
static const gb_opt k_opts[] = {
    {"threshold", 0, "PCT", "smallest change ever flagged, percent (default 2,\nor [defaults] in --config)",
     GB_OPT_DOUBLE, A(threshold_pct), .lo = 0, .hi = INFINITY},
    {"alpha", 0, "A", "significance level (default 0.01)", GB_OPT_DOUBLE, A(alpha), .lo = 0, .hi = 1,
     .bounds = GB_OPT_LO_OPEN | GB_OPT_HI_OPEN},
    {"noise", 0, "FILE", "noise floors (`gpubench noise`; default @DATA@/noise/floors.csv;\n"
     "\"none\": built-in floors)", GB_OPT_PATH, A(noise_path), .ext = "csv"},
    {"config", 0, "FILE", "INI file: per-benchmark/metric thresholds, metric directions\n(format in docs/ci.md)",
     GB_OPT_PATH, A(config_path), .ext = "ini"},
    {"gate-latency", 0, NULL, "latency-class figures decide the outcome too", GB_OPT_FLAG, A(gate_latency)},
    {"allow-mismatch", 0, NULL, "compare although GPU type, GPU count, driver, CUDA or library\nversions differ",
     GB_OPT_FLAG, A(allow_mismatch)},
    {"allow-missing", 0, NULL, "a headline figure in the baseline and not in the current\nresults does not fail "
     "(a deliberate change of profile)", GB_OPT_FLAG, A(allow_missing)},
    {"strict", 0, NULL, "no noise floors file found is an error (exit 2), not a warning", GB_OPT_FLAG, A(strict)},
    {"bootstrap", 0, NULL, "a baseline directory with no results yet (or none at all) gets\nCURRENT.csv as its "
     "first baseline, exit 0 with a notice (a new CI pipeline)", GB_OPT_FLAG, A(bootstrap)},
    {"format", 0, "F", "standard output: text (every figure not unchanged) or short\n(the summary and the "
     "regressions, for logs)", GB_OPT_CALL, .set = set_format, .group = "Output"},
    {"markdown", 0, "FILE", "write a markdown report of at most 65,536 characters\n(pull-request comment, job "
     "summary)", GB_OPT_PATH, A(markdown),
     .writes = GB_OPT_WRITES_FILE},
    {"junit", 0, "FILE", "write JUnit XML: one test case per figure", GB_OPT_PATH, A(junit),
     .writes = GB_OPT_WRITES_FILE},
    {"all", 0, NULL, "list every figure, unchanged ones too", GB_OPT_FLAG, A(all)},
    {"store", 0, "URL", "read BASELINE and CURRENT from this results store: each is a\nselection "
     "(\"last=5,before=C,gpu_type=T\", \"campaign=C\"; docs/store.md)", GB_OPT_STRING, A(store), .set = gb_store_opt_url,
     .group = "Store"},
    {"record", 0, NULL, "with --store: write the verdict of each judged figure of the\ncurrent run to the store "
     "(table gb_verdicts; each once)", GB_OPT_FLAG, A(record), .group = "Store"},
    GB_STORE_TIMEOUT_OPT,
    {0}};

const gb_opt_cmd gb_compare_cmd = {
    .name = "compare",
    .synopsis = "[OPTIONS] BASELINE... CURRENT.csv",
    .summary = "compare results with a baseline: the CI regression gate (exit 1 on a regression)",
    .description =
        "Compares every figure of CURRENT with BASELINE: one results CSV, several, or\n"
        "directories of them (the last N runs of the main branch). Figures are matched by\n"
        "(gpu_type, gpu_count, benchmark, case, dtype, m, n, k, bytes, metric); a figure's\n"
        "value in a run (one run_id, one process) is the median of its repetitions.\n"
        "\n"
        "Noise comes from between independent runs, never from within one: sigma, one\n"
        "run's spread of ln(value), is the floor of the figure's benchmark, metric and\n"
        "size class (--noise, measured with `gpubench noise`), pooled with the spread of\n"
        "the baseline's runs when it holds several, and never below a third of the\n"
        "figure's own within-run spread. A figure is flagged when |ln(current/baseline)|\n"
        "exceeds z(1 - alpha/2) x sigma x sqrt(1/runs_base + 1/runs_cur) and the\n"
        "--threshold: that change is its MDC (minimum detectable change), printed for\n"
        "every judged figure. Two --repeat runs (3 or more repetitions each) of one GPU\n"
        "(equal gpu_uuid) are judged from their repetitions' spread plus the floor's\n"
        "same-gpu row instead: the offsets between cards are not in it.\n"
        "\n"
        "Classes (core/gb_desc.h): headline figures decide the outcome (and speedups at\n"
        "headline shapes); latency-class figures are information (worse-info,\n"
        "better-info) unless --gate-latency; meaningless ones are not judged. A figure\n"
        "measured under other settings, another profile or other library versions is\n"
        "not-comparable, naming what differs.\n"
        "\n"
        "A headline figure at 0 or not finite is \"collapsed\", one whose rows scatter\n"
        "within the run by more than max(25%, 4 x the baseline's) \"unstable\", one only\n"
        "in the baseline \"missing\": each fails. A figure that switches power state\n"
        "between runs (a \"peak\" row in the floors) is judged by the runs' best samples.\n"
        "When CURRENT holds several nodes (host, gpu_uuid: a merged fleet file), each\n"
        "node is judged against the same node's baseline rows (`gpubench fleet` ranks\n"
        "the nodes against each other). No floors file found: every output says so.",
    .options = k_opts,
    .operands = {.metavar = "BASELINE... CURRENT.csv",
                 .help = "the baseline (results files or directories of them), then the current results file",
                 .min = 2, .max = GB_COMPARE_MAX_FILES, .ext = "csv", A(files), GB_OPT_COUNT(gb_compare_args, nfiles),
                 .missing = "needs BASELINE (CSVs or directories) and CURRENT.csv",
                 .extra = "more files than it takes, from \"%s\": pass a directory of them"},
    .notes = "Verdicts: regression, failed, collapsed, unstable, missing, not-comparable, noise,\n"
             "insufficient, new, improvement, worse-info, better-info, not-judged, unsupported,\n"
             "unchanged.",
    .exit_status = "0 pass (or --bootstrap recorded the first baseline); 1 a regression, a newly\n"
                   "failed row, or a collapsed, unstable or missing headline figure; 2 bad usage\n"
                   "or input (naming the file: a directory with no CSV, a file with a header and no\n"
                   "rows, mixed GPU types in the baseline); 3 nothing could be compared (no common\n"
                   "figures, or a machine mismatch without --allow-mismatch).",
};
#undef A

static int write_output(const char *path, const gb_buf *b) {
  gb_err e = gb_write_file_atomic(path, b->data ? b->data : "", b->len);
  if (e) {
    fprintf(stderr, "gpubench compare: %s\n", gb_errmsg());
    return 2;
  }
  return 0;
}

int gb_compare_parse_args(int argc, char **argv, gb_compare_args *a) {
  memset(a, 0, sizeof *a);
  a->threshold_pct = NAN;
  a->alpha = NAN;
  return gb_cli_parse(&gb_compare_cmd, argc, argv, a);
}

/* The whole of a file, malloc'd; NULL on error. */
static char *read_all(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  gb_buf b = {0};
  char chunk[65536];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
    if (gb_buf_append(&b, chunk, n)) break;
  bool ok = !ferror(f) && feof(f);
  fclose(f);
  if (!ok || gb_buf_append(&b, "", 1)) return gb_buf_free(&b), NULL;
  *len = b.len - 1;
  return b.data ? b.data : NULL;
}

/* --bootstrap: where the baseline is one directory with no results file
 * yet (or is not there), records CURRENT in it as the first baseline.
 * Returns 0 done (a notice printed), -1 not a bootstrap, 2 an error. */
static int bootstrap(const gb_compare_args *a, const char *current) {
  const char *dir = a->files[0];
  struct stat st;
  if (!a->bootstrap || a->nfiles != 2) return -1;
  if (stat(dir, &st) == 0) {
    if (!S_ISDIR(st.st_mode)) return -1;
    DIR *d = opendir(dir);
    if (!d) return -1;
    bool any = false;
    for (struct dirent *de; !any && (de = readdir(d));) {
      size_t n = strlen(de->d_name);
      any = n > 4 && strcmp(de->d_name + n - 4, ".csv") == 0;
    }
    closedir(d);
    if (any) return -1;
  } else if (mkdir(dir, 0777) != 0) {
    fprintf(stderr, "gpubench compare: --bootstrap: %s: cannot create the baseline directory: %s\n", dir,
            strerror(errno));
    return 2;
  }
  gb_results cur = {0};
  char *cur_input[1] = {(char *)current};
  gb_err e = gb_gate_read_side(cur_input, 1, false, &cur); /* only results that read join a baseline */
  gb_results_free(&cur);
  size_t len = 0;
  char *data = e ? NULL : read_all(current, &len);
  const char *base = strrchr(current, '/') ? strrchr(current, '/') + 1 : current;
  char path[4200];
  snprintf(path, sizeof path, "%s/%s", dir, base);
  if (!e && !data) e = gb_fail(GB_E_IO, "%s: cannot read it", current);
  if (!e) e = gb_write_file_atomic(path, data, len);
  free(data);
  if (e) return fprintf(stderr, "gpubench compare: %s\n", gb_errmsg()), 2;
  gb_buf note = {0};
  gb_buf_printf(&note, "gate: BOOTSTRAP: no baseline in %s yet: %s recorded as its first baseline; nothing "
                       "compared\n", dir, path);
  int rc = 0;
  if (a->markdown && gb_write_file_atomic(a->markdown, note.data, note.len)) rc = 2;
  if (!rc && a->junit) {
    gb_buf x = {0};
    gb_buf_puts(&x, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"gpubench gate\" tests=\"1\" "
                    "failures=\"0\" errors=\"0\" skipped=\"1\">\n  <testsuite name=\"gpubench-gate\" tests=\"1\" "
                    "failures=\"0\" errors=\"0\" skipped=\"1\">\n    <testcase classname=\"gpubench.gate\" "
                    "name=\"bootstrap\" time=\"0\"><skipped message=\"");
    gb_esc_xml(&x, note.data);
    gb_buf_puts(&x, "\"/></testcase>\n  </testsuite>\n</testsuites>\n");
    if (gb_write_file_atomic(a->junit, x.data, x.len)) rc = 2;
    gb_buf_free(&x);
  }
  if (rc) fprintf(stderr, "gpubench compare: %s\n", gb_errmsg());
  else fwrite(note.data, 1, note.len, stdout);
  gb_buf_free(&note);
  return rc;
}

/* --store: the baseline's selections and the current one, read in one
 * snapshot of the store (a writer adding a run meanwhile changes neither). */
static gb_err store_sides(const gb_compare_args *a, gb_results *base, gb_results *cur) {
  gb_store *s;
  gb_err e = gb_store_open_read(a->store, &s);
  for (size_t i = 0; i + 1 < a->nfiles && !e; i++) e = gb_store_read(s, a->files[i], base);
  if (!e) e = gb_store_read(s, a->files[a->nfiles - 1], cur);
  gb_store_close(s);
  return e;
}

gb_err gb_compare_learn_store(const char *url, const gb_results *cur, gb_spread_table *t) {
  memset(t, 0, sizeof *t);
  if (!cur->nrows) return GB_OK;
  const char *type = cur->rows[0].gpu_type, *host = cur->rows[0].host, *gpu = cur->rows[0].gpu_uuid;
  for (size_t i = 1; i < cur->nrows; i++) {
    if (strcmp(cur->rows[i].host, host)) return GB_OK; /* a merged fleet file: the shipped floors */
    if (gpu[0] && strcmp(cur->rows[i].gpu_uuid, gpu)) gpu = "";
  }
  char sel[512];
  if (!host[0] || strchr(type, ',') || strchr(host, ',') ||
      (size_t)snprintf(sel, sizeof sel, "gpu_type=%s,host=%s,last=%d", type, host, GB_SPREAD_HISTORY_CAMPAIGNS) >=
          sizeof sel)
    return GB_OK; /* a type or host a selection cannot name: nothing learned */
  gb_results hist = {0};
  char *sels[1] = {sel};
  gb_err e = gb_store_read_url(url, sels, 1, &hist);
  /* selected nothing (the store holds no run of this host and type) or a
   * name the selection grammar cannot hold: nothing learned, the shipped
   * floors judge; a store that cannot be read still fails */
  if (e == GB_E_INPUT) e = GB_OK;
  else if (!e) e = gb_spread_measure(&hist, type, gpu, cur, t);
  gb_results_free(&hist);
  return e;
}

int gb_cmd_compare(int argc, char **argv) {
  gb_compare_args a;
  int prc = gb_compare_parse_args(argc, argv, &a);
  if (prc != GB_CLI_CONTINUE) return prc;
  /* an output that is an input is refused before anything is read or written */
  const char *in[GB_COMPARE_MAX_FILES + 2];
  size_t nin = 0;
  for (size_t i = 0; i < a.nfiles && !a.store; i++) in[nin++] = a.files[i]; /* with --store: selections */
  if (a.config_path) in[nin++] = a.config_path;
  if (a.noise_path) in[nin++] = a.noise_path;
  const char *outs[] = {a.markdown, a.junit};
  if (a.record && !a.store) return fprintf(stderr, "gpubench compare: --record needs --store\n"), 2;
  if (gb_store_guard(a.store, false, outs, 2, in, nin, 0))
    return fprintf(stderr, "gpubench compare: %s\n", gb_errmsg()), 2;
  gb_gate_options opt = gb_gate_defaults();
  if (!isnan(a.threshold_pct)) opt.threshold_pct = a.threshold_pct;
  if (!isnan(a.alpha)) opt.alpha = a.alpha;
  opt.allow_mismatch = a.allow_mismatch;
  opt.gate_latency = a.gate_latency;
  opt.allow_missing = a.allow_missing;
  const char *current = a.files[a.nfiles - 1];
  bool short_format = a.format == 1;

  gb_gate_config cfg = gb_gate_config_empty();
  gb_noise_table noise;
  memset(&noise, 0, sizeof noise);
  gb_spread_table learned;
  memset(&learned, 0, sizeof learned);
  gb_results base = {0}, cur = {0};
  gb_gate_report rep;
  memset(&rep, 0, sizeof rep);
  gb_buf text = {0}, md = {0}, xml = {0};
  int rc = 2;
  gb_err e = GB_OK;
  int boot = bootstrap(&a, current);
  if (boot >= 0) return boot;
  char warning[1400];
  if (a.config_path && (e = gb_gate_config_read(a.config_path, &cfg))) goto done;
  opt.config = &cfg;
  if ((e = gb_noise_load(a.noise_path, a.strict, &noise, warning, sizeof warning))) goto done;
  opt.noise = &noise;
  opt.warning = warning;
  if (warning[0]) fprintf(stderr, "gpubench compare: %s\n", warning);
  char *cur_input[1] = {(char *)current};
  if (a.store ? (e = store_sides(&a, &base, &cur))
              : (e = gb_gate_read_side((char *const *)a.files, a.nfiles - 1, true, &base)) ||
                    (e = gb_gate_read_side(cur_input, 1, false, &cur)))
    goto done;
  if (a.store && (e = gb_compare_learn_store(a.store, &cur, &learned))) goto done;
  if (a.store) opt.learned = &learned;
  if ((e = gb_gate_compare(&base, &cur, &opt, &rep))) goto done;
  /* Every output is built before any is written, so a failure leaves none
   * that looks complete. */
  if ((e = short_format ? gb_gate_format_short(&rep, &text) : gb_gate_format_text(&rep, a.all, &text))) goto done;
  if (a.markdown && (e = gb_gate_format_markdown(&rep, &md))) goto done;
  if (a.junit && (e = gb_gate_format_junit(&rep, &xml))) goto done;
  if (a.markdown && write_output(a.markdown, &md)) goto done;
  if (a.junit && write_output(a.junit, &xml)) goto done;
  size_t nrec = 0, nnew = 0;
  if (a.record && (e = gb_compare_record(a.store, &rep, &cur, &nrec, &nnew))) goto done;
  fwrite(text.data, 1, text.len, stdout);
  if (a.record) printf("compare: %zu verdict(s) of the current run: %zu recorded now, %zu recorded before\n", nrec, nnew,
                       nrec - nnew);
  fflush(stdout);
  rc = gb_gate_exit_code(&rep);
  if (rep.mismatch) fprintf(stderr, "gpubench compare: %s; pass --allow-mismatch to compare anyway\n", rep.mismatch_msg);
  else if (rc == 3) fprintf(stderr, "gpubench compare: nothing could be compared with %s\n", current);
done:
  if (e) {
    fprintf(stderr, "gpubench compare: %s\n", gb_errmsg());
    rc = 2; /* bad input, an unreadable file, or no memory: the gate did not run */
  }
  gb_buf_free(&text);
  gb_buf_free(&md);
  gb_buf_free(&xml);
  gb_gate_report_free(&rep);
  gb_results_free(&base);
  gb_results_free(&cur);
  gb_gate_config_free(&cfg);
  gb_noise_free(&noise);
  gb_spread_free(&learned);
  return rc;
}
