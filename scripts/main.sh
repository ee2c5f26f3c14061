#!/usr/bin/env bash
# The main job: set up, then on a machine with GPUs run the default campaign
# (quick profile) into results.csv and report on it in report/; on a machine
# without a GPU, print the default procurement plan and write the report on
# the shipped measurements (data/measured/) and that plan into report/.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
scripts/setup.sh || exit $?
gpubench=build/gpubench
$gpubench info
rc=$?
if [ $rc -eq 0 ]; then
  $gpubench run --out results.csv
  rc=$?
  $gpubench report results.csv --out report || exit $?
  exit $rc
elif [ $rc -eq 3 ]; then
  echo "main: no usable GPU here: planning and reporting from the shipped measurements in data/measured/" >&2
  $gpubench plan
  $gpubench report --out report || exit $?
  echo "main: report written to report/report.html and report/report.md" >&2
  exit 0
fi
exit $rc
