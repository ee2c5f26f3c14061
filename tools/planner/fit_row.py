#!/usr/bin/env python3
"""Grid fit of one row of the planner's efficiency table (planner/gb_model.c)
on the calibration FIT half only (tests/calibration/cases.tsv).

For every point of the grid the row's hfu and gemm_share vectors are set to
the base row's (by default Hopper's) times the point's factors, the planner
and tests/check_planner_calibration are rebuilt, and the fit half's cases of
the row's GPU types are scored by their mean (and median) |ln(predicted/published)|.
The grid has three factors: hfu at the small sizes (1e8-1e10 parameters),
hfu at the largest size (1e11), gemm_share at every size. The check half is
printed but never used to choose: the best point is the one with the lowest
fit mean |ln| (--loss; or median) among those with no fit case beyond 2x. gb_model.c is put
back as it was at the end, and the test rebuilt from it.

Usage (from the repository root, with build/ configured):
  tools/planner/fit_row.py --arch blackwell --types 'B200|GB200|GB300|B300' \\
      --small 0.6:1.0:0.05 --large 0.7:1.2:0.1 --share 1.5:1.5:0.1 --block 0.75:1.0:0.05
--block also grids the row's block_scaled_eff (the last field of the row).
Prints one line a grid point and the best point last. Not built, not run by
CI: a lab tool (tools/README.md).
"""
import argparse
import itertools
import math
import re
import statistics
import subprocess
import sys

MODEL = "planner/gb_model.c"
ROW = re.compile(r'(\{"%s", "[a-z]*", [0-9.]+, )\{([^}]*)\}, \{([^}]*)\}')


def frange(spec):
    lo, hi, step = (float(x) for x in spec.split(":"))
    out, v = [], lo
    while v <= hi + 1e-9:
        out.append(round(v, 4))
        v += step
    return out


def row_vectors(text, arch):
    m = re.search(ROW.pattern % arch, text)
    if not m:
        sys.exit("fit_row: no row %r in %s" % (arch, MODEL))
    return m, [float(x) for x in m.group(2).split(",")], [float(x) for x in m.group(3).split(",")]


def set_row(text, arch, hfu, share, block=None):
    m, _, _ = row_vectors(text, arch)
    fmt = lambda v: ", ".join("%.2f" % x for x in v)  # as the table is written: the scored row is the shippable one
    out = text[:m.start()] + m.group(1) + "{" + fmt(hfu) + "}, {" + fmt(share) + "}" + text[m.end():]
    if block is None:
        return out
    # the row's last field, block_scaled_eff: the number before the "}," that ends the row
    end = out.index("},\n", m.start())
    head, _, _ = out[:end].rpartition(",")
    return head + ", %.2f" % block + out[end:]


def score(types, build):
    subprocess.run(["cmake", "--build", build, "-j2", "--target", "check_planner_calibration"], check=True,
                   stdout=subprocess.DEVNULL)
    run = subprocess.run([build + "/tests/check_planner_calibration"], capture_output=True, text=True)
    out = run.stdout
    # a check cut short (an assertion: a rejected case) scores nothing: its medians would be of a subset
    if run.returncode not in (0, 1) or "\nworst case " not in out:
        inf = float("inf")
        return {"fit": inf, "check": inf}, {"fit": inf, "check": inf}, {"fit": inf, "check": inf}
    halves = {"fit": [], "check": []}
    worst = {"fit": 0.0, "check": 0.0}
    in_excluded = False
    for line in out.splitlines():
        if line.startswith("excluded"):
            in_excluded = True
        f = line.split()
        if in_excluded or len(f) < 7 or f[1] not in halves:
            continue
        try:
            r = float(f[6])
        except ValueError:
            continue
        if not r > 0:  # NaN (rejected) or nonsense: the point is unusable
            r = float("inf")
        worst[f[1]] = max(worst[f[1]], abs(math.log(r)))
        if re.search(types, f[2]):
            halves[f[1]].append((f[0], r))
    med = {k: statistics.median(abs(math.log(r)) for _, r in v) if v else float("inf") for k, v in halves.items()}
    mean = {k: statistics.mean(abs(math.log(r)) for _, r in v) if v else float("inf") for k, v in halves.items()}
    return med, worst, mean


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--arch", required=True)
    ap.add_argument("--base", default="hopper")
    ap.add_argument("--types", required=True, help="regex of the row's GPU types")
    ap.add_argument("--small", required=True)
    ap.add_argument("--large", required=True)
    ap.add_argument("--share", required=True)
    ap.add_argument("--block", default=None,
                    help="also grid the row's block_scaled_eff (lo:hi:step), jointly with the three factors")
    ap.add_argument("--build", default="build")
    ap.add_argument("--loss", choices=("mean", "median"), default="mean",
                    help="what the best point minimises over the row's fit-half runs: their mean |ln(ratio)| "
                         "(default; the median of a score of runs is flat over much of a grid) or median")
    a = ap.parse_args()
    orig = open(MODEL).read()
    _, bh, bs = row_vectors(orig, a.base)
    best = None
    try:
        blocks = frange(a.block) if a.block else [None]
        for kb, ks, kl, kg in itertools.product(blocks, frange(a.small), frange(a.large), frange(a.share)):
            hfu = [x * ks for x in bh[:-1]] + [bh[-1] * kl]
            share = [min(1.0, x * kg) for x in bs]
            open(MODEL, "w").write(set_row(orig, a.arch, hfu, share, kb))
            med, worst, mean = score(a.types, a.build)
            print("%ssmall %.3f large %.3f share %.3f: fit %.3f mean %.3f (check %.3f) worst fit %.3f (check %.3f)" %
                  ("block %.2f " % kb if kb is not None else "", ks, kl, kg, med["fit"], mean["fit"], med["check"],
                   worst["fit"], worst["check"]), flush=True)
            key = (worst["fit"] > math.log(2), mean["fit"] if a.loss == "mean" else med["fit"])
            if best is None or key < best[0]:
                best = (key, ks, kl, kg, hfu, share, med, worst, kb)
    finally:
        open(MODEL, "w").write(orig)
        # the build again as the file is, not as the last grid point left it
        subprocess.run(["cmake", "--build", a.build, "-j2", "--target", "check_planner_calibration"],
                       stdout=subprocess.DEVNULL)
    _, ks, kl, kg, hfu, share, med, worst, kb = best
    print("best: %ssmall x%.3f large x%.3f share x%.3f -> hfu {%s} gemm_share {%s}: fit median |ln| %.3f, "
          "check %.3f; worst fit x%.2f, check x%.2f (all cases, every type)" %
          ("block_scaled_eff %.2f, " % kb if kb is not None else "", ks, kl, kg, ", ".join("%.2f" % x for x in hfu),
           ", ".join("%.2f" % x for x in share), med["fit"], med["check"], math.exp(worst["fit"]),
           math.exp(worst["check"])))


if __name__ == "__main__":
    main()
