#!/usr/bin/env bash
# The walkthrough of docs/planner.md ("Worked example: 8 x H200 bought or 64 x H100 rented", between
# <!-- walkthrough: finetune-70b --> and <!-- walkthrough end -->) kept honest: each command of its
# ```sh blocks runs from the source tree (build/gpubench replaced by the GPUBENCH given) with the
# exit status its comment expects ("expect exit N", else 0); each line of the ```text block after a
# ```sh block appears in that block's output; each **bold** figure of the prose (a bold span with a
# digit) appears in some command's output. Spaces are squeezed before comparing. The commands run as
# of the date the prices were last reviewed (data/prices-as-of, as $GPUBENCH_TODAY), the date the
# walkthrough's figures are quoted at: a price's age widens its cost band.
# Usage: doc_examples_planner.sh SOURCE_DIR GPUBENCH
set -uo pipefail
src=$1 bin=$2
GPUBENCH_TODAY=$(cat "$src/data/prices-as-of")
export GPUBENCH_TODAY
doc=$src/docs/planner.md
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
awk '/<!-- walkthrough end -->/ { on = 0 } on { print } /<!-- walkthrough: finetune-70b -->/ { on = 1 }' "$doc" > "$tmp/section.md"
[ -s "$tmp/section.md" ] || { echo "FAIL: $doc has no walkthrough markers"; exit 1; }
# split into numbered blocks: block N's commands in cmd.N, its expected lines in text.N, prose in prose
awk -v d="$tmp" '
  /^```sh/ { kind = "cmd"; n++; next }
  /^```text/ { kind = "text"; next }
  /^```/ { kind = ""; next }
  kind == "cmd" { print > (d "/cmd." n); next }
  kind == "text" { print > (d "/text." n); next }
  { print > (d "/prose") }' "$tmp/section.md"
squeeze() { tr -s ' \t' '  ' | sed 's/^ //; s/ $//'; }
fail=0 ncmd=0 nline=0 nfig=0
: > "$tmp/all.out"
for cf in "$tmp"/cmd.*; do
  n=${cf##*.}
  : > "$tmp/out.$n"
  while IFS= read -r line; do
    [ -n "$line" ] || continue
    cmd=${line%%  #*}
    expect=0
    if [[ $line =~ expect\ exit\ ([0-9]+) ]]; then expect=${BASH_REMATCH[1]}; fi
    [[ $cmd == build/gpubench\ * ]] || { echo "FAIL: not a build/gpubench command: $line"; fail=1; continue; }
    read -r -a words <<< "${cmd#build/gpubench }"
    rc=0
    (cd "$src" && "$bin" "${words[@]}") > "$tmp/one" 2>&1 || rc=$?
    ncmd=$((ncmd + 1))
    cat "$tmp/one" >> "$tmp/out.$n"
    if [ "$rc" -ne "$expect" ]; then
      echo "FAIL: exit $rc, expected $expect: $cmd"; tail -n 5 "$tmp/one"; fail=1
    else
      echo "ok: exit $rc: $cmd"
    fi
  done < "$cf"
  squeeze < "$tmp/out.$n" > "$tmp/sq.$n"
  cat "$tmp/sq.$n" >> "$tmp/all.out"
  [ -f "$tmp/text.$n" ] || continue
  while IFS= read -r want; do
    [ -n "$want" ] || continue
    nline=$((nline + 1))
    want=$(squeeze <<< "$want")
    grep -qF -- "$want" "$tmp/sq.$n" || { echo "FAIL: block $n's output lacks: $want"; fail=1; }
  done < "$tmp/text.$n"
done
# bold figures of the prose: **...** spans holding a digit, each found in the outputs
tr '\n' ' ' < "$tmp/prose" | grep -o '\*\*[^*]*\*\*' | sed 's/^\*\*//; s/\*\*$//' | grep '[0-9]' > "$tmp/figs" || true
while IFS= read -r fig; do
  nfig=$((nfig + 1))
  fig=$(squeeze <<< "$fig")
  case "$fig" in [0-9]*.\ *) continue ;; esac # a step's number ("3. 8 x H200 ..."), not a figure
  grep -qF -- "$fig" "$tmp/all.out" || { echo "FAIL: the bold figure \"$fig\" is in no command's output"; fail=1; }
done < "$tmp/figs"
echo "doc_examples_planner: $ncmd commands, $nline output lines, $nfig bold spans checked"
if [ "$ncmd" -lt 8 ] || [ "$nline" -lt 10 ]; then echo "FAIL: the walkthrough lost its commands"; fail=1; fi
exit "$fail"
