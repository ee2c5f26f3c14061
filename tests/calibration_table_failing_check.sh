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
printf '#!/bin/sh\n"%s" "$@"\nexit 1\n' "$build/tests/check_planner_calibration" > "$tmp/tests/check_planner_calibration"
chmod +x "$tmp/tests/check_planner_calibration"
if ! out=$(bash "$src/scripts/check-calibration-table.sh" "$tmp" 2>&1); then
  echo "FAIL: a failing check's current table was not judged current: $out" >&2
  exit 1
fi
case $out in *"is the check's current output"*) ;; *) echo "FAIL: unexpected output: $out" >&2; exit 1 ;; esac
# a check cut short after its halves (an assertion while excluded or pending cases run): exit 2, no table
printf '#!/bin/sh\n"%s" "$@" | sed "/^excluded/q"\nexit 1\n' "$build/tests/check_planner_calibration" > "$tmp/tests/check_planner_calibration"
set +e
out=$(bash "$src/scripts/check-calibration-table.sh" "$tmp" 2>&1)
rc=$?
set -e
[ "$rc" = 2 ] || { echo "FAIL: cut short: exit $rc, expected 2 ($out)" >&2; exit 1; }
# a check that prints no table at all: exit 2 with a message, never a silent stop
printf '#!/bin/sh\necho crashed\nexit 139\n' > "$tmp/tests/check_planner_calibration"
set +e
out=$(bash "$src/scripts/check-calibration-table.sh" "$tmp" 2>&1)
rc=$?
set -e
[ "$rc" = 2 ] || { echo "FAIL: no table: exit $rc, expected 2 ($out)" >&2; exit 1; }
case $out in *"printed no table"*crashed*) ;; *) echo "FAIL: no table: message: $out" >&2; exit 1 ;; esac
echo "calibration_table_failing_check: ok"
