#!/usr/bin/env python3
"""Scores `gpubench history` on the Turing Change Point Dataset (TCPD).

    scripts/tcpd-score.py TCPD_DIR [--gpubench PATH] [--series] [-- HISTORY_OPTION...]

TCPD_DIR is a checkout of github.com/alan-turing-institute/TCPD (van den Burg
and Williams 2020): annotations.json and datasets/NAME/NAME.json. Its series
are not copied into this repository (their licences differ, GPLv2 and
CC BY-SA among them). Every univariate series present in the checkout is
scored (31 without the ones its Makefile downloads; run_log has two
dimensions and is left out).

Each series becomes a results CSV, one run per time point (run_id tNNNNN, the
point's 0-based index), one headline figure; `gpubench history` runs on it with
its defaults (plus any HISTORY_OPTION) and the runs named on its `change` and
`env` lines are the predicted change points. A series with a value <= 0 (the
gate's figures are positive) is moved to [R, 2R], R its range, before it is
written; missing values are left out (their runs do not exist).

Scoring is TCPD's (TCPDBench analysis/scripts/metrics.py, re-implemented
here): F1 with a margin of 5 points, 0 counted as a change point in every
annotation set and in the prediction, precision against the union of the
annotators' points, recall the mean over annotators, each annotated point
matched to at most one predicted point (the closest). Two references are
scored the same way:
  binseg     binary segmentation of the mean, Gaussian cost with the noise
             estimated from successive differences (MAD), penalty
             3 log(n) per change (the MBIC-like default of R's changepoint), at most n/2 changes;
  no-change  no change point at all.
The series are split by name into fit (not every third) and held-out (every
third, in name order, starting with the third): the method's defaults may be
tuned on fit only. The table printed is what docs/ci.md shows.
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys
import tempfile
import time

MARGIN = 5
HEADER = ("schema,run_id,timestamp,host,gpu_type,gpu_name,gpu_count,driver,cuda,benchmark,case,dtype,m,n,k,"
          "bytes,metric,unit,value,samples,min,max,stddev,status,detail,sm_clock_mhz,mem_clock_mhz,temp_c,power_w,rep\n")


def load(tcpd):
    """(name, values, annotations) for every univariate series of the checkout, by name."""
    with open(os.path.join(tcpd, "annotations.json"), encoding="utf-8") as f:
        ann = json.load(f)
    out = []
    base = os.path.join(tcpd, "datasets")
    for name in sorted(os.listdir(base)):
        path = os.path.join(base, name, name + ".json")
        if not os.path.isfile(path) or name not in ann:
            continue
        with open(path, encoding="utf-8") as f:
            d = json.load(f)
        if d.get("n_dim", 1) != 1:
            continue
        vals = [float("nan") if v is None else float(v) for v in d["series"][0]["raw"]]
        out.append((name, vals, [sorted(set(a)) for a in ann[name].values()]))
    return out


def matched(truth, pred):
    """Points of truth matched to a distinct prediction within MARGIN, closest first."""
    left = set(pred)
    hits = 0
    for t in sorted(truth):
        near = sorted((abs(t - x), x) for x in left if abs(t - x) <= MARGIN)
        if near:
            left.discard(near[0][1])
            hits += 1
    return hits


def f1(annotations, pred):
    sets = [set(a) | {0} for a in annotations]
    x = set(pred) | {0}
    union = set().union(*sets)
    precision = matched(union, x) / len(x)
    recall = sum(matched(s, x) / len(s) for s in sets) / len(sets)
    return 2 * precision * recall / (precision + recall)


def write_csv(path, vals):
    finite = [v for v in vals if v == v]
    lo, hi = min(finite), max(finite)
    shift = 0.0 if lo > 0 else (hi - lo) - lo
    with open(path, "w", encoding="utf-8") as f:
        f.write(HEADER)
        for i, v in enumerate(vals):
            if v != v:
                continue
            ts = "2000-01-01T%02d:%02d:%02dZ" % (i // 3600, i // 60 % 60, i % 60)
            f.write("1,t%05d,%s,tcpd,H200-SXM-141GB,NVIDIA H200,1,,,gemm,bf16,bf16,8192,8192,8192,,tflops,"
                    "TFLOP/s,%.17g,1,,,,ok,,,,,,\n" % (i, ts, v + shift))


RUN = re.compile(r"^(?:change |env    ) .*?: shifted at run t(\d+) ")


def history(gpubench, csv, extra):
    p = subprocess.run([gpubench, "history", csv] + extra, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, check=False)
    if p.returncode not in (0, 3):
        sys.exit("%s: gpubench history exited %d: %s" % (csv, p.returncode, p.stderr.strip()))
    return sorted(int(m.group(1)) for m in map(RUN.match, p.stdout.splitlines()) if m)


def binseg(vals, qmax=5):
    """Binary segmentation of the mean as TCPDBench runs R's changepoint (cpt.mean, BinSeg, Normal,
    MBIC, Q = 5) on its scaled series: Gaussian cost with unit variance after dividing by the
    series' standard deviation, a change kept while its gain exceeds 3 log n."""
    idx = [i for i, v in enumerate(vals) if v == v]
    x = [vals[i] for i in idx]
    n = len(x)
    if n < 4:
        return []
    mu = sum(x) / n
    sd = math.sqrt(sum((v - mu) ** 2 for v in x) / (n - 1)) or 1.0
    s1 = [0.0]
    s2 = [0.0]
    for v in x:
        s1.append(s1[-1] + (v - mu) / sd)
        s2.append(s2[-1] + ((v - mu) / sd) ** 2)

    def cost(a, b):
        return s2[b] - s2[a] - (s1[b] - s1[a]) ** 2 / (b - a)

    pen, cps, segs = 3 * math.log(n), [], [(0, n)]
    while segs and len(cps) < qmax:
        best = None
        for a, b in segs:
            for t in range(a + 1, b):
                gain = cost(a, b) - cost(a, t) - cost(t, b)
                if best is None or gain > best[0]:
                    best = (gain, a, t, b)
        if best is None or best[0] <= pen:
            break
        _, a, t, b = best
        segs.remove((a, b))
        segs += [(a, t), (t, b)]
        cps.append(t)
    return sorted(idx[t] for t in cps)


def main():
    ap = argparse.ArgumentParser(description="score gpubench history on TCPD (F1, margin 5)")
    ap.add_argument("tcpd", help="TCPD checkout (annotations.json, datasets/)")
    ap.add_argument("--gpubench", default=os.path.join(os.path.dirname(__file__), "..", "build", "gpubench"))
    ap.add_argument("--series", action="store_true", help="print each series' F1 and points")
    ap.add_argument("extra", nargs="*", help="options passed to gpubench history (after --)")
    a = ap.parse_args()
    data = load(a.tcpd)
    if not data:
        sys.exit("%s: no TCPD series (annotations.json and datasets/NAME/NAME.json)" % a.tcpd)
    scores = {"gpubench": [], "binseg": [], "no-change": []}
    held = [i % 3 == 2 for i in range(len(data))]
    slowest = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for name, vals, ann in data:
            csv = os.path.join(tmp, name + ".csv")
            write_csv(csv, vals)
            t0 = time.monotonic()
            pred = history(a.gpubench, csv, a.extra)
            slowest = max(slowest, time.monotonic() - t0)
            row = {"gpubench": pred, "binseg": binseg(vals), "no-change": []}
            for k, p in row.items():
                scores[k].append(f1(ann, p))
            if a.series:
                print("%-20s n=%-4d F1 %.3f binseg %.3f none %.3f  gpubench %s" %
                      (name, len(vals), scores["gpubench"][-1], scores["binseg"][-1], scores["no-change"][-1],
                       pred))

    def mean(k, which):
        v = [s for s, h in zip(scores[k], held) if which is None or h == which]
        return sum(v) / len(v), len(v)

    print("| method | all (%d) | fit (%d) | held-out (%d) |" % (len(data), mean("binseg", False)[1],
                                                              mean("binseg", True)[1]))
    print("| --- | --- | --- | --- |")
    for k in scores:
        print("| %s | %.3f | %.3f | %.3f |" % (k if k != "gpubench" else "gpubench history (defaults%s)" %
                                             (" " + " ".join(a.extra) if a.extra else ""),
                                             mean(k, None)[0], mean(k, False)[0], mean(k, True)[0]))
    print("slowest history call: %.2f s" % slowest)


if __name__ == "__main__":
    main()
