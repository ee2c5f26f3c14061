#!/usr/bin/env bash
# Fits the rate at which a price's cost band widens with its age
# (GB_PRICE_AGE_RATE_PER_YEAR, planner/gb_prices.h; docs/planner.md, "Prices")
# from the price history the repository ships: every row of data/prices.csv
# and data/price-history.csv. A series is one offering of one card: the same
# provider, offering, gpu_type and gpus_per_node for rentals (a provider's
# list price), the same gpu_type for purchases (the market price of the card,
# whoever quoted it). Each pair of consecutive readings of a series gives
# |ln(p2 / p1)| / years between them: how far that price moved in a year, up
# or down. The rate is the median over the pairs (robust to one repricing).
#
# Prints one line per pair, then "rate R" (R with two decimals: the value
# the planner's constant must hold; tests/check_price_age.sh compares them).
#
# usage: scripts/fit-price-age.sh [PRICES_CSV HISTORY_CSV]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
prices=${1:-$root/data/prices.csv}
history=${2:-$root/data/price-history.csv}
# The first seven columns (provider .. date) hold no commas or quotes, so a
# plain comma split reads them; source and later columns are not read.
LC_ALL=C awk -F, '
  function days(d,   y, m, dd, era, yoe, doy, doe) {   # days from 1970-01-01 (days_from_civil)
    y = substr(d, 1, 4) + 0; m = substr(d, 6, 2) + 0; dd = substr(d, 9, 2) + 0
    y -= (m <= 2)
    era = int((y >= 0 ? y : y - 399) / 400)
    yoe = y - era * 400
    doy = int((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + dd - 1
    doe = yoe * 365 + int(yoe / 4) - int(yoe / 100) + doy
    return era * 146097 + doe - 719468
  }
  FNR == 1 { next }
  {
    if ($2 == "purchase") { key = $3 " purchase"; price = $6 } else { key = $1 " " $2 " " $3 " x" $4; price = $5 }
    n[key]++; d[key, n[key]] = $7; p[key, n[key]] = price
  }
  END {
    np = 0
    for (k in n) {
      if (n[k] < 2) continue
      for (i = 1; i <= n[k]; i++)          # sort the readings by date (insertion sort: a handful each)
        for (j = i; j > 1 && d[k, j - 1] > d[k, j]; j--) {
          t = d[k, j]; d[k, j] = d[k, j - 1]; d[k, j - 1] = t
          t = p[k, j]; p[k, j] = p[k, j - 1]; p[k, j - 1] = t
        }
      for (i = 2; i <= n[k]; i++) {
        yrs = (days(d[k, i]) - days(d[k, i - 1])) / 365.25
        if (yrs <= 0) continue
        r = log(p[k, i] / p[k, i - 1]); if (r < 0) r = -r
        rate[++np] = r / yrs
        line[np] = sprintf("%-40s %s %10.2f -> %s %10.2f  %5.2f y  %.3f/y", k, d[k, i - 1], p[k, i - 1], d[k, i], p[k, i], yrs, rate[np])
      }
    }
    if (np == 0) { print "fit-price-age: no series with two dated readings" > "/dev/stderr"; exit 1 }
    for (i = 1; i <= np; i++)               # sort the rates (and their lines) ascending
      for (j = i; j > 1 && rate[j - 1] > rate[j]; j--) {
        t = rate[j]; rate[j] = rate[j - 1]; rate[j - 1] = t
        t = line[j]; line[j] = line[j - 1]; line[j - 1] = t
      }
    for (i = 1; i <= np; i++) print line[i]
    med = np % 2 ? rate[(np + 1) / 2] : (rate[np / 2] + rate[np / 2 + 1]) / 2
    printf "pairs %d, median %.4f per year\nrate %.2f\n", np, med, med
  }' "$prices" "$history"
