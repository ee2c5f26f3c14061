#!/usr/bin/env bash
# The Grafana dashboards over the results store (deploy/grafana/; docs/monitoring.md),
# checked without a Grafana server:
#   1. the provisioning files and the dashboard JSON, as test-monitor.sh checks
#      the Prometheus rules: structure, every panel, variable and annotation
#      on the data source uid the provisioning defines, every one with SQL;
#   2. a generated year in a throwaway PostgreSQL (as test-store.sh starts one):
#      NODES nodes (default 16) x NIGHTS nights (default 365) x REPS
#      repetitions (default 1) of the A/A quick campaign
#      (tests/fixtures/aa/aa-quick-1.csv, 528 rows), generated inside the
#      server (INSERT ... SELECT over generate_series, as
#      scripts/bench-store.sh's year: each node its own offset, 1% lognormal
#      noise per row, node03's bf16 GEMMs 5% slower from night 200; every
#      node's driver changes at night 120, node05's GPU at night 300; the
#      datasheet peak from data/gpu_specs.csv; the headline mark from
#      compare --record's verdicts of the fixture);
#   3. history --record on the whole store records the injected change and
#      nothing else, and a second run adds nothing; compare --record judges
#      the last two nights;
#   4. every panel's, variable's and annotation's SQL, its template variables
#      and Grafana macros ($__timeFilter) replaced by concrete values, runs
#      on that store: rows of the expected shape, in under 1 s (EXPLAIN
#      ANALYZE's planning + execution time), no sequential scan of gb_rows,
#      and every panel's plan through an index.
# Ends with "N passed, N failed"; exit 1 if any failed.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
NODES=${NODES:-16} NIGHTS=${NIGHTS:-365} REPS=${REPS:-1}
# shellcheck source=scripts/check-tally.sh
. scripts/check-tally.sh

# ---- 1. the files ----
check "provisioning and dashboard JSON: structure, data source uid, every panel with SQL" python3 - <<'PY'
import glob, json, sys, yaml
ds = yaml.safe_load(open("deploy/grafana/provisioning/datasources/gpubench-store.yaml"))["datasources"]
assert len(ds) == 1 and ds[0]["uid"] == "gpubench-store" and ds[0]["type"] == "grafana-postgresql-datasource", ds
prov = yaml.safe_load(open("deploy/grafana/provisioning/dashboards/gpubench-store.yaml"))["providers"]
assert prov and all(p["type"] == "file" and p["options"]["path"] for p in prov), prov
uids, files = set(), sorted(glob.glob("deploy/grafana/dashboards/*.json"))
assert len(files) == 4, files
for f in files:
    d = json.load(open(f))
    assert d["uid"] not in uids and d["title"] and d["schemaVersion"] >= 36, f
    uids.add(d["uid"])
    names = [v["name"] for v in d["templating"]["list"]]
    assert names == ["gpu_type", "node", "figure"], (f, names)
    things = d["panels"] + [v for v in d["templating"]["list"]] + [a for a in d["annotations"]["list"] if not a.get("builtIn")]
    for p in d["panels"]:
        assert p["datasource"]["uid"] == "gpubench-store" and p["targets"] and p["gridPos"]["w"] > 0, (f, p["title"])
        for t in p["targets"]:
            assert t["datasource"]["uid"] == "gpubench-store" and t["rawQuery"] and "SELECT" in t["rawSql"], (f, p["title"])
            assert t["format"] in ("table", "time_series"), (f, p["title"])
    for v in d["templating"]["list"]:
        assert v["datasource"]["uid"] == "gpubench-store" and v["query"].startswith("SELECT"), (f, v["name"])
    for a in d["annotations"]["list"]:
        if not a.get("builtIn"):
            assert a["datasource"]["uid"] == "gpubench-store" and "SELECT" in a["target"]["rawSql"], (f, a["name"])
    ids = [p["id"] for p in d["panels"]]
    assert len(ids) == len(set(ids)), f
print("%d dashboards, %d panels" % (len(files), sum(len(json.load(open(f))["panels"]) for f in files)))
PY

# ---- 2. the year ----
scripts/need-packages.sh postgresql libpq-dev libsqlite3-dev >/dev/null || { echo "apt-get install failed" >&2; exit 2; }
build=${GB_BUILD_DIR:-build}
[ -f "$build/CMakeCache.txt" ] || cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null || exit 2
cmake --build "$build" -j2 --target gpubench >/dev/null || { echo "build failed" >&2; exit 2; }
gb=$root/$build/gpubench
# shellcheck source=scripts/pg-throwaway.sh
. scripts/pg-throwaway.sh
pg_throwaway grafana gbyear synchronous_commit=off full_page_writes=off shared_buffers=512MB \
  maintenance_work_mem=256MB max_wal_size=4GB
psql=("$pgbin/psql" -X -q -v ON_ERROR_STOP=1 -h "$tmp" -p "$port" -U gb -d gbyear)
fx=tests/fixtures/aa
start=$(date +%s.%N)
# the schema and the headline mark: the fixture's verdicts as compare --record writes them
"$gb" import --store "$pg" --campaign seed-1 $fx/aa-quick-1.csv >/dev/null 2>&1 &&
  "$gb" import --store "$pg" --campaign seed-2 $fx/aa-quick-2.csv >/dev/null 2>&1 &&
  "$gb" compare --store "$pg" --record campaign=seed-1 campaign=seed-2 >/dev/null 2>&1
[ $? -le 1 ] || { echo "seeding the store failed" >&2; exit 2; }
cols=$("${psql[@]}" -At -c "SELECT string_agg(column_name, ',' ORDER BY ordinal_position) FROM information_schema.columns
  WHERE table_schema = current_schema() AND table_name = 'gb_rows' AND column_name <> 'id'")
python3 scripts/grafana_store_year.py "$NODES" "$NIGHTS" "$REPS" data/gpu_specs.csv "$cols" >"$tmp/year.sql" || exit 2
"${psql[@]}" -o /dev/null -f "$tmp/year.sql" || { echo "generating the year failed" >&2; exit 2; }
gen=$(echo "$(date +%s.%N) - $start" | bc)
rows=$("${psql[@]}" -At -c "SELECT count(*) FROM gb_rows")
echo "generated $rows rows ($NODES nodes x $NIGHTS nights x $REPS rep(s) x 528) in $gen s ($(nproc) cores)"
check "the year holds $((NODES * NIGHTS * REPS * 528)) rows" test "$rows" = $((NODES * NIGHTS * REPS * 528))

# ---- 3. history --record and compare --record ----
t0=$(date +%s.%N)
"$gb" history --store "$pg" --record all >"$tmp/his1" 2>&1
rc=$?
echo "history --record of the whole store: exit $rc in $(echo "$(date +%s.%N) - $t0" | bc) s: $(tail -1 "$tmp/his1")"
n_all=$("${psql[@]}" -At -c "SELECT count(*) FROM gb_changes")
d200=$("${psql[@]}" -At -c "SELECT to_char(date '2026-01-01' + 200, 'YYYYMMDD')")
n_inj=$("${psql[@]}" -At -c "SELECT count(*) FROM gb_changes WHERE kind = 'change' AND host = 'node03' AND benchmark = 'gemm'
  AND dtype = 'bf16' AND direction = 'worse' AND run_after LIKE '${d200}T%' AND change_pct BETWEEN -6.5 AND -3.5")
n_bf16=$("${psql[@]}" -At -c "SELECT count(DISTINCT (\"case\", metric, m, n, k)) FROM gb_rows WHERE run_id = (SELECT min(run_id)
  FROM gb_runs WHERE host = 'node03') AND benchmark = 'gemm' AND dtype = 'bf16' AND status = 'ok'")
check "history --record records the injected change and nothing else ($n_inj of $n_all recorded; node03 has $n_bf16 bf16 GEMM figures)" \
  test "$rc" = 0 -a "$n_all" = "$n_inj" -a "$n_inj" -gt 0
[ "$n_all" = "$n_inj" ] || "${psql[@]}" -c "SELECT host, figure, kind, direction, change_pct, run_after FROM gb_changes
  WHERE NOT (host = 'node03' AND benchmark = 'gemm' AND dtype = 'bf16') LIMIT 20"
"$gb" history --store "$pg" --record all >"$tmp/his2" 2>&1
check "a second history --record adds nothing" grep -q ": 0 recorded now, $n_all recorded before" "$tmp/his2"
for night in $((NIGHTS - 2)) $((NIGHTS - 1)); do
  c=$("${psql[@]}" -At -c "SELECT 'nightly-' || to_char(date '2026-01-01' + $night, 'YYYY-MM-DD')")
  "$gb" compare --store "$pg" --record "last=5,before=$c" "campaign=$c" >"$tmp/cmp" 2>&1
  [ $? -le 1 ] || { bad "compare --record of $c"; tail -3 "$tmp/cmp"; }
done
"${psql[@]}" -c "ANALYZE" || exit 2
check "compare --record wrote the last night's verdicts" \
  test "$("${psql[@]}" -At -c "SELECT count(DISTINCT host) FROM gb_latest_verdicts")" = "$NODES"

# ---- 4. every query of every dashboard ----
python3 scripts/grafana_store_queries.py "${psql[@]}" >"$tmp/queries.log" 2>&1
qrc=$?
while read -r verdict what; do
  case $verdict in PASS) ok "$what" ;; FAIL) bad "$what" ;; *) echo "$verdict $what" ;; esac
done <"$tmp/queries.log"
[ "$qrc" = 0 ] || bad "the queries' checker exited $qrc"
echo "test-grafana-store: $passed passed, $failed failed"
[ "$failed" = 0 ]
