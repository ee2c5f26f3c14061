set -u
export GPUBENCH_CACHE_DIR=/tmp/gbc PYTHONUNBUFFERED=1
W=/tmp/a; mkdir -p $W
s=$(date +%s)
OUT=$W scripts/device-run.sh tests > $W/tests.txt 2>&1; echo "tests rc=$? $(( $(date +%s)-s )) s"; grep -E "passed|FAILED|SKIPPED|GPU tests" $W/tests.txt
CUBLASLT_LOG_LEVEL=2 CUBLASLT_LOG_FILE=$W/lt-torch.log python3 scripts/device/gemm_ref.py fp8e4m3_slowacc fp8e4m3_e4m3out_slowacc 2>&1 | tail -3
CUBLASLT_LOG_LEVEL=2 CUBLASLT_LOG_FILE=$W/lt-ours.log .devbuild/gpubench run --bench gemm --opt gemm.precs=fp8e4m3_slowacc,gemm.shapes=8192,gemm.candidate=1 --out $W/ours-c1.csv 2>&1 | grep -E '^\['
for f in torch ours; do echo "== $f"; grep -c cublasLtMatmul $W/lt-$f.log; grep -o 'algo=\[[^]]*\]' $W/lt-$f.log | sort | uniq -c | sort -rn | head -4; grep 'cublasLtMatmul\]' $W/lt-$f.log | grep -m1 'R_8F' | cut -c1-1500; done
echo "A/B $(( $(date +%s)-s )) s"
for r in 1 2 3; do
  o="on off"; [ $r = 2 ] && o="off on"
  for a in $o; do .devbuild/gpubench run --bench gemm --opt gemm.precs=fp8e4m3_slowacc:fp8e4m3_e4m3out_slowacc,gemm.shapes=8192,gemm.fp8_amax=$a --out $W/amax-$a.csv 2>&1 | grep -E '^\[' | sed "s/^/$r $a /"; done
  python3 scripts/device/gemm_ref.py fp8e4m3_slowacc fp8e4m3_e4m3out_slowacc | grep -v '^#' | grep -v '^name,' | sed "s/^/$r,/" | tee -a $W/torch.txt
done
echo "done $(( $(date +%s)-s )) s"
rm -f $W/lt-*.log.gz; gzip $W/lt-*.log
tar czf $OUT/a.tgz -C $W .
