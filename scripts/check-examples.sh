#!/usr/bin/env bash
# Fails when reports/examples is not what scripts/gen-examples.sh makes from
# the shipped data now: regenerates into a temporary directory and compares
# the set of files and every text file (report.md, *.dat, *.gp, the
# sensitivity CSV) byte for byte. PNG and SVG bytes and report.html (which
# inlines the SVGs) vary with the gnuplot and cairo versions and are not
# compared; their names are. Also fails when the examples pass 3 MiB or any
# file names a directory of the machine that made them (/tmp/, /work/,
# /home/, /root/), or when a plot draws more than 8 series (legend entries).
#
# usage: scripts/check-examples.sh        (CI: .ci/run)
# fix:   scripts/gen-examples.sh && git add reports/examples
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
ex=reports/examples
[ -x build/gpubench ] || scripts/setup.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
scripts/gen-examples.sh "$tmp/ex" >/dev/null
fail=0
# the README and other notes are not generated
if ! diff <(cd "$ex" && for f in *; do [[ $f == README* ]] || echo "$f"; done) <(cd "$tmp/ex" && ls) >"$tmp/names.diff"; then
  echo "check-examples: the files in $ex differ from a fresh generation:" >&2
  cat "$tmp/names.diff" >&2
  fail=1
fi
for f in "$tmp"/ex/report.md "$tmp"/ex/*.dat "$tmp"/ex/*.gp "$tmp"/ex/*.csv; do
  b=$(basename "$f")
  if ! cmp -s "$f" "$ex/$b"; then
    echo "check-examples: $ex/$b is not current:" >&2
    diff -u "$ex/$b" "$f" 2>&1 | head -20 >&2 || true
    fail=1
  fi
done
kib=$(du -sk --apparent-size "$ex" | cut -f1)
if [ "$kib" -gt 3072 ]; then
  echo "check-examples: $ex is $kib KiB, over 3 MiB" >&2
  fail=1
fi
if grep -rlE '/(tmp|work|home|root)/' "$ex" >"$tmp/paths"; then
  echo "check-examples: files naming a local directory:" >&2
  cat "$tmp/paths" >&2
  fail=1
fi
# at most 8 series a plot, so that a reader can tell them apart: the legend
# entries, the clauses of the plot command with a title (the first command
# only: the SVG's is a replot)
for f in "$ex"/*.gp; do
  n=$(awk '/^plot \\$/ {p = 1; next} p && !/^  / {exit} p && / title \x27/ {n++} END {print n + 0}' "$f")
  if [ "$n" -gt 8 ]; then
    echo "check-examples: $(basename "$f") draws $n series, more than 8" >&2
    fail=1
  fi
done
if [ "$fail" -ne 0 ]; then
  echo "check-examples: FAILED (regenerate: scripts/gen-examples.sh && git add -A $ex)" >&2
  exit 1
fi
echo "check-examples: $ex is current ($kib KiB)"
