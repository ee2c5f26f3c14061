#!/usr/bin/env bash
# Prices a buyer can trust (issue 56), checked on the shipped data at the build's date:
#   1. every row of data/prices.csv and data/price-history.csv has a date YYYY-MM-DD, a source and a
#      confidence (V, S or M), and none is dated after the build's date;
#   2. the price rows behind the default plan's top 3 choices (`gpubench plan --top 3`: the best GPU
#      count per type, provider and offering) are under 18 months old (the planner's "old price");
#   3. the planner's age rate (--price-age-rate's default) is the one scripts/fit-price-age.sh fits
#      from the shipped price history.
# The build's date is the date of the source tree's last commit (git log -1 --format=%cs), so the test
# gives the same verdict on the same commit whenever it runs, and fails once a commit lands 18 months
# after the prices its default plan rests on. Outside a git checkout: data/prices-as-of. A DATE given
# replaces it (the self-test: 2028-06-01 must fail).
# Usage: check_price_age.sh SOURCE_DIR GPUBENCH [DATE]
set -uo pipefail
src=$1 bin=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
today=${3:-$(git -C "$src" log -1 --format=%cs 2>/dev/null || true)}
[[ $today =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}$ ]] || today=$(cat "$src/data/prices-as-of")
echo "build date: $today"
fail=0
# split_csv(line, out): the fields of one CSV line, a quoted field's commas kept
split_csv='    function split_csv(line, out,   n, i, c, q, cur) {
      n = 0; cur = ""; q = 0
      for (i = 1; i <= length(line); i++) {
        c = substr(line, i, 1)
        if (q) { if (c == "\"") { if (substr(line, i + 1, 1) == "\"") { cur = cur c; i++ } else q = 0 } else cur = cur c }
        else if (c == "\"") q = 1
        else if (c == ",") { out[++n] = cur; cur = "" }
        else cur = cur c
      }
      out[++n] = cur
      return n
    }
'
# 1. date, source, confidence on every row; no date after the build's (a quoted field may hold commas)
for f in "$src/data/prices.csv" "$src/data/price-history.csv"; do
  LC_ALL=C awk -v today="$today" -v file="$f" "$split_csv"'
    NR == 1 { n = split_csv($0, h); for (i = 1; i <= n; i++) col[h[i]] = i; next }
    {
      split_csv($0, v)
      d = v[col["date"]]; s = v[col["source"]]; c = v[col["confidence"]]
      if (d !~ /^[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]$/) { printf "FAIL: %s:%d: date: \"%s\"\n", file, NR, d; bad = 1 }
      else if (d > today) { printf "FAIL: %s:%d: date %s is after the build date %s\n", file, NR, d, today; bad = 1 }
      if (s == "") { printf "FAIL: %s:%d: no source\n", file, NR; bad = 1 }
      if (c != "V" && c != "S" && c != "M") { printf "FAIL: %s:%d: confidence \"%s\" is not V, S or M\n", file, NR, c; bad = 1 }
      rows++
    }
    END { if (!bad) printf "ok: %s: %d rows dated, sourced and rated\n", file, rows; exit bad }' "$f" || fail=1
done
# 2. the default plan's top 3 rest on prices under 18 months old (the reader also rejects a future date)
if GPUBENCH_TODAY=$today "$bin" plan --top 3 --csv "$tmp/top.csv" > "$tmp/plan.txt" 2>&1; then
  # fields through split_csv: a price's source may hold a quoted comma
  LC_ALL=C awk -v today="$today" "$split_csv"'
    NR == 1 { n = split_csv($0, h); for (i = 1; i <= n; i++) col[h[i]] = i; next }
    {
      split_csv($0, v)
      what = v[col["gpu_type"]] " " v[col["provider"]] " " v[col["offering"]]
      if (v[col["price_stale"]] != "no") { printf "FAIL: top %d (%s) rests on a price dated %s, 18 months or more before %s\n", NR - 1, what, v[col["price_date"]], today; bad = 1 }
      else printf "ok: top %d (%s): price dated %s, %s days old\n", NR - 1, what, v[col["price_date"]], v[col["price_age_days"]]
    }
    END { if (NR < 2) { print "FAIL: the default plan has no top choice"; bad = 1 } exit bad }' "$tmp/top.csv" || fail=1
else
  echo "FAIL: gpubench plan exited $? on the shipped data at $today:"; tail -n 5 "$tmp/plan.txt"; fail=1
fi
# 3. the compiled rate is the fitted one
fit=$(bash "$src/scripts/fit-price-age.sh" "$src/data/prices.csv" "$src/data/price-history.csv" | awk '/^rate / { print $2 }')
have=$("$bin" plan --help | awk '/--price-age-rate/ { on = 1 } on && /\[default/ { sub(/.*\[default /, ""); sub(/\].*/, ""); print; exit }')
if [ -n "$fit" ] && [ "$fit" = "$have" ]; then echo "ok: age rate $have a year, as fitted"
else echo "FAIL: --price-age-rate defaults to \"$have\", scripts/fit-price-age.sh fits \"$fit\""; fail=1; fi
exit $fail
