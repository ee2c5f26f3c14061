#!/usr/bin/env python3
"""Kernel durations and the gaps between them, from ktrace's CSV.

Usage: ktrace_gaps.py [--min-launches N] KERNEL_REGEX FILE...

FILE is what tools/ktrace/ktrace.c wrote (GB_KTRACE_OUT). A burst is a
run of launches of one kernel whose name matches KERNEL_REGEX, one after
another on one stream, each starting less than 1 ms after the one before
ended, with no other kernel and no memcpy between them (memsets between
are counted: memsets_between, with their median duration memset_us). For every
burst of at least 8 launches (--min-launches N: N; 30 keeps the timed windows
of gpubench's and gemm_ref.py's cases, in the order they ran) it prints the launch count and the medians of
the kernel's duration (end - start), of the gap (the next start - this
end) and of the period (start to start), in microseconds, over the burst's
launches after its first 5 (the warm-ups of gpubench's and gemm_ref.py's
windows). The period is what a back-to-back sample holds; the duration is
the kernel alone; the gap is launch, events and anything else between.
Exits 2 on a missing or malformed file.
"""
import csv
import re
import statistics
import sys

MAX_GAP_NS = 1_000_000
SKIP = 5


def fail(msg):
    print(f"ktrace_gaps.py: {msg}", file=sys.stderr)
    sys.exit(2)


def read(path):
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        fail(f"{path}: {e.strerror}")
    ops = []
    for line, r in enumerate(rows, start=2):
        try:
            ops.append((r["kind"], int(r["stream"]), int(r["start_ns"]), int(r["end_ns"]), r["name"]))
        except (KeyError, TypeError, ValueError):
            fail(f"{path}:{line}: not a ktrace row (kind,stream,start_ns,end_ns,...,name)")
    ops.sort(key=lambda o: o[2])
    return ops


def bursts(ops, pattern, min_burst):
    by_stream = {}
    for o in ops:
        by_stream.setdefault(o[1], []).append(o)
    found = []
    for stream, seq in sorted(by_stream.items()):
        cur, between = [], []  # the burst's launches; the memsets after each
        for o in seq:
            if o[0] == "memset":
                if cur:
                    between[-1].append(o)
                continue
            if o[0] == "memcpy":  # the host read or wrote: what follows is another burst
                if len(cur) >= min_burst:
                    found.append((stream, cur, between))
                cur, between = [], []
                continue
            match = pattern.search(o[4])
            if match and cur and o[4] == cur[-1][4] and o[2] - cur[-1][3] < MAX_GAP_NS:
                cur.append(o)
                between.append([])
                continue
            if len(cur) >= min_burst:
                found.append((stream, cur, between))
            cur, between = ([o], [[]]) if match else ([], [])
        if len(cur) >= min_burst:
            found.append((stream, cur, between))
    return sorted(found, key=lambda b: b[1][0][2])


def us(v):
    return f"{statistics.median(v) / 1000:.2f}"


def main():
    args = sys.argv[1:]
    min_burst = 8
    if args[:1] == ["--min-launches"]:
        try:
            min_burst = int(args[1])
        except (IndexError, ValueError):
            fail("--min-launches wants a whole number")
        if min_burst < 2:
            fail("--min-launches wants 2 or more")
        args = args[2:]
    if len(args) < 2:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        sys.exit(2)
    try:
        pattern = re.compile(args[0])
    except re.error as e:
        fail(f"KERNEL_REGEX: {e}")
    traces = [(path, read(path)) for path in args[1:]]  # every file read before a line is written
    w = csv.writer(sys.stdout, lineterminator="\n")
    w.writerow(["file", "burst", "stream", "launches", "duration_us", "gap_us", "period_us", "memsets_between",
                "memset_us", "kernel"])
    for path, ops in traces:
        for i, (stream, b, between) in enumerate(bursts(ops, pattern, min_burst)):
            skip = SKIP if len(b) > SKIP + 2 else 0
            t = b[skip:]
            dur = [o[3] - o[2] for o in t]
            gap = [n[2] - o[3] for o, n in zip(t, t[1:])]
            per = [n[2] - o[2] for o, n in zip(t, t[1:])]
            cps = [c for gaps in between[skip:len(b) - 1] for c in gaps]
            memset = f"{statistics.median([c[3] - c[2] for c in cps]) / 1000:.2f}" if cps else ""
            w.writerow([path, i, stream, len(b), us(dur), us(gap), us(per), len(cps), memset, b[0][4][:80]])


if __name__ == "__main__":
    main()
