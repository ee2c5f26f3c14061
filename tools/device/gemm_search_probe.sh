#!/usr/bin/env bash
# How gpubench's algorithm search ranks cuBLASLt's candidates at 8192^3, and
# whether the ranking of the screening (candidates timed back to back on a
# card the search heats) matches the rested one (short bursts after an idle,
# as the timed window runs): ROUNDS rounds (default 3) of gpubench with 16
# candidates and 8 finalists confirmed rested (gemm.search_log), each round
# followed by PyTorch (scripts/device/gemm_ref.py) on the same precisions.
# Writes $OUT/search-log.csv (every candidate's screening and confirmation
# medians), $OUT/search-probe.csv (gpubench's rows) and
# $OUT/search-probe-torch.txt, and prints the side-by-side table. Usage:
#   gemm_search_probe.sh [ROUNDS] [PRECS]
set -u
rounds=${1:-3}
precs=${2:-fp32:bf16:fp16:fp8e4m3_slowacc:fp8e4m3_fastacc:tf32:fp64}
out=${OUT:-out}
mkdir -p "$out"
csv="$out/search-probe.csv"
txt="$out/search-probe-torch.txt"
log="$out/search-log.csv"
: >"$txt"
IFS=: read -ra prec_list <<<"$precs"
for r in $(seq 1 "$rounds"); do
  echo "# round $r: gpubench $precs (16 candidates, 8 finalists, 3 rested rounds)"
  .devbuild/gpubench run --bench gemm --opt "gemm.precs=$precs,gemm.shapes=8192,gemm.candidates=16,gemm.finalists=8,gemm.confirm=3,gemm.search_log=$log" \
    --out "$csv" 2>&1 | grep -E '^\[|rows:'
  echo "# round $r: torch"
  python3 scripts/device/gemm_ref.py "${prec_list[@]}" | grep -v '^#' | grep -v '^name,' |
    sed "s/^/$r,/" | tee -a "$txt"
done
python3 scripts/device/gemm_table.py "$csv" "$txt"
