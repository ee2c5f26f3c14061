#!/usr/bin/env bash
# scripts/check-calibration-table.sh when the calibration check itself fails (exit 1: the check half
# off): the table it printed is still compared (and --write still writes it); the script ended
# silently with exit 1 under pipefail before. A stand-in build folder whose check prints the real
# check's output and exits 1 must be judged current, as the real one is (ctest: after
# doc_calibration_table). Usage: calibration_table_failing_check.sh SRC_DIR BUILD_DIR
set -euo pipefail
src=$1 build=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/tests"
# stand_in BODY: the stand-in check program runs BODY (shell); judge: the script on it, into out and rc
stand_in() { printf '#!/bin/sh\n%s\n' "$1" > "$tmp/tests/check_planner_calibration"; chmod +x "$tmp/tests/check_planner_calibration"; }
judge() {
  set +e
  out=$(bash "$src/scripts/check-calibration-table.sh" "$tmp" 2>&1)
  rc=$?
  set -e
}
real=$build/tests/check_planner_calibration
stand_in "\"$real\" \"\$@\"
exit 1"
judge
[ "$rc" = 0 ] || { echo "FAIL: a failing check's current table was not judged current: $out" >&2; exit 1; }
case $out in *"is the check's current output"*) ;; *) echo "FAIL: unexpected output: $out" >&2; exit 1 ;; esac
# a check cut short after its halves (an assertion while excluded or pending cases run): exit 2, no table
stand_in "\"$real\" \"\$@\" | sed \"/^excluded/q\"
exit 1"
judge
[ "$rc" = 2 ] || { echo "FAIL: cut short: exit $rc, expected 2 ($out)" >&2; exit 1; }
# a check that prints no table at all: exit 2 with a message, never a silent stop
stand_in "echo crashed
exit 139"
judge
[ "$rc" = 2 ] || { echo "FAIL: no table: exit $rc, expected 2 ($out)" >&2; exit 1; }
case $out in *"printed no table"*crashed*) ;; *) echo "FAIL: no table: message: $out" >&2; exit 1 ;; esac
echo "calibration_table_failing_check: ok"
