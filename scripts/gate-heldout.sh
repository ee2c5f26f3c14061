#!/usr/bin/env bash
# gate-heldout.sh: the regression gate on real A/A campaigns, fit cards and
# held-out cards reported apart (docs/ci.md, "MDC per headline figure").
#
# The floors are measured as data/noise/README.md measures the shipped ones,
# but without the held-out cards' runs (HELDOUT, default cards 10 and 11:
# tests/fixtures/aa/c10-quick-*, c11-quick-*); every comparison is judged
# with those floors (--noise). The fit cards (FIT, default card 1 =
# aa-quick-* and card 9 = c9-quick-*) are in the floors: their figures are
# in-sample. The held-out cards are not: nothing was tuned on them.
#
# Per card, two kinds of comparison, each on untouched runs (A/A: any
# regression or improvement is a false alarm) and with the current run's
# headline figures made 5% and 10% worse (the share flagged as regression):
#   1->1  runs (1,2), (3,4), (5,6), both ways;
#   5->1  each run against the next five runs of its card (cyclically).
# Drops are counted per group of the issue's figures (GEMM 8192^3 fp64,
# bf16, fp8 (the six variants), int8; HBM arrays >= 1 GiB) and over every
# headline figure made worse ("all": the set of scripts/gate-aa.sh); the MDC of
# each group on the A/A comparisons is given as median (min-max).
# Usage: scripts/gate-heldout.sh          GPUBENCH (default build/gpubench)
#   TYPE=h100 scripts/gate-heldout.sh     the H100 runs (h100-c1-quick-*, card 1, fit;
#                                         h100-c2-quick-*, card 2, held out): floors
#                                         from `gpubench noise` over the fit cards' runs
#   TYPE=h100 NOFLOORS=1 ...              the H100 runs judged with no H100 floors at
#                                         all (the shipped H200 rows: the cross-type
#                                         prior); nothing of the H100 is fitted
#   TYPE=h100 FRESH=1 ...                 the fresh H100 cards 3 and 4 (h100-c3-quick-*,
#                                         h100-c4-quick-*, three runs each, never fitted)
#                                         judged with the shipped floors as they are (or,
#                                         with NOFLOORS=1, without the H100's): every
#                                         ordered one-run pair of a card ("1->1") and across
#                                         the cards ("1->1 x"), each run against its card's
#                                         other two ("2->1"), each run against the other
#                                         card's three ("3->1 x"); five runs a card would
#                                         be needed for "5->1"
# A card of fewer than 6 runs gets "4->1" (each run against the other four)
# in place of "5->1".
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
gb=${GPUBENCH:-$root/build/gpubench}
TYPE=${TYPE:-h200}
NOFLOORS=${NOFLOORS:-0}
FRESH=${FRESH:-0}
if [ "$FRESH" = 1 ]; then
  FIT=
  HELDOUT=${HELDOUT:-h100-c3-quick h100-c4-quick}
elif [ "$TYPE" = h100 ]; then
  FIT=${FIT:-h100-c1-quick}
  HELDOUT=${HELDOUT:-h100-c2-quick}
else
  FIT=${FIT:-aa-quick c9-quick}
  HELDOUT=${HELDOUT:-c10-quick c11-quick}
fi
F=tests/fixtures/aa
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export LC_ALL=C

# held FILE: whether FILE is a held-out card's run
held() {
  local h
  for h in $HELDOUT; do case "$(basename "$1")" in "$h"-*) return 0 ;; esac; done
  return 1
}

if [ "$NOFLOORS" = 1 ]; then
  # every shipped row but the judged type's: its figures get the cross-type prior
  grep -v '^H100-SXM-80GB,' data/noise/floors.csv >"$tmp/floors.csv"
  echo "floors: the shipped ones without H100-SXM-80GB's (cross-type prior)"
elif [ "$FRESH" = 1 ]; then
  cp data/noise/floors.csv "$tmp/floors.csv"
  echo "floors: the shipped ones (H100 from cards 1 and 2), held out: $HELDOUT"
elif [ "$TYPE" = h100 ]; then
  main=()
  for c in $FIT; do for f in $F/"$c"-*.csv; do held "$f" || main+=("$f"); done; done
  "$gb" noise "${main[@]}" --out "$tmp/floors.csv" 2>/dev/null
  echo "floors: ${#main[@]} runs of $FIT, held out: $HELDOUT"
else
  # the floors: data/noise/README.md's command without the held-out runs
  main=()
  for f in $F/c7-new-*.csv $F/c8-new-*.csv $F/c9-quick-*.csv $F/c10-quick-*.csv $F/c11-quick-*.csv; do
    held "$f" || main+=("$f")
  done
  earlier=()
  for f in $F/aa-quick-*.csv $F/s2-quick-*.csv $F/s3-*.csv $F/c4-quick-*.csv $F/c6-quick-*.csv $F/c7-old-*.csv \
    $F/c8-old-*.csv; do
    held "$f" || earlier+=(--earlier "$f")
  done
  "$gb" noise "${main[@]}" "${earlier[@]}" --changed gemm/fp64 --out "$tmp/floors.csv" 2>/dev/null
  echo "floors: ${#main[@]} runs + $((${#earlier[@]} / 2)) earlier, held out: $HELDOUT"
fi

# worse IN OUT FACTOR: IN with its headline figures FACTOR as good (scripts/worse.awk)
worse() {
  awk -F, -v OFS=, -v f="$3" -v out="$2" -f "$root/scripts/worse.awk" "$1" >/dev/null
}

# tally SET MODE KIND: one compare's --all output (out.txt) into the tallies
# (lines "SET MODE KIND GROUP flagged total mdc...")
tally() {
  awk -v set="$1" -v mode="$2" -v kind="$3" '
    / \[headline\]( |$)/ {
      v = $1
      if (v == "unsupported") next # a case the GPU cannot run: no measurement to drop
      lab = $0; sub(/^[a-z-]+ +[^ ]+ x[0-9]+ /, "", lab); sub(/: .*/, "", lab)
      mdc = $0; sub(/.*MDC /, "", mdc); sub(/%.*/, "", mdc)
      g = ""
      if (lab ~ /^gemm\/fp64 fp64 m=8192 n=8192 k=8192 /) g = "fp64"
      else if (lab ~ /^gemm\/bf16 bf16 m=8192 n=8192 k=8192 /) g = "bf16"
      else if (lab ~ /^gemm\/fp8[a-z0-9_]* fp8e4m3 m=8192 n=8192 k=8192 /) g = "fp8"
      else if (lab ~ /^gemm\/int8 int8 m=8192 n=8192 k=8192 /) g = "int8"
      else if (lab ~ /^membw\// && match(lab, /bytes=[0-9]+/) && substr(lab, RSTART + 6, RLENGTH - 6) + 0 >= 1073741824) g = "HBM"
      flag = (kind == "aa") ? (v == "regression" || v == "improvement") : (v == "regression")
      if (g != "") print set, mode, kind, g, flag, 1, mdc
      # "all": the headline figures worse() changes: every figure of the headline class
      hit = 1
      if (hit) print set, mode, kind, "all", flag, 1, mdc
    }' "$tmp/out.txt" >>"$tmp/tally"
}

# judge SET MODE BASE... CUR: A/A, then CUR 5% and 10% worse
judge() {
  local set=$1 mode=$2
  shift 2
  local files=("$@") n=$#
  local cur=${files[$((n - 1))]} base=("${files[@]:0:$((n - 1))}")
  local rc=0
  "$gb" compare "${base[@]}" "$cur" --all --noise "$tmp/floors.csv" >"$tmp/out.txt" 2>/dev/null || rc=$?
  tally "$set" "$mode" aa
  echo "$set $mode $rc $(grep -cE '^(regression|improvement) ' "$tmp/out.txt" || true)" >>"$tmp/aa-exit"
  if [ "$rc" != 0 ]; then
    echo "  false alarm ($set $mode): $(basename "${base[0]}")..$(basename "$cur"): exit $rc:" \
      "$(grep -E '^(regression|improvement) ' "$tmp/out.txt" | sed -E 's/ +[^ ]+ x[0-9]+ / /' | cut -c1-150 | tr '\n' ';')"
  fi
  local k
  for k in 0.95 0.90; do
    worse "$cur" "$tmp/cur.csv" "$k"
    "$gb" compare "${base[@]}" "$tmp/cur.csv" --all --noise "$tmp/floors.csv" >"$tmp/out.txt" 2>/dev/null || true
    tally "$set" "$mode" "x$k"
  done
}

# fresh: every ordered pair of runs within a card and across the cards, each
# run against the rest of its card, and against every run of the other cards
fresh() {
  local c d i j
  for c in $HELDOUT; do
    mapfile -t runs < <(ls $F/"$c"-*.csv | sort -V)
    for i in "${runs[@]}"; do
      for j in "${runs[@]}"; do [ "$i" = "$j" ] || judge heldout "1->1" "$i" "$j"; done
      b=()
      for j in "${runs[@]}"; do [ "$i" = "$j" ] || b+=("$j"); done
      judge heldout "$((${#runs[@]} - 1))->1" "${b[@]}" "$i"
      for d in $HELDOUT; do
        [ "$d" = "$c" ] && continue
        mapfile -t other < <(ls $F/"$d"-*.csv | sort -V)
        for j in "${other[@]}"; do judge cross "1->1" "$j" "$i"; done
        judge cross "${#other[@]}->1" "${other[@]}" "$i"
      done
    done
  done
}

[ "$FRESH" = 1 ] && fresh
for set in fit heldout; do
  [ "$FRESH" = 1 ] && break
  cards=$FIT
  [ "$set" = heldout ] && cards=$HELDOUT
  for c in $cards; do
    mapfile -t runs < <(ls $F/"$c"-*.csv | sort -V)
    n=${#runs[@]}
    for ((i = 0; i + 1 < n && i < 6; i += 2)); do
      judge "$set" "1->1" "${runs[$i]}" "${runs[$((i + 1))]}"
      judge "$set" "1->1" "${runs[$((i + 1))]}" "${runs[$i]}"
    done
    if [ "$n" -ge 5 ]; then
      nb=$((n >= 6 ? 5 : n - 1))
      for ((i = 0; i < n; i++)); do
        b=()
        for ((j = 1; j <= nb; j++)); do b+=("${runs[$(((i + j) % n))]}"); done
        judge "$set" "$nb->1" "${b[@]}" "${runs[$i]}"
      done
    fi
  done
done

echo
echo "| set | baseline | A/A comparisons | A/A failing (exit != 0) | A/A figures flagged (any class) |"
echo "| --- | --- | ---: | ---: | ---: |"
for set in fit heldout cross; do
  for mode in "1->1" "2->1" "3->1" "4->1" "5->1"; do
    awk -v s="$set" -v m="$mode" '$1 == s && $2 == m { n++; if ($3 != 0) f++; fl += $4 }
      END { if (n) printf "| %s | %s | %d | %d | %d |\n", s, m, n, f, fl }' "$tmp/aa-exit"
  done
done
echo
echo "| set | baseline | group | MDC on A/A, median (min-max) | 5% drops caught | 10% drops caught |"
echo "| --- | --- | --- | --- | --- | --- |"
for set in fit heldout cross; do
  for mode in "1->1" "2->1" "3->1" "4->1" "5->1"; do
    for g in fp64 bf16 fp8 int8 HBM all; do
      awk -v s="$set" -v m="$mode" -v g="$g" '
        $1 == s && $2 == m && $4 == g {
          if ($3 == "aa") mdc[++n] = $7
          else { t[$3] += $6; f[$3] += $5 }
        }
        END {
          if (!n) exit
          # median of the MDCs (sorted by insertion: n is small)
          for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (mdc[j] + 0 < mdc[i] + 0) { x = mdc[i]; mdc[i] = mdc[j]; mdc[j] = x }
          med = n % 2 ? mdc[(n + 1) / 2] : (mdc[n / 2] + mdc[n / 2 + 1]) / 2
          printf "| %s | %s | %s | %.2f%% (%.2f-%.2f) | %d/%d (%.0f%%) | %d/%d (%.0f%%) |\n", s, m, g, med, mdc[1], mdc[n],
            f["x0.95"], t["x0.95"], 100 * f["x0.95"] / t["x0.95"], f["x0.90"], t["x0.90"], 100 * f["x0.90"] / t["x0.90"]
        }' "$tmp/tally"
    done
  done
done
