#!/usr/bin/env bash
# Runs gpubench's grouped GEMM cases (case grouped_<precision>) and PyTorch's
# grouped matmul (scripts/device/grouped_gemm_ref.py) at the same shapes
# alternately (A B A B ...), so the card's drift hits both alike, then prints
# the table of medians over the rounds and their ratios
# (grouped_gemm_ref.py --table). gpubench's rows go to
# $OUT/grouped-interleave.csv, PyTorch's figures to $OUT/grouped-torch.txt.
# Usage:
#   gemm_grouped_interleave.sh [ROUNDS] [PRECS] [SHAPES]
# ROUNDS default 3; PRECS ':'-separated precision names (default
# bf16:fp16:fp8e4m3_fastacc); SHAPES GxMxNxK ':'-separated (default the
# quick profile's grouped shapes). PyTorch idles GEMM_REF_REST_MS (default
# 300) before each case's warm-ups, as gpubench's burst window does after its
# search.
set -u
export GEMM_REF_REST_MS=${GEMM_REF_REST_MS:-300}
rounds=${1:-3}
precs=${2:-bf16:fp16:fp8e4m3_fastacc}
shapes=${3:-8x512x14336x4096:256x128x2048x7168:128x512x768x2048}
out=${OUT:-out}
mkdir -p "$out"
csv="$out/grouped-interleave.csv"
txt="$out/grouped-torch.txt"
: >"$txt"
for r in $(seq 1 "$rounds"); do
  echo "# round $r: gpubench"
  .devbuild/gpubench run --bench gemm --opt "gemm.precs=$precs,gemm.grouped_shapes=$shapes" --out "$csv" 2>&1 |
    grep -E '^\[|rows:'
  echo "# round $r: torch"
  log="$out/grouped-torch-$r.log"
  python3 scripts/device/grouped_gemm_ref.py --shapes "$shapes" --precs "$precs" >"$log" 2>&1
  grep '^#' "$log"
  grep -v '^#' "$log" | grep -v '^case,' | sed "s/^/$r,/" | tee -a "$txt"
  rm -f "$log"
done
python3 scripts/device/grouped_gemm_ref.py --table "$csv" "$txt"
