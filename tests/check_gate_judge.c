/* check_gate_judge: what the gate must not be fooled by, on real A/A
 * campaigns (tests/fixtures/aa/): collapsed, erratic and missing headline
 * figures, figures that switch power state between runs (judged by their
 * peak), every shipped data file compared with itself, and floors measured
 * from more runs than any fixed buffer would hold. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_desc.h"
#include "gb_fleet.h"
#include "gb_gate.h"
#include "gb_noise.h"
#include "gb_runinfo.h"
#include "testutil.h"

static gb_noise_table g_noise;
static gb_results g_base, g_cur;

static void setup(void) {
  char path[4200];
  snprintf(path, sizeof path, "%s/noise/floors.csv", gb_data_dir());
  ck_assert_msg(gb_noise_read(path, &g_noise) == GB_OK, "%s", gb_errmsg());
  memset(&g_base, 0, sizeof g_base);
  memset(&g_cur, 0, sizeof g_cur);
}

static void teardown(void) {
  gb_noise_free(&g_noise);
  gb_results_free(&g_base);
  gb_results_free(&g_cur);
}

static void read_aa(const char *name, gb_results *res) {
  char path[96];
  snprintf(path, sizeof path, "aa/%s.csv", name);
  gb_results_free(res);
  memset(res, 0, sizeof *res);
  ck_assert_msg(gb_results_read(gb_fixture(path), res) == GB_OK, "%s", gb_errmsg());
}

/* The first row of res whose label contains needle (and metric, when given). */
static gb_row *find_row(gb_results *res, const char *bench, const char *case_name, int64_t m, int64_t bytes,
                        const char *metric) {
  for (size_t i = 0; i < res->nrows; i++) {
    gb_row *r = &res->rows[i];
    if (strcmp(r->benchmark, bench) == 0 && strcmp(r->case_name, case_name) == 0 && r->m == m &&
        r->bytes == bytes && strcmp(r->metric, metric) == 0)
      return r;
  }
  ck_abort_msg("no row %s/%s m=%lld bytes=%lld %s", bench, case_name, (long long)m, (long long)bytes, metric);
  return NULL;
}

static void scale(gb_row *r, double f) {
  r->value *= f;
  r->min *= f;
  r->max *= f;
  r->stddev *= f;
}

static const gb_gate_item *item_of(const gb_gate_report *rep, const char *needle) {
  for (size_t i = 0; i < rep->nitems; i++)
    if (strstr(rep->items[i].key, needle)) return &rep->items[i];
  ck_abort_msg("no figure %s", needle);
  return NULL;
}

static gb_gate_report judge_pair(const gb_gate_options *opt) {
  gb_gate_report rep;
  ck_assert_msg(gb_gate_compare(&g_base, &g_cur, opt, &rep) == GB_OK, "%s", gb_errmsg());
  return rep;
}

#define MIB ((int64_t)1 << 20)
#define GIB ((int64_t)1 << 30)

/* A headline figure at 0 now, one at +inf, one whose rows scatter by 60%,
 * one gone: each fails with its own verdict and reason; the untouched pair
 * passes; --allow-missing lets the missing one go. */
START_TEST(test_collapse_fails) {
  gb_gate_options opt = gb_gate_defaults();
  opt.noise = &g_noise;
  read_aa("c9-quick-1", &g_base);
  read_aa("c9-quick-2", &g_cur);
  gb_gate_report rep = judge_pair(&opt);
  ck_assert_int_eq(gb_gate_exit_code(&rep), 0);
  ck_assert_uint_eq(rep.failing, 0);
  gb_gate_report_free(&rep);

  find_row(&g_cur, "gemm", "fp64", 8192, GB_NA, "tflops")->value = 0;
  find_row(&g_cur, "membw", "triad", GB_NA, 2 * GIB, "gbps")->value = INFINITY;
  gb_row *bf = find_row(&g_cur, "gemm", "bf16", 8192, GB_NA, "tflops");
  bf->stddev = 0.6 * bf->value;
  /* membw copy 1 GiB: gone (its row dropped from the current side) */
  gb_row *gone = find_row(&g_cur, "membw", "copy", GB_NA, GIB, "gbps");
  size_t at = (size_t)(gone - g_cur.rows);
  memmove(gone, gone + 1, (g_cur.nrows - at - 1) * sizeof *gone);
  g_cur.nrows--;
  rep = judge_pair(&opt);
  const gb_gate_item *z = item_of(&rep, "gemm/fp64 fp64 m=8192 n=8192 k=8192 tflops");
  ck_assert_int_eq(z->verdict, GB_VERDICT_COLLAPSED);
  ck_assert_msg(strstr(z->note, ": value 0: a headline figure at 0, negative or not finite"), "%s", z->note);
  const gb_gate_item *inf = item_of(&rep, "membw/triad fp64 bytes=2147483648 gbps");
  ck_assert_int_eq(inf->verdict, GB_VERDICT_COLLAPSED);
  ck_assert_msg(strstr(inf->note, "value inf"), "%s", inf->note);
  const gb_gate_item *u = item_of(&rep, "gemm/bf16 bf16 m=8192 n=8192 k=8192 tflops");
  ck_assert_int_eq(u->verdict, GB_VERDICT_UNSTABLE);
  ck_assert_msg(strstr(u->note, "within-run stddev 60.0% of the value, past 25.0%"), "%s", u->note);
  const gb_gate_item *m = item_of(&rep, "membw/copy fp64 bytes=1073741824 gbps");
  ck_assert_int_eq(m->verdict, GB_VERDICT_MISSING);
  ck_assert(m->fails);
  ck_assert_msg(strstr(m->note, "a headline figure is gone (--allow-missing"), "%s", m->note);
  ck_assert_uint_eq(rep.count[GB_VERDICT_COLLAPSED], 2);
  ck_assert_uint_eq(rep.count[GB_VERDICT_UNSTABLE], 1);
  ck_assert_uint_eq(rep.count[GB_VERDICT_REGRESSION], 0);
  ck_assert_uint_eq(rep.failing, 4);
  ck_assert_int_eq(gb_gate_exit_code(&rep), 1);
  gb_buf x = {0};
  ck_assert_int_eq(gb_gate_format_junit(&rep, &x), GB_OK);
  gb_buf_append(&x, "", 1);
  ck_assert_msg(strstr(x.data, "failures=\"4\""), "%s", x.data);
  gb_buf_free(&x);
  gb_gate_report_free(&rep);
  /* only the missing figure left: it fails, unless allowed */
  find_row(&g_cur, "gemm", "fp64", 8192, GB_NA, "tflops")->value = find_row(&g_base, "gemm", "fp64", 8192, GB_NA,
                                                                           "tflops")->value;
  *find_row(&g_cur, "membw", "triad", GB_NA, 2 * GIB, "gbps") = *find_row(&g_base, "membw", "triad", GB_NA, 2 * GIB,
                                                                          "gbps");
  bf->stddev = find_row(&g_base, "gemm", "bf16", 8192, GB_NA, "tflops")->stddev;
  rep = judge_pair(&opt);
  ck_assert_uint_eq(rep.failing, 1);
  ck_assert_int_eq(gb_gate_exit_code(&rep), 1);
  gb_gate_report_free(&rep);
  opt.allow_missing = true;
  rep = judge_pair(&opt);
  ck_assert_uint_eq(rep.failing, 0);
  ck_assert_uint_eq(rep.count[GB_VERDICT_MISSING], 1);
  ck_assert_int_eq(gb_gate_exit_code(&rep), 0);
  gb_gate_report_free(&rep);
}
END_TEST

/* A latency-class figure at 0 is not a collapse of the gate (information
 * only): insufficient, as before. */
START_TEST(test_latency_zero_not_collapse) {
  gb_gate_options opt = gb_gate_defaults();
  opt.noise = &g_noise;
  read_aa("c10-quick-1", &g_base);
  read_aa("c10-quick-2", &g_cur);
  find_row(&g_cur, "membw", "triad", GB_NA, MIB, "gbps")->value = 0;
  gb_gate_report rep = judge_pair(&opt);
  ck_assert_int_eq(item_of(&rep, "membw/triad fp64 bytes=1048576 gbps")->verdict, GB_VERDICT_INSUFFICIENT);
  ck_assert_int_eq(gb_gate_exit_code(&rep), 0);
  gb_gate_report_free(&rep);
}
END_TEST

/* tf32, fp16 and fp16acc16 at 8192^3 switch power state between runs: 10%
 * slower (every sample) is a regression in every current-build pair of
 * cards 9, 10 and 11, judged by the peak; and the untouched pairs pass. */
START_TEST(test_power_state_drop) {
  static const char *const pairs[][2] = {{"c9-quick-1", "c9-quick-2"},   {"c9-quick-3", "c9-quick-4"},
                                         {"c9-quick-5", "c9-quick-6"},   {"c10-quick-1", "c10-quick-2"},
                                         {"c10-quick-3", "c10-quick-4"}, {"c10-quick-5", "c10-quick-6"},
                                         {"c11-quick-1", "c11-quick-2"}, {"c11-quick-3", "c11-quick-4"},
                                         {"c11-quick-5", "c11-quick-6"}};
  static const char *const cases[] = {"tf32", "fp16", "fp16acc16"};
  gb_gate_options opt = gb_gate_defaults();
  opt.noise = &g_noise;
  for (size_t p = 0; p < sizeof pairs / sizeof pairs[0]; p++) {
    read_aa(pairs[p][0], &g_base);
    read_aa(pairs[p][1], &g_cur);
    gb_gate_report rep = judge_pair(&opt);
    ck_assert_msg(gb_gate_exit_code(&rep) == 0, "%s %s", pairs[p][0], pairs[p][1]);
    gb_gate_report_free(&rep);
    for (size_t c = 0; c < 3; c++) scale(find_row(&g_cur, "gemm", cases[c], 8192, GB_NA, "tflops"), 0.9);
    rep = judge_pair(&opt);
    for (size_t c = 0; c < 3; c++) {
      char key[96];
      snprintf(key, sizeof key, "gemm/%s %s m=8192 n=8192 k=8192 tflops", cases[c], c ? "fp16" : "tf32");
      const gb_gate_item *it = item_of(&rep, key);
      ck_assert_msg(it->verdict == GB_VERDICT_REGRESSION && it->peak, "%s %s: %s %s (%s, MDC %.2f%%)", pairs[p][0],
                    pairs[p][1], key, gb_verdict_name(it->verdict), it->method, it->mdc_pct);
      ck_assert_double_lt(it->change_pct, -7.0); /* the peaks of two runs differ by up to 2.5% */
    }
    gb_gate_report_free(&rep);
  }
}
END_TEST

/* Is PATH a results file (its header names run_id)? */
static int is_results_csv(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  char line[4096] = "";
  int yes = fgets(line, sizeof line, f) && strstr(line, "run_id") && strstr(line, "benchmark");
  fclose(f);
  return yes;
}

/* Compares every results file under DIR (recursively) with itself; counts them in *files. */
static void self_compare_tree(const char *dir, size_t *files) {
  DIR *dp = opendir(dir);
  ck_assert_msg(dp != NULL, "%s", dir);
  for (struct dirent *de; (de = readdir(dp));) {
    if (de->d_name[0] == '.') continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
    DIR *sub = opendir(path);
    if (sub) {
      closedir(sub);
      self_compare_tree(path, files);
      continue;
    }
    size_t n = strlen(de->d_name);
    if (n < 5 || strcmp(de->d_name + n - 4, ".csv") || !is_results_csv(path)) continue;
    gb_results_free(&g_base);
    memset(&g_base, 0, sizeof g_base);
    ck_assert_msg(gb_results_read(path, &g_base) == GB_OK, "%s", gb_errmsg());
    gb_gate_options opt = gb_gate_defaults();
    opt.noise = &g_noise;
    gb_gate_report rep;
    ck_assert_msg(gb_gate_compare(&g_base, &g_base, &opt, &rep) == GB_OK, "%s: %s", path, gb_errmsg());
    ck_assert_msg(gb_gate_exit_code(&rep) == 0, "%s: exit %d", path, gb_gate_exit_code(&rep));
    gb_gate_report_free(&rep);
    (*files)++;
  }
  closedir(dp);
}

/* Every results file data/ ships, in any folder, compared with itself passes
 * (the sustained GEMM file's metrics have their direction in the registry). */
START_TEST(test_shipped_self_compare) {
  size_t files = 0;
  self_compare_tree(gb_data_dir(), &files);
  ck_assert_uint_ge(files, 9); /* measured/, sustained/, grouped/, alltoall/ */
}
END_TEST

/* 4200 runs of one figure: every run counted (the count used to stop at
 * 4096 and the per-run buffer overflowed past it). */
START_TEST(test_noise_many_runs) {
  enum { N = 4200 };
  gb_buf b = {0};
  gb_results_put_header(&b);
  for (int i = 0; i < N; i++) {
    char run[32];
    snprintf(run, sizeof run, "run%05d", i);
    gb_row r = gb_row_empty();
    r.run_id = run;
    r.timestamp = "2026-12-05T00:00:00Z";
    r.gpu_type = "H200-SXM-141GB";
    r.benchmark = "membw";
    r.case_name = "triad";
    r.dtype = "fp64";
    r.bytes = GIB;
    r.metric = "gbps";
    r.unit = "GB/s";
    r.value = 4000.0 * (1 + 0.01 * ((i * 7919) % 101 - 50) / 50.0);
    gb_results_put_row(&b, &r);
  }
  ck_assert_int_eq(gb_results_read_mem("many.csv", b.data, b.len, &g_base), GB_OK);
  gb_buf_free(&b);
  gb_noise_table t;
  ck_assert_msg(gb_noise_measure(&g_base, &t) == GB_OK, "%s", gb_errmsg());
  ck_assert_uint_eq(t.runs, N);
  ck_assert_uint_ge(t.n, 1);
  ck_assert_uint_eq(t.v[0].pairs, (size_t)N * (N - 1) / 2);
  gb_noise_free(&t);
}
END_TEST


/* A 4-node campaign merged from real runs of cards 9, 10, 11 and 8 (the
 * current build), run 1 of each the baseline, run 2 the current. */
static void read_fleet(int run, gb_results *res) {
  static const char *const nodes[] = {"c9-quick", "c10-quick", "c11-quick", "c8-new"};
  char paths[4][4200];
  char *inputs[4];
  for (int i = 0; i < 4; i++) {
    char name[64];
    snprintf(name, sizeof name, "aa/%s-%d.csv", nodes[i], run);
    snprintf(paths[i], sizeof paths[i], "%s", gb_fixture(name));
    inputs[i] = paths[i];
  }
  gb_results_free(res);
  memset(res, 0, sizeof *res);
  ck_assert_msg(gb_gate_read_side(inputs, 4, false, res) == GB_OK, "%s", gb_errmsg());
}

#define SLOW_GPU "GPU-4f991b23-f104-734b-87a1-fc89a7618287" /* card 10 */

/* Card 10's headline figures 10% worse (a rate x 0.9, a time / 0.9). */
static void slow_node(gb_results *res) {
  for (size_t i = 0; i < res->nrows; i++) {
    gb_row *r = &res->rows[i];
    if (strcmp(r->gpu_uuid, SLOW_GPU) || gb_desc_class(r) != GB_FCLASS_HEADLINE) continue;
    scale(r, gb_metric_direction(r->benchmark, r->metric) < 0 ? 1 / 0.9 : 0.9);
  }
}

/* compare judges each node of a merged file against its own baseline: the
 * untouched pair passes; card 10 made 10% slower fails, and every failing
 * figure names card 10. */
START_TEST(test_compare_per_node) {
  gb_gate_options opt = gb_gate_defaults();
  opt.noise = &g_noise;
  read_fleet(1, &g_base);
  read_fleet(2, &g_cur);
  gb_gate_report rep = judge_pair(&opt);
  ck_assert_uint_eq(rep.nodes, 4);
  ck_assert_uint_eq(rep.count[GB_VERDICT_MISSING] + rep.count[GB_VERDICT_NEW], 0);
  ck_assert_uint_eq(rep.failing, 0);
  ck_assert_int_eq(gb_gate_exit_code(&rep), 0);
  gb_gate_report_free(&rep);
  slow_node(&g_cur);
  rep = judge_pair(&opt);
  ck_assert_int_eq(gb_gate_exit_code(&rep), 1);
  ck_assert_uint_ge(rep.count[GB_VERDICT_REGRESSION], 85); /* of 90 headline figures */
  for (size_t i = 0; i < rep.nitems; i++) {
    const gb_gate_item *it = &rep.items[i];
    if (it->fails) ck_assert_msg(strstr(it->key, "@ vm " SLOW_GPU) && strcmp(it->node, SLOW_GPU) == 0, "%s", it->key);
  }
  gb_buf t = {0};
  ck_assert_int_eq(gb_gate_format_short(&rep, &t), GB_OK);
  gb_buf_append(&t, "", 1);
  ck_assert_msg(strstr(t.data, "judged node by node (4 nodes)") && strstr(t.data, "@ vm " SLOW_GPU ": "), "%s",
                t.data);
  gb_buf_free(&t);
  gb_gate_report_free(&rep);
}
END_TEST

/* The fleet check ranks the 4 nodes of one campaign: none slow as they
 * are (cards differ by up to 2-3% on some figures), card 10 named and
 * failed when 10% slower, in text, markdown and JUnit. */
static size_t count_of(const char *s, const char *what) {
  size_t n = 0;
  for (const char *p = s; (p = strstr(p, what)); p += strlen(what)) n++;
  return n;
}

START_TEST(test_fleet_names_slow_node) {
  gb_fleet_options opt = {.threshold_pct = NAN, .alpha = NAN, .noise = &g_noise};
  for (int run = 1; run <= 2; run++) {
    read_fleet(run, &g_cur);
    gb_fleet_report rep;
    ck_assert_msg(gb_fleet_check(&g_cur, &opt, &rep) == GB_OK, "%s", gb_errmsg());
    ck_assert_uint_eq(rep.nnodes, 4);
    ck_assert_uint_ge(rep.nfigs, 85); /* 90 headline figures */
    ck_assert_uint_eq(rep.slow_nodes, 0);
    ck_assert_int_eq(gb_fleet_exit_code(&rep), 0);
    gb_fleet_free(&rep);
    slow_node(&g_cur);
    ck_assert_msg(gb_fleet_check(&g_cur, &opt, &rep) == GB_OK, "%s", gb_errmsg());
    ck_assert_uint_eq(rep.slow_nodes, 1);
    ck_assert_str_eq(rep.nodes[0].gpu_uuid, SLOW_GPU); /* ranked first */
    ck_assert_uint_ge(rep.nodes[0].slow, rep.nfigs * 95 / 100);
    ck_assert_double_eq_tol(rep.nodes[0].geomean, 0.90, 0.01);
    for (size_t k = 1; k < 4; k++) ck_assert_uint_eq(rep.nodes[k].slow, 0);
    ck_assert_int_eq(gb_fleet_exit_code(&rep), 1);
    gb_buf t = {0}, md = {0}, x = {0};
    ck_assert_int_eq(gb_fleet_format_text(&rep, &t), GB_OK);
    ck_assert_int_eq(gb_fleet_format_markdown(&rep, &md), GB_OK);
    ck_assert_int_eq(gb_fleet_format_junit(&rep, &x), GB_OK);
    gb_buf_append(&t, "", 1);
    gb_buf_append(&md, "", 1);
    gb_buf_append(&x, "", 1);
    ck_assert_msg(strstr(t.data, "fleet: FAIL: 4 nodes") && strstr(t.data, "vm " SLOW_GPU "  SLOW\n"), "%s", t.data);
    ck_assert_msg(strstr(md.data, "| 1 | vm " SLOW_GPU " **SLOW** |"), "%s", md.data);
    ck_assert_msg(strstr(x.data, "tests=\"4\" failures=\"1\"") && gb_test_xml_well_formed(x.data), "%s", x.data);
    /* the exporter's per-node verdict: the slow node 1, the others 0 */
    gb_buf pm = {0};
    size_t ns = 0;
    ck_assert_int_eq(gb_fleet_prom(&g_cur, &pm, &ns), GB_OK);
    gb_buf_append(&pm, "", 1);
    ck_assert_uint_eq(ns, 12);
    ck_assert_msg(strstr(pm.data, "gpubench_node_slow{host=\"vm\",gpu_uuid=\"" SLOW_GPU "\"} 1\n"), "%s", pm.data);
    ck_assert_uint_eq(count_of(pm.data, "gpubench_node_slow{"), 4);
    ck_assert_uint_eq(count_of(pm.data, "\"} 0\n"), 6); /* slow and slow figures of the three others */
    gb_buf_free(&pm);
    gb_buf_free(&t);
    gb_buf_free(&md);
    gb_buf_free(&x);
    gb_fleet_free(&rep);
  }
  /* two nodes cannot be ranked */
  read_aa("c9-quick-1", &g_cur);
  gb_fleet_report rep;
  ck_assert_int_eq(gb_fleet_check(&g_cur, &opt, &rep), GB_E_INPUT);
  ck_assert_str_eq(gb_errmsg(), "fleet: 1 node (host, gpu_uuid) in the results: ranking needs at least 3");
  gb_buf none = {0}; /* nor does the exporter write a verdict for one node */
  ck_assert_int_eq(gb_fleet_prom(&g_cur, &none, NULL), GB_OK);
  ck_assert_uint_eq(none.len, 0);
}
END_TEST

/* No floors file where data files are looked for: a warning every output
 * carries, an error with strict. */
START_TEST(test_floors_missing_is_loud) {
  setenv("GPUBENCH_DATA_DIR", "/nonexistent-gpubench-data", 1);
  gb_noise_table t;
  char w[1400];
  ck_assert_int_eq(gb_noise_load(NULL, false, &t, w, sizeof w), GB_OK);
  ck_assert_msg(strstr(w, "WARNING: no noise floors file found (looked for /nonexistent-gpubench-data/noise/floors.csv)"
                         ": default thresholds used"),
                "%s", w);
  ck_assert_int_eq(gb_noise_load(NULL, true, &t, w, sizeof w), GB_E_INPUT);
  ck_assert_int_eq(gb_noise_load("none", true, &t, w, sizeof w), GB_OK); /* built-in floors on purpose */
  ck_assert_str_eq(w, "");
  unsetenv("GPUBENCH_DATA_DIR");
  ck_assert_int_eq(gb_noise_load(NULL, true, &t, w, sizeof w), GB_OK);
  ck_assert_uint_ge(t.n, 100);
  gb_noise_free(&t);
  gb_noise_load(NULL, false, &t, w, sizeof w);
  setenv("GPUBENCH_DATA_DIR", "/nonexistent-gpubench-data", 1);
  char w2[1400];
  gb_noise_table none;
  gb_noise_load(NULL, false, &none, w2, sizeof w2);
  unsetenv("GPUBENCH_DATA_DIR");
  gb_gate_options opt = gb_gate_defaults();
  opt.noise = &none;
  opt.warning = w2;
  read_aa("c9-quick-1", &g_base);
  read_aa("c9-quick-2", &g_cur);
  gb_gate_report rep = judge_pair(&opt);
  gb_buf s = {0}, md = {0}, x = {0};
  ck_assert_int_eq(gb_gate_format_short(&rep, &s), GB_OK);
  ck_assert_int_eq(gb_gate_format_markdown(&rep, &md), GB_OK);
  ck_assert_int_eq(gb_gate_format_junit(&rep, &x), GB_OK);
  gb_buf_append(&s, "", 1);
  gb_buf_append(&md, "", 1);
  gb_buf_append(&x, "", 1);
  ck_assert_ptr_nonnull(strstr(s.data, "WARNING: no noise floors file"));
  ck_assert_ptr_nonnull(strstr(md.data, "WARNING: no noise floors file"));
  ck_assert_ptr_nonnull(strstr(x.data, "WARNING: no noise floors file"));
  gb_buf_free(&s);
  gb_buf_free(&md);
  gb_buf_free(&x);
  gb_gate_report_free(&rep);
  gb_noise_free(&t);
  gb_noise_free(&none);
}
END_TEST

/* Reads runs first..last of a card's campaigns (prefix "c9-quick") into res. */
static void read_runs(const char *prefix, int first, int last, gb_results *res) {
  gb_results_free(res);
  memset(res, 0, sizeof *res);
  for (int i = first; i <= last; i++) {
    char path[96];
    snprintf(path, sizeof path, "aa/%s-%d.csv", prefix, i);
    ck_assert_msg(gb_results_read(gb_fixture(path), res) == GB_OK, "%s", gb_errmsg());
  }
}

/* The item of a figure by its floor-file name (gb_noise_figure). */
static const gb_gate_item *item_named(const gb_gate_report *rep, const char *figure) {
  for (size_t i = 0; i < rep->nitems; i++) {
    const gb_row *r = rep->items[i].base.row ? rep->items[i].base.row : rep->items[i].cur.row;
    char fig[512];
    gb_noise_figure(r, fig, sizeof fig);
    if (strcmp(fig, figure) == 0) return &rep->items[i];
  }
  ck_abort_msg("no figure %s", figure);
  return NULL;
}

/* A baseline of five runs of the current run's card (card 9, runs 1-5,
 * against run 6): the headline figures are judged against their one-card
 * floors (GB_GATE_SAME_GPU_MIN_RUNS), so fp64, int8 and fp8 GEMM 8192^3 and
 * HBM get MDCs under 5% (2.0-3.1%, where the cross-card floors gave
 * 3.6-5.2%); the A/A pair stays quiet; 5% worse is caught on each of them.
 * A baseline with one run of another card is judged as before. */
START_TEST(test_same_card_baseline) {
  static const char *const figs[] = {"gemm/fp64 fp64 m=8192 n=8192 k=8192 tflops x1",
                                     "gemm/int8 int8 m=8192 n=8192 k=8192 tops x1",
                                     "gemm/fp8e4m3_slowacc fp8e4m3 m=8192 n=8192 k=8192 tflops x1",
                                     "gemm/fp8e4m3_e4m3out_slowacc fp8e4m3 m=8192 n=8192 k=8192 tflops x1",
                                     "membw/dot fp64 bytes=1073741824 gbps x1"};
  read_runs("c9-quick", 1, 5, &g_base);
  read_aa("c9-quick-6", &g_cur);
  gb_gate_options opt = gb_gate_defaults();
  opt.noise = &g_noise;
  gb_gate_report rep = judge_pair(&opt);
  ck_assert_int_eq(gb_gate_exit_code(&rep), 0);
  ck_assert_uint_eq(rep.count[GB_VERDICT_REGRESSION] + rep.count[GB_VERDICT_IMPROVEMENT], 0);
  size_t same = 0;
  for (size_t f = 0; f < sizeof figs / sizeof figs[0]; f++) {
    const gb_gate_item *it = item_named(&rep, figs[f]);
    ck_assert_msg(it->mdc_pct < 4.0, "%s: MDC %.2f%%", figs[f], it->mdc_pct);
    if (strcmp(it->method, "own spread") == 0) continue; /* its rows' scatter is wider still (fp8 slowacc) */
    ck_assert_str_eq(it->method, "floor+runs, same GPU");
    const gb_noise_floor *fc = gb_noise_lookup_figure_same_gpu(&g_noise, it->base.row);
    ck_assert_ptr_nonnull(fc);
    ck_assert_double_lt(fc->sigma, gb_noise_lookup_figure(&g_noise, it->base.row)->sigma);
    double s = it->base.sd_ln;
    ck_assert_double_eq_tol(it->sigma, sqrt((4 * fc->sigma * fc->sigma + 4 * s * s) / 8), 1e-12);
    same++;
  }
  ck_assert_uint_eq(same, 4);
  gb_gate_report_free(&rep);
  for (size_t i = 0; i < g_cur.nrows; i++) {
    gb_row *r = &g_cur.rows[i];
    bool gemm = strcmp(r->benchmark, "gemm") == 0 && r->m == 8192 && strcmp(r->metric, "speedup");
    bool hbm = strcmp(r->benchmark, "membw") == 0 && r->bytes >= GIB;
    if (gemm || hbm) scale(r, 0.95);
  }
  rep = judge_pair(&opt);
  for (size_t f = 0; f < sizeof figs / sizeof figs[0]; f++)
    ck_assert_str_eq(gb_verdict_name(item_named(&rep, figs[f])->verdict), "regression");
  ck_assert_int_eq(gb_gate_exit_code(&rep), 1);
  gb_gate_report_free(&rep);
  /* one baseline run from card 10: the baseline is not one card's, the rule does not apply */
  read_runs("c9-quick", 1, 4, &g_base);
  ck_assert_int_eq(gb_results_read(gb_fixture("aa/c10-quick-1.csv"), &g_base), GB_OK);
  rep = judge_pair(&opt);
  for (size_t i = 0; i < rep.nitems; i++) ck_assert_str_ne(rep.items[i].method, "floor+runs, same GPU");
  gb_gate_report_free(&rep);
}
END_TEST

/* bf16 GEMM 8192^3 on card 9 hops between two states from one process to
 * the next (runs 1-5 at 809-812 TFLOP/s, run 6 at 783; every run's best
 * sample 813-816): a baseline that holds the hop (runs 2-6) judges it by
 * its peaks (GB_GATE_PEAK_MIN_RUNS), so 5% worse on run 1 is caught (it was
 * "noise" against the own spread's 5.3%) and run 1 itself passes; a
 * baseline without the hop (runs 1-5) judges the medians, and run 6's hop
 * is not a regression. */
START_TEST(test_peak_from_runs) {
  const char *fig = "gemm/bf16 bf16 m=8192 n=8192 k=8192 tflops x1";
  read_runs("c9-quick", 2, 6, &g_base);
  read_aa("c9-quick-1", &g_cur);
  gb_gate_options opt = gb_gate_defaults();
  opt.noise = &g_noise;
  gb_gate_report rep = judge_pair(&opt);
  const gb_gate_item *it = item_named(&rep, fig);
  ck_assert_str_eq(it->method, "peak from the runs, same GPU");
  ck_assert(it->peak);
  ck_assert_str_eq(gb_verdict_name(it->verdict), "unchanged");
  ck_assert_double_lt(it->mdc_pct, 4.0);
  ck_assert_double_lt(it->base.peak_sd_ln * GB_GATE_PEAK_RATIO, it->base.sd_ln);
  ck_assert_int_eq(gb_gate_exit_code(&rep), 0);
  gb_gate_report_free(&rep);
  scale(find_row(&g_cur, "gemm", "bf16", 8192, GB_NA, "tflops"), 0.95);
  rep = judge_pair(&opt);
  it = item_named(&rep, fig);
  ck_assert_str_eq(gb_verdict_name(it->verdict), "regression");
  ck_assert_double_eq_tol(it->change_pct, -4.76, 0.01);
  ck_assert_int_eq(gb_gate_exit_code(&rep), 1);
  gb_gate_report_free(&rep);
  read_runs("c9-quick", 1, 5, &g_base);
  read_aa("c9-quick-6", &g_cur);
  rep = judge_pair(&opt);
  it = item_named(&rep, fig);
  ck_assert(!it->peak);
  ck_assert_str_ne(gb_verdict_name(it->verdict), "regression");
  gb_gate_report_free(&rep);
}
END_TEST

/* A derived figure (fp16_vs_fp64: a ratio of two measured ones) is flagged
 * only where a side moved beyond its own noise: its speedup row 25% lower
 * with fp16 and fp64 as they were (a regression before) is noise, naming
 * its sides; fp16 25% slower too is a regression of both. */
START_TEST(test_derived_by_sides) {
  const char *fig = "gemm/fp16_vs_fp64 fp16 m=8192 n=8192 k=8192 speedup x1";
  read_aa("c11-quick-3", &g_base);
  read_aa("c11-quick-4", &g_cur);
  scale(find_row(&g_cur, "gemm", "fp16_vs_fp64", 8192, GB_NA, "speedup"), 0.75);
  gb_gate_options opt = gb_gate_defaults();
  opt.noise = &g_noise;
  gb_gate_report rep = judge_pair(&opt);
  const gb_gate_item *it = item_named(&rep, fig);
  ck_assert_str_eq(gb_verdict_name(it->verdict), "noise");
  ck_assert_ptr_nonnull(strstr(it->note, "fp16 and fp64 each within their noise"));
  ck_assert(!it->fails);
  ck_assert_int_eq(gb_gate_exit_code(&rep), 0);
  gb_gate_report_free(&rep);
  scale(find_row(&g_cur, "gemm", "fp16", 8192, GB_NA, "tflops"), 0.75);
  rep = judge_pair(&opt);
  ck_assert_str_eq(gb_verdict_name(item_named(&rep, fig)->verdict), "regression");
  ck_assert_str_eq(gb_verdict_name(item_named(&rep, "gemm/fp16 fp16 m=8192 n=8192 k=8192 tflops x1")->verdict),
                   "regression");
  ck_assert_int_eq(gb_gate_exit_code(&rep), 1);
  gb_gate_report_free(&rep);
}
END_TEST

/* In a merged fleet file, judged node by node, a derived figure's sides
 * are its own node's: each node in turn with its fp16 8192^3 and its
 * fp16_vs_fp64 speedup 25% lower has its speedup flagged (its fp16 moved),
 * the other nodes' speedups not. (The sides were looked up by shape only,
 * so every node but one took another node's fp16, and its speedup was
 * called noise.) */
START_TEST(test_derived_sides_per_node) {
  gb_gate_options opt = gb_gate_defaults();
  opt.noise = &g_noise;
  read_fleet(1, &g_base);
  read_fleet(2, &g_cur);
  char uuids[8][64]; /* copies: g_cur is read again below */
  size_t nu = 0;
  for (size_t i = 0; i < g_cur.nrows && nu < 8; i++) {
    size_t j = 0;
    while (j < nu && strcmp(uuids[j], g_cur.rows[i].gpu_uuid)) j++;
    if (j == nu) snprintf(uuids[nu++], sizeof uuids[0], "%s", g_cur.rows[i].gpu_uuid);
  }
  ck_assert_uint_eq(nu, 4);
  size_t tried = 0;
  for (size_t u = 0; u < nu; u++) {
    read_fleet(2, &g_cur);
    size_t scaled = 0;
    for (size_t i = 0; i < g_cur.nrows; i++) {
      gb_row *r = &g_cur.rows[i];
      if (strcmp(r->gpu_uuid, uuids[u]) || strcmp(r->benchmark, "gemm") || r->m != 8192 || r->n != 8192) continue;
      if ((strcmp(r->case_name, "fp16") == 0 && strcmp(r->metric, "tflops") == 0) ||
          strcmp(r->case_name, "fp16_vs_fp64") == 0)
        scale(r, 0.75), scaled++;
    }
    if (scaled < 2) continue; /* this node's campaign has no such figures */
    tried++;
    gb_gate_report rep = judge_pair(&opt);
    size_t seen = 0;
    for (size_t i = 0; i < rep.nitems; i++) {
      const gb_gate_item *it = &rep.items[i];
      const gb_row *r = it->base.row;
      if (!r || strcmp(r->case_name, "fp16_vs_fp64") || r->m != 8192 || r->n != 8192) continue;
      bool mine = strcmp(it->node, uuids[u]) == 0;
      seen += mine;
      ck_assert_msg(mine == (it->verdict == GB_VERDICT_REGRESSION), "%s: %s (%s)", it->key,
                    gb_verdict_name(it->verdict), it->note);
    }
    ck_assert_uint_eq(seen, 1);
    gb_gate_report_free(&rep);
  }
  ck_assert_uint_ge(tried, 3);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("gate_judge");
  TCase *tc = tcase_create("judge");
  tcase_set_timeout(tc, 120);
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, test_collapse_fails);
  tcase_add_test(tc, test_latency_zero_not_collapse);
  tcase_add_test(tc, test_power_state_drop);
  tcase_add_test(tc, test_shipped_self_compare);
  tcase_add_test(tc, test_noise_many_runs);
  tcase_add_test(tc, test_compare_per_node);
  tcase_add_test(tc, test_fleet_names_slow_node);
  tcase_add_test(tc, test_floors_missing_is_loud);
  tcase_add_test(tc, test_same_card_baseline);
  tcase_add_test(tc, test_peak_from_runs);
  tcase_add_test(tc, test_derived_by_sides);
  tcase_add_test(tc, test_derived_sides_per_node);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
