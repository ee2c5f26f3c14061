/* gb_stream: the STREAM kernels, as data, in one place.
 *
 * What each kernel of the membw benchmark does: its name (the `case` column
 * and the kernel-name prefix of bench/membw/stream.cu), the arrays one operation
 * moves (BabelStream's weight: bytes moved = arrays * bytes per array), the
 * FLOPs per element the roofline places it at, which arrays it reads and
 * writes, and its rank as "the" HBM figure. The order of the table is the
 * order cases run and are reported in. Read by bench/membw/ (cases,
 * bytes, checks), bench/copy/ (its check), core/gb_desc.c (the HBM
 * case rank) and the report (kernel order, roofline). No CUDA. */
#ifndef GB_STREAM_H
#define GB_STREAM_H

#include <stdbool.h>
#include <stddef.h>

typedef enum gb_stream_op {
  GB_STREAM_COPY, GB_STREAM_MUL, GB_STREAM_ADD, GB_STREAM_TRIAD, GB_STREAM_DOT, GB_STREAM_READ, GB_STREAM_WRITE
} gb_stream_op;

/* One STREAM kernel. The device arrays are x and y (inputs) and z (output);
 * the kernel allocates exactly the ones it uses, so arrays is also its
 * memory footprint. */
typedef struct gb_stream_kernel {
  const char *name;    /* case name and kernel-name prefix */
  gb_stream_op op;
  int arrays;          /* BabelStream weight */
  int flops;           /* FLOPs per element (the roofline's; copy, read and write: 0) */
  bool reads_x, reads_y, writes_z;
  bool reduction;      /* dot, read: a sum instead of an output array */
  const char *formula; /* "z = x + s*y" */
  int hbm_rank;        /* which case stands for "the" HBM bandwidth: triad 0, copy 1, others 2 */
} gb_stream_kernel;

/* The table, in the order cases run: copy mul add triad dot read write. */
extern const gb_stream_kernel gb_stream_kernels[];
extern const size_t gb_stream_nkernels;

/* A kernel by name, or NULL. */
const gb_stream_kernel *gb_stream_find(const char *name);

#endif
