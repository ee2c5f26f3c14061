#!/usr/bin/env bash
# The shipped noise floors, found by a relocated binary, and their absence
# said by every output:
#   1. the binary copied out of the build tree judges the real A/A pair with
#      the shipped floors: exit 0, no warning;
#   2. so does the device build's layout (DIR/gpubench, DIR/data/noise/
#      floors.csv, as scripts/build-for-device.sh lays it out);
#   3. with the floors out of reach (GPUBENCH_DATA_DIR a folder without them)
#      the text, short, markdown and JUnit outputs of compare and the
#      report --compare page each carry the WARNING, and --strict exits 2;
#   4. a binary copied beside a data/ of its own that lacks noise/floors.csv
#      takes that data/ (not the source tree's floors): every output says
#      that no floors file was found, the path it tried and that default
#      thresholds were used.
# Usage: tests/check_gate_floors.sh GPUBENCH SOURCE_DIR
set -u
gb=$1 src=$2
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
a="$src/tests/fixtures/aa/aa-quick-1.csv" b="$src/tests/fixtures/aa/aa-quick-2.csv"
fail=0
no() { echo "FAIL: $*"; fail=1; }
warn="WARNING: no noise floors file"

mkdir -p "$t/bin" "$t/dev/data/noise" "$t/nodata"
cp "$gb" "$t/bin/gpubench"
cp "$gb" "$t/dev/gpubench"
cp "$src/data/noise/floors.csv" "$t/dev/data/noise/"
for exe in "$t/bin/gpubench" "$t/dev/gpubench"; do
  out=$(env -u GPUBENCH_DATA_DIR "$exe" compare "$a" "$b" 2>&1)
  rc=$?
  [ "$rc" = 0 ] || no "$exe: A/A exit $rc: $(echo "$out" | tail -n 1)"
  case "$out" in *"$warn"*) no "$exe: warns of missing floors" ;; esac
  case "$out" in *"gate: PASS: "*" 0 regression, "*) ;; *) no "$exe: no PASS with 0 regressions" ;; esac
done

export GPUBENCH_DATA_DIR="$t/nodata"
"$t/bin/gpubench" compare "$a" "$b" --markdown "$t/g.md" --junit "$t/g.xml" >"$t/g.txt" 2>"$t/g.err"
"$t/bin/gpubench" compare "$a" "$b" --format short >"$t/s.txt" 2>/dev/null
GPUBENCH_GNUPLOT=/nonexistent "$t/bin/gpubench" report --compare "$a" "$b" --out "$t/rep" >/dev/null 2>&1 ||
  no "report --compare failed"
for f in g.txt s.txt g.md g.xml g.err rep/report.md; do
  grep -q "$warn" "$t/$f" || no "$f lacks the warning"
done
"$t/bin/gpubench" compare "$a" "$b" --strict >/dev/null 2>&1
rc=$?
[ "$rc" = 2 ] || no "--strict without floors: exit $rc, want 2"
# 4. data/ beside the program, no floors in it
unset GPUBENCH_DATA_DIR
mkdir -p "$t/lone/data"
cp "$gb" "$t/lone/gpubench"
cp "$src/data/gpu_specs.csv" "$t/lone/data/"
tried="looked for $t/lone/data/noise/floors.csv): default thresholds used"
"$t/lone/gpubench" compare "$a" "$b" --markdown "$t/l.md" --junit "$t/l.xml" >"$t/l.txt" 2>"$t/l.err"
rc=$?
# judged (the built-in 1% floors flag some of the real A/A pair's figures: exit 1)
[ "$rc" = 0 ] || [ "$rc" = 1 ] || no "lone: A/A with default thresholds: exit $rc, want a verdict (0 or 1)"
"$t/lone/gpubench" compare "$a" "$b" --format short >"$t/ls.txt" 2>/dev/null
GPUBENCH_GNUPLOT=/nonexistent "$t/lone/gpubench" report --compare "$a" "$b" --out "$t/lrep" >/dev/null 2>&1 ||
  no "lone: report --compare failed"
for f in l.txt ls.txt l.md l.xml l.err lrep/report.md; do
  grep -qF "WARNING: no noise floors file found ($tried" "$t/$f" || no "lone: $f does not say which floors it looked for"
done
"$t/lone/gpubench" compare "$a" "$b" --strict >"$t/lst.txt" 2>&1
rc=$?
[ "$rc" = 2 ] || no "lone: --strict without floors: exit $rc, want 2"
grep -qF "$t/lone/data/noise/floors.csv" "$t/lst.txt" || no "lone: --strict error does not name the path"
# and with the floors put there, the same binary passes the A/A pair quietly
mkdir -p "$t/lone/data/noise"
cp "$src/data/noise/floors.csv" "$t/lone/data/noise/"
out=$("$t/lone/gpubench" compare "$a" "$b" 2>&1)
rc=$?
[ "$rc" = 0 ] || no "lone with floors: A/A exit $rc"
case "$out" in *"$warn"*) no "lone with floors: warns of missing floors" ;; esac
case "$out" in *"gate: PASS: "*" 0 regression, "*) ;; *) no "lone with floors: no PASS with 0 regressions" ;; esac

[ "$fail" = 0 ] && echo "check_gate_floors: relocated binaries find the floors; without them every output says so"
exit "$fail"
