#!/usr/bin/env bash
# Regenerates reports/examples: the report on the shipped data, as a reader
# gets it from `gpubench report` (data/measured/*.csv and the default plan),
# written reproducibly:
#   - "Written by" is the fixed text "gpubench (reports/examples)", not the
#     version and git revision (which change with every commit);
#   - file names in the report have no directories (the report never writes
#     them), so nothing names the machine that made it;
#   - the plan is made as of the date the prices were last reviewed
#     (data/prices-as-of, as $GPUBENCH_TODAY): a price's age widens its cost
#     band, so the clock's date would change the examples every day;
#   - the plan CSV itself (10 000 rows, 3.5 MB) is not kept: the report's
#     plots and tables are drawn from it; `gpubench plan --csv plan.csv`
#     writes it again. The sensitivity CSV (a few rows) is kept.
# scripts/check-examples.sh regenerates into a temporary directory and fails
# when the text files differ from the committed ones (CI: .ci/run).
#
# usage: scripts/gen-examples.sh [OUT_DIR]   (default reports/examples)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=${1:-reports/examples}
gpubench=${GPUBENCH:-build/gpubench}
[ -x "$gpubench" ] || { echo "gen-examples: $gpubench not built (cmake --build build)" >&2; exit 2; }
command -v "${GPUBENCH_GNUPLOT:-gnuplot}" >/dev/null ||
  { echo "gen-examples: gnuplot is needed for the plots (apt-get install gnuplot-nox)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the default plan, as `gpubench report` with no arguments makes it, as of the prices' review
GPUBENCH_TODAY=$(cat data/prices-as-of)
export GPUBENCH_TODAY
"$gpubench" plan --csv "$tmp/plan.csv" --sensitivity-csv "$tmp/plan_sensitivity.csv" >/dev/null
mkdir -p "$out"
# only what this script writes is replaced: a README or other notes stay
find "$out" -maxdepth 1 -type f \( -name '*.png' -o -name '*.svg' -o -name '*.dat' -o -name '*.gp' \
  -o -name 'report.md' -o -name 'report.html' -o -name 'plan*.csv' \) -delete
cp "$tmp/plan_sensitivity.csv" "$out/plan_sensitivity.csv"
"$gpubench" report --out "$out" --generator "gpubench (reports/examples)" \
  --title "gpubench report: shipped measurements" \
  --plan "$tmp/plan.csv" --plan-sensitivity "$out/plan_sensitivity.csv" data/measured/*.csv >/dev/null
size=$(du -sk --apparent-size "$out" | cut -f1)
echo "gen-examples: wrote $out ($size KiB)"
