#!/usr/bin/env bash
# Runs gpubench's GEMM and PyTorch's at 8192^3 alternately (A B A B ...), so
# the card's drift hits both alike; prints each round and appends gpubench's
# rows to $OUT/gemm-interleave.csv. Usage: gemm_interleave.sh [ROUNDS] [PRECS]
# with PRECS ':'-separated gemm case names (default fp64:tf32:fp16:bf16).
set -u
rounds=${1:-3}
precs=${2:-fp64:tf32:fp16:bf16}
out=${OUT:-out}
mkdir -p "$out"
for r in $(seq 1 "$rounds"); do
  echo "# round $r: gpubench"
  .devbuild/gpubench run --bench gemm --opt "gemm.precs=$precs,gemm.shapes=8192" --out "$out/gemm-interleave.csv" 2>&1 |
    grep -E '^(fp|tf|bf|int)[0-9a-z_]* +[0-9.]+ T'
  echo "# round $r: torch"
  python3 scripts/device/gemm_ref.py $(echo "$precs" | tr ':' ' ') | grep -v '^#'
done
