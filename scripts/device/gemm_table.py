#!/usr/bin/env python3
"""The side-by-side table of scripts/device/gemm_interleave.sh: for each case
at 8192^3, the median over the rounds of gpubench's rate (its rows in the
results CSV) and of PyTorch's (lines "round,name,tflops"), their ratio, and
gpubench's row statuses and median SM clock. Usage: gemm_table.py CSV TXT"""
import csv
import statistics
import sys


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    ours, clocks, status = {}, {}, {}
    with open(sys.argv[1], newline="") as f:
        for r in csv.DictReader(f):
            if r["benchmark"] != "gemm" or r["metric"] not in ("tflops", "tops"):
                continue
            if (r["m"], r["n"], r["k"]) != ("8192", "8192", "8192"):
                continue
            status.setdefault(r["case"], []).append(r["status"])
            if r["status"] in ("ok", "throttled") and r["value"]:
                ours.setdefault(r["case"], []).append(float(r["value"]))
                if r["sm_clock_mhz"]:
                    clocks.setdefault(r["case"], []).append(float(r["sm_clock_mhz"]))
    ref = {}
    with open(sys.argv[2]) as f:
        for line in f:
            parts = line.strip().split(",")
            if len(parts) == 3 and parts[2]:
                ref.setdefault(parts[1], []).append(float(parts[2]))
    print("| case | gpubench (median) | PyTorch (median) | ratio | gpubench rounds | PyTorch rounds "
          "| gpubench status | SM MHz |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for case in sorted(set(ours) | set(ref) | set(status), key=lambda c: (c.endswith("_nn"), c)):
        a, b = ours.get(case, []), ref.get(case, [])
        ma = statistics.median(a) if a else None
        mb = statistics.median(b) if b else None
        ratio = f"{ma / mb:.3f}" if ma and mb else "-"
        st = status.get(case, [])
        sts = ", ".join(f"{s} {st.count(s)}" for s in sorted(set(st)))
        clk = f"{statistics.median(clocks[case]):.0f}" if clocks.get(case) else "-"
        print(f"| {case} | {ma:.1f} | " if ma else f"| {case} | - | ", end="")
        print(f"{mb:.1f} | " if mb else "- | ", end="")
        print(f"{ratio} | {' '.join(f'{v:.1f}' for v in a)} | {' '.join(f'{v:.1f}' for v in b)} | {sts} | {clk} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
