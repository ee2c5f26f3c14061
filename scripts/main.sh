#!/usr/bin/env bash
# The main job: set up, then on a machine with GPUs run the default campaign
# (quick profile) into results.csv and report on it; on a machine without a
# GPU, write the procurement report from the shipped measured data.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/setup.sh || exit $?
gpubench=build/gpubench
$gpubench info
rc=$?
if [ $rc -eq 0 ]; then
  $gpubench run --out results.csv
  rc=$?
  if $gpubench help 2>/dev/null | grep -q '^  report'; then
    $gpubench report results.csv --out report
  fi
  exit $rc
elif [ $rc -eq 3 ]; then
  echo "main: no usable GPU here: planning and reporting from the shipped measurements in data/measured/" >&2
  if $gpubench help 2>/dev/null | grep -q '^  plan'; then $gpubench plan || exit $?; fi
  if $gpubench help 2>/dev/null | grep -q '^  report'; then
    $gpubench report --out report || exit $?
    echo "main: report written to report/report.html and report/report.md" >&2
  fi
  exit 0
fi
exit $rc
