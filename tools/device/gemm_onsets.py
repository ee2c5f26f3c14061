#!/usr/bin/env python3
"""Where the power step falls in each timed window, from samples logs.

Usage: gemm_onsets.py CASE[:CASE...] FILE...

Each FILE is a samples log of gpubench (`--opt gemm.samples_log=FILE`: a
header, then case,m,n,k,variant,rest_ms,warmup,sample,seconds,rate) or of
scripts/device/gemm_ref.py (GEMM_REF_SAMPLES=FILE: case,sample,seconds,tflops
with no header); a window starts where `sample` is 0. For every window of
the named cases it prints ONSET/MEDIAN/TOP: the first sample after the first
that runs under 97% of the window's fastest sample after the first (the
first of PyTorch's pairs starts on an idle stream), "-" when none does, the
window's median and that fastest rate; then the median onset per file and
case, counting a window with no step as 30.

A 30-sample window whose step comes before sample 15 has a median from the
stepped-down part: at 8192^3 tf32, fp16 and bf16 on an H200 that decides a
window's median more than the kernel does (stop 17: git show
ddddffc:docs/perf-notes.md).
"""
import csv
import statistics
import sys

STEP = 0.97


def windows(path):
    """[(case, [rate, ...]), ...] in file order."""
    out = []
    with open(path, newline="") as f:
        for row in csv.reader(f):
            if not row or row[0] == "case":
                continue
            if len(row) >= 10:  # gpubench: case,m,n,k,variant,rest_ms,warmup,sample,seconds,rate
                case, sample, rate = row[0], row[7], row[9]
            elif len(row) == 4:  # gemm_ref.py: case,sample,seconds,tflops
                case, sample, rate = row[0], row[1], row[3]
            else:
                raise ValueError(f"{path}: a line of {len(row)} fields is neither a gpubench nor a gemm_ref.py "
                                 "samples log")
            if sample == "0" or not out or out[-1][0] != case:
                out.append((case, []))
            out[-1][1].append(float(rate))
    return out


def onset(rates):
    """Index of the first sample (after the first) under STEP of the fastest after the first; None if none."""
    if len(rates) < 2:
        return None
    top = max(rates[1:])
    return next((i for i, x in enumerate(rates) if i > 0 and x < STEP * top), None)


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    cases = argv[1].split(":")
    for path in argv[2:]:
        try:
            found = windows(path)
        except (OSError, ValueError) as e:
            sys.stderr.write(f"gemm_onsets.py: {e}\n")
            return 2
        for case in cases:
            cells, ons = [], []
            for c, rates in found:
                if c != case:
                    continue
                o = onset(rates)
                ons.append(o if o is not None else 30)
                cells.append(f"{'-' if o is None else o}/{statistics.median(rates):.0f}/{max(rates[1:] or rates):.0f}")
            if cells:
                print(f"{path} {case}: median onset {statistics.median(ons):g}; " + " ".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
