#!/bin/sh
# Regenerates bench/gemm/gemm_names.c, the names of cuBLASLt's tile, stages
# and cluster-shape enums, from cublasLt.h (the enums have no to-string
# function). Usage: scripts/gen_gemm_names.sh [path/to/cublasLt.h] > bench/gemm/gemm_names.c
set -eu
hdr=${1:-/usr/local/cuda/include/cublasLt.h}
table() { # $1 enum prefix, $2 C array name
  printf 'static const char *const %s[] = {\n' "$2"
  sed -n "s/^ *CUBLASLT_$1_\([0-9][0-9A-Zx]*\) *= *\([0-9]*\),.*/  [\2] = \"\1\",/p" "$hdr"
  printf '};\n\n'
}
ver() { sed -n "s/^#define CUBLAS_VER_$1 \([0-9]*\)/\1/p" "$(dirname "$hdr")/cublas_api.h"; }
cat <<HEAD
/* gemm_names: names of cuBLASLt's tile, stages and cluster-shape enum
 * values for the gemm benchmark's detail column. Generated from the
 * cublasLt.h of cuBLAS $(ver MAJOR).$(ver MINOR).$(ver PATCH) by scripts/gen_gemm_names.sh: do not edit. */
#include <stdio.h>

#include "bench_gemm.h"

HEAD
table MATMUL_TILE gb_gemm_tiles
table MATMUL_STAGES gb_gemm_stages
table CLUSTER_SHAPE gb_gemm_clusters
cat <<'TAIL'
/* The name at id in a sparse table, else "#<id>" in buf. */
static const char *gb_gemm_enum_name(const char *const *tab, size_t ntab, unsigned id, const char *zero,
                                     char *buf, size_t n) {
  if (id == 0) return zero;
  if (id < ntab && tab[id]) return tab[id];
  snprintf(buf, n, "#%u", id);
  return buf;
}

const char *gb_gemm_tile_name(unsigned id, char *buf, size_t n) {
  return gb_gemm_enum_name(gb_gemm_tiles, sizeof gb_gemm_tiles / sizeof *gb_gemm_tiles, id, "undefined", buf, n);
}

const char *gb_gemm_stages_name(unsigned id, char *buf, size_t n) {
  return gb_gemm_enum_name(gb_gemm_stages, sizeof gb_gemm_stages / sizeof *gb_gemm_stages, id, "undefined", buf, n);
}

const char *gb_gemm_cluster_name(unsigned id, char *buf, size_t n) {
  return gb_gemm_enum_name(gb_gemm_clusters, sizeof gb_gemm_clusters / sizeof *gb_gemm_clusters, id, "auto", buf,
                           n);
}
TAIL
