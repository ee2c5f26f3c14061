#!/usr/bin/env bash
# Where in gpubench's burst window the slow samples fall, and what the idle
# before it and the warm-up do to the median: ROUNDS rounds (default 2) of
# four gpubench variants on PRECS at 8192^3 (idle 300 ms or none, 5 or 20
# warm-up products), each round followed by PyTorch (gemm_ref.py) on the
# same precisions. Every timed sample of both sides lands in order in
# $OUT/window-samples-VARIANT.csv and $OUT/torch-samples.csv; one table per variant
# against PyTorch's medians. Usage:
#   gemm_window_probe.sh [ROUNDS] [PRECS] [VARIANTS] [OPTS]
# VARIANTS: space-separated rRESTwWARMUP[cN][x] (default "r300w5 r300w20 r0w5 r0w20");
# a cN suffix times the heuristic's #N alone (gemm.candidate=N, no search),
# an x suffix searches with gemm.search=extended and 8 finalists;
# OPTS: more --opt items for gpubench (e.g. gemm.search=extended);
# TORCH_REST_MS in the environment: PyTorch idles that long before each case.
set -u
rounds=${1:-2}
precs=${2:-fp16:bf16:fp8e4m3_slowacc:fp8e4m3_fastacc}
out=${OUT:-out}
mkdir -p "$out"
txt="$out/window-probe-torch.txt"
: >"$txt"
variants=${3:-r300w5 r300w20 r0w5 r0w20}
extra=${4:+,$4}
IFS=: read -ra prec_list <<<"$precs"
for r in $(seq 1 "$rounds"); do
  for v in $variants; do
    rest=${v#r}; rest=${rest%%w*}; spec=${v#*w}; warm=${spec%%[cx]*}; pick=
    case $spec in *c*) n=${spec#*c}; pick=",gemm.candidate=${n%%x*}" ;; esac
    case $spec in *x) pick="$pick,gemm.search=extended,gemm.finalists=8" ;; esac
    echo "# round $r: gpubench $v"
    .devbuild/gpubench run --bench gemm --warmup "$warm" \
      --opt "gemm.precs=$precs,gemm.shapes=8192,gemm.rest_ms=$rest,gemm.samples_log=$out/window-samples-$v.csv,gemm.search_log=$out/search-log.csv$pick$extra" \
      --out "$out/window-$v.csv" 2>&1 | grep -E '^\['
  done
  echo "# round $r: torch"
  GEMM_REF_REST_MS=${TORCH_REST_MS:-0} GEMM_REF_SAMPLES="$out/torch-samples.csv" python3 scripts/device/gemm_ref.py "${prec_list[@]}" |
    grep -v '^#' | grep -v '^name,' | sed "s/^/$r,/" | tee -a "$txt"
done
for v in $variants; do
  echo "## $v"
  python3 scripts/device/gemm_table.py "$out/window-$v.csv" "$txt"
done
