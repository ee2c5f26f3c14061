/* gemm_blockscale: the pure parts of the block-scaled precisions (mxfp8,
 * nvfp4; bench_gemm.h): the scale tensors' size and tiled layout, the
 * seeded scale bytes and the values of scales and fp4 elements. No CUDA
 * calls: tested on the CPU. kernels/gemm_ref.cu holds the device twins of
 * gb_gemm_bs_scale_offset and the decoders. */
#include <math.h>

#include "bench_gemm.h"

#define BS_TILE_ROWS 128 /* rows of a scale tile */
#define BS_TILE_COLS 4   /* K blocks of a scale tile */
#define BS_TILE_BYTES (BS_TILE_ROWS * BS_TILE_COLS)

int64_t gb_gemm_bs_kblocks(int64_t k, int block) { return block > 0 ? (k + block - 1) / block : 0; }

uint64_t gb_gemm_bs_scale_bytes(int64_t rows, int64_t k, int block) {
  uint64_t rt = (uint64_t)(rows + BS_TILE_ROWS - 1) / BS_TILE_ROWS;
  uint64_t ct = (uint64_t)(gb_gemm_bs_kblocks(k, block) + BS_TILE_COLS - 1) / BS_TILE_COLS;
  return rt * ct * BS_TILE_BYTES;
}

uint64_t gb_gemm_bs_scale_offset(int64_t r, int64_t c, int64_t kblocks) {
  uint64_t ct = (uint64_t)(kblocks + BS_TILE_COLS - 1) / BS_TILE_COLS; /* tiles along K */
  uint64_t tile = (uint64_t)(r / BS_TILE_ROWS) * ct + (uint64_t)(c / BS_TILE_COLS);
  return tile * BS_TILE_BYTES + (uint64_t)(r % 32) * 16 + (uint64_t)((r % BS_TILE_ROWS) / 32) * 4 +
         (uint64_t)(c % BS_TILE_COLS);
}

static uint64_t mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

unsigned char gb_gemm_bs_scale_byte(const gb_gemm_prec *p, uint64_t seed, uint64_t i) {
  uint64_t h = mix(seed ^ mix(i));
  if (p->fp4) return (unsigned char)(((6 + (h % 4)) << 3) | ((h >> 8) & 7)); /* e4m3: exponent 6..9 */
  return (unsigned char)(124 + h % 6);                                     /* ue8m0: 2^-3 .. 2^2 */
}

double gb_gemm_bs_scale_value(const gb_gemm_prec *p, unsigned char b) {
  if (!p->fp4) return b == 255 ? NAN : ldexp(1.0, (int)b - 127);
  int e = (b >> 3) & 15, m = b & 7;
  if (e == 15 && m == 7) return NAN;
  return e == 0 ? ldexp((double)m, -9) : ldexp(8.0 + m, e - 10);
}

double gb_gemm_e2m1_value(unsigned nibble) {
  static const double mag[8] = {0, 0.5, 1, 1.5, 2, 3, 4, 6};
  return (nibble & 8) ? -mag[nibble & 7] : mag[nibble & 7];
}
