#!/usr/bin/env python3
"""Validates `gpubench plan --json` against docs/plan.schema.json for plans
of every shape: the default, nothing fits (near-misses), --explain=all,
inference, a demand profile (hybrid curve), --top 0 and --top 3.

plan_schema.py GPUBENCH SCHEMA DATADIR TMPDIR; exit 77 (skipped) when
python3-jsonschema is missing (scripts/test-plan-json.sh installs it)."""
import json
import os
import subprocess
import sys

try:
    import jsonschema
except ImportError:
    print("SKIP: python3-jsonschema is not installed (scripts/test-plan-json.sh installs it)")
    sys.exit(77)

exe, schema_path, data, tmp = sys.argv[1:5]
os.makedirs(tmp, exist_ok=True)
with open(schema_path) as f:
    schema = json.load(f)
jsonschema.Draft202012Validator.check_schema(schema)
cases = {
    "default": ([], 0, 10),
    "near-miss": (["--gpu-type", "H200-SXM-141GB", "--offering", "purchase", "--explain=all"], 1, 0),
    "inference": ([os.path.join(data, "workloads", "inference-70b.ini"), "--top", "3"], 0, 3),
    "hybrid": (["--workload", "demand-hybrid", "--top", "0"], 0, None),
}
fails = 0
for name, (args, rc, want) in cases.items():
    out = os.path.join(tmp, name + ".json")
    p = subprocess.run([exe, "plan", *args, "--json", out], capture_output=True, text=True)
    if p.returncode != rc:
        print("FAIL %s: exit %d, expected %d\n%s" % (name, p.returncode, rc, p.stderr))
        fails += 1
        continue
    with open(out) as f:
        doc = json.load(f)
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(doc), key=lambda e: list(e.path))
    for e in errors[:5]:
        print("FAIL %s: %s at %s" % (name, e.message, "/".join(map(str, e.path))))
    fails += bool(errors)
    n = len(doc["configurations"])
    if want is not None and n != want:
        print("FAIL %s: %d configurations, --top says %d" % (name, n, want))
        fails += 1
    if name == "near-miss" and (doc["near_miss"] is None or "rejected" not in doc):
        print("FAIL near-miss: no near_miss or rejected section")
        fails += 1
    for c in doc["configurations"]:  # bands on every projected figure, inference included; energy per job
        if c["basis"] != "measured" and name == "inference" and not (
                c["tokens_per_s_low"] < c["tokens_per_s_per_gpu"] < c["tokens_per_s_high"]
                and c["token_latency_ms_low"] < c["token_latency_ms"] < c["token_latency_ms_high"]):
            print("FAIL inference rank %s: no band on tokens/s or latency" % c["rank"])
            fails += 1
        if not (c["energy_kwh"] > 0 and c["energy_usd"] > 0 and c["perf_per_watt"] > 0):
            print("FAIL %s rank %s: no energy or performance per watt" % (name, c["rank"]))
            fails += 1
    print("%s: %d configurations, %s" % (name, n, "valid" if not errors else "INVALID"))
sys.exit(1 if fails else 0)
