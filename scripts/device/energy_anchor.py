#!/usr/bin/env python3
"""Reads what scripts/device/energy_anchor.sh left in OUT and prints the
energy anchors (docs/perf-notes.md): gpubench's energy-based power over the sustained
bf16 8192^3 window against nvidia-smi's power.draw.instant samples in the same
window and against the energy counter read the way Zeus reads it (at the
window's start and end), the counter's step interval idle and in the window,
and whether the burst window's row carries no power figure.

Usage: energy_anchor.py OUT"""
import csv
import datetime
import statistics
import sys


def read_windows(path):
    """GPUBENCH_ENERGY_LOG lines: wall_start wall_end e0_mj e1_mj updates."""
    wins = []
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) == 5:
                wins.append((float(p[0]), float(p[1]), p[2], p[3], int(p[4])))
    return wins


def read_steps(path):
    """The probe's trace: wall_s energy_mj at every step of the counter."""
    steps = []
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) == 2:
                steps.append((float(p[0]), int(p[1])))
    return steps


def smi_time(text):
    """nvidia-smi's timestamp ("2026/12/07 09:30:01.123", local time) as epoch seconds."""
    return datetime.datetime.strptime(text.strip(), "%Y/%m/%d %H:%M:%S.%f").timestamp()


def read_smi(path):
    out = []
    with open(path) as f:
        for line in f:
            p = [x.strip() for x in line.split(",")]
            if len(p) != 2:
                continue
            try:
                out.append((smi_time(p[0]), float(p[1])))
            except ValueError:
                continue  # [N/A], a header, a cut line
    return out


def counter_at(steps, t):
    """The counter's value a read at wall time t returns: the last step at or before t."""
    v = None
    for ts, e in steps:
        if ts > t:
            break
        v = e
    return v


def intervals_ms(steps, t0, t1):
    ts = [s[0] for s in steps if t0 <= s[0] <= t1]
    return [(b - a) * 1e3 for a, b in zip(ts, ts[1:])]


def quantiles(x):
    if len(x) < 2:
        return "n/a"
    q = statistics.quantiles(x, n=10)
    return "median %.2f, p10 %.2f, p90 %.2f ms (%d intervals)" % (statistics.median(x), q[0], q[-1], len(x))


def rows(path, metric):
    with open(path, newline="") as f:
        return [r for r in csv.DictReader(f) if r.get("case") == "bf16" and r.get("metric") == metric]


def fnum(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return float("nan")


def kv(path):
    out = {}
    try:
        with open(path) as f:
            for line in f:
                if "=" in line:
                    k, v = line.strip().split("=", 1)
                    out[k] = v
    except OSError:
        pass
    return out


def main(out):
    wins = read_windows(out + "/windows.log")
    if not wins:
        print("no window in windows.log: gpubench timed nothing")
        return 1
    w0, w1, _, _, gb_updates = max(wins, key=lambda w: w[1] - w[0])
    sus = rows(out + "/sustained.csv", "tflops_sustained")
    burst = rows(out + "/burst.csv", "tflops")
    r = sus[0] if sus else {}
    gb_w = fnum(r.get("energy_j")) / fnum(r.get("energy_s"))
    smi = [w for t, w in read_smi(out + "/smi.csv") if w0 <= t <= w1]
    smi_mean = statistics.mean(smi) if smi else float("nan")
    steps = read_steps(out + "/counter.tsv")
    e0, e1 = counter_at(steps, w0), counter_at(steps, w1)
    zeus_w = (e1 - e0) / 1000.0 / (w1 - w0) if e0 is not None and e1 is not None else float("nan")
    idle = kv(out + "/probe-idle.txt")
    print("energy anchors on %s, bf16 8192^3 sustained window" % r.get("gpu_name", "?"))
    print("window (GPUBENCH_ENERGY_LOG)            %.3f s, %d counter steps seen by gpubench" % (w1 - w0, gb_updates))
    print("gpubench energy-based power             %.1f W (energy_j %s J / energy_s %s s)"
          % (gb_w, r.get("energy_j", ""), r.get("energy_s", "")))
    print("nvidia-smi power.draw.instant, mean     %.1f W (%d samples in the window)" % (smi_mean, len(smi)))
    print("ratio gpubench / nvidia-smi             %.4f (done when within 0.95..1.05)" % (gb_w / smi_mean))
    print("Zeus-style counter read (start, end)    %.1f W, ratio gpubench / Zeus %.4f" % (zeus_w, gb_w / zeus_w))
    print("gpubench power_instant_w (median)       %s W" % r.get("power_instant_w", ""))
    print("gpubench power_w (1-s average, telemetry) %s W" % r.get("power_w", ""))
    print("throughput                              %s TFLOP/s, %.3f TFLOP/s per W"
          % (r.get("value", ""), fnum(r.get("value")) / gb_w))
    print("counter step interval, idle             median %s ms, p10 %s, p90 %s (%s steps in %s s)"
          % (idle.get("interval_ms_median", "?"), idle.get("interval_ms_p10", "?"), idle.get("interval_ms_p90", "?"),
             idle.get("steps", "?"), idle.get("seconds", "?")))
    print("counter step interval, in the window    " + quantiles(intervals_ms(steps, w0, w1)))
    if r.get("energy_note"):
        print("gpubench energy_note (sustained row)    " + r["energy_note"])
    for b in burst:
        print("burst window row: energy_j '%s', power figure %s; energy_note: %s"
              % (b.get("energy_j", ""), "absent" if not b.get("energy_j") else "PRESENT", b.get("energy_note", "")))
    ratio_ok = 0.95 <= gb_w / smi_mean <= 1.05
    burst_ok = bool(burst) and all(not b.get("energy_j") for b in burst)
    print("done when: gpubench within 5%% of nvidia-smi: %s; burst rows without a power figure: %s"
          % ("yes" if ratio_ok else "NO", "yes" if burst_ok else "NO"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "out"))
