#!/usr/bin/env python3
"""The lab probes' arithmetic (tools/ktrace/ktrace_gaps.py,
tools/ktrace/ktrace_compare.py, tools/device/gemm_onsets.py,
scripts/device/energy_anchor.py) on fixtures
whose figures are worked out by hand in the comments: they run on the GPU
machine, where a wrong median would go unseen. Registered with ctest by
tools/CMakeLists.txt (-DGB_TOOLS=ON). Usage: check_device_probes.py SOURCE_ROOT"""
import os
import subprocess
import sys
import unittest

ROOT = sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
TOOLS = os.path.join(ROOT, "tools")
# where each probe lives under tools/
PROBES = {"ktrace_gaps.py": "ktrace", "ktrace_compare.py": "ktrace", "gemm_onsets.py": "device"}
FIX = os.path.join(TOOLS, "tests", "fixtures")
# a results CSV of the product's tests: not a ktrace file
RESULTS = os.path.join(ROOT, "tests", "fixtures", "results_good.csv")


def run(script, *args):
    path = os.path.join(TOOLS, PROBES[script], script)
    p = subprocess.run([sys.executable, path, *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


class KtraceGaps(unittest.TestCase):
    def test_bursts(self):
        # ktrace_window.csv, stream 13: 8 launches of 700,700,700,700,700,701,703,702 us, 5 us
        # apart with an 800 ns memset in each gap; a memcpy; 8 launches of 710 us, 6 us apart.
        # After the 5 warm-ups: durations 701,703,702 -> 702; periods 706,708 -> 707; the
        # memsets after launches 5 and 6 -> 2 of 0.80. Stream 7's burst of 4 is under 8.
        rc, out, err = run("ktrace_gaps.py", "nvjet", os.path.join(FIX, "ktrace_window.csv"))
        self.assertEqual(rc, 0, err)
        lines = out.strip().split("\n")
        self.assertEqual(len(lines), 3, out)
        self.assertTrue(lines[1].endswith(',0,13,8,702.00,5.00,707.00,2,0.80,"nvjet_sm90_a, b"'), lines[1])
        self.assertTrue(lines[2].endswith(',1,13,8,710.00,6.00,716.00,0,,"nvjet_sm90_a, b"'), lines[2])

    def test_min_launches(self):
        # --min-launches 4 also keeps stream 7's burst (4 launches, too short to skip warm-ups:
        # durations 700, periods 800, gaps 100)
        rc, out, err = run("ktrace_gaps.py", "--min-launches", "4", "nvjet_sm90_c",
                           os.path.join(FIX, "ktrace_window.csv"))
        self.assertEqual(rc, 0, err)
        self.assertIn(",0,7,4,700.00,100.00,800.00,0,,nvjet_sm90_c", out)

    def test_bad_input(self):
        rc, out, err = run("ktrace_gaps.py", "nvjet", RESULTS)
        self.assertEqual(rc, 2)
        self.assertEqual(out, "")
        self.assertIn("results_good.csv:2: not a ktrace row", err)
        rc, _, err = run("ktrace_gaps.py", "--min-launches", "x", "nvjet", "f")
        self.assertEqual(rc, 2)
        self.assertIn("--min-launches", err)


class KtraceCompare(unittest.TestCase):
    def test_table(self):
        # case a: gpubench durations 100, 102 -> 101, periods 105, 107 -> 106; PyTorch 101, 103
        # -> 102 and 108, 108 -> 108; gaps 7 (round 1) and 5 (round 2). Ratios 102/101 = 1.0099
        # and 108/106 = 1.0189. Case b: 200/201 = 0.9950, 206/206 = 1.0000.
        rc, out, err = run("ktrace_compare.py", os.path.join(FIX, "ktrace_gaps_two_rounds.csv"), "a:b")
        self.assertEqual(rc, 0, err)
        self.assertIn("| a | 101.00 / 5.00 / 106.00 | 102.00 / 6.00 / 108.00 | 7.00 / 5.00 | 1.0099 | 1.0189 |",
                      out)
        self.assertIn("| b | 201.00 / 5.00 / 206.00 | 200.00 / 6.00 / 206.00 | 7.00 / 5.00 | 0.9950 | 1.0000 |",
                      out)

    def test_window_count_mismatch(self):
        rc, out, err = run("ktrace_compare.py", os.path.join(FIX, "ktrace_gaps_two_rounds.csv"), "a:b:c")
        self.assertEqual(rc, 2)
        self.assertIn("has 2 windows, CASES names 3", err)


class GemmOnsets(unittest.TestCase):
    def test_step(self):
        # 30 samples: 400 for samples 0-9, 360 after; the fastest after the first is 400, 97% of
        # it 388, first under it sample 10; the median of 10 x 400 and 20 x 360 is 360
        rc, out, err = run("gemm_onsets.py", "tf32", os.path.join(FIX, "gemm_samples_step.csv"))
        self.assertEqual(rc, 0, err)
        self.assertIn("tf32: median onset 10; 10/360/400", out)


class EnergyAnchor(unittest.TestCase):
    def test_table(self):
        # fixtures/energy_anchor: the window 1000.0-1002.5 s (wall); the counter steps 70 J every
        # 100 ms at 999.05 + 0.1 i, so a read at 1000.0 sees step 9 (630 J) and at 1002.5 step 34
        # (2380 J): Zeus-style 1750 J / 2.5 s = 700.0 W, 25 steps in the window, 24 intervals of
        # 100 ms. nvidia-smi every 100 ms from 999.52 s (UTC): the 25 samples at 1000.02-1002.42
        # read 690 W, those outside 100 W (and one [N/A]): mean 690.0. gpubench's row: 1725 J over
        # 2.5 s = 690.0 W, ratio 1.0000, 700 / 690 = 1.014 TFLOP/s per W; the burst row has none.
        path = os.path.join(ROOT, "scripts", "device", "energy_anchor.py")
        env = dict(os.environ, TZ="UTC")
        p = subprocess.run([sys.executable, path, os.path.join(FIX, "energy_anchor")], capture_output=True, text=True,
                           env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        out = p.stdout
        self.assertIn("gpubench energy-based power             690.0 W", out)
        self.assertIn("nvidia-smi power.draw.instant, mean     690.0 W (25 samples in the window)", out)
        self.assertIn("ratio gpubench / nvidia-smi             1.0000", out)
        self.assertIn("Zeus-style counter read (start, end)    700.0 W, ratio gpubench / Zeus 0.9857", out)
        self.assertIn("in the window    median 100.00, p10 100.00, p90 100.00 ms (24 intervals)", out)
        self.assertIn("1.014 TFLOP/s per W", out)
        self.assertIn("burst window row: energy_j '', power figure absent", out)
        self.assertIn("done when: gpubench within 5% of nvidia-smi: yes; burst rows without a power figure: yes", out)


if __name__ == "__main__":
    unittest.main()
