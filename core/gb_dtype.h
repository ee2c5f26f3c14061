/* gb_dtype: the element types, as data, in one place.
 *
 * One table, indexed by gb_dtype: the `dtype` column's name, the storage
 * size of one element and whether it is a floating-point type. Every reader
 * takes sizes and names from here: the harness and its random fills (the
 * codes kernels/fill.cu is compiled with come from this enum), membw, copy,
 * fma, GEMM, the planner and the reports. No CUDA. */
#ifndef GB_DTYPE_H
#define GB_DTYPE_H

#include <stdbool.h>
#include <stddef.h>

/* The element types. The values are the codes kernels/fill.cu is compiled
 * with (gb_dtype_defines); append, never reorder. */
typedef enum gb_dtype {
  GB_DT_F64, GB_DT_F32, GB_DT_F16, GB_DT_BF16, GB_DT_F8E4M3, GB_DT_F8E5M2, GB_DT_I8, GB_DT_I32, GB_DT_TF32,
  GB_DT_COUNT
} gb_dtype;

typedef struct gb_dtype_desc {
  const char *name;  /* the `dtype` column: fp64 fp32 fp16 bf16 fp8e4m3 fp8e5m2 int8 int32 tf32 */
  int bytes;         /* storage size of one element */
  bool floating;
  const char *macro; /* its code's name in kernels: "DT_F64" */
} gb_dtype_desc;

/* Indexed by gb_dtype, GB_DT_COUNT entries. */
extern const gb_dtype_desc gb_dtype_descs[];
extern const size_t gb_ndtype_descs;

/* An element type by name, or NULL. */
const gb_dtype_desc *gb_dtype_find(const char *name);

/* Bytes of one element of the named type; 0 when unknown. */
int gb_dtype_bytes(const char *name);

/* Bytes of one element of t; 0 out of range. */
size_t gb_dtype_size(gb_dtype t);

/* The `dtype` column's name of t ("fp64" ... "int32"); "?" out of range. */
const char *gb_dtype_name(gb_dtype t);

/* Writes "-DDT_F64=0" ... into buf (n bytes), one per type, and points
 * out[0..GB_DT_COUNT) at them: the type codes for a kernel's compile
 * options. Returns false when buf is too small. */
bool gb_dtype_defines(char *buf, size_t n, const char *out[GB_DT_COUNT]);

#endif
