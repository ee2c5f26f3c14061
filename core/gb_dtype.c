/* gb_dtype: the element-type table (gb_dtype.h). */
#include "gb_dtype.h"

#include <stdio.h>
#include <string.h>

const gb_dtype_desc gb_dtype_descs[GB_DT_COUNT] = {
    [GB_DT_F64] = {"fp64", 8, true, "DT_F64"},          [GB_DT_F32] = {"fp32", 4, true, "DT_F32"},
    [GB_DT_F16] = {"fp16", 2, true, "DT_F16"},          [GB_DT_BF16] = {"bf16", 2, true, "DT_BF16"},
    [GB_DT_F8E4M3] = {"fp8e4m3", 1, true, "DT_F8E4M3"}, [GB_DT_F8E5M2] = {"fp8e5m2", 1, true, "DT_F8E5M2"},
    [GB_DT_I8] = {"int8", 1, false, "DT_I8"},           [GB_DT_I32] = {"int32", 4, false, "DT_I32"},
    [GB_DT_TF32] = {"tf32", 4, true, "DT_TF32"},
};
const size_t gb_ndtype_descs = GB_DT_COUNT;

const gb_dtype_desc *gb_dtype_find(const char *name) {
  for (size_t i = 0; name && i < gb_ndtype_descs; i++)
    if (strcmp(gb_dtype_descs[i].name, name) == 0) return &gb_dtype_descs[i];
  return NULL;
}

int gb_dtype_bytes(const char *name) {
  const gb_dtype_desc *d = gb_dtype_find(name);
  return d ? d->bytes : 0;
}

size_t gb_dtype_size(gb_dtype t) { return (unsigned)t < GB_DT_COUNT ? (size_t)gb_dtype_descs[t].bytes : 0; }

const char *gb_dtype_name(gb_dtype t) { return (unsigned)t < GB_DT_COUNT ? gb_dtype_descs[t].name : "?"; }

bool gb_dtype_defines(char *buf, size_t n, const char *out[GB_DT_COUNT]) {
  size_t used = 0;
  for (int t = 0; t < GB_DT_COUNT; t++) {
    int w = snprintf(buf + used, n - used, "-D%s=%d", gb_dtype_descs[t].macro, t);
    if (w < 0 || (size_t)w >= n - used) return false;
    out[t] = buf + used;
    used += (size_t)w + 1;
  }
  return true;
}
