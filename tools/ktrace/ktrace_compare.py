#!/usr/bin/env python3
"""Both sides' windows side by side, from gemm_interleave.sh's ktrace-gaps.csv.

Usage: ktrace_compare.py GAPS_CSV CASES[,CASES...]

GAPS_CSV is what `GEMM_KTRACE=1 gemm_interleave.sh` wrote (ktrace_gaps.py
--min-launches 30 over ktrace-{gpubench,torch}-ROUND-GROUP.csv). CASES names
the cases of group 1, 2, ... in the order both processes ran them, ':'-separated
(e.g. fp64:fp32:tf32:fp16:bf16,fp8e4m3_slowacc:...:int8): the k-th window of
a process is its group's k-th case. That holds for the interleave's TN groups,
where gpubench and gemm_ref.py both run the cases in the order of gemm's table.
PyTorch's rounds are split by their timing method when GEMM_REF_TIMINGS
cycled pairs:chain (odd rounds the first, even the second).

Prints, per case, the medians over the rounds of each side's kernel duration,
gap and period (us) and the ratios PyTorch / gpubench of duration and period
(above 1: gpubench's product is the shorter), with the kernels' names.
Exits 2 on a missing or malformed file, or a window count that does not
match CASES.
"""
import collections
import csv
import re
import statistics
import sys

NAME = re.compile(r"ktrace-(gpubench|torch)-(\d+)-(\d+)\.csv$")


def fail(msg):
    print(f"ktrace_compare.py: {msg}", file=sys.stderr)
    sys.exit(2)


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        sys.exit(2)
    groups = [g.split(":") for g in sys.argv[2].split(",")]
    try:
        with open(sys.argv[1], newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        fail(f"{sys.argv[1]}: {e.strerror}")
    seen = collections.defaultdict(list)  # (side, round, group) -> windows in order
    for line, r in enumerate(rows, start=2):
        m = NAME.search(r.get("file") or "")
        try:
            w = (float(r["duration_us"]), float(r["gap_us"]), float(r["period_us"]), r["kernel"])
        except (KeyError, TypeError, ValueError):
            fail(f"{sys.argv[1]}:{line}: not a ktrace_gaps.py row")
        if not m:
            fail(f"{sys.argv[1]}:{line}: file {r.get('file')!r} is not ktrace-SIDE-ROUND-GROUP.csv")
        seen[(m.group(1), int(m.group(2)), int(m.group(3)))].append(w)
    per = collections.defaultdict(list)  # (side, case) -> (round, window)
    for (side, rnd, grp), wins in sorted(seen.items()):
        if grp > len(groups):
            fail(f"group {grp} has no CASES")
        names = groups[grp - 1]
        if len(wins) != len(names):
            fail(f"ktrace-{side}-{rnd}-{grp}.csv has {len(wins)} windows, CASES names {len(names)}")
        for name, w in zip(names, wins):
            per[(side, name)].append((rnd, w))
    print("| case | gpubench duration / gap / period | PyTorch duration / gap / period (all rounds) "
          "| PyTorch gap, odd / even rounds | duration ratio | period ratio | kernels (gpubench / PyTorch) |")
    print("| --- | --- | --- | --- | --- | --- | --- |")

    def med(ws, i):
        return statistics.median(w[i] for _, w in ws)

    for names in groups:
        for name in names:
            g, t = per.get(("gpubench", name), []), per.get(("torch", name), [])
            if not g or not t:
                continue
            odd = [x for x in t if x[0] % 2 == 1]
            even = [x for x in t if x[0] % 2 == 0]
            split = f"{med(odd, 1):.2f} / {med(even, 1):.2f}" if odd and even else ""
            print(f"| {name} | {med(g, 0):.2f} / {med(g, 1):.2f} / {med(g, 2):.2f} "
                  f"| {med(t, 0):.2f} / {med(t, 1):.2f} / {med(t, 2):.2f} | {split} "
                  f"| {med(t, 0) / med(g, 0):.4f} | {med(t, 2) / med(g, 2):.4f} "
                  f"| {g[0][1][3][:44]} / {t[0][1][3][:44]} |")


if __name__ == "__main__":
    main()
