#!/usr/bin/env python3
"""The table of scripts/device/coll_interleave.sh: per collective (alltoall,
sendrecv) and size, the median over the rounds of nccl-tests' out-of-place
time and algbw (DIR/coll-nccl-<coll>-<round>.txt, its stdout) and of
gpubench's (DIR/coll-gb.csv, one run_id a round; rows of the case
<coll>_outofplace), and the ratio nccl-tests' time / gpubench's (= gpubench's algbw over
nccl-tests' at the same bytes; nccl-tests prints algbw to 0.01 GB/s only,
too coarse for small messages). With --old CSV, an
earlier build's gpubench rows are a third side.

Usage: coll_table.py DIR [--old CSV]
"""
import csv
import glob
import os
import re
import statistics
import sys

COLLS = ("alltoall", "sendrecv")


def nccl_side(directory, coll):
    """{bytes: [(time_us, algbw), ...]} over the rounds' files."""
    side = {}
    for path in sorted(glob.glob(os.path.join(directory, "coll-nccl-%s-*.txt" % coll))):
        with open(path) as f:
            for line in f:
                fields = line.split()
                if len(fields) < 9 or line.startswith("#") or not re.fullmatch(r"\d+", fields[0]):
                    continue
                size = int(fields[0])
                if size == 0:
                    continue
                side.setdefault(size, []).append((float(fields[5]), float(fields[6])))
    return side


def gpubench_side(path, coll):
    """{bytes: [(time_us, algbw), ...]}: one entry per run_id."""
    side = {}
    if not os.path.exists(path):
        return side
    runs = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if row.get("case") != coll + "_outofplace" or row.get("status") not in ("ok", "throttled"):
                continue
            key = (row["run_id"], int(row["bytes"]))
            runs.setdefault(key, {})[row["metric"]] = float(row["value"])
    for (_, size), m in runs.items():
        if "time_us" in m and "algbw_gbps" in m:
            side.setdefault(size, []).append((m["time_us"], m["algbw_gbps"]))
    return side


def med(values, i):
    return statistics.median(v[i] for v in values) if values else float("nan")


def size_name(b):
    for unit, div in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= div and b % div == 0:
            return "%d %s" % (b // div, unit)
    return "%d B" % b


def main(argv):
    if not argv or argv[0].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    directory = argv[0]
    old = argv[argv.index("--old") + 1] if "--old" in argv else None
    for coll in COLLS:
        ref = nccl_side(directory, coll)
        ours = gpubench_side(os.path.join(directory, "coll-gb.csv"), coll)
        earlier = gpubench_side(old, coll) if old else {}
        head = "| bytes | nccl-tests GB/s (us) | gpubench GB/s (us) | ratio | rounds |"
        if earlier:
            head += " earlier build GB/s (us) | ratio |"
        print("\n%s, fp32 out of place, medians over the rounds\n" % coll)
        print(head)
        print("|" + " ---: |" * (head.count("|") - 1))
        for size in sorted(set(ref) | set(ours)):
            r, o = ref.get(size, []), ours.get(size, [])
            ratio = med(r, 0) / med(o, 0) if r and o else float("nan")
            line = "| %s | %.2f (%.2f) | %.2f (%.2f) | %.3f | %d/%d |" % (
                size_name(size), med(r, 1), med(r, 0), med(o, 1), med(o, 0), ratio, len(r), len(o))
            if earlier:
                e = earlier.get(size, [])
                eratio = med(r, 0) / med(e, 0) if r and e else float("nan")
                line += " %.2f (%.2f) | %.3f |" % (med(e, 1), med(e, 0), eratio)
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
