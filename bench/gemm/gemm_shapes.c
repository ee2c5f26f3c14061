/* gemm_shapes: the shapes of each profile, the memory of a case, the input
 * sets rotated among and the rows the check compares (bench_gemm.h). No
 * CUDA calls: tested on the CPU. */
#include <stdint.h>

#include "bench_gemm.h"

static size_t put_shape(gb_gemm_shape *out, size_t cap, size_t i, int64_t m, int64_t n, int64_t k,
                        const char *family) {
  if (i < cap) out[i] = (gb_gemm_shape){.m = m, .n = n, .k = k, .family = family};
  return i + 1;
}

size_t gb_gemm_shapes(gb_profile profile, gb_gemm_shape *out, size_t cap) {
  size_t i = 0;
  if (profile == GB_PROFILE_QUICK) {
    i = put_shape(out, cap, i, 8192, 8192, 8192, "square");
    i = put_shape(out, cap, i, 4096, 14336, 4096, "transformer"); /* MLP up, 8B-class model */
    i = put_shape(out, cap, i, 4096, 4096, 14336, "transformer"); /* MLP down */
    i = put_shape(out, cap, i, 8, 14336, 4096, "decode");
    return i;
  }
  static const int64_t squares[] = {1024, 2048, 3072, 4096, 6144, 8192, 12288, 16384};
  for (size_t s = 0; s < sizeof squares / sizeof *squares; s++)
    i = put_shape(out, cap, i, squares[s], squares[s], squares[s], "square");
  /* (N, K) of the MLP projections of hidden 4096 (width 14336) and hidden
   * 8192 (width 28672), up (N = width) and down (K = width). */
  static const int64_t nk[][2] = {{14336, 4096}, {4096, 14336}, {28672, 8192}, {8192, 28672}};
  static const int64_t tokens[] = {4096, 16384};
  for (size_t t = 0; t < 2; t++)
    for (size_t j = 0; j < 4; j++) i = put_shape(out, cap, i, tokens[t], nk[j][0], nk[j][1], "transformer");
  static const int64_t decode[] = {1, 8, 64};
  for (size_t t = 0; t < 3; t++)
    for (size_t j = 0; j < 4; j++) i = put_shape(out, cap, i, decode[t], nk[j][0], nk[j][1], "decode");
  return i;
}

static uint64_t round256(uint64_t b) { return (b + 255) / 256 * 256; }

/* Bytes of one element of t: the element-type table, core/gb_dtype.h. */
static uint64_t elem_bytes(gb_dtype t) { return gb_dtype_size(t); }

/* Bytes of count operand elements of type t: fp4 two a byte. */
static uint64_t operand_bytes(const gb_gemm_prec *p, gb_dtype t, uint64_t count) {
  return p->fp4 ? (count + 1) / 2 : count * elem_bytes(t);
}

uint64_t gb_gemm_input_bytes(const gb_gemm_prec *p, int64_t m, int64_t n, int64_t k) {
  return round256(operand_bytes(p, p->a_type, (uint64_t)m * (uint64_t)k)) +
         round256(operand_bytes(p, p->b_type, (uint64_t)n * (uint64_t)k));
}

uint64_t gb_gemm_output_bytes(const gb_gemm_prec *p, int64_t m, int64_t n) {
  return round256((uint64_t)m * (uint64_t)n * elem_bytes(p->d_type));
}

int gb_gemm_input_sets(uint64_t set_bytes, uint64_t l2_bytes, uint64_t max_bytes) {
  return gb_gemm_input_sets_for(0, set_bytes, l2_bytes, max_bytes);
}

int gb_gemm_input_sets_for(int want, uint64_t set_bytes, uint64_t l2_bytes, uint64_t max_bytes) {
  if (set_bytes == 0) return want > 0 ? want : 1;
  uint64_t sets = (uint64_t)want;
  if (want <= 0) { /* the rule: enough sets to cover three L2s, at most GB_GEMM_INPUT_SETS_MAX */
    uint64_t cover = 3 * l2_bytes;
    sets = set_bytes >= cover ? 1 : (cover + set_bytes - 1) / set_bytes;
    if (sets > GB_GEMM_INPUT_SETS_MAX) sets = GB_GEMM_INPUT_SETS_MAX;
  }
  if (max_bytes / set_bytes < sets) sets = max_bytes / set_bytes;
  return sets < 1 ? 1 : (int)sets;
}

size_t gb_gemm_sample_rows(int64_t m, int64_t *rows, size_t cap) {
  size_t nrows = m <= 256 ? (size_t)m : 128;
  for (size_t i = 0; i < nrows && i < cap; i++)
    rows[i] = nrows == (size_t)m ? (int64_t)i : (int64_t)i * (m - 1) / (int64_t)(nrows - 1);
  return nrows;
}
