#!/usr/bin/env bash
# Times export, merge and noise against the number of runs (docs/perf-notes.md,
# "Export, merge and noise"): a synthetic results file of RUNS runs, each of
# ROWS_PER_RUN rows (the 7 figures of tests/fixtures/gate_base.csv with 1 %
# lognormal-ish noise), one run per host (and card: gpu_uuid) of HOSTS hosts
# in turn, written by awk. For each size it measures with /usr/bin/time -v (wall clock, peak
# resident memory):
#   export  gpubench export ALL.csv --out ALL.prom (the newest run per machine)
#   merge   gpubench merge of the same runs split into 8 node files
#   noise   gpubench noise ALL.csv (up to NOISE_MAX runs: builds before
#           gate/gb_pairs.c listed every pair of runs, quadratic)
# Usage: scripts/bench-export-merge.sh [RUNS...]   (default: 10000 50000)
# Environment: HOSTS (default 64), NOISE_MAX (default 10000), GB_BUILD_DIR,
# GB_GPUBENCH (a gpubench to time instead of the build's, e.g. an older one),
# ONLY (the commands to time, joined by commas: export,merge,noise; default
# all three): `ONLY=noise scripts/bench-export-merge.sh 1000 2000`.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
HOSTS=${HOSTS:-64} NOISE_MAX=${NOISE_MAX:-10000} ONLY=${ONLY:-export,merge,noise}
for c in ${ONLY//,/ }; do
  case "$c" in export | merge | noise) ;; *) echo "bench-export-merge: ONLY: unknown command \"$c\" (export, merge, noise)" >&2; exit 2 ;; esac
done
want() { case ",$ONLY," in *",$1,"*) return 0 ;; esac; return 1; }
build=${GB_BUILD_DIR:-build}
gb=${GB_GPUBENCH:-}
if [ -z "$gb" ]; then
  cmake --build "$build" -j2 --target gpubench >/dev/null || exit 2
  gb=$root/$build/gpubench
fi
[ -x /usr/bin/time ] || { echo "bench-export-merge: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
work=$(mktemp -d /tmp/gpubench-bench-em.XXXXXX)
trap 'rm -rf "$work"' EXIT
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10000 50000)

gen() { # gen RUNS OUT: the runs, with the fixture's rows as the template
  awk -v runs="$1" -v hosts="$HOSTS" -F, -v OFS=, '
    NR == 1 { print $0 ",gpu_uuid"; next }
    { row[++n] = $0 }
    END {
      srand(7)
      for (r = 0; r < runs; r++) {
        t = 1796126400 + r * 60
        for (i = 1; i <= n; i++) {
          split(row[i], f, ",")
          f[2] = sprintf("run%06d", r)
          f[3] = strftime("%Y-%m-%dT%H:%M:%SZ", t + i, 1)
          f[4] = sprintf("gpu%03d", r % hosts)
          f[19] = sprintf("%.6g", f[19] * (1 + (rand() - 0.5) * 0.02))
          line = f[1]
          for (k = 2; k <= 30; k++) line = line "," f[k]
          print line sprintf(",GPU-%08d-0000-0000-0000-000000000000", r % hosts)
        }
      }
    }' tests/fixtures/gate_base.csv > "$2"
}

measure() { # measure NAME RUNS CMD...: one table row
  local name=$1 runs=$2
  shift 2
  if /usr/bin/time -v -o "$work/time" "$@" >"$work/out" 2>&1; then rc=0; else rc=$?; fi
  local wall rss
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, p, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + p[i]; print s }' "$work/time")
  rss=$(awk -F': ' '/Maximum resident set size/ { printf "%.0f", $2 / 1024 }' "$work/time")
  printf '| %s | %s | %s | %s | %s s | %s MB | %s |\n' "$name" "$runs" "$rows" "$bytes" "$wall" "$rss" "$rc"
  [ "$rc" = 0 ] || tail -3 "$work/out" >&2
}

echo "| command | runs | rows | input bytes | wall | peak RSS | exit |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
for runs in "${sizes[@]}"; do
  all=$work/all-$runs.csv
  gen "$runs" "$all"
  rows=$(($(wc -l <"$all") - 1))
  bytes=$(wc -c <"$all")
  want export && measure export "$runs" "$gb" export "$all" --out "$work/all.prom"
  if want merge; then
    mkdir -p "$work/nodes-$runs"
    awk -v dir="$work/nodes-$runs" 'NR == 1 { h = $0; for (i = 0; i < 8; i++) print h > (dir "/node" i ".csv"); next }
      { print >> (dir "/node" (NR % 8) ".csv") }' "$all"
    measure merge "$runs" "$gb" merge "$work/nodes-$runs"/node*.csv --out "$work/merged.csv"
  fi
  if want noise && [ "$runs" -le "$NOISE_MAX" ]; then
    measure noise "$runs" "$gb" noise "$all" --out "$work/floors.csv"
  fi
  rm -rf "$all" "$work/nodes-$runs"
done
