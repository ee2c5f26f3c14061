#!/usr/bin/env bash
# Runs gpubench's GEMM and PyTorch's (scripts/device/gemm_ref.py) at 8192^3
# alternately (A B A B ...), so the card's drift hits both alike, then prints
# the table of medians over the rounds (scripts/device/gemm_table.py).
# gpubench's rows go to $OUT/gemm-interleave.csv, PyTorch's figures to
# $OUT/torch-interleave.txt. Usage:
#   gemm_interleave.sh [ROUNDS] [PRECS] [LAYOUTS] [PRECS_TN]
# PRECS (':'-separated gemm case names, default fp64:fp32:tf32:fp16:bf16) run
# in LAYOUTS (default tn:nn); PRECS_TN (default: the fp8 and int8 cases;
# "-" for none) in TN alone, the layout Hopper runs them in.
# PyTorch idles GEMM_REF_REST_MS (default 300) before each case's warm-ups,
# as gpubench's burst window does after its search (gemm.rest_ms): without
# it PyTorch's runs start right after gpubench's process, on a card still
# busy (stop 16: its fp8 fast-accumulation figures rose 8-13% once rested).
# GEMM_REF_REST_MS=0 gives the unrested protocol of stops 12-15.
# GEMM_OPTS adds --opt keys to gpubench's (e.g. gemm.samples_log=FILE; with
# GEMM_REF_SAMPLES=FILE both sides' samples are logged in order).
set -u
export GEMM_REF_REST_MS=${GEMM_REF_REST_MS:-300}
rounds=${1:-3}
precs=${2:-fp64:fp32:tf32:fp16:bf16}
layouts=${3:-tn:nn}
precs_tn=${4:-fp8e4m3_slowacc:fp8e4m3_fastacc:fp8e4m3xe5m2_slowacc:fp8e4m3xe5m2_fastacc:fp8e4m3_e4m3out_slowacc:fp8e4m3_e4m3out_fastacc:int8}
out=${OUT:-out}
mkdir -p "$out"
csv="$out/gemm-interleave.csv"
txt="$out/torch-interleave.txt"
: >"$txt"
# torch case names of a group: PREC for TN, PREC_nn for NN
names() {
  local p l
  for p in $(echo "$1" | tr ':' ' '); do
    for l in $(echo "$2" | tr ':' ' '); do
      if [ "$l" = nn ]; then echo "${p}_nn"; else echo "$p"; fi
    done
  done
}
group() { # round precs layouts
  echo "# round $1: gpubench $2 ($3)"
  .devbuild/gpubench run --bench gemm --opt "gemm.precs=$2,gemm.shapes=8192,gemm.layout=$3${GEMM_OPTS:+,$GEMM_OPTS}" --out "$csv" 2>&1 |
    grep -E '^\[|rows:'
  echo "# round $1: torch"
  # shellcheck disable=SC2046 # one argument per case name
  python3 scripts/device/gemm_ref.py $(names "$2" "$3") | grep -v '^#' | grep -v '^name,' | sed "s/^/$1,/" | tee -a "$txt"
}
for r in $(seq 1 "$rounds"); do
  group "$r" "$precs" "$layouts"
  [ "$precs_tn" = - ] || group "$r" "$precs_tn" tn
done
python3 scripts/device/gemm_table.py "$csv" "$txt"
