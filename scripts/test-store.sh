#!/usr/bin/env bash
# The results store against both engines (docs/store.md), no GPU needed:
#   1. a throwaway PostgreSQL cluster (Debian's postgresql: initdb and pg_ctl
#      in a temporary folder, listening only on a unix socket there, on a
#      random port number; stopped and removed on exit);
#   2. check_store and check_store_harden against SQLite and that
#      PostgreSQL (GB_STORE_TEST_PG): schema, migration, idempotent import,
#      selections, verdicts equal to the CSV's, two writers at once; row
#      identity, the selection grammar, tampered stores, readers beside a
#      held writer, re-import under another campaign;
#   3. the commands end to end on each engine: import twice adds nothing,
#      export --csv gives the rows back as the files hold them, compare judges
#      what it judges from the files (with floors learned from the store),
#      history prints what it prints from the files, report and plan read a
#      selection as they read its CSV, two `gpubench import`
#      processes at once lose nothing, and no message shows a password.
# Ends with "N passed, N failed"; exit 1 if any failed. Runs as root (CI) or
# as a user; as root the cluster runs as the postgres user.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
# shellcheck source=scripts/check-tally.sh
. scripts/check-tally.sh

scripts/need-packages.sh postgresql libpq-dev libsqlite3-dev || { echo "test-store: apt-get install failed" >&2; exit 2; }
build=${GB_BUILD_DIR:-build}
[ -f "$build/CMakeCache.txt" ] || cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null || exit 2
cmake --build "$build" -j2 --target gpubench check_store check_store_harden check_store_record >/dev/null || { echo "test-store: build failed" >&2; exit 2; }
gb=$root/$build/gpubench

# ---- 1. the throwaway cluster ----
# shellcheck source=scripts/pg-throwaway.sh
. scripts/pg-throwaway.sh
pg_throwaway store gbtest
echo "test-store: PostgreSQL $("$pgbin/postgres" --version | awk '{print $3}') on $tmp (port $port)"

# ---- 2. the suite on both engines ----
check "check_store on SQLite and PostgreSQL" env GB_STORE_TEST_PG="$pg" CK_VERBOSITY=normal "$build/tests/check_store"
# the store as hostile as a file (docs/reliability.md, round four): identity, selections, tampered
# values and versions, readers beside a writer, re-import, on both engines
check "check_store_harden on SQLite and PostgreSQL" \
  env GB_STORE_TEST_PG="$pg" CK_VERBOSITY=normal "$build/tests/check_store_harden"
check "check_store_record (history/compare --record, step 7) on SQLite and PostgreSQL" \
  env GB_STORE_TEST_PG="$pg" CK_VERBOSITY=normal "$build/tests/check_store_record"

# ---- 3. the commands on each engine ----
fx=tests/fixtures/aa
run_id() { sed -n 2p "$1" | cut -d, -f2; }
pg_reset() { "$pgbin/psql" -q -h "$tmp" -p "$port" -U gb -d gbtest -c \
  "DROP TABLE IF EXISTS gb_rows, gb_runs, gb_meta, gb_changes, gb_verdicts CASCADE" >/dev/null 2>&1; }
for engine in sqlite postgresql; do
  if [ $engine = sqlite ]; then url=$tmp/results.db; else url=$pg; pg_reset; fi
  "$gb" import --store "$url" $fx/aa-quick-{1,2,3,4,5,6}.csv 2>"$tmp/imp1" >/dev/null
  "$gb" import --store "$url" $fx/aa-quick-{1,2,3,4,5,6}.csv 2>"$tmp/imp2" >/dev/null
  check "$engine: import adds 3168 rows, then nothing" grep -q "3168 row(s) added, 0 already" "$tmp/imp1"
  check "$engine: a second import adds nothing" grep -q "0 row(s) added, 3168 already stored; 0 new" "$tmp/imp2"
  r1=$(run_id $fx/aa-quick-1.csv) r6=$(run_id $fx/aa-quick-6.csv)
  "$gb" export --store "$url" --csv "run=$r1" >"$tmp/export.csv" 2>/dev/null
  "$gb" import --store "$tmp/roundtrip-$engine.db" "$tmp/export.csv" >/dev/null 2>&1
  "$gb" export --store "$tmp/roundtrip-$engine.db" --csv all >"$tmp/export2.csv" 2>/dev/null
  check "$engine: export --csv reads back and round-trips byte for byte" cmp -s "$tmp/export.csv" "$tmp/export2.csv"
  check "$engine: export --csv holds the run's 528 rows" test "$(($(wc -l <"$tmp/export.csv") - 1))" = 528
  "$gb" compare $fx/aa-quick-{1,2,3,4,5}.csv $fx/aa-quick-6.csv --all >"$tmp/cmp-csv" 2>&1
  "$gb" compare --store "$url" "before=$r6" "run=$r6" --all >"$tmp/cmp-store" 2>&1
  # the same figures, values and changes; the noise is the store's own (docs/ci.md, "Floors
  # learned from the store"): run 6's card holds runs 1-5 in the store
  check "$engine: compare --store judges what compare of the CSVs judges" \
    cmp -s <(sed -E 's/^[a-z-]+ +//; s/;.*//' "$tmp/cmp-csv" | grep -v '^gate:') \
    <(sed -E 's/^[a-z-]+ +//; s/;.*//' "$tmp/cmp-store" | grep -v '^gate:')
  check "$engine: compare --store learns the floors from the card's runs in the store" \
    grep -q "store, this card" "$tmp/cmp-store"
  "$gb" history --min-segment 2 $fx/aa-quick-*.csv >"$tmp/his-csv" 2>&1
  "$gb" history --min-segment 2 --store "$url" all >"$tmp/his-store" 2>&1
  check "$engine: history --store prints what history of the CSVs prints" cmp -s "$tmp/his-csv" "$tmp/his-store"
  # report and plan read a selection as they read its exported file
  "$gb" report --out "$tmp/rep-csv" "$tmp/export.csv" >/dev/null 2>&1
  "$gb" report --store "$url" --out "$tmp/rep-store" "run=$r1" >/dev/null 2>&1
  check "$engine: report --store writes the report of the selection's CSV" \
    cmp -s <(sed 's/export\.csv/SEL/g' "$tmp/rep-csv/report.md") <(sed 's/01-run=[^ )|]*\.csv/SEL/g' "$tmp/rep-store/report.md")
  "$gb" plan --measured $fx/aa-quick-1.csv >"$tmp/plan-csv" 2>&1
  "$gb" plan --store "$url" --measured "run=$r1" >"$tmp/plan-store" 2>&1
  check "$engine: plan --store --measured SEL plans as with the CSV" cmp -s "$tmp/plan-csv" "$tmp/plan-store"
done

# two writers at once: two processes importing into one store, a file in common;
# SQLite's race is on creating a new file (both switch it to WAL), so it is run
# on 8 new files: one in about 8 used to fail with "database is locked"
for engine in sqlite sqlite sqlite sqlite sqlite sqlite sqlite sqlite postgresql; do
  if [ $engine = sqlite ]; then url=$(mktemp -u "$tmp/two-XXXXXX.db"); else url=$pg; pg_reset; fi
  "$gb" import --store "$url" $fx/aa-quick-{1,2,3}.csv $fx/c10-quick-1.csv 2>"$tmp/w1" &
  w1=$!
  "$gb" import --store "$url" $fx/aa-quick-{4,5,6}.csv $fx/c10-quick-1.csv 2>"$tmp/w2" &
  w2=$!
  wait $w1; rc1=$?
  wait $w2; rc2=$?
  want=$(( $(cat $fx/aa-quick-{1,2,3,4,5,6}.csv $fx/c10-quick-1.csv | wc -l) - 7 ))
  got=$(( $("$gb" export --store "$url" --csv all 2>/dev/null | wc -l) - 1 ))
  check "$engine: two writers at once exit 0 and store all $want rows once (got $got)" \
    test "$rc1$rc2" = 00 -a "$got" = "$want"
  [ "$rc1$rc2" = 00 ] || cat "$tmp/w1" "$tmp/w2" >&2
done

# a password, in each form libpq accepts, never appears in a message: a
# connection that fails (no such database) and one that works (trust: the
# password is not asked for) whose "into ..." line names the store
pct=$(printf 's3cret' | od -An -tx1 | tr -d ' \n' | sed 's/../%&/g')
for form in "postgresql://gb:s3cret@/DB?host=$tmp&port=$port" "postgres://gb:$pct@/DB?host=$tmp&port=$port" \
  "postgresql:///DB?host=$tmp&port=$port&user=gb&password=s3cret" \
  "pg:host=$tmp port=$port user=gb dbname=DB password = 's3cret'" \
  "pg:host=$tmp port=$port user=gb dbname=DB password='s3cret \\' x'" \
  "pg:host=$tmp port=$port user=gb dbname=DB PASSWORD=s3cret" \
  "postgresql://gb@/DB?host=$tmp&port=$port&Password=s3cret" \
  "postgresql://gb:$(printf 's3cret%.0s' $(seq 2000))@/DB?host=$tmp&port=$port"; do
  for db in nosuchdb gbtest; do
    PGPASSWORD=s3cret "$gb" import --store "${form//DB/$db}" $fx/aa-quick-1.csv >"$tmp/err" 2>&1
    check "password form ${form:0:40}... ($db): never shown" sh -c "! grep -q -e s3c -e %73 '$tmp/err'"
  done
done
grep -q 'into PostgreSQL database gbtest on' "$tmp/err" || bad "a write says where it goes: $(cat "$tmp/err")"

# a server that goes silent: at connect (a socket that accepts and never
# answers), and mid-COPY (a proxy to the real server that stops relaying both
# ways at the first row of a COPY): import ends within its --store-timeout
mkdir -p "$tmp/bh" "$tmp/mid"
python3 - "$tmp" "$port" <<'PY' &
import os, select, socket, sys, threading, time
tmp, port = sys.argv[1], sys.argv[2]
def listen(path):
    s = socket.socket(socket.AF_UNIX); s.bind(path); s.listen(16); return s
held = []
def blackhole(ls):
    while True: held.append(ls.accept()[0])          # accepted, never read nor answered
def relay(c):
    u = socket.socket(socket.AF_UNIX); u.connect(f"{tmp}/.s.PGSQL.{port}")
    buf, started = b"", False
    while True:
        r, _, _ = select.select([c, u], [], [])
        if u in r:
            d = u.recv(65536)
            if not d: return
            c.sendall(d)
        if c in r:
            d = c.recv(65536)
            if not d: return
            buf += d
            while True:                                 # the client's messages, whole
                if not started:
                    if len(buf) < 4: break
                    n = int.from_bytes(buf[:4], "big"); k = n
                else:
                    if len(buf) < 5: break
                    n = int.from_bytes(buf[1:5], "big"); k = n + 1
                if len(buf) < k: break
                if started and buf[:1] == b"d":         # a COPY's first row: silent from now on
                    held.extend([c, u]); time.sleep(3600)
                u.sendall(buf[:k]); buf = buf[k:]; started = True
def mid(ls):
    while True:
        c = ls.accept()[0]; threading.Thread(target=relay, args=(c,), daemon=True).start()
threading.Thread(target=blackhole, args=(listen(f"{tmp}/bh/.s.PGSQL.{port}"),), daemon=True).start()
threading.Thread(target=mid, args=(listen(f"{tmp}/mid/.s.PGSQL.{port}"),), daemon=True).start()
time.sleep(3600)
PY
proxy=$!
for _ in $(seq 50); do [ -S "$tmp/mid/.s.PGSQL.$port" ] && break; sleep 0.1; done
for where in bh mid; do
  pg_reset
  start=$(date +%s.%N)
  "$gb" import --store "pg:host=$tmp/$where port=$port user=gb dbname=gbtest" --store-timeout 3 \
    $fx/aa-quick-{1,2,3,4,5,6}.csv >"$tmp/err" 2>&1
  rc=$?
  took=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  check "a server silent ($where) ends import in $took s (< 8), exit $rc, saying so" \
    sh -c "[ $rc = 1 ] && awk -v t=$took 'BEGIN { exit !(t < 8) }' && grep -q -e 'timeout expired' -e 'did not answer within 3 s' '$tmp/err'"
  [ "$rc" = 1 ] || cat "$tmp/err" >&2
done
kill "$proxy" 2>/dev/null

echo "test-store: $passed passed, $failed failed"
[ "$failed" = 0 ]
