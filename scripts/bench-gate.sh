#!/bin/sh
# bench-gate.sh: times the regression gate on this machine (docs/ci.md):
#   1. `gpubench compare` of two full-profile runs (data/measured/h200-gemm-full.csv
#      and h200-membw-copy-full.csv as one campaign; each side a copy with
#      0.2% noise, about the H200's run-to-run noise): target under 2 s;
#   2. `gpubench history` over 200 runs (data/measured/h200-quick.csv, each run
#      a copy with 1% noise, one figure stepping down 10% at run 150 and one
#      drifting 0.1% per run): target under 10 s.
# Inputs are generated under a temporary directory (kept with KEEP=1).
# Usage: scripts/bench-gate.sh [BUILD_DIR]   (default: build)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
gb=$build/gpubench
[ -x "$gb" ] || { echo "bench-gate: $gb not built (cmake --build build)" >&2; exit 2; }
tmp=$(mktemp -d)
[ "${KEEP:-0}" = 1 ] && echo "inputs in $tmp" || trap 'rm -rf "$tmp"' EXIT
export LC_ALL=C

# jitter IN OUT RUN_ID SEED [STEP_CASE STEP_FACTOR] [DRIFT_CASE DRIFT_PER_RUN RUN_INDEX]:
# a copy of IN with run_id RUN_ID and every value (min, max too) times
# 1 + noise (sd $NOISE, default 0.01); rows of case STEP_CASE times STEP_FACTOR; rows of case
# DRIFT_CASE times (1 - DRIFT_PER_RUN * RUN_INDEX).
jitter() {
  awk -F, -v OFS=, -v noise="${NOISE:-0.01}" -v run="$3" -v seed="$4" -v sc="${5:-}" -v sf="${6:-1}" -v dc="${7:-}" -v dr="${8:-0}" \
      -v ri="${9:-0}" '
    BEGIN { srand(seed * 7919 + 104729); for (i = 0; i < 1000; i++) rand() }
    FNR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; if (NR == 1) print; next }
    {
      # quoted fields with commas (detail) would shift columns: blank them
      if ($0 ~ /"/) { gsub(/"[^"]*"/, "") }
      $col["run_id"] = run
      f = 1 + noise * (rand() + rand() + rand() - 1.5) * 2
      if (sc != "" && $col["case"] == sc) f *= sf
      if (dc != "" && $col["case"] == dc) f *= 1 - dr * ri
      ts = sprintf("2026-%02d-%02dT00:%02d:%02dZ", 1 + int(ri / 28) % 12, 1 + ri % 28, int(ri / 60) % 60, ri % 60)
      $col["timestamp"] = ts
      if ($col["value"] != "") {
        $col["value"] *= f
        if ($col["min"] != "") $col["min"] *= f
        if ($col["max"] != "") $col["max"] *= f
      }
      print
    }' "$1" >"$2"
}

# 1. compare of two full-profile runs
full=$tmp/full.csv
# one campaign from two files whose columns differ: the second's rows in the
# first's columns, by name
awk -F, -v OFS=, '
  FNR == 1 { if (NR == 1) { n = split($0, h, ","); print; next } for (i = 1; i <= NF; i++) c[$i] = i; next }
  NR == FNR { print; next }
  { if ($0 ~ /"/) gsub(/"[^"]*"/, ""); line = ""
    for (i = 1; i <= n; i++) line = line (i > 1 ? "," : "") ((h[i] in c) ? $c[h[i]] : "")
    print line }' "$here/data/measured/h200-gemm-full.csv" "$here/data/measured/h200-membw-copy-full.csv" >"$full"
NOISE=0.002 jitter "$full" "$tmp/base.csv" base 1
NOISE=0.002 jitter "$full" "$tmp/cur.csv" cur 2
rows=$(($(wc -l <"$tmp/cur.csv") - 1))
t0=$(date +%s.%N)
rc=0
"$gb" compare "$tmp/base.csv" "$tmp/cur.csv" --markdown "$tmp/gate.md" --junit "$tmp/gate.xml" >"$tmp/compare.txt" || rc=$?
t1=$(date +%s.%N)
echo "compare: two full-profile runs ($rows rows each): $(echo "$t1 - $t0" | bc) s (exit $rc; target < 2 s)"
tail -n 1 "$tmp/compare.txt"

# 2. history over 200 runs
mkdir "$tmp/hist"
i=0
while [ $i -lt 200 ]; do
  step=1
  [ $i -ge 150 ] && step=0.9
  jitter "$here/data/measured/h200-quick.csv" "$tmp/hist/run$(printf %03d $i).csv" "run$(printf %03d $i)" $((i + 10)) \
    triad "$step" copy 0.001 $i
  i=$((i + 1))
done
t0=$(date +%s.%N)
rc=0
"$gb" history "$tmp/hist" >"$tmp/history.txt" || rc=$?
t1=$(date +%s.%N)
echo "history: 200 runs of $(($(wc -l <"$here/data/measured/h200-quick.csv") - 1)) rows: $(echo "$t1 - $t0" | bc) s (exit $rc; target < 10 s)"
grep -E "^(history|drift|change)" "$tmp/history.txt" | tail -n 6
