#!/usr/bin/env bash
# A small fleet's store for the nightly trend report: NODES nodes x NIGHTS
# nights, each run an A/A fixture (tests/fixtures/aa/aa-quick-*.csv) under
# its node's name, values jittered by +-1% (seeded), node n2's bf16 GEMMs
# 10% slower from night 5; imported night by night (campaign night-NN),
# then `history --record` and `compare --record` of the last night.
# usage: scripts/trend-store.sh STORE.db [NODES] [NIGHTS]   (build/gpubench)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
db=$1 nodes=${2:-9} nights=${3:-8}
gb=$root/build/gpubench
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
rm -f "$db" "$db-wal" "$db-shm"
python3 - "$root/tests/fixtures/aa" "$tmp" "$nodes" "$nights" <<'PY'
import csv, random, sys
src, out, nodes, nights = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
rnd = random.Random(7)
for night in range(nights):
    for node in range(nodes):
        with open(f"{src}/aa-quick-{1 + (night + node) % 6}.csv", newline="") as f:
            rows = list(csv.DictReader(f))
        run = f"202601{night + 1:02d}T0200{node:02d}Z-n{node}"
        path = f"{out}/night-{night:02d}-n{node}.csv"
        with open(path, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=rows[0].keys(), lineterminator="\n")
            w.writeheader()
            for r in rows:
                r.update(run_id=run, host=f"n{node}", timestamp=f"2026-01-{night + 1:02d}T02:00:{node:02d}Z",
                         gpu_uuid=f"GPU-{node:08d}-0000-0000-0000-000000000000")
                k = 1 + rnd.uniform(-0.01, 0.01)
                if node == 2 and night >= 5 and r["benchmark"] == "gemm" and r["dtype"] == "bf16":
                    k *= 0.9
                for c in ("value", "min", "max", "stddev"):
                    if r[c] not in ("", "nan"):
                        r[c] = repr(float(r[c]) * (k if c != "stddev" else 1))
                w.writerow(r)
PY
for ((night = 0; night < nights; night++)); do
  n=$(printf '%02d' "$night")
  "$gb" import --store "$db" --campaign "night-$n" "$tmp"/night-"$n"-n*.csv >/dev/null
done
"$gb" history --store "$db" --record all >/dev/null
last=$(printf 'night-%02d' $((nights - 1)))
"$gb" compare --store "$db" --record "last=5,before=$last" "campaign=$last" >/dev/null || [ $? -eq 1 ]
