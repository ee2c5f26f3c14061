#!/usr/bin/env bash
# Kernel durations of one GEMM kernel in gpubench's process and in PyTorch's,
# read by Nsight Compute (gpu__time_duration.sum; clocks and caches left
# alone: --clock-control none --cache-control none). Each kernel then runs
# alone, so the figures hold no gap between products and no event: what is
# left when the timing methods are taken out. Usage:
#   gemm_kernel_times.sh CASE KERNEL_REGEX [SKIP] [COUNT]
# e.g. gemm_kernel_times.sh fp8e4m3_slowacc 'nvjet_sm90_qqtst_144x128_128x6_1x2'
# gpubench runs CASE at 8192^3 on the heuristic's first candidate alone
# (gemm.candidate=1); PyTorch runs scripts/device/gemm_ref.py CASE. Prints,
# per side, the median, min and max of COUNT launches after SKIP.
set -u
if [ $# -lt 2 ]; then
  sed -n '2,11p' "$0" >&2
  exit 2
fi
case_name=$1 kernel=$2 skip=${3:-10} count=${4:-20}
out=${OUT:-out}
mkdir -p "$out"
bin=${GPUBENCH:-.devbuild/gpubench}
here=$(cd "$(dirname "$0")" && pwd)
ref=$here/../../scripts/device/gemm_ref.py # the product's PyTorch reference
ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
prof() { # label command...
  local label=$1
  shift
  "$ncu" --clock-control none --cache-control none --metrics gpu__time_duration.sum -k "regex:$kernel" \
    --launch-skip "$skip" --launch-count "$count" --csv --page raw "$@" >"$out/ncu-$label.csv" 2>"$out/ncu-$label.err"
  echo "# $label: rc $?"
  python3 - "$out/ncu-$label.csv" "$label" <<'PY'
import csv, statistics, sys
rows = [l for l in open(sys.argv[1]) if l.startswith('"')]
r = list(csv.DictReader(rows))
col = "gpu__time_duration.sum"
v = [float(x[col].replace(",", "")) for x in r if x.get(col, "").replace(",", "").replace(".", "").isdigit()]
names = sorted({x.get("Kernel Name", "")[:70] for x in r if x.get(col)})
if not v:
    print(f"{sys.argv[2]}: no durations read")
else:
    unit = r[0].get(col) if not r[0][col].replace(",", "").replace(".", "").isdigit() else ""
    print(f"{sys.argv[2]}: {len(v)} launches, median {statistics.median(v):.1f}, min {min(v):.1f}, max {max(v):.1f} {unit} {names}")
PY
}
prof gpubench "$bin" run --bench gemm --opt "gemm.precs=$case_name,gemm.shapes=8192,gemm.candidate=1" \
  --warmup 5 --iters 40 --out /tmp/ncu-gemm.csv
prof torch python3 "$ref" "$case_name"
