/* gemm_lab: the --opt gemm.* keys only probes use (the lab's), compiled
 * into gb_bench with -DGB_TOOLS=ON alone (a default build has the stubs of
 * bench/gemm/gemm_lab_keys.c, where a lab key is a usage error). They tune
 * or take apart the measurement method of bench/gemm/ to find out why a
 * figure is what it is (docs/perf-notes-gemm.md); a user's campaign needs
 * none of them. What they parse into are fields of gb_gemm_opts that the
 * benchmark reads with their defaults otherwise; given, each but the two
 * logs is a `settings` item of the rows.
 *
 * The algorithm search: gemm.candidates=N candidates timed
 * (1..16; default the timing plan's 4..8), gemm.candidate=N the
 * heuristic's #N alone (no search: to time one kernel), gemm.finalists=N of them
 * confirmed rested (1..8, default 3; 1 skips the confirmation),
 * gemm.confirm=R rounds of that confirmation (0..8; default the timing
 * plan's), gemm.confirm_rest_ms=N the idle before each finalist's burst
 * (0..10000), gemm.search_log=PATH a CSV file every candidate's timings are
 * appended to (why an algorithm was kept), gemm.samples_log=PATH one every
 * timed window's samples are appended to, in the order they were taken.
 * gemm.fp8_amax=on (default) or off: whether the fp8 cases set the amax-of-D
 * pointer (off: the product an inference GEMM with a bf16 output runs, and
 * what torch._scaled_mm runs; detail then says amax_d=not set).
 * gemm.input_sets=N rotates among N input sets (1..32, fewer where memory
 * runs short) instead of gb_gemm_input_sets' rule: 1 times consecutive
 * products over one set, as a timing loop over one pair of tensors does.
 * gemm.out_of_place=on gives C a buffer of its own (cuBLASLt's out-of-place
 * form, which PyTorch calls) instead of C = D; beta is 0, so C is never read.
 * gemm.timing=chain (default) or pairs: how the timed window's samples are
 * delimited (gb_measure_opts.event_pairs). chain: one chain of events, each
 * sample from the event that ends the previous one, so every gap between
 * products is inside some sample; pairs: each product between two events of
 * its own, as PyTorch's timing loops do, the gap from one product's end
 * event to the next one's start event in no sample.
 * gemm.workspace_kib=N gives cuBLASLt N KiB of workspace (0..65536; default
 * 65536, 64 MiB): the heuristic's first query is made with it and every
 * candidate from that query runs with it (those the search adds from its
 * query without workspace run with none either way). A probe of what the
 * workspace changes; the search's own rule is a workspace of at least
 * 32 MiB, so a smaller one is for probing only.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "gb_cuda.h"
#include "gb_num.h"
#include "gemm_internal.h"

/* ---- the keys ---- */

/* A whole number in lo..hi (unit: " (KiB)" and the like, for the message). */
static const struct {
  const char *name;
  int lo, hi;
  const char *unit;
  size_t off; /* the int field of gb_gemm_opts */
} lab_ints[] = {
    {"candidates", 1, GB_GEMM_CANDIDATES_MAX, "", offsetof(gb_gemm_opts, candidates)},
    {"candidate", 1, GB_GEMM_CANDIDATES_MAX, "", offsetof(gb_gemm_opts, candidate)},
    {"finalists", 1, GB_GEMM_FINALISTS_MAX, "", offsetof(gb_gemm_opts, finalists)},
    {"confirm", 0, GB_GEMM_CONFIRM_MAX, "", offsetof(gb_gemm_opts, confirm_rounds)},
    {"confirm_rest_ms", 0, GB_GEMM_REST_MS_MAX, " (milliseconds)", offsetof(gb_gemm_opts, confirm_rest_ms)},
    {"input_sets", 1, GB_GEMM_INPUT_SETS_MAX, "", offsetof(gb_gemm_opts, input_sets)},
    {"workspace_kib", 0, GB_GEMM_WORKSPACE_KIB_MAX, " (KiB)", offsetof(gb_gemm_opts, workspace_kib)},
};

/* One of two values (gb_gemm_opt_choice); the bool field gets is_b, or its
 * negation where set_if_b is false. */
static const struct {
  const char *name, *a, *a_means, *b, *b_means;
  size_t off; /* the bool field of gb_gemm_opts */
  bool set_if_b;
} lab_choices[] = {
    {"fp8_amax", "on", NULL, "off", "whether the fp8 cases compute the amax of D", offsetof(gb_gemm_opts, fp8_no_amax),
     true},
    {"out_of_place", "on", NULL, "off", "whether C gets a buffer of its own instead of D",
     offsetof(gb_gemm_opts, out_of_place), false},
    {"timing", "chain", "one chain of events, every gap between products inside a sample", "pairs",
     "two events per product, as PyTorch's timing loops", offsetof(gb_gemm_opts, event_pairs), true},
};

static gb_err lab_path(gb_gemm_opts *o, const char *key, const char *val) {
  char *dst = strcmp(key, "search_log") == 0 ? o->search_log : o->samples_log;
  size_t len = strlen(val), cap = sizeof o->search_log;
  if (len == 0 || len >= cap)
    return gb_fail(GB_E_USAGE, "--opt gemm.%s: give a file path of 1 to %zu characters", key, cap - 1);
  memcpy(dst, val, len + 1);
  return GB_OK;
}

gb_err gb_gemm_lab_opt(gb_gemm_opts *o, const char *key, const char *val) {
  for (size_t i = 0; i < sizeof lab_ints / sizeof lab_ints[0]; i++) {
    if (strcmp(key, lab_ints[i].name) != 0) continue;
    int64_t v;
    if (!gb_parse_i64(val, &v) || v < lab_ints[i].lo || v > lab_ints[i].hi)
      return gb_fail(GB_E_USAGE, "--opt gemm.%s: \"%s\" is not a whole number from %lld to %lld%s", key, val,
                     (long long)lab_ints[i].lo, (long long)lab_ints[i].hi, lab_ints[i].unit);
    *(int *)((char *)o + lab_ints[i].off) = (int)v;
    return GB_OK;
  }
  for (size_t i = 0; i < sizeof lab_choices / sizeof lab_choices[0]; i++) {
    if (strcmp(key, lab_choices[i].name) != 0) continue;
    bool is_b;
    GB_TRY(gb_gemm_opt_choice(key, val, lab_choices[i].a, lab_choices[i].a_means, lab_choices[i].b,
                                    lab_choices[i].b_means, &is_b));
    *(bool *)((char *)o + lab_choices[i].off) = lab_choices[i].set_if_b ? is_b : !is_b;
    return GB_OK;
  }
  if (strcmp(key, "search_log") == 0 || strcmp(key, "samples_log") == 0) return lab_path(o, key, val);
  return gb_fail(GB_E_USAGE, "--opt gemm.%s: not a lab key", key);
}

void gb_gemm_lab_settings(const gb_gemm_opts *o, gb_settings *s) {
  if (o->candidates > 0) gb_settings_add(s, "gemm.candidates=%d", o->candidates);
  if (o->candidate > 0) gb_settings_add(s, "gemm.candidate=%d", o->candidate);
  if (o->finalists > 0) gb_settings_add(s, "gemm.finalists=%d", o->finalists);
  if (o->confirm_rounds >= 0) gb_settings_add(s, "gemm.confirm=%d", o->confirm_rounds);
  if (o->confirm_rest_ms >= 0) gb_settings_add(s, "gemm.confirm_rest_ms=%d", o->confirm_rest_ms);
  if (o->fp8_no_amax) gb_settings_add(s, "gemm.fp8_amax=off");
  if (o->input_sets > 0) gb_settings_add(s, "gemm.input_sets=%d", o->input_sets);
  if (o->out_of_place) gb_settings_add(s, "gemm.out_of_place=on");
  if (o->event_pairs) gb_settings_add(s, "gemm.timing=pairs");
  if (o->workspace_kib >= 0) gb_settings_add(s, "gemm.workspace_kib=%d", o->workspace_kib);
}

/* ---- gemm.search_log and gemm.samples_log ---- */

gb_err gemm_logs_open(gemm_state *st) {
  const char *logs[2] = {st->opts.search_log, st->opts.samples_log};
  FILE **fps[2] = {&st->search_log, &st->samples_log};
  for (int i = 0; i < 2; i++) {
    if (!logs[i][0]) continue;
    *fps[i] = fopen(logs[i], "a");
    if (*fps[i]) fseek(*fps[i], 0, SEEK_END); /* so that ftell says whether the header is written */
    if (!*fps[i])
      return gb_fail(GB_E_IO, "--opt gemm.%s: cannot open %s for appending: %s", i ? "samples_log" : "search_log",
                     logs[i], strerror(errno));
  }
  return GB_OK;
}

void gemm_logs_close(gemm_state *st) {
  if (st->search_log) fclose(st->search_log);
  if (st->samples_log) fclose(st->samples_log);
  st->search_log = st->samples_log = NULL;
}

/* A seconds-per-product figure and its rate for the logs; empty fields for
 * a candidate not timed at that stage. */
static void gemm_log_time(char *buf, size_t n, double sec, double flops) {
  if (isfinite(sec) && sec > 0) gb_snprintf_c(buf, n, "%.6e,%.1f", sec, flops / sec / 1e12);
  else snprintf(buf, n, ",");
}

/* The header is written when the file is empty. */
void gemm_log_search(const gemm_state *st, const gemm_op *o, const gemm_cand *cand, int ncand, const double *screen,
                     const double *conf, int kept) {
  FILE *fp = st->search_log;
  if (!fp) return;
  double flops = gemm_op_flops(o);
  char name[64];
  gb_gemm_case_name(o->p, o->layout, name, sizeof name);
  if (ftell(fp) == 0)
    fputs("case,m,n,k,candidate,variant,algo,screen_s,screen_rate,confirm_s,confirm_rate,kept\n", fp);
  for (int i = 0; i < ncand; i++) {
    char desc[256], variant[128], src[32], t1[64], t2[64];
    gemm_describe_algo(&cand[i].algo, cand[i].no_ws || o->ws_bytes == 0, desc, sizeof desc, variant, sizeof variant);
    if (cand[i].enumerated) snprintf(src, sizeof src, "enumerated");
    else if (cand[i].variant) snprintf(src, sizeof src, "variant-of-#%d", cand[i].index + 1);
    else snprintf(src, sizeof src, "heuristic%s#%d", cand[i].no_ws ? "-no-ws" : "", cand[i].index + 1);
    gemm_log_time(t1, sizeof t1, screen[i], flops);
    gemm_log_time(t2, sizeof t2, conf[i], flops);
    fprintf(fp, "%s,%lld,%lld,%lld,%s,%s,\"%s\",%s,%s,%d\n", name, (long long)o->m, (long long)o->n,
            (long long)o->k, src, variant, desc, t1, t2, i == kept);
  }
  fflush(fp);
}

/* The header is written when the file is empty. */
void gemm_log_samples(const gemm_state *st, const gemm_op *o, int warmup, const gb_samples *samp) {
  FILE *fp = st->samples_log;
  if (!fp) return;
  double flops = gemm_op_flops(o);
  char name[64], desc[256], variant[128];
  gb_gemm_case_name(o->p, o->layout, name, sizeof name);
  gemm_describe_algo(&o->algo, o->ws_launch == 0, desc, sizeof desc, variant, sizeof variant);
  if (ftell(fp) == 0) fputs("case,m,n,k,variant,rest_ms,warmup,sample,seconds,rate\n", fp);
  for (size_t i = 0; i < samp->n; i++) {
    char t[64];
    gemm_log_time(t, sizeof t, samp->sec[i], flops);
    fprintf(fp, "%s,%lld,%lld,%lld,%s,%d,%d,%zu,%s\n", name, (long long)o->m, (long long)o->n, (long long)o->k,
            variant, st->rest_ms, warmup, i, t);
  }
  fflush(fp);
}
