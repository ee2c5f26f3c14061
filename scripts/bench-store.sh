#!/usr/bin/env bash
# Times the results store on a synthetic year of a fleet (docs/perf-notes.md,
# "The results store"): NODES nodes (default 16) each running the quick
# campaign every night for NIGHTS nights (default 365) with REPS repetitions
# (default 4), built from the real A/A campaign tests/fixtures/aa/aa-quick-1.csv
# (528 rows) with noise: each node its own offset (+-2%), each row
# lognormal noise (1%), and node03's bf16 GEMM 5% slower from night 200 on,
# so history has a change to find. 16 x 365 x 4 x 528 = 12.3 million rows.
# For each engine (SQLite, and PostgreSQL in a throwaway cluster as
# scripts/test-store.sh starts one; ENGINES="sqlite postgresql") it measures,
# with /usr/bin/time -v (wall clock, peak resident memory):
#   import  gpubench import, one call per night (--campaign nightly-DATE)
#   history gpubench history of one figure of one node over the year
#   compare gpubench compare of the last night against the five before it
# history and compare run REPEAT times (default 5) one after the other; each
# time is printed and then the medians of the wall-clock time and of the CPU
# time (user + system: what the command itself cost, whatever else ran). The import counts its own rows per
# second over the whole year (one process per night, as a nightly job does).
# Usage: scripts/bench-store.sh [WORKDIR]  (WORKDIR keeps the generated CSVs,
# the SQLite file and the PostgreSQL cluster between runs; default a
# temporary folder, removed). REUSE=1 times history and compare on the
# stores a former call with that WORKDIR imported, without importing again.
# Two calls with one WORKDIR and ENGINES=sqlite / ENGINES=postgresql may run
# at once (they share the generated CSVs).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
NODES=${NODES:-16} NIGHTS=${NIGHTS:-365} REPS=${REPS:-4} ENGINES=${ENGINES:-"sqlite postgresql"}
REPEAT=${REPEAT:-5}
build=${GB_BUILD_DIR:-build}
cmake --build "$build" -j2 --target gpubench >/dev/null || exit 2
gb=$root/$build/gpubench
work=${1:-}
keep=1
[ -n "$work" ] || { work=$(mktemp -d /tmp/gpubench-bench-store.XXXXXX); keep=0; }
mkdir -p "$work/csv"
chmod 755 "$work"
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
as_pg=()
[ "$(id -u)" = 0 ] && as_pg=(runuser -u postgres --)
pgdata=$work/pgdata sock=$work/pgsock pg_started=0
cleanup() {
  [ "$pg_started" = 1 ] && "${as_pg[@]}" "$pgbin/pg_ctl" -D "$pgdata" -m fast stop >/dev/null 2>&1
  [ "$keep" = 1 ] || rm -rf "$work"
}
trap cleanup EXIT

# ---- the synthetic year: one folder per night, one file per node ----
if [ ! -f "$work/csv/done" ]; then
  start=$(date +%s)
  python3 - "$work/csv" "$NODES" "$NIGHTS" "$REPS" tests/fixtures/aa/aa-quick-1.csv <<'PY' || exit 2
import csv, datetime, math, os, random, sys
out, nodes, nights, reps, src = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
rows = list(csv.reader(open(src)))
head, body = rows[0], rows[1:]
col = {name: i for i, name in enumerate(head)}
vi, mn, mx, rp = col["value"], col["min"], col["max"], col["rep"]
rng = random.Random(1)
day0 = datetime.date(2026, 1, 1)
offset = [1 + rng.uniform(-0.02, 0.02) for _ in range(nodes)]
for night in range(nights):
    day = day0 + datetime.timedelta(days=night)
    d = os.path.join(out, day.isoformat())
    os.makedirs(d, exist_ok=True)
    for node in range(nodes):
        host = "node%02d" % node
        run = "%sT020000Z-%s-%06x" % (day.strftime("%Y%m%d"), host, rng.getrandbits(24))
        uuid = "GPU-%08x-0000-0000-0000-%012x" % (node, node)
        with open(os.path.join(d, host + ".csv"), "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(head)
            for rep in range(reps):
                for i, r in enumerate(body):
                    r = list(r)
                    r[col["run_id"]], r[col["host"]], r[col["gpu_uuid"]] = run, host, uuid
                    r[col["timestamp"]] = "%sT02:%02d:%02dZ" % (day.isoformat(), rep * 10 + i // 60 % 10, i % 60)
                    r[rp] = str(rep)
                    if r[vi]:
                        f_ = offset[node] * math.exp(rng.gauss(0, 0.01))
                        if node == 3 and night >= 200 and r[col["benchmark"]] == "gemm" and r[col["dtype"]] == "bf16":
                            f_ *= 0.95
                        for c in (vi, mn, mx):
                            if r[c]:
                                r[c] = "%.7g" % (float(r[c]) * f_)
                    w.writerow(r)
open(os.path.join(out, "done"), "w").write("%d\n" % (nodes * nights * reps * len(body)))
PY
  echo "generated $(cat "$work/csv/done") rows in $(( $(date +%s) - start )) s ($(du -sh "$work/csv" | cut -f1))"
fi
nrows=$(cat "$work/csv/done")
nights=$(ls -d "$work"/csv/20*/ | wc -l)
last=$(ls -d "$work"/csv/20*/ | tail -1 | xargs basename)

# one timed command: "name: wall s, peak MB" to stdout, the seconds into
# $work/times-NAME (one line a call)
timed() {
  local name=$1
  shift
  /usr/bin/time -v "$@" >"$work/$name.out" 2>"$work/$name.err"
  local rc=$?
  local wall rss
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s}' "$work/$name.err")
  rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.1f", $2 / 1024}' "$work/$name.err")
  cpu=$(awk -F': ' '/User time|System time/ {s += $2} END {printf "%.2f", s}' "$work/$name.err")
  echo "$wall $rss $cpu" >>"$work/times-$name"
  echo "$name: exit $rc, ${wall} s (CPU ${cpu} s), peak ${rss} MB"
}

# REPEAT timed calls of one command, then "NAME median: S s, peak MB"
repeated() {
  local name=$1
  shift
  rm -f "$work/times-$name"
  for _ in $(seq "$REPEAT"); do timed "$name" "$@"; done
  sort -n "$work/times-$name" | awk -v name="$name" '{w[NR] = $1; if ($2 > m) m = $2}
    END {printf "%s median: %s s of %d (%s .. %s), peak %s MB\n", name, w[int((NR + 1) / 2)], NR, w[1], w[NR], m}'
  sort -n -k3 "$work/times-$name" | awk -v name="$name" '{c[NR] = $3}
    END {printf "%s median CPU time (user + system): %s s (%s .. %s)\n", name, c[int((NR + 1) / 2)], c[1], c[NR]}'
}

for engine in $ENGINES; do
  if [ "$engine" = postgresql ]; then
    [ -n "$pgbin" ] || { echo "no PostgreSQL server binaries (scripts/need-packages.sh postgresql)"; continue; }
    reuse=${REUSE:-0}
    [ -f "$pgdata/PG_VERSION" ] || reuse=0
    if [ "$reuse" = 0 ]; then
      rm -rf "$pgdata" "$sock"
      mkdir -p "$pgdata" "$sock"
      [ "$(id -u)" = 0 ] && chown postgres "$pgdata" "$sock"
      "${as_pg[@]}" "$pgbin/initdb" -D "$pgdata" -A trust -U gb >/dev/null 2>&1 || exit 2
    fi
    port=$((20000 + RANDOM % 40000))
    "${as_pg[@]}" "$pgbin/pg_ctl" -D "$pgdata" -w -l "$sock/pg.log" \
      -o "-c listen_addresses='' -c unix_socket_directories=$sock -p $port -c shared_buffers=1GB" start >/dev/null || exit 2
    pg_started=1
    [ "$reuse" = 1 ] || "$pgbin/createdb" -h "$sock" -p "$port" -U gb bench || exit 2
    url="pg:host=$sock port=$port user=gb dbname=bench"
  else
    url=$work/store.db
    reuse=${REUSE:-0}
    [ -f "$url" ] || reuse=0
    [ "$reuse" = 1 ] || rm -f "$url" "$url-wal" "$url-shm"
  fi
  echo "== $engine: $nrows rows, $NODES nodes x $nights nights ($(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg))"
  start=$(date +%s.%N)
  peak=0
  for d in "$work"/csv/20*/; do
    [ "$reuse" = 1 ] && break
    night=$(basename "$d")
    /usr/bin/time -f "%M" -o "$work/import-$engine.rss" "$gb" import --store "$url" --campaign "nightly-$night" \
      "$d"*.csv 2>>"$work/import-$engine.log" ||
      { echo "import of $night failed"; tail -3 "$work/import-$engine.log"; exit 1; }
    rss=$(tail -1 "$work/import-$engine.rss")
    [ "$rss" -gt "$peak" ] && peak=$rss
    echo "$night $(date +%s.%N)" >>"$work/import-$engine.progress" # when each night was in
  done
  secs=$(echo "$(date +%s.%N) - $start" | bc)
  [ "$reuse" = 1 ] && echo "import: skipped (REUSE=1): the store of a former call"
  [ "$reuse" = 1 ] || echo "import: $nrows rows in $secs s: $(echo "$nrows / $secs" | bc) rows/s; peak $((peak / 1024)) MB per night's import"
  # what the store holds: its rows and its newest night (with REUSE=1, an import that was
  # stopped part of the way holds fewer than the generated year)
  q="SELECT (SELECT count(*) FROM gb_rows) || ' rows, newest campaign ' || (SELECT max(campaign) FROM gb_runs)"
  if [ "$engine" = sqlite ]; then
    held=$(python3 -c 'import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])' \
      "$url" "$q")
    echo "store size: $(du -sh "$url" | cut -f1)"
  else
    # the statistics autovacuum keeps on a live server, taken now rather than whenever it runs
    "$pgbin/psql" -q -h "$sock" -p "$port" -U gb -d bench -c "ANALYZE" >/dev/null
    held=$("$pgbin/psql" -qAt -h "$sock" -p "$port" -U gb -d bench -c "$q")
    echo "store size: $("$pgbin/psql" -qAt -h "$sock" -p "$port" -U gb -d bench \
      -c "SELECT pg_size_pretty(pg_database_size('bench'))")"
  fi
  echo "store holds: $held"
  last=${held##*nightly-}
  fig="host=node03,benchmark=gemm,case=bf16,dtype=bf16,metric=tflops,m=8192,n=8192,k=8192"
  repeated "history-$engine" "$gb" history --store "$url" "$fig"
  grep -E "^change|^history:" "$work/history-$engine.out" | head -3
  repeated "compare-$engine" "$gb" compare --store "$url" "last=5,before=nightly-$last" "campaign=nightly-$last"
  tail -1 "$work/compare-$engine.out"
  if [ "$engine" = postgresql ]; then
    "${as_pg[@]}" "$pgbin/pg_ctl" -D "$pgdata" -m fast stop >/dev/null
    pg_started=0
  fi
done
