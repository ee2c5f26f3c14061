#!/usr/bin/env bash
# Probes where gpubench's GEMM and PyTorch's differ at 8192^3 for the given
# precisions (default fp64): 1) interleaved rounds of gpubench (PyTorch's
# protocol: 5 warm-ups, 30 timed products) and PyTorch (operands drawn in
# the operand type, and for fp64 also float32 values widened, as the first
# reference did); 2) cuBLASLt's trace log of one PyTorch product and of a
# short gpubench run (which kernel configuration each launched); 3) ncu's
# kernel names, clocks left alone. Output and logs go to $OUT.
# Usage: gemm_probe.sh [ROUNDS] [PRECS]
set -u
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,temperature.gpu --format=csv
rounds=${1:-3}
precs=${2:-fp64}
out=${OUT:-out}
mkdir -p "$out"
IFS=: read -ra refs <<<"$precs"
case ":$precs:" in *:fp64:*) refs+=(fp64_f32values) ;; esac
for r in $(seq 1 "$rounds"); do
  echo "# round $r: gpubench"
  .devbuild/gpubench run --bench gemm --opt "gemm.precs=$precs,gemm.shapes=8192" --warmup 5 --iters 30 \
    --out "$out/probe.csv" 2>&1 | grep -E '^(fp|tf|bf|int)[0-9a-z_]* +[0-9.]+ T'
  echo "# round $r: torch"
  python3 scripts/device/gemm_ref.py "${refs[@]}" | grep -v '^#'
done
echo "# cuBLASLt trace"
CUBLASLT_LOG_LEVEL=2 CUBLASLT_LOG_FILE="$out/lt-torch.log" python3 - "$precs" <<'PY'
import sys, torch
dt = {"fp64": torch.float64, "fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}
for p in sys.argv[1].split(":"):
    if p in dt:
        a = torch.rand(8192, 8192, device="cuda", dtype=dt[p]); b = torch.rand_like(a)
        torch.matmul(a, b); torch.cuda.synchronize()
PY
CUBLASLT_LOG_LEVEL=2 CUBLASLT_LOG_FILE="$out/lt-gpubench.log" .devbuild/gpubench run --bench gemm \
  --opt "gemm.precs=$precs,gemm.shapes=8192" --warmup 1 --iters 3 --out /tmp/lt.csv >/dev/null 2>&1
for f in "$out"/lt-*.log; do
  echo "== $f: $(wc -l <"$f") lines"
  grep -o 'algo=[^]]*]' "$f" | sort | uniq -c | sort -rn | head -12
done
if command -v ncu >/dev/null; then
  echo "# ncu kernel names"
  timeout 180 ncu --clock-control none -k regex:'gemm|nvjet|Kernel|sm90' --launch-count 1 \
    --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second python3 - "$precs" <<'PY' 2>&1 | grep -vE '^==PROF==|^\s*$' | tail -15
import sys, torch
dt = {"fp64": torch.float64, "fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}
for p in sys.argv[1].split(":"):
    if p in dt:
        a = torch.rand(8192, 8192, device="cuda", dtype=dt[p]); b = torch.rand_like(a)
        torch.matmul(a, b); torch.cuda.synchronize()
PY
  timeout 180 ncu --clock-control none -k regex:'gemm|nvjet|Kernel|sm90' --launch-count 1 \
    --metrics gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second .devbuild/gpubench run --bench gemm \
    --opt "gemm.precs=$precs,gemm.shapes=8192" --warmup 1 --iters 3 --out /tmp/ncu.csv 2>&1 |
    grep -vE '^==PROF==|^\s*$' | tail -15
fi
