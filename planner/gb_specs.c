/* gb_specs: the data/gpu_specs.csv reader. */
#include "gb_specs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_csv.h"
#include "gb_datecheck.h"
#include "gb_num.h"

/* Numeric columns: header, where the value goes, whether it is required, and
 * the largest sane value (beyond it a figure is a typo, not a GPU). */
typedef struct spec_col {
  const char *name;
  size_t offset;
  int required;
  double max;
} spec_col;

static const spec_col k_cols[] = {
    {"fp64_tflops", offsetof(gb_gpu_spec, fp64_tflops), 0, 1e5},
    {"fp64_tensor_tflops", offsetof(gb_gpu_spec, fp64_tensor_tflops), 0, 1e5},
    {"fp32_tflops", offsetof(gb_gpu_spec, fp32_tflops), 0, 1e5},
    {"tf32_tflops", offsetof(gb_gpu_spec, tf32_tflops), 0, 1e5},
    {"fp16_tflops", offsetof(gb_gpu_spec, fp16_tflops), 0, 1e5},
    {"bf16_tflops", offsetof(gb_gpu_spec, bf16_tflops), 0, 1e5},
    {"fp8_tflops", offsetof(gb_gpu_spec, fp8_tflops), 0, 1e5},
    {"int8_tops", offsetof(gb_gpu_spec, int8_tops), 0, 1e5},
    {"memory_gb", offsetof(gb_gpu_spec, memory_gb), 1, 1e5},
    {"mem_bw_gbps", offsetof(gb_gpu_spec, mem_bw_gbps), 1, 1e6},
    {"tdp_w", offsetof(gb_gpu_spec, tdp_w), 1, 1e5},
    {"interconnect_gbps", offsetof(gb_gpu_spec, interconnect_gbps), 0, 1e6},
    /* optional columns (the header may lack them) */
    {"nics_per_node", offsetof(gb_gpu_spec, nics_per_node), 0, 64},
    {"nic_gbit", offsetof(gb_gpu_spec, nic_gbit), 0, 1e5},
    {"fp4_tflops", offsetof(gb_gpu_spec, fp4_tflops), 0, 1e5},
    {"nvlink_domain", offsetof(gb_gpu_spec, nvlink_domain), 0, 1e5},
    {"node_gpus", offsetof(gb_gpu_spec, node_gpus), 0, 1024},
    {"rated_w", offsetof(gb_gpu_spec, rated_w), 0, 1e5},
};
#define NCOLS_REQUIRED 12 /* the columns above the optional ones */
#define NCOLS (sizeof k_cols / sizeof k_cols[0])

static gb_err copy_text(const gb_csv_table *t, size_t r, int c, const char *col, char *dst, size_t n) {
  const char *s = gb_csv_cell(t, r, c);
  if (!*s) return gb_fail(GB_E_INPUT, "%s:%ld: %s: empty; every row needs one", t->name, gb_csv_line(t, r), col);
  if (strlen(s) >= n)
    return gb_fail(GB_E_INPUT, "%s:%ld: %s: longer than %zu characters", t->name, gb_csv_line(t, r), col, n - 1);
  memcpy(dst, s, strlen(s) + 1);
  return GB_OK;
}

static gb_err parse_row(const gb_csv_table *t, size_t r, const int *num_idx, const int *txt_idx, gb_gpu_spec *g) {
  static const char *txt_names[] = {"gpu_type", "name", "source", "date"};
  char *txt_dst[] = {g->gpu_type, g->name, g->source, g->date};
  size_t txt_len[] = {sizeof g->gpu_type, sizeof g->name, sizeof g->source, sizeof g->date};
  long line = gb_csv_line(t, r);
  g->line = line;
  for (int i = 0; i < 4; i++) {
    gb_err e = copy_text(t, r, txt_idx[i], txt_names[i], txt_dst[i], txt_len[i]);
    if (e) return e;
  }
  if (!gb_date_valid(g->date))
    return gb_fail(GB_E_INPUT, "%s:%ld: date: not a date YYYY-MM-DD: \"%s\"", t->name, line, g->date);
  if (txt_idx[4] >= 0) {
    const char *a = gb_csv_cell(t, r, txt_idx[4]);
    if (strlen(a) >= sizeof g->arch)
      return gb_fail(GB_E_INPUT, "%s:%ld: arch: longer than %zu characters", t->name, line, sizeof g->arch - 1);
    memcpy(g->arch, a, strlen(a) + 1);
  }
  for (size_t i = 0; i < NCOLS; i++) {
    double *dst = (double *)((char *)g + k_cols[i].offset);
    *dst = NAN;
    if (num_idx[i] < 0) continue;
    const char *s = gb_csv_cell(t, r, num_idx[i]);
    if (!*s) {
      if (k_cols[i].required)
        return gb_fail(GB_E_INPUT, "%s:%ld: %s: empty; this figure is required", t->name, line, k_cols[i].name);
      continue;
    }
    double v;
    if (!gb_parse_double(s, &v))
      return gb_fail(GB_E_INPUT, "%s:%ld: %s: not a number: \"%s\"", t->name, line, k_cols[i].name, s);
    if (v <= 0)
      return gb_fail(GB_E_INPUT, "%s:%ld: %s: must be > 0 (leave it empty when the datasheet has no figure): %s",
                     t->name, line, k_cols[i].name, s);
    if (v > k_cols[i].max)
      return gb_fail(GB_E_INPUT, "%s:%ld: %s: absurd value %s (above %g)", t->name, line, k_cols[i].name, s,
                     k_cols[i].max);
    *dst = v;
  }
  return GB_OK;
}

/* Validates a table read from path (a file name or a memory name) into *out;
 * frees the table. */
static gb_err specs_from_table(const char *path, gb_csv_table t, gb_specs *out) {
  gb_err e = GB_OK;
  static const char *txt_names[] = {"gpu_type", "name", "source", "date"};
  int num_idx[NCOLS], txt_idx[5];
  txt_idx[4] = gb_csv_col(&t, "arch"); /* optional */
  for (int i = 0; i < 4; i++) {
    txt_idx[i] = gb_csv_col(&t, txt_names[i]);
    if (txt_idx[i] < 0) {
      e = gb_fail(GB_E_INPUT, "%s:%ld: missing column %s", path, t.lines[0], txt_names[i]);
      goto done;
    }
  }
  for (size_t i = 0; i < NCOLS; i++) {
    num_idx[i] = gb_csv_col(&t, k_cols[i].name);
    if (num_idx[i] < 0 && i < NCOLS_REQUIRED) {
      e = gb_fail(GB_E_INPUT, "%s:%ld: missing column %s", path, t.lines[0], k_cols[i].name);
      goto done;
    }
  }
  if (t.nrows == 0) {
    e = gb_fail(GB_E_INPUT, "%s: no GPU rows", path);
    goto done;
  }
  out->v = calloc(t.nrows, sizeof *out->v);
  if (!out->v) {
    e = gb_fail(GB_E_NOMEM, "%s: out of memory", path);
    goto done;
  }
  for (size_t r = 0; r < t.nrows; r++) {
    gb_gpu_spec *g = &out->v[r];
    e = parse_row(&t, r, num_idx, txt_idx, g);
    if (e) goto done;
    for (size_t j = 0; j < r; j++)
      if (strcmp(out->v[j].gpu_type, g->gpu_type) == 0) {
        e = gb_fail(GB_E_INPUT, "%s:%ld: gpu_type: duplicate of line %ld: %s", path, g->line, out->v[j].line,
                    g->gpu_type);
        goto done;
      }
    out->n = r + 1;
  }
done:
  gb_csv_free(&t);
  if (e) gb_specs_free(out);
  return e;
}

gb_err gb_specs_read(const char *path, gb_specs *out) {
  memset(out, 0, sizeof *out);
  gb_csv_table t;
  gb_err e = gb_csv_read_file(path, &t);
  return e ? e : specs_from_table(path, t, out);
}

gb_err gb_specs_read_mem(const char *name, const char *data, size_t len, gb_specs *out) {
  memset(out, 0, sizeof *out);
  gb_csv_table t;
  gb_err e = gb_csv_read_mem(name, data, len, &t);
  return e ? e : specs_from_table(name, t, out);
}

const gb_gpu_spec *gb_specs_find(const gb_specs *s, const char *gpu_type) {
  for (size_t i = 0; i < s->n; i++)
    if (strcmp(s->v[i].gpu_type, gpu_type) == 0) return &s->v[i];
  return NULL;
}

/* A board held below the power its tensor rates are quoted at runs its
 * clocks down: dynamic power goes as f V^2 with V rising with f, so the
 * compute-bound rate goes as about (power / rated)^0.30, the exponent read
 * off NVIDIA's own pair of the same GH100: H100 NVL 835 TFLOP/s BF16 dense at
 * 400 W, H100 SXM 989.5 at 700 W (ln(835/989.5) / ln(400/700) = 0.30). */
#define POWER_EXPONENT 0.30

double gb_spec_power_scale(const gb_gpu_spec *s) {
  if (!(s->rated_w > s->tdp_w)) return 1;
  return pow(s->tdp_w / s->rated_w, POWER_EXPONENT);
}

static double spec_peak(const gb_gpu_spec *s, const char *dtype);

double gb_spec_peak(const gb_gpu_spec *s, const char *dtype) { return spec_peak(s, dtype) * gb_spec_power_scale(s); }

static double spec_peak(const gb_gpu_spec *s, const char *dtype) {
  if (strcmp(dtype, "fp64") == 0) return isnan(s->fp64_tensor_tflops) ? s->fp64_tflops : s->fp64_tensor_tflops;
  if (strcmp(dtype, "fp32") == 0) return s->fp32_tflops;
  if (strcmp(dtype, "tf32") == 0) return s->tf32_tflops;
  if (strcmp(dtype, "fp16") == 0) return s->fp16_tflops;
  if (strcmp(dtype, "bf16") == 0) return s->bf16_tflops;
  if (strcmp(dtype, "fp8e4m3") == 0 || strcmp(dtype, "fp8e5m2") == 0) return s->fp8_tflops;
  if (strcmp(dtype, "int8") == 0) return s->int8_tops;
  /* MX block scaling (OCP MX: 32 elements share an E8M0 scale) is a tensor-core mode of Blackwell; Hopper runs
   * FP8 with per-tensor or per-block scales in software (fp8e4m3) */
  if (strcmp(dtype, "mxfp8") == 0) return strcmp(s->arch, "blackwell") == 0 ? s->fp8_tflops : NAN;
  /* NVFP4 (fp4): the datasheet's dense FP4 rate, Blackwell only as well */
  if (strcmp(dtype, "nvfp4") == 0 || strcmp(dtype, "fp4") == 0) return s->fp4_tflops;
  return NAN;
}

void gb_specs_free(gb_specs *s) {
  free(s->v);
  s->v = NULL;
  s->n = 0;
}
