set -u
export GPUBENCH_CACHE_DIR=/tmp/gbc PYTHONUNBUFFERED=1
NSYS=$(command -v nsys || ls /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys /usr/local/cuda/nsight-systems*/bin/nsys 2>/dev/null | head -1)
echo "nsys: $NSYS"; [ -n "$NSYS" ] || exit 3
W=/tmp/d; mkdir -p $W
for r in 1 2; do
$NSYS profile -t cuda -s none --cpuctxsw=none -o $W/ours$r -f true .devbuild/gpubench run --bench gemm --opt gemm.precs=fp8e4m3_slowacc,gemm.shapes=8192 --out $W/ours.csv 2>&1 | grep -E '^\['
$NSYS profile -t cuda -s none --cpuctxsw=none -o $W/torch$r -f true python3 scripts/device/gemm_ref.py fp8e4m3_slowacc 2>&1 | grep fp8
done
for f in ours1 torch1 ours2 torch2; do $NSYS stats -q --report cuda_gpu_trace --format csv -o $W/$f $W/$f.nsys-rep >/dev/null 2>&1; done
python3 - $W <<'PY'
import csv,glob,sys,statistics as st
for f in ["ours1","torch1","ours2","torch2"]:
    p=glob.glob(f"{sys.argv[1]}/{f}*cuda_gpu_trace*.csv")
    if not p: print(f,"no trace"); continue
    rows=list(csv.DictReader(open(p[0])))
    ks=[r for r in rows if r.get("Name","").find("gemm")>=0 or r.get("Name","").find("sm90")>=0]
    ks=[(int(r["Start (ns)"]),int(r["Duration (ns)"]),r["Name"][:90]) for r in ks]
    ks.sort(); big=[k for k in ks if k[1]>500000]
    last=big[-30:]
    d=[k[1] for k in last]; g=[last[i+1][0]-last[i][0]-last[i][1] for i in range(len(last)-1)]
    print(f, "n",len(big),"last30 dur med %.1f us min %.1f max %.1f; gap med %.2f us max %.2f; %s"%(st.median(d)/1e3,min(d)/1e3,max(d)/1e3,st.median(g)/1e3,max(g)/1e3,last[-1][2]))
    names=sorted(set(r["Name"][:60] for r in rows)); print("  kernels:",len(names),names[:6])
PY
tar czf $OUT/d.tgz -C $W --exclude='*.sqlite' .
