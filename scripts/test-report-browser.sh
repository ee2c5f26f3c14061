#!/usr/bin/env bash
# The report as a reader sees it: writes the default report (shipped
# measurements and the default plan) with build/gpubench, renders
# report.html in Debian's headless Chromium at 1280 px and 390 px wide and
# fails when an element overflows the page, an image does not load or the
# HTML has parse errors (tests/browser/check-report.mjs); also that the
# summary comes first, the contents' links resolve, no two text boxes of a
# plot intersect, printing on A4/Letter cuts no table, and the sizes: the
# Markdown at most 64 KiB, and for a quick campaign
# (data/measured/h200-quick.csv, checked too) the HTML at most 300 KB; a
# comparison report of two A/A runs (report --compare) the same way; the
# shipped example regenerated (scripts/gen-examples.sh) is checked the same
# way, its folder at most 3 MiB; and the nightly trend page of a small
# fleet's store (report --store --trend), at most 8 series a plot.
# Screenshots land
# beside the report: build/report-browser/screenshot-{1280,390}.png.
# Installs chromium (apt-get) and the test's two npm packages (npm ci, from
# tests/browser/package-lock.json) when missing. Ends with "N passed, N failed".
#
# usage: scripts/test-report-browser.sh [REPORT_DIR]   (an existing report
# to check instead of writing the default one)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/need-packages.sh chromium
# node and npm come with this kind of machine; Debian's where they do not
command -v npm >/dev/null || scripts/need-packages.sh nodejs npm
[ -x build/gpubench ] || scripts/setup.sh
if [ $# -ge 1 ]; then
  dir=$1
else
  dir=build/report-browser
  rm -rf "$dir"
  build/gpubench report --out "$dir" >/dev/null
fi
[ -f "$dir/report.html" ] || { echo "test-report-browser: no $dir/report.html" >&2; exit 2; }
(cd tests/browser && { [ -d node_modules/playwright-core ] && [ -d node_modules/parse5 ]; } ||
  npm ci --no-audit --no-fund --silent)
node tests/browser/check-report.mjs "$dir/report.html" --max-md 65536 1280 390
if [ $# -eq 0 ]; then
  quick=build/report-browser-quick
  rm -rf "$quick"
  build/gpubench report --out "$quick" data/measured/h200-quick.csv >/dev/null
  node tests/browser/check-report.mjs "$quick/report.html" --max-html 300000 --max-md 65536 1280
  # the comparison view (--compare) of two real A/A runs: its plots of up
  # to 148 figures, their named points and thresholds
  cmp=build/report-browser-compare
  rm -rf "$cmp"
  build/gpubench report --compare --out "$cmp" tests/fixtures/aa/c10-quick-1.csv tests/fixtures/aa/c10-quick-2.csv \
    >/dev/null
  node tests/browser/check-report.mjs "$cmp/report.html" --max-md 65536 1280
  # the nightly trend page of a store (report --store --trend): 9 nodes x 8
  # nights (scripts/trend-store.sh), at most 8 series a plot
  trend=build/report-browser-trend
  rm -rf "$trend"
  mkdir -p "$trend"
  scripts/trend-store.sh "$trend/store.db" 9 8
  build/gpubench report --store "$trend/store.db" --trend last=30 --out "$trend" >/dev/null
  node tests/browser/check-report.mjs "$trend/report.html" --max-html 8388608 --max-md 65536 --max-series 8 1280 390
  # the shipped example as regenerated (scripts/gen-examples.sh): its
  # Markdown at most 64 KiB, its folder at most 3 MiB, and every check above
  ex=build/report-browser-examples
  rm -rf "$ex"
  scripts/gen-examples.sh "$ex" >/dev/null
  kib=$(du -sk --apparent-size "$ex" | cut -f1)
  if [ "$kib" -gt 3072 ]; then echo "FAIL  the example folder is $kib KiB, over 3 MiB"; exit 1; fi
  echo "ok    the example folder is $kib KiB, at most 3072"
  node tests/browser/check-report.mjs "$ex/report.html" --max-md 65536 1280
fi
