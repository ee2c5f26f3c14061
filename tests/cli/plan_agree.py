#!/usr/bin/env python3
"""The shipped default plan's text, CSV, JSON and report agree on every
figure of its top 10 (the rows the text's table shows).

plan_agree.py GPUBENCH TMPDIR: runs `gpubench plan --top 10 --csv --json`
and `gpubench report --plan`, then for each text row checks the CSV row of
that rank, the JSON configuration of that rank and the report's rows."""
import csv
import json
import math
import os
import re
import subprocess
import sys

exe, tmp = sys.argv[1], sys.argv[2]
os.makedirs(tmp, exist_ok=True)
csv_path, json_path, rep = (os.path.join(tmp, n) for n in ("agree.csv", "agree.json", "agree-report"))
text = subprocess.run([exe, "plan", "--top", "10", "--csv", csv_path, "--json", json_path],
                      check=True, capture_output=True, text=True).stdout
fails = []


def fmt_cost(usd):  # the text's money format (planner/gb_plan_text.c fmt_cost)
    if not math.isfinite(usd):
        return "-"
    if usd >= 1e6:
        return "%.2fM" % (usd / 1e6)
    if usd >= 1e4:
        return "%.1fk" % (usd / 1e3)
    return "%.0f" % usd


def check(what, got, want):
    if got != want:
        fails.append("%s: %r, expected %r" % (what, got, want))


# the text's table of the best GPU count per type, provider and offering
table = text.split("Best GPU count per type, provider and offering")[1].split("\n\n")[0]
row_re = re.compile(r"^\s+(\d+) (\S+)\s+(\d+) \((\d+)x(\d+)\)\s+(\S+)\s+(\S+)\s+(\d+) \((\d+)-(\d+)\)\s+"
                    r"(\S+) \((\S+)-(\S+)\)")
rows = [m.groups() for m in map(row_re.match, table.splitlines()) if m]
check("text rows", len(rows), 10)
check("text label", "hours pessimistic (band)" in table and "USD pessimistic (band)" in table, True)
with open(csv_path, newline="") as f:
    by_rank = {int(r["rank"]): r for r in csv.DictReader(f) if r["rank"]}
check("CSV rows (--top 10)", len(by_rank), 10)
with open(json_path) as f:
    doc = json.load(f)
js = {c["rank"]: c for c in doc["configurations"]}
check("JSON configurations (--top 10)", len(js), 10)
check("JSON figure basis", doc["plan"]["figure_basis"], "pessimistic")
for rank, gtype, n, nodes, gpn, prov, offer, h, hlo, hhi, usd, clo, chi in rows:
    rank = int(rank)
    c, j = by_rank.get(rank), js.get(rank)
    if c is None or j is None:
        fails.append("rank %d: missing from the CSV or the JSON" % rank)
        continue
    f = {k: float(c[k]) for k in ("rank_hours", "hours_low", "hours_high", "rank_cost_usd", "cost_low", "cost_high")}
    for k in ("gpu_type", "provider", "offering"):
        check("rank %d %s: CSV" % (rank, k), c[k], {"gpu_type": gtype, "provider": prov, "offering": offer}[k])
        check("rank %d %s: JSON" % (rank, k), j[k], c[k])
    check("rank %d GPUs" % rank, (int(c["gpu_count"]), j["gpu_count"]), (int(n), int(n)))
    check("rank %d hours" % rank, ("%.0f" % f["rank_hours"], "%.0f" % f["hours_low"], "%.0f" % f["hours_high"]),
          (h, hlo, hhi))
    check("rank %d USD" % rank, (fmt_cost(f["rank_cost_usd"]), fmt_cost(f["cost_low"]), fmt_cost(f["cost_high"])),
          (usd, clo, chi))
    for k in f:
        check("rank %d %s: JSON = CSV" % (rank, k), j[k], f[k])
    for k in ("meets_deadline", "within_budget", "feasible", "pareto"):
        check("rank %d %s: JSON = CSV" % (rank, k), j[k], c[k] == "yes")
    # the verdicts from the ranked figures: every feasible row within the budget and the deadline
    check("rank %d verdicts" % rank, (j["meets_deadline"], j["within_budget"]), (True, True))
    check("rank %d cost <= budget" % rank, f["rank_cost_usd"] <= doc["plan"]["budget_usd"], True)
# the report's plan section from the same CSV: its nominal table rows and the recommended row's ranked figures
subprocess.run([exe, "report", "--plan", csv_path, "--out", rep], check=True, capture_output=True)
with open(os.path.join(rep, "report.md")) as f:
    md = f.read()
rep_rows = re.findall(r"^\| (\d+) \| (\d+) \| (\S+) \| \d+ x \d+ \| (\S+) \| (\S+) \| ([\d.]+) \| (\d+) \|", md, re.M)
check("report rows", len(rep_rows), 10)
for rank, n, gtype, prov, offer, hours, cost in rep_rows:
    c = by_rank[int(rank)]
    check("report rank %s" % rank, (gtype, prov, offer, "%.1f" % float(c["hours"]), "%.0f" % float(c["cost_usd"])),
          (c["gpu_type"], c["provider"], c["offering"], hours, cost))
top = by_rank[1]
rec = "%.1f hours, %s USD" % (float(top["rank_hours"]), format(round(float(top["rank_cost_usd"])), ","))
check("report's recommended row (pessimistic)", rec in md, True)
for m in fails:
    print("FAIL:", m)
print("%d figures of %d rows: %s" % (len(rows) * 12, len(rows), "disagree" if fails else "agree"))
sys.exit(1 if fails else 0)
