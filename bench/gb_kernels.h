/* gb_kernels: the kernels/ sources, embedded in the binary at build time
 * (cmake/embed_kernels.cmake). */
#ifndef GB_KERNELS_H
#define GB_KERNELS_H

#include <stddef.h>

typedef struct gb_kernel_source {
  const char *name; /* file name, e.g. "stream.cu" */
  const char *text; /* NUL-terminated source */
  size_t len;
} gb_kernel_source;

extern const gb_kernel_source gb_kernel_sources[];
extern const size_t gb_kernel_source_count;

/* The embedded source of a kernels/ file, or NULL. */
const gb_kernel_source *gb_kernel_find(const char *name);

#endif
