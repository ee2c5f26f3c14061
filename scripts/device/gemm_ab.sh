#!/usr/bin/env bash
# A/B of two gpubench settings against PyTorch at 8192^3, interleaved in one
# call so that the card's drift hits all three alike: each round runs A and B
# (A first in odd rounds, B first in even ones), then PyTorch
# (scripts/device/gemm_ref.py). Prints, per side, the table of medians over
# the rounds against PyTorch (scripts/device/gemm_table.py). Usage:
#   gemm_ab.sh ROUNDS PRECS A B
# PRECS: ':'-separated gemm case names in the TN layout (e.g.
# fp8e4m3_slowacc:fp64). A and B: "GEMM_OPTS|RUN_ARGS", the --opt keys added
# to gemm.precs and gemm.shapes, and further `gpubench run` arguments; either
# part may be empty. Examples:
#   gemm_ab.sh 3 fp8e4m3_slowacc '|' '|--telemetry-ms 0'
#   gemm_ab.sh 3 fp8e4m3_slowacc '|' 'gemm.out_of_place=on|'
# Writes $OUT/gemm-ab-a.csv, $OUT/gemm-ab-b.csv, $OUT/torch-ab.txt.
set -u
if [ $# -ne 4 ]; then
  sed -n '2,16p' "$0" >&2
  exit 2
fi
rounds=$1 precs=$2
out=${OUT:-out}
mkdir -p "$out"
bin=${GPUBENCH:-.devbuild/gpubench}
here=$(cd "$(dirname "$0")" && pwd)
: >"$out/torch-ab.txt"
side() { # round label spec
  local opts=${3%%|*} args=${3#*|} o="gemm.precs=$precs,gemm.shapes=8192"
  [ -n "$opts" ] && o="$o,$opts"
  echo "# round $1: gpubench $2 (--opt $o $args)"
  # shellcheck disable=SC2086 # RUN_ARGS are words on purpose
  "$bin" run --bench gemm --opt "$o" $args --out "$out/gemm-ab-$2.csv" 2>&1 | grep -E '^\[|rows:|not recorded'
}
for r in $(seq 1 "$rounds"); do
  if [ $((r % 2)) -eq 1 ]; then
    side "$r" a "$3"
    side "$r" b "$4"
  else
    side "$r" b "$4"
    side "$r" a "$3"
  fi
  echo "# round $r: torch"
  # shellcheck disable=SC2046 # one argument per case name
  python3 "$here/gemm_ref.py" $(echo "$precs" | tr ':' ' ') | grep -v '^#' | grep -v '^name,' | sed "s/^/$r,/" |
    tee -a "$out/torch-ab.txt"
done
echo "## A ($3) against PyTorch"
python3 "$here/gemm_table.py" "$out/gemm-ab-a.csv" "$out/torch-ab.txt"
echo "## B ($4) against PyTorch"
python3 "$here/gemm_table.py" "$out/gemm-ab-b.csv" "$out/torch-ab.txt"
