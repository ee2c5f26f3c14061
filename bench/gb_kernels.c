/* gb_kernels: lookup of embedded kernel sources. */
#include "gb_kernels.h"

#include <string.h>

const gb_kernel_source *gb_kernel_find(const char *name) {
  for (size_t i = 0; i < gb_kernel_source_count; i++)
    if (strcmp(gb_kernel_sources[i].name, name) == 0) return &gb_kernel_sources[i];
  return NULL;
}
