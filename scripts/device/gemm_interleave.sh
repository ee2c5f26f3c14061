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
# busy (its fp8 fast-accumulation figures were 8-13% lower unrested).
# GEMM_REF_REST_MS=0 gives that unrested protocol.
# GEMM_OPTS adds --opt keys to gpubench's (e.g. gemm.samples_log=FILE, a lab
# option; with GEMM_REF_SAMPLES=FILE both sides' samples are logged in order).
# GEMM_REF_TIMINGS=pairs:chain (a ':'-list, default the script's own
# GEMM_REF_TIMING or pairs) gives PyTorch's rounds those timing methods in
# turn; its figures then go to $OUT/torch-interleave-METHOD.txt, with a
# table for each. GEMM_KTRACE=1 (the lab build: build-for-device.sh --tools)
# traces every process with ktrace (tools/ktrace/ktrace.c) into
# $OUT/ktrace-{gpubench,torch}-ROUND-GROUP.csv and prints each window's
# kernel duration, gap and period (tools/ktrace/ktrace_gaps.py, bursts of 30
# launches or more) at the end. The product's GEMM comparison: its tables
# are the ratios docs/perf-notes-gemm.md reports.
set -u
export GEMM_REF_REST_MS=${GEMM_REF_REST_MS:-300}
rounds=${1:-3}
precs=${2:-fp64:fp32:tf32:fp16:bf16}
layouts=${3:-tn:nn}
precs_tn=${4:-fp8e4m3_slowacc:fp8e4m3_fastacc:fp8e4m3xe5m2_slowacc:fp8e4m3xe5m2_fastacc:fp8e4m3_e4m3out_slowacc:fp8e4m3_e4m3out_fastacc:int8}
out=${OUT:-out}
mkdir -p "$out"
csv="$out/gemm-interleave.csv"
IFS=: read -r -a timings <<<"${GEMM_REF_TIMINGS:-${GEMM_REF_TIMING:-pairs}}"
txt="$out/torch-interleave.txt"
: >"$txt"
if [ "${#timings[@]}" -gt 1 ]; then
  for t in "${timings[@]}"; do : >"$out/torch-interleave-$t.txt"; done
fi
lib=$PWD/.devbuild/libgb_ktrace.so
if [ "${GEMM_KTRACE:-0}" = 1 ] && [ ! -f "$lib" ]; then
  echo "gemm_interleave.sh: GEMM_KTRACE=1 needs $lib (scripts/build-for-device.sh --tools builds it)" >&2
  exit 2
fi
traced() { # FILE COMMAND...: COMMAND, under ktrace into FILE when GEMM_KTRACE=1
  local file=$1
  shift
  if [ "${GEMM_KTRACE:-0}" = 1 ]; then
    CUDA_INJECTION64_PATH=$lib GB_KTRACE_OUT=$file "$@"
  else
    "$@"
  fi
}
# torch case names of a group: PREC for TN, PREC_nn for NN
names() {
  local p l
  for p in $(echo "$1" | tr ':' ' '); do
    for l in $(echo "$2" | tr ':' ' '); do
      if [ "$l" = nn ]; then echo "${p}_nn"; else echo "$p"; fi
    done
  done
}
group() { # round group precs layouts
  local timing=${timings[$((($1 - 1) % ${#timings[@]}))]}
  local each=/dev/null # the figures of this timing method alone, when there are several
  [ "${#timings[@]}" -gt 1 ] && each="$out/torch-interleave-$timing.txt"
  echo "# round $1: gpubench $3 ($4)"
  traced "$out/ktrace-gpubench-$1-$2.csv" .devbuild/gpubench run --bench gemm \
    --opt "gemm.precs=$3,gemm.shapes=8192,gemm.layout=$4${GEMM_OPTS:+,$GEMM_OPTS}" --out "$csv" 2>&1 |
    grep -E '^\[|rows:|ktrace'
  echo "# round $1: torch ($timing)"
  # shellcheck disable=SC2046 # one argument per case name
  GEMM_REF_TIMING=$timing traced "$out/ktrace-torch-$1-$2.csv" python3 scripts/device/gemm_ref.py $(names "$3" "$4") |
    grep -v '^#' | grep -v '^name,' | sed "s/^/$1,/" | tee -a "$txt" | tee -a "$each"
}
for r in $(seq 1 "$rounds"); do
  group "$r" 1 "$precs" "$layouts"
  [ "$precs_tn" = - ] || group "$r" 2 "$precs_tn" tn
done
python3 scripts/device/gemm_table.py "$csv" "$txt"
if [ "${#timings[@]}" -gt 1 ]; then
  for t in "${timings[@]}"; do
    echo "## PyTorch's rounds timed in $t"
    python3 scripts/device/gemm_table.py "$csv" "$out/torch-interleave-$t.txt"
  done
fi
if [ "${GEMM_KTRACE:-0}" = 1 ]; then
  echo "## ktrace: the windows' kernels as they ran (bursts of 30 or more launches)"
  python3 tools/ktrace/ktrace_gaps.py --min-launches 30 . "$out"/ktrace-gpubench-*.csv "$out"/ktrace-torch-*.csv | tee "$out/ktrace-gaps.csv"
fi
