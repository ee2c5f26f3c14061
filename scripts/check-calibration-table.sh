#!/usr/bin/env bash
# Checks that docs/planner.md's calibration table ("Validation against published runs", between
# <!-- calibration-table: begin --> and <!-- calibration-table: end -->) is the current output of
#   build/tests/check_planner_calibration | awk -f tests/calibration/table.awk
# so that no figure in it is edited by hand or left behind by a planner change (ctest
# doc_calibration_table). Usage: scripts/check-calibration-table.sh [BUILD_DIR] [--write]
# (--write replaces the block with the current output instead). Exit 0 current, 1 stale, 2 usage.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
doc=$root/docs/planner.md
check=$build/tests/check_planner_calibration
[ -x "$check" ] || { echo "check-calibration-table: no $check (build first)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the check fails (exit 1) when the check half is off; its table is still what the doc must show
# (its status is read apart: under pipefail a failing check ended this script silently, --write too)
(cd "$root" && { "$check" > "$tmp/check.txt" 2>&1 || true; } &&
  awk -v dir="$root/tests/calibration" -f tests/calibration/table.awk "$tmp/check.txt") > "$tmp/now.md"
grep -q '^worst case' "$tmp/check.txt" || # the check's last line: a check cut short (an assertion) wrote no table
  { echo "check-calibration-table: $check printed no table:" >&2; tail -n 5 "$tmp/check.txt" >&2; exit 2; }
awk '/<!-- calibration-table: end -->/ { on = 0 } on { print } /<!-- calibration-table: begin -->/ { on = 1 }' \
  "$doc" > "$tmp/doc.md"
[ -s "$tmp/doc.md" ] || { echo "check-calibration-table: $doc has no calibration-table markers" >&2; exit 2; }
if [ "${2:-}" = --write ]; then
  awk -v now="$tmp/now.md" '
    /<!-- calibration-table: end -->/ { while ((getline l < now) > 0) print l; on = 0 }
    !on { print } /<!-- calibration-table: begin -->/ { on = 1 }' "$doc" > "$tmp/new.md"
  cat "$tmp/new.md" > "$doc"
  echo "check-calibration-table: rewrote the table in $doc"
  exit 0
fi
if ! diff -u "$tmp/doc.md" "$tmp/now.md" > "$tmp/diff"; then
  cat "$tmp/diff"
  echo "check-calibration-table: docs/planner.md's calibration table is stale; regenerate it with" >&2
  echo "  scripts/check-calibration-table.sh build --write" >&2
  exit 1
fi
echo "check-calibration-table: docs/planner.md's table is the check's current output"
