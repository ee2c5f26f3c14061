set -u
export GPUBENCH_CACHE_DIR=/tmp/gbc PYTHONUNBUFFERED=1
s=$(date +%s)
.devbuild/gpubench info > $OUT/info.txt 2>&1
( time .devbuild/gpubench run --bench gemm --full --out $OUT/h200-gemm-full.csv ) > $OUT/h200-gemm-full-run.txt 2>&1
echo "full rc=$? $(( $(date +%s)-s )) s"; tail -25 $OUT/h200-gemm-full-run.txt
python3 scripts/device/gemm_ref.py fp64 fp32 tf32 fp16 bf16 fp8e4m3_slowacc fp8e4m3_fastacc fp8e4m3xe5m2_slowacc fp8e4m3xe5m2_fastacc fp8e4m3_e4m3out_slowacc fp8e4m3_e4m3out_fastacc int8 > $OUT/h200-gemm-torch-same-call-as-full.txt 2>&1
cat $OUT/h200-gemm-torch-same-call-as-full.txt | grep -v '^#'
echo "ref $(( $(date +%s)-s )) s"
for r in 1 2 3; do
  o="300 0"; [ $r = 2 ] && o="0 300"
  for a in $o; do .devbuild/gpubench run --bench gemm --opt gemm.precs=fp8e4m3_slowacc,gemm.shapes=8192,gemm.rest_ms=$a --out $OUT/rest-$a.csv 2>&1 | grep -E '^\[' | sed "s/^/$r rest$a /"; done
  python3 scripts/device/gemm_ref.py fp8e4m3_slowacc | grep -v '^#' | grep -v '^name,' | sed "s/^/$r,/" | tee -a $OUT/rest-torch.txt
done
echo "done $(( $(date +%s)-s )) s"
