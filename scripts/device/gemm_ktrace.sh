#!/usr/bin/env bash
# Both sides of the GEMM comparison traced by ktrace (scripts/device/ktrace.c,
# CUPTI, kernels timed as they ran in the stream): ROUNDS rounds at 8192^3,
# each gpubench then PyTorch (PyTorch first in even rounds), then the
# duration of the kernel itself, the gap between launches and the period
# (what one back-to-back sample holds) in every burst of the product's
# kernel, per process (scripts/device/ktrace_gaps.py). Usage:
#   gemm_ktrace.sh ROUNDS PRECS [KERNEL_REGEX]
# PRECS: ':'-separated gemm case names, TN layout (e.g. fp8e4m3_slowacc).
# KERNEL_REGEX (default "nvjet|sm90_xmma|cutlass") picks the GEMM kernels.
# PyTorch idles GEMM_REF_REST_MS (default 300) before each case, as gpubench
# does. Writes $OUT/ktrace-{gpubench,torch}-R.csv, $OUT/gemm-ktrace.csv,
# $OUT/torch-ktrace.txt and $OUT/ktrace-gaps.csv.
set -u
if [ $# -lt 2 ]; then
  sed -n '2,13p' "$0" >&2
  exit 2
fi
rounds=$1 precs=$2 regex=${3:-nvjet|sm90_xmma|cutlass}
export GEMM_REF_REST_MS=${GEMM_REF_REST_MS:-300}
out=${OUT:-out}
mkdir -p "$out"
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${GPUBENCH:-$root/.devbuild/gpubench}
lib=$root/.devbuild/libgb_ktrace.so
[ -f "$lib" ] || { echo "gemm_ktrace.sh: $lib missing (scripts/build-for-device.sh builds it)" >&2; exit 2; }
here=$root/scripts/device
: >"$out/torch-ktrace.txt"
gpubench_side() {
  echo "# round $1: gpubench"
  CUDA_INJECTION64_PATH=$lib GB_KTRACE_OUT="$out/ktrace-gpubench-$1.csv" \
    "$bin" run --bench gemm --opt "gemm.precs=$precs,gemm.shapes=8192" --out "$out/gemm-ktrace.csv" 2>&1 |
    grep -E '^\[|rows:|not recorded|ktrace'
}
torch_side() {
  echo "# round $1: torch"
  # shellcheck disable=SC2046 # one argument per case name
  CUDA_INJECTION64_PATH=$lib GB_KTRACE_OUT="$out/ktrace-torch-$1.csv" \
    python3 "$here/gemm_ref.py" $(echo "$precs" | tr ':' ' ') 2>&1 | grep -v '^#' | grep -v '^name,' |
    sed "s/^/$1,/" | tee -a "$out/torch-ktrace.txt"
}
for r in $(seq 1 "$rounds"); do
  if [ $((r % 2)) -eq 1 ]; then
    gpubench_side "$r"
    torch_side "$r"
  else
    torch_side "$r"
    gpubench_side "$r"
  fi
done
python3 "$here/gemm_table.py" "$out/gemm-ktrace.csv" "$out/torch-ktrace.txt"
python3 "$here/ktrace_gaps.py" "$regex" "$out"/ktrace-gpubench-*.csv "$out"/ktrace-torch-*.csv | tee "$out/ktrace-gaps.csv"
