set -u
export GPUBENCH_CACHE_DIR=/tmp/gbc PYTHONUNBUFFERED=1
W=/tmp/b; mkdir -p $W
s=$(date +%s)
.devbuild/tests/check_gemm_gpu > $W/check_gemm_gpu.log 2>&1; echo "check_gemm_gpu rc=$? $(( $(date +%s)-s )) s"; grep -E "Checks|:F:|:E:" $W/check_gemm_gpu.log
P=fp8e4m3_slowacc:fp8e4m3_e4m3out_slowacc
for r in 1 2 3; do
  o="rule one"; [ $r = 2 ] && o="one rule"
  for a in $o; do x=; [ $a = one ] && x=,gemm.input_sets=1
    .devbuild/gpubench run --bench gemm --opt gemm.precs=$P,gemm.shapes=8192$x --out $W/sets-$a.csv 2>&1 | grep -E '^\[' | sed "s/^/$r $a /"; done
  o="1 2"; [ $r = 2 ] && o="2 1"
  for n in $o; do GEMM_REF_SETS=$n python3 scripts/device/gemm_ref.py fp8e4m3_slowacc fp8e4m3_e4m3out_slowacc | grep -v '^#' | grep -v '^name,' | sed "s/^/$r,sets$n,/" | tee -a $W/torch.txt; done
done
echo "done $(( $(date +%s)-s )) s"
tar czf $OUT/b.tgz -C $W .
