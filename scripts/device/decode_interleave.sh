#!/usr/bin/env bash
# Runs gpubench's decode benchmark and its PyTorch peer
# (scripts/device/decode_ref.py) alternately (A B A B ...), so the card's
# drift hits both alike, then prints the table of medians over the rounds
# and the ratios gpubench / PyTorch (scripts/device/decode_table.py):
# kernel launch (gpubench: cudaLaunchKernel of a one-block kernel; PyTorch:
# an in-place add on a one-element tensor, its dispatch included), a kernel
# inside a CUDA graph (cudaGraphLaunch; torch.cuda.CUDAGraph), the bf16 GEMV
# at batch 1..256 on Llama 3 8B and 70B projections (cuBLASLt's heuristic
# #1; torch.nn.functional.linear) and the decode attention read of a KV
# cache (gpubench's NVRTC kernel; torch's scaled_dot_product_attention).
# gpubench's rows go to $OUT/decode-interleave.csv, PyTorch's lines to
# $OUT/torch-decode.txt, the table to $OUT/decode-table.md. Usage:
#   decode_interleave.sh [ROUNDS]   (default 3; about 2 minutes on an H100)
# Run from the repository root on the GPU machine, with .devbuild/ carried
# (scripts/build-for-device.sh).
set -u
rounds=${1:-3}
out=${OUT:-out}
mkdir -p "$out"
export GPUBENCH_CACHE_DIR=${GPUBENCH_CACHE_DIR:-/tmp/gpubench-cache}
csv="$out/decode-interleave.csv"
txt="$out/torch-decode.txt"
: >"$txt"
: >"$out/torch-decode.log"
cases=launch:launch_graph:gemv_bf16:kv_read
for r in $(seq 1 "$rounds"); do
  echo "# round $r: gpubench"
  .devbuild/gpubench run --bench decode --full --opt "decode.cases=$cases" --out "$csv" 2>&1 | grep -E 'rows:|error'
  echo "# round $r: torch"
  python3 scripts/device/decode_ref.py | grep -v '^case,' | tee -a "$out/torch-decode.log" |
    grep -v '^#' | sed "s/^/$r,/" >>"$txt"
  grep '^#' "$out/torch-decode.log" | tail -n 3
done
python3 scripts/device/decode_table.py "$csv" "$txt" | tee "$out/decode-table.md"
