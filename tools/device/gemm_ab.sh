#!/usr/bin/env bash
# A/B of two gpubench settings, each against PyTorch, at 8192^3, interleaved
# in one call so that the card's drift hits all four alike: each round runs
# gpubench A, PyTorch A, gpubench B, PyTorch B (B's pair first in even
# rounds). PyTorch is scripts/device/gemm_ref.py under the side's
# environment. Prints the tables of medians over the rounds
# (scripts/device/gemm_table.py): each side against its own PyTorch, then
# crossed. Usage:
#   gemm_ab.sh ROUNDS PRECS A B
# PRECS: ':'-separated gemm case names in the TN layout (e.g.
# fp8e4m3_slowacc:fp64). A and B: "GEMM_OPTS|RUN_ARGS|REF_ENV": the --opt
# keys added to gemm.precs and gemm.shapes, further `gpubench run`
# arguments, and NAME=VALUE words for gemm_ref.py; any part may be empty.
# Examples:
#   gemm_ab.sh 3 fp8e4m3_slowacc '||' '|--telemetry-ms 0|'
#   gemm_ab.sh 4 fp8e4m3_slowacc:fp64 '||GEMM_REF_TIMING=chain' 'gemm.timing=pairs||'
# Writes $OUT/gemm-ab-{a,b}.csv and $OUT/torch-ab-{a,b}.txt.
set -u
if [ $# -ne 4 ]; then
  sed -n '2,18p' "$0" >&2
  exit 2
fi
rounds=$1 precs=$2
out=${OUT:-out}
mkdir -p "$out"
bin=${GPUBENCH:-.devbuild/gpubench}
here=$(cd "$(dirname "$0")" && pwd)
ref=$here/../../scripts/device/gemm_ref.py # the product's PyTorch reference
: >"$out/torch-ab-a.txt"
: >"$out/torch-ab-b.txt"
field() { # SPEC N: the Nth '|'-separated field of SPEC (1-based)
  echo "$1" | cut -d'|' -f"$2"
}
side() { # round label spec
  local opts args env o="gemm.precs=$precs,gemm.shapes=8192"
  opts=$(field "$3" 1) args=$(field "$3" 2) env=$(field "$3" 3)
  [ -n "$opts" ] && o="$o,$opts"
  echo "# round $1: gpubench $2 (--opt $o $args)"
  # shellcheck disable=SC2086 # RUN_ARGS are words on purpose
  "$bin" run --bench gemm --opt "$o" $args --out "$out/gemm-ab-$2.csv" 2>&1 | grep -E '^\[|rows:|not recorded'
  echo "# round $1: torch $2 ($env)"
  # shellcheck disable=SC2046,SC2086 # one argument per case name; env words on purpose
  env $env python3 "$ref" $(echo "$precs" | tr ':' ' ') | grep -v '^#' | grep -v '^name,' |
    sed "s/^/$1,/" | tee -a "$out/torch-ab-$2.txt"
}
for r in $(seq 1 "$rounds"); do
  if [ $((r % 2)) -eq 1 ]; then
    side "$r" a "$3"
    side "$r" b "$4"
  else
    side "$r" b "$4"
    side "$r" a "$3"
  fi
done
for pair in a:a b:b a:b b:a; do
  g=${pair%%:*} t=${pair#*:}
  G=${g^^} T=${t^^}
  spec_g=$([ "$g" = a ] && echo "$3" || echo "$4")
  spec_t=$([ "$t" = a ] && echo "$3" || echo "$4")
  echo "## gpubench $G ($(field "$spec_g" 1)|$(field "$spec_g" 2)) against PyTorch $T ($(field "$spec_t" 3))"
  python3 "$here/../../scripts/device/gemm_table.py" "$out/gemm-ab-$g.csv" "$out/torch-ab-$t.txt"
done
