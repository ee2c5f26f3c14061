/* gb_stream: the STREAM kernel table (gb_stream.h). */
#include "gb_stream.h"

#include <string.h>

/* BabelStream's weights: copy and mul 2 arrays, add and triad 3, dot 2;
 * read-only and write-only 1. FLOPs: mul 1 (s*x), add 1, triad 2, dot 2. */
const gb_stream_kernel gb_stream_kernels[] = {
    {"copy", GB_STREAM_COPY, 2, 0, true, false, true, false, "z = x", 1},
    {"mul", GB_STREAM_MUL, 2, 1, true, false, true, false, "z = s*x", 2},
    {"add", GB_STREAM_ADD, 3, 1, true, true, true, false, "z = x + y", 2},
    {"triad", GB_STREAM_TRIAD, 3, 2, true, true, true, false, "z = x + s*y", 0},
    {"dot", GB_STREAM_DOT, 2, 2, true, true, false, true, "sum x*y", 2},
    {"read", GB_STREAM_READ, 1, 0, true, false, false, true, "sum x", 2},
    {"write", GB_STREAM_WRITE, 1, 0, false, false, true, false, "z = s", 2},
};
const size_t gb_stream_nkernels = sizeof gb_stream_kernels / sizeof gb_stream_kernels[0];

const gb_stream_kernel *gb_stream_find(const char *name) {
  for (size_t i = 0; name && i < gb_stream_nkernels; i++)
    if (strcmp(gb_stream_kernels[i].name, name) == 0) return &gb_stream_kernels[i];
  return NULL;
}
