/* bench_membw: the pure parts of the memory-bandwidth benchmarks (membw:
 * STREAM kernels; copy: copy engines), testable on a machine with no GPU:
 * the kernel table and its byte accounting, the size sweep and its bounds, the
 * regime, the L2 rotation, the kernel variants and their names, the
 * option parser and the result checks on host arrays.
 *
 * Units: bytes are bytes; GB = 1e9 bytes; GiB = 2^30 bytes; MiB = 2^20. */
#ifndef BENCH_MEMBW_H
#define BENCH_MEMBW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gb_bench.h"
#include "gb_error.h"
#include "gb_harness.h"
#include "gb_stream.h"

#define GB_MEMBW_MIB ((int64_t)1 << 20)
#define GB_MEMBW_GIB ((int64_t)1 << 30)
#define GB_MEMBW_MIN_BYTES GB_MEMBW_MIB /* smallest array of the sweep: fits in any L2 */
#define GB_MEMBW_MAX_SIZES 48
#define GB_MEMBW_MAX_SETS 512   /* most array sets one cold case rotates through */
#define GB_MEMBW_MAX_OPS 1024   /* most operations in one timed sample */
#define GB_MEMBW_MAX_VARIANTS 256

/* Bytes of one element: 8 for fp64, 4 for fp32, 0 for types membw lacks. */
size_t gb_membw_elem_bytes(gb_dtype t);

/* The byte count of one operation, the one formula every rate uses:
 * bytes moved = arrays * bytes per array (no write-allocate traffic counted,
 * as STREAM and BabelStream). */
int64_t gb_membw_bytes_moved(const gb_stream_kernel *k, int64_t bytes_per_array);

/* ---- the size sweep ---- */

/* Device memory left unused when sizing arrays: the larger of 512 MiB and 5%
 * of the free memory (context, the reduction buffers, the allocator's slack). */
int64_t gb_membw_reserve_bytes(int64_t free_bytes);

/* The largest power of two p >= 1 MiB with arrays * p <= free - reserve, or 0
 * when not even 1 MiB per array fits. */
int64_t gb_membw_fit_bytes(int64_t free_bytes, int arrays);

/* The profile's largest array: 4 GiB quick, 16 GiB full. */
int64_t gb_membw_default_max_bytes(gb_profile p);

/* Bytes per array to measure: from 1 MiB up to the smaller of max_bytes and
 * gb_membw_fit_bytes(free_bytes, arrays), each size a power of two. Full
 * doubles every step; quick quadruples below 1 GiB and doubles from 1 GiB, so
 * it keeps every headline-sized point (1, 2 = 2^28 doubles, 4 GiB). Writes at
 * most cap sizes to out and returns the count (0 when nothing fits). */
size_t gb_membw_sweep(gb_profile p, int64_t max_bytes, int64_t free_bytes, int arrays, int64_t *out, size_t cap);

/* Where a working set (all arrays of one operation) lives: "l2" when it fits
 * in the L2, "hbm" from 8 L2s, "transition" between. */
const char *gb_membw_regime(int64_t working_set_bytes, int64_t l2_bytes);

/* Array sets a cold case rotates through so that the sets together span at
 * least 8 L2s: ceil(8 * l2 / working_set), at most GB_MEMBW_MAX_SETS. 1 means
 * the working set alone already defeats the L2 (no cold case is planned). */
int gb_membw_cold_sets(int64_t working_set_bytes, int64_t l2_bytes);

/* Operations per timed sample: enough to move ~512 MiB (so launch gaps and
 * event resolution vanish for small arrays), at least `sets` and a multiple
 * of it (a graph replay then walks every set), at most GB_MEMBW_MAX_OPS. */
int gb_membw_ops_per_sample(int64_t bytes_moved, int sets);

/* The auto-tune times every variant on a prefix of a large hot array (8
 * L2s), where several come out within a few tenths of a percent; the
 * GB_MEMBW_RETUNE fastest there are timed again on the whole array, which
 * keeps the fastest of them. Writes the indices of the (at most k) fastest
 * finite sec[i] to out, fastest first (ties: the lower index), and returns
 * how many. On an H200 one process in ten kept mul fp32's w16_e2_cs variant
 * for the 2 GiB array from the prefix, and it ran 2% below the others'
 * 4235-4268 GB/s over the whole array: an A/A pair flagged it. */
#define GB_MEMBW_RETUNE 3
size_t gb_membw_fastest(const double *sec, size_t n, size_t k, size_t *out);

/* ---- kernel variants ---- */

typedef struct gb_membw_variant {
  int width_bytes; /* bytes per thread access: 4, 8 or 16 */
  int unroll;      /* independent accesses per thread per trip (e in the name) */
  bool streaming;  /* st.global.cs stores */
  bool prefetch;   /* loads with the .L2::256B prefetch hint */
  int block;       /* threads per block */
  bool persistent; /* grid = SMs x resident blocks; else one trip covers the array */
} gb_membw_variant;

/* The variants auto-tuned for kernel k and type t in profile p: access widths
 * (quick: 16 bytes only; full: fp64 8 and 16, fp32 4, 8 and 16), unroll 1, 2
 * and 4, at 16 bytes streaming stores (kernels that write) and prefetch-hinted
 * loads (kernels that read), each on and off, block sizes (quick 256 and 1024;
 * full 128, 256, 512 and 1024) and both grids (reductions: persistent only).
 * Returns the count written to out (at most cap). */
size_t gb_membw_variants(const gb_stream_kernel *k, gb_dtype t, gb_profile p, gb_membw_variant *out, size_t cap);

/* The extern "C" name in bench/membw/stream.cu: "triad_f64_w16_e2_cs_pf". */
void gb_membw_kernel_name(const gb_stream_kernel *k, gb_dtype t, const gb_membw_variant *v, char *buf, size_t n);

/* The `variant` column: "w16_e2_cs_pf_b256_persistent" / "..._cover". */
void gb_membw_variant_name(const gb_membw_variant *v, char *buf, size_t n);

/* Blocks to launch for n elements: the covering grid is
 * ceil(ceil(n / (width / elem)) / (block * unroll)) (at least 1, at most
 * 2^31 - 1); a persistent variant takes min(cover, sm_count * resident). */
int64_t gb_membw_grid(const gb_membw_variant *v, int64_t n_elems, size_t elem_bytes, int sm_count,
                      int resident_blocks_per_sm);

/* ---- options (--opt) ---- */

typedef struct gb_membw_opts {
  int64_t sizes[GB_MEMBW_MAX_SIZES]; /* explicit bytes per array, else the sweep */
  size_t nsizes;
  int64_t max_bytes;     /* largest array of the sweep; 0 = the profile's */
  unsigned kernel_mask;  /* bit i = gb_stream_kernels[i]; 0 = all (membw only) */
  unsigned dtype_mask;   /* bit 0 fp64, bit 1 fp32; 0 = both (membw only) */
  int cold;              /* -1 default (on), 0 off, 1 on (membw only) */
  bool corrupt;          /* test only: perturb one result before the check */
} gb_membw_opts;

/* Reads the keys under prefix ("membw." or "copy.") from the --opt string
 * "key=value,key=value"; keys of other prefixes are ignored. Keys: sizes
 * (sizes with K/M/G suffixes joined by ':', each a multiple of 16 bytes),
 * max (a size), corrupt (0/1); for membw also kernels (names joined by ':'),
 * dtypes (fp64:fp32) and cold (0/1). Bad keys or values: GB_E_USAGE with a
 * message naming the key. bench_opts may be NULL. */
gb_err gb_membw_opts_parse(const char *bench_opts, const char *prefix, gb_membw_opts *out);

/* The rows' `settings` items of membw's or copy's options (prefix "membw."
 * or "copy."), from cfg->bench_opts: "PREFIXcorrupt=on" when the check's
 * test corruption is on, else "" (sizes, kernels, dtypes and cold select
 * cases). Bad options give "": plan() reports them. */
void gb_membw_settings(const char *bench_opts, const char *prefix, char *buf, size_t n);

/* ---- result checks on host values ---- */

/* k sample indices for an array of n elements: 0 and n-1 first, then
 * pseudo-random indices drawn from seed. Returns min(k, n) (k >= 2 or n < 2). */
size_t gb_membw_sample_indices(int64_t n, size_t k, uint64_t seed, int64_t *out);

/* The output element kernel k writes for inputs x, y and scalar s, computed
 * in type t's precision with the device's sequence (a rounded product, then a
 * rounded sum: the kernels are compiled with --fmad=false). */
double gb_membw_expected(const gb_stream_kernel *k, gb_dtype t, double s, double x, double y);

/* One sampled element after a run: the inputs the host expects (from
 * gb_random_value), what the device holds in them, and what it wrote. */
typedef struct gb_membw_sample {
  int64_t index;
  double x, y;         /* expected inputs (y unused when the kernel reads no y) */
  double x_got, y_got; /* the device's inputs after the run */
  double z_got;        /* the device's output (kernels that write) */
} gb_membw_sample;

/* Checks samples of an element-wise kernel (or a copy: GB_STREAM_COPY): inputs
 * unchanged and every output exactly the expected value (bitwise: NaN, the
 * poison, never passes). On failure writes "<what>: element <i>: ... (<m> of
 * <n> sampled elements wrong)" to msg and returns false. */
bool gb_membw_check_samples(const gb_stream_kernel *k, gb_dtype t, double s, const gb_membw_sample *v, size_t n,
                            char *msg, size_t msgn);

/* The exact sum a reduction must produce over n elements whose inputs repeat
 * with period `period` (element i holds x[i % period], y[i % period]): dot
 * sums x*y (the product rounded to t first: an fp32 product is exact in fp64),
 * read sums x. Summed in long double. */
double gb_membw_expected_sum(const gb_stream_kernel *k, gb_dtype t, const double *x, const double *y,
                             int64_t period, int64_t n);

/* Relative tolerance for a reduction's fp64 sum: 1e-10. Per-thread sums of
 * at most a few thousand positive terms keep the device's rounding error near
 * 1e-12, while one missing or doubled term of 2^30 in [1,2)^2 is >= 4e-10. */
double gb_membw_sum_tolerance(void);

/* Checks a reduction's result: |got - expected| <= tol * |expected| and got
 * finite. On failure writes the figures to msg and returns false. */
bool gb_membw_check_sum(const gb_stream_kernel *k, double got, double expected, double tol, char *msg,
                        size_t msgn);

#endif
