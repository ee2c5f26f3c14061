#!/usr/bin/env python3
"""The side-by-side table of scripts/device/decode_interleave.sh: for each
decode point (case, m, n, k, metric), the median over the rounds of
gpubench's value (its `decode` rows in the results CSV) and of PyTorch's
(lines "round,case,m,n,k,bytes,metric,value" of decode_ref.py), their ratio
gpubench / PyTorch, and gpubench's row statuses. time_us: lower is better
(a ratio under 1 is gpubench faster); tflops and gbps: higher is better.
Usage: decode_table.py CSV TXT"""
import csv
import statistics
import sys

ORDER = {"launch": 0, "launch_graph": 1, "gemv_bf16": 2, "kv_read": 3}
METRIC_ORDER = {"time_us": 0, "tflops": 1, "gbps": 2}


def key_of(case, m, n, k, metric):
    return (case, m, n, k, metric)


def sort_key(key):
    """launch, launch_graph, the gemv points by (n, k) then batch, kv_read by (n, m); metrics in a fixed order"""
    case, m, n, k, metric = key
    m, n, k = (int(v) if v else 0 for v in (m, n, k))
    return (ORDER.get(case, 9), n, k, m, METRIC_ORDER.get(metric, 9))


def read_ours(path):
    ours, status = {}, {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            if r["benchmark"] != "decode":
                continue
            key = key_of(r["case"], r["m"], r["n"], r["k"], r["metric"])
            status.setdefault(key, []).append(r["status"])
            if r["status"] in ("ok", "throttled") and r["value"]:
                ours.setdefault(key, []).append(float(r["value"]))
    return ours, status


def read_ref(path):
    ref = {}
    with open(path) as f:
        for line in f:
            parts = line.strip().split(",")
            if len(parts) != 8 or parts[1] == "case" or not parts[7]:
                continue
            key = key_of(parts[1], parts[2], parts[3], parts[4], parts[6])
            ref.setdefault(key, []).append(float(parts[7]))
    return ref


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    ours, status = read_ours(sys.argv[1])
    ref = read_ref(sys.argv[2])
    print("| case | m | n | k | metric | gpubench (median) | PyTorch (median) | gpubench / PyTorch "
          "| gpubench rounds | PyTorch rounds | gpubench status |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for key in sorted(set(ours) | set(ref) | set(status), key=sort_key):
        case, m, n, k, metric = key
        a, b = ours.get(key, []), ref.get(key, [])
        ma = statistics.median(a) if a else None
        mb = statistics.median(b) if b else None
        ratio = f"{ma / mb:.3f}" if ma and mb else "-"
        st = status.get(key, [])
        sts = ", ".join(f"{s} {st.count(s)}" for s in sorted(set(st))) or "-"
        fa = f"{ma:.3f}" if ma is not None else "-"
        fb = f"{mb:.3f}" if mb is not None else "-"
        print(f"| {case} | {m} | {n} | {k} | {metric} | {fa} | {fb} | {ratio} | "
              f"{' '.join(f'{v:.3f}' for v in a)} | {' '.join(f'{v:.3f}' for v in b)} | {sts} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
