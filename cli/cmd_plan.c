/* gpubench plan: rank GPU configurations for a workload by cost, time or
 * cost efficiency, under a deadline and a budget (planner/gb_plan.h). */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_cli.h"
#include "gb_cli_args.h"
#include "gb_output.h"
#include "gb_plan.h"
#include "gb_runinfo.h"
#include "gb_store.h"

static const char *const k_offerings[] = {"on-demand", "spot", "reserved", "purchase", NULL};

static int set_workload_file(void *args, const gb_opt *o, const char *val, char *err, size_t errlen) {
  (void)o;
  gb_plan_args *a = args;
  if (a->workload_file) {
    snprintf(err, errlen, "more than one workload file: %s and %s", a->workload_file, val);
    return -1;
  }
  a->workload_file = val;
  return 0;
}

static int set_planner_opt(void *args, const gb_opt *o, const char *val, char *err, size_t errlen) {
  if (gb_plan_opt_set(&((gb_plan_args *)args)->opts, o->name, val)) {
    snprintf(err, errlen, "%s", gb_errmsg());
    if (strcmp(o->name, "offering") == 0) { /* the nearest offering to the first bad item */
      char item[64];
      snprintf(item, sizeof item, "%s", val);
      const char *bad = strchr(gb_errmsg(), '"');
      if (bad && sscanf(bad + 1, "%63[^\"]", item) == 1) {
        size_t used = strlen(err);
        snprintf(err + used, errlen - used, " (did you mean %s?)", gb_nearest_name(item, k_offerings, 4));
      }
    }
    return -1;
  }
  return 0;
}

/* A workload key: checked now, applied over the file's values later. */
static int set_workload_key(void *args, const gb_opt *o, const char *val, char *err, size_t errlen) {
  gb_plan_args *a = args;
  char where[80];
  snprintf(where, sizeof where, "--%s", o->name);
  if (gb_workload_set(&a->flags, o->name, val, where, 0)) {
    snprintf(err, errlen, "%s", gb_errmsg());
    return -1;
  }
  if (a->nset == GB_PLAN_MAX_ARGS) {
    snprintf(err, errlen, "too many arguments");
    return -1;
  }
  a->set_keys[a->nset] = strdup(o->name);
  if (!a->set_keys[a->nset]) {
    snprintf(err, errlen, "out of memory");
    return -1;
  }
  a->set_vals[a->nset] = val;
  a->nset++;
  return 0;
}

/* ---- names the data folder offers: completion and "did you mean" ---- */

#define NAMES_MAX 128
typedef struct name_list {
  const char *v[NAMES_MAX + 1]; /* NULL-terminated: a completion's choices */
  size_t n;
  char text[NAMES_MAX][64];
} name_list;

static void names_add(name_list *l, const char *s) {
  for (size_t i = 0; i < l->n; i++)
    if (strcmp(l->v[i], s) == 0) return;
  if (l->n == NAMES_MAX) return;
  snprintf(l->text[l->n], sizeof l->text[l->n], "%s", s);
  l->v[l->n] = l->text[l->n];
  l->v[++l->n] = NULL;
}

/* The workloads shipped in data/workloads: their names without ".ini", sorted. */
static const name_list *workload_names(void) {
  static name_list l;
  static bool done;
  if (done) return &l;
  done = true;
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/workloads", gb_data_dir());
  DIR *d = opendir(dir);
  struct dirent *ent;
  while (d && (ent = readdir(d))) {
    size_t len = strlen(ent->d_name);
    if (len > 4 && len < 64 && strcmp(ent->d_name + len - 4, ".ini") == 0 && ent->d_name[0] != '.') {
      char name[64];
      snprintf(name, sizeof name, "%.*s", (int)(len - 4), ent->d_name);
      names_add(&l, name);
    }
  }
  if (d) closedir(d);
  for (size_t i = 1; i < l.n; i++) /* sorted: insertion sort of a short list */
    for (size_t j = i; j > 0 && strcmp(l.v[j], l.v[j - 1]) < 0; j--) {
      const char *t = l.v[j];
      l.v[j] = l.v[j - 1], l.v[j - 1] = t;
    }
  return &l;
}

/* GPU types (gpu_specs.csv) and providers (prices.csv) of the shipped data. */
static const name_list *data_names(bool providers) {
  static name_list types, provs;
  static bool done;
  if (!done) {
    done = true;
    char path[4096];
    gb_specs specs = {0};
    gb_prices prices = {0};
    snprintf(path, sizeof path, "%s/gpu_specs.csv", gb_data_dir());
    if (gb_specs_read(path, &specs) == GB_OK) {
      for (size_t i = 0; i < specs.n; i++) names_add(&types, specs.v[i].gpu_type);
      snprintf(path, sizeof path, "%s/prices.csv", gb_data_dir());
      if (gb_prices_read(path, &specs, &prices) == GB_OK)
        for (size_t i = 0; i < prices.n; i++) names_add(&provs, prices.v[i].provider);
      gb_prices_free(&prices);
    }
    gb_specs_free(&specs);
    gb_errclear();
  }
  return providers ? &provs : &types;
}

/* --workload NAME: data/workloads/NAME.ini, or the valid names and the nearest (exit 2). */
static int resolve_workload_name(gb_plan_args *a) {
  const name_list *l = workload_names();
  if (a->workload_file)
    return gb_cli_usage_error("plan", "--workload %s and a workload file %s: give one", a->workload_name,
                              a->workload_file);
  for (size_t i = 0; i < l->n; i++)
    if (strcmp(l->v[i], a->workload_name) == 0) {
      snprintf(a->workload_path, sizeof a->workload_path, "%s/workloads/%s.ini", gb_data_dir(), a->workload_name);
      a->workload_file = a->workload_path;
      return GB_CLI_CONTINUE;
    }
  char msg[1024];
  gb_unknown_name(msg, sizeof msg, "workload", a->workload_name, l->v, l->n);
  return gb_cli_usage_error("plan", "--workload: %s (in %s/workloads)", msg, gb_data_dir());
}

#define A(m) GB_OPT_AT(gb_plan_args, m)
static const gb_opt k_opts[] = {
    {"measured", 0, "CSV", "results CSV to take GEMM, HBM and all-reduce figures from\n"
     "(repeatable; default every CSV in @DATA@/measured)", GB_OPT_LIST, A(measured),
     GB_OPT_COUNT(gb_plan_args, nmeasured), .max = GB_PLAN_MAX_MEASURED, .ext = "csv", .group = "Inputs"},
    {"store", 0, "URL", "the --measured values are selections of this results store\n(\"host=node03,since=2026-11-01\"; "
     "docs/store.md)", GB_OPT_STRING, A(store), .set = gb_store_opt_url},
    GB_STORE_TIMEOUT_OPT,
    {"no-measured", 0, NULL, "use no measurements: project every figure from datasheets", GB_OPT_FLAG,
     A(no_measured)},
    {"prices", 0, "CSV", "prices (default @DATA@/prices.csv)", GB_OPT_PATH, A(prices), .ext = "csv"},
    {"specs", 0, "CSV", "datasheet figures (default @DATA@/gpu_specs.csv)", GB_OPT_PATH, A(specs), .ext = "csv"},
    {"top", 0, "N", "the N best configurations (best GPU count per type, provider and offering) in the text,\n"
     "the JSON and, given, the CSV (default 10; 0 = all; without it the CSV holds the whole table)", GB_OPT_INT,
     A(top), GB_OPT_GIVEN(gb_plan_args, top_given), .min = 0, .max = 1000000,
     .group = "Output"},
    {"explain", 0, NULL, "rejected configurations: a summary per GPU type (counts by reason, the nearest\n"
     "miss); --explain=all lists every configuration with its reason", GB_OPT_FLAG, A(explain)},
    {"explain-all", 0, NULL, "--explain=all", GB_OPT_FLAG, A(explain_all), .hidden = true},
    {"only-measured", 0, NULL, "only GPU types whose GEMM and HBM figures are measured", GB_OPT_FLAG,
     A(only_measured)},
    {"csv", 0, "FILE", "write the full table (ranked, then rejected)", GB_OPT_PATH, A(csv), .ext = "csv",
     .writes = GB_OPT_WRITES_FILE},
    {"json", 0, "FILE", "write every configuration as JSON, with its time breakdown", GB_OPT_PATH, A(json),
     .ext = "json", .writes = GB_OPT_WRITES_FILE},
    {"hybrid-csv", 0, "FILE", "write the owned-versus-rented cost curve of a demand profile", GB_OPT_PATH,
     A(hybrid_csv), .ext = "csv", .writes = GB_OPT_WRITES_FILE},
    {"sensitivity-csv", 0, "FILE", "write the sensitivity table", GB_OPT_PATH, A(sensitivity_csv),
     .ext = "csv", .writes = GB_OPT_WRITES_FILE},
    {0}};
#undef A

/* Whether the command's own table has an option of this name. */
static bool own_option(const char *name) {
  for (const gb_opt *o = k_opts; o->name; o++)
    if (strcmp(o->name, name) == 0) return true;
  return false;
}

/* The planner options and workload keys come from the planner's own tables
 * (gb_plan_opt_table, gb_workload_opts), entry by entry, so that a key added
 * there is a flag here, in --help, the man page and the completion; each is
 * set through the planner's own checks. '-' and '_' are the same in a
 * workload key: the other spelling is a hidden alias. */
static size_t more_opts(gb_opt *out, size_t n) {
  static gb_opt keys[GB_WL_MAX_KEYS];
  static char alias[GB_WL_MAX_KEYS][64];
  size_t m = 0;
  if (m < n) /* completes to the shipped workloads' names */
    out[m++] = (gb_opt){.name = "workload", .metavar = "NAME", .kind = GB_OPT_STRING, GB_OPT_AT(gb_plan_args, workload_name),
                        .help = "a shipped workload by name: @DATA@/workloads/NAME.ini (instead of a file)",
                        .choices = workload_names()->v, .group = "Workload"};
  for (const gb_opt *p = gb_plan_opt_table(); p->name && m < n; p++) {
    if (own_option(p->name)) continue;
    out[m] = (gb_opt){.name = p->name, .metavar = p->metavar, .help = p->help, .kind = GB_OPT_CALL,
                      .set = set_planner_opt, .group = m == 1 ? "Planner options" : NULL};
    /* completion of the values: the data's GPU types and providers, the offerings */
    if (strcmp(p->name, "gpu-type") == 0) out[m].choices = data_names(false)->v;
    if (strcmp(p->name, "provider") == 0) out[m].choices = data_names(true)->v;
    if (strcmp(p->name, "offering") == 0) out[m].choices = k_offerings;
    m++;
  }
  size_t nkeys = gb_workload_opts(keys, GB_WL_MAX_KEYS), first = m;
  for (size_t i = 0; i < nkeys && m < n; i++) {
    out[m] = keys[i];
    out[m].set = set_workload_key;
    out[m].group = m == first ? "Workload keys (as flags they override the file; '-' and '_' are the same)" : NULL;
    m++;
  }
  /* the other spelling of each workload key, unless it is a name already */
  for (size_t i = 0; i < nkeys && m < n; i++) {
    snprintf(alias[i], sizeof alias[i], "%s", keys[i].name);
    bool changed = false;
    for (char *c = alias[i]; *c; c++)
      if (*c == '_') *c = '-', changed = true;
    bool taken = false;
    for (size_t j = 0; j < m && !taken; j++) taken = strcmp(out[j].name, alias[i]) == 0;
    if (changed && !taken)
      out[m++] = (gb_opt){.name = alias[i], .metavar = keys[i].metavar, .help = keys[i].help, .kind = GB_OPT_CALL,
                          .set = set_workload_key, .hidden = true};
  }
  return m;
}

const gb_opt_cmd gb_plan_cmd = {
    .name = "plan",
    .synopsis = "[OPTIONS] [--KEY VALUE ...] [WORKLOAD.ini]",
    .summary = "rank GPU configurations for a workload by cost under a deadline and a budget",
    .description =
        "Ranks GPU type x GPU count (whole nodes) x offering (on-demand, spot, reserved,\n"
        "purchase) for a workload: estimated hours and cost, cost efficiency (work per\n"
        "dollar), the bottleneck (compute, memory or communication), whether the figures\n"
        "are measured or projected from datasheets; the Pareto frontier of time against\n"
        "cost, rent versus buy (break-even hours per year), hybrid (owned base + cloud\n"
        "burst), and how the top choice moves with price and efficiency +/-20%.\n"
        "With no arguments it plans @DATA@/workloads/training-7b.ini with the shipped data.",
    .options = k_opts,
    .operands = {.metavar = "WORKLOAD.ini",
                 .help = "workload file (docs/planner.md); default the 7B training example", .min = 0, .max = -1,
                 .ext = "ini", .set = set_workload_file},
    .more = more_opts,
    .exit_status = "0 a plan was made, 1 no configuration meets the constraints,\n"
                   "2 bad usage or input (the message names file:line:field).",
};

int gb_plan_parse_args(int argc, char **argv, gb_plan_args *a) {
  memset(a, 0, sizeof *a);
  a->top = 10;
  gb_plan_opts_default(&a->opts);
  gb_workload_init(&a->flags);
  if (!gb_opt_wants_help(argc, argv) && argc > GB_PLAN_MAX_ARGS) return gb_cli_usage_error("plan", "too many arguments");
  /* --explain=all and --explain=summary: a flag with an optional value, which the option table has no kind for */
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--") == 0) break;
    if (strcmp(argv[i], "--explain=all") == 0) argv[i] = (char *)"--explain-all";
    else if (strcmp(argv[i], "--explain=summary") == 0) argv[i] = (char *)"--explain";
    else if (strncmp(argv[i], "--explain=", 10) == 0)
      return gb_cli_usage_error("plan", "--explain: \"%s\" is not summary or all", argv[i] + 10);
  }
  int rc = gb_cli_parse(&gb_plan_cmd, argc, argv, a);
  if (rc == GB_CLI_CONTINUE && a->workload_name) rc = resolve_workload_name(a);
  return rc;
}

void gb_plan_args_free(gb_plan_args *a) {
  for (size_t i = 0; i < a->nset; i++) free(a->set_keys[i]);
  a->nset = 0;
}

/* An output that is an input is refused before anything is written. */
static gb_err outputs_are_inputs(const gb_plan_args *a) {
  const char *inp[GB_PLAN_MAX_MEASURED + 3] = {a->workload_file, a->specs, a->prices};
  size_t nin = 3 + (a->store ? 0 : a->nmeasured); /* with --store, --measured values are selections */
  memcpy(inp + 3, a->measured, (nin - 3) * sizeof *inp);
  const char *outs[] = {a->csv, a->json, a->hybrid_csv, a->sensitivity_csv};
  return gb_store_guard(a->store, false, outs, 4, inp, nin, 0);
}

/* The workload's goodput as the head prints it: given, or the whole-run default. */
static const char *goodput_text(const gb_workload *w) {
  static char buf[64];
  if (isfinite(w->goodput)) snprintf(buf, sizeof buf, "%.2f", w->goodput);
  else snprintf(buf, sizeof buf, "per configuration (whole run: GPUs x length)");
  return buf;
}

/* The head of the text: the workload, the data and the measurements read. */
static void print_inputs(const gb_plan_args *a, const gb_plan_run *run) {
  const gb_workload *w = &run->w;
  const gb_perf *perf = &run->perf;
  printf("gpubench plan: workload %s (%s, %s)%s%s\n", w->name, gb_workload_kind_name(w->kind), w->precision,
         w->origin[0] ? " from " : "", w->origin);
  if (w->kind == GB_WL_TRAINING)
    printf("  %.3g parameters (%.3g active), %.3g tokens, %.3g tokens/step, %.3g FLOPs, %s state, TP %.0f PP %.0f, "
           "goodput %s\n",
           w->params, w->active_params, w->tokens, w->tokens_per_step, gb_workload_total_flops(w),
           w->sharded ? "sharded" : "replicated", w->tensor_parallel, w->pipeline_parallel, goodput_text(w));
  else if (w->kind == GB_WL_INFERENCE)
    printf("  %.3g parameters (%.3g GB of weights), %.0f tokens/s for %.0f h, %.0f in / %.0f out tokens\n", w->params,
           w->model_bytes / 1e9, w->tokens_per_second, w->serve_hours, w->prompt_tokens, w->output_tokens);
  else
    printf("  %.3g FLOPs, %.3g bytes, %.0f all-reduces of %.3g bytes\n", w->total_flops, w->total_bytes,
           w->allreduce_count, w->allreduce_bytes);
  printf("Data: %s (%zu GPU types), %s (%zu price rows)\n", run->specs_path, run->specs.n, run->prices.path,
         run->prices.n);
  if (a->no_measured) printf("Measured: none (--no-measured).\n");
  else
    printf("Measured: %zu file(s)%s%s, %zu rows, %zu used.\n", run->nfiles, a->nmeasured ? "" : " in ",
           a->nmeasured ? "" : run->meas_dir, run->measured.nrows, perf->measured_rows_used);
  if (perf->measured_rows_used == 0)
    printf("NOTE: no measurements were usable: EVERY figure is a datasheet figure x a typical ratio (band +-%.0f%%).\n"
           "      Run 'gpubench run' and plan again.\n",
           GB_BAND_DATASHEET * 100);
  if (perf->notes.len) fprintf(stderr, "gpubench plan: warning: %.*s", (int)perf->notes.len, perf->notes.data);
}

/* The files asked for (--csv, --json, --hybrid-csv, --sensitivity-csv), then
 * a line for each; nothing is said when one fails. */
static gb_err write_files(const gb_plan_args *a, const gb_plan_run *run, const gb_plan_show *show,
                          const gb_hybrid_curve *hy, size_t nh) {
  const gb_plan *plan = &run->plan;
  gb_err e;
  if (a->csv && (e = a->top_given ? gb_plan_write_csv_top(plan, a->top, a->csv) : gb_plan_write_csv(plan, a->csv)))
    return e;
  if (a->json && (e = gb_plan_write_json_run(run, show, hy, nh, a->json))) return e;
  if (a->hybrid_csv && (e = gb_plan_write_hybrid_csv(hy, nh, a->hybrid_csv))) return e;
  if (a->sensitivity_csv && (e = gb_plan_write_sensitivity_csv(run->sens, GB_SENSITIVITY_ROWS, a->sensitivity_csv)))
    return e;
  if (a->csv) printf("Wrote %s\n", a->csv);
  if (a->json) printf("Wrote %s\n", a->json);
  if (a->hybrid_csv) printf("Wrote %s%s\n", a->hybrid_csv, nh ? "" : " (no demand profile in the workload: empty)");
  if (a->sensitivity_csv) printf("Wrote %s\n", a->sensitivity_csv);
  return GB_OK;
}

int gb_cmd_plan(int argc, char **argv) {
  gb_plan_args a;
  int rc = gb_plan_parse_args(argc, argv, &a);
  if (rc != GB_CLI_CONTINUE) {
    gb_plan_args_free(&a);
    return rc;
  }
  rc = 0;
  if (outputs_are_inputs(&a)) {
    fprintf(stderr, "gpubench plan: %s\n", gb_errmsg());
    gb_plan_args_free(&a);
    return 2;
  }
  gb_store_tmp from_store = {0}; /* --store: each --measured selection as a results file */
  if (a.store && a.nmeasured && gb_store_export_tmp(a.store, a.measured, a.nmeasured, &from_store)) {
    fprintf(stderr, "gpubench plan: %s\n", gb_errmsg());
    gb_store_tmp_free(&from_store);
    gb_plan_args_free(&a);
    return 2;
  }
  gb_plan_inputs in = {0};
  in.workload_file = a.workload_file;
  in.keys = (const char *const *)a.set_keys;
  in.vals = a.set_vals;
  in.nkeys = a.nset;
  in.measured = a.measured;
  in.nmeasured = a.nmeasured;
  if (a.store) in.measured = (const char *const *)from_store.path;
  in.no_measured = a.no_measured;
  in.prices = a.prices;
  in.specs = a.specs;
  in.opts = a.opts;
  if (a.only_measured) in.opts.only_measured = true;
  gb_plan_run *run = calloc(1, sizeof *run);
  if (!run) {
    fprintf(stderr, "gpubench plan: out of memory\n");
    gb_plan_args_free(&a);
    gb_store_tmp_free(&from_store);
    return 1;
  }
  gb_err e = gb_plan_run_make(&in, run);
  if (e) goto done;
  const gb_plan *plan = &run->plan;
  print_inputs(&a, run);
  gb_hybrid_curve hy[32];
  size_t nh = gb_plan_hybrid_demand(plan, &run->perf, &run->prices, hy, 32);
  gb_plan_show show = {.top = a.top, .explain = a.explain_all ? 2 : a.explain};
  gb_plan_print_text(stdout, run, &show, hy, nh);
  if ((e = write_files(&a, run, &show, hy, nh))) goto done;
  rc = plan->nfeasible ? 0 : 1;
  if (!plan->nfeasible) fprintf(stderr, "gpubench plan: no configuration meets the constraints (see Rejected above)\n");
done:
  if (e) {
    fprintf(stderr, "gpubench plan: %s\n", gb_errmsg());
    rc = gb_exit_code(e);
  }
  gb_plan_args_free(&a);
  gb_plan_run_free(run);
  free(run);
  gb_store_tmp_free(&from_store);
  return rc;
}
