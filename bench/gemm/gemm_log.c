/* gemm_log: the side outputs gemm.search_log (every candidate's timings,
 * why an algorithm was kept) and gemm.samples_log (every timed window's
 * samples in the order taken), CSV files appended to. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gb_num.h"
#include "gemm_internal.h"

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
  double flops = gb_gemm_flops(o->m, o->n, o->k);
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
  double flops = gb_gemm_flops(o->m, o->n, o->k);
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
