#!/usr/bin/env bash
# Times `report`, `compare`, `history` and `plan --measured` on generated
# inputs: data/measured/h200-quick.csv repeated as N runs
# with distinct run_ids, in one file. Prints seconds and max RSS per command.
# A benchmark, not a test: nothing here fails on a slow figure.
#
# usage: scripts/bench-report.sh [GPUBENCH] [SIZES...]
#   GPUBENCH  the binary (default build/gpubench)
#   SIZES     what to generate and time: runs:N (N runs) or mb:M (about M MB);
#             default "runs:40 runs:160 mb:100 mb:1000"
# env: BENCH_TMP  where inputs are generated (default a mktemp -d, removed at exit)
#      BENCH_CMDS commands to time (default "report compare history plan")
#      BENCH_LIMIT seconds per command before it is killed (default 600)
#      BENCH_GNUPLOT  GPUBENCH_GNUPLOT for report (e.g. /nonexistent: tables only,
#                  to time gpubench without gnuplot, whose plots grow with the runs)
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
gpubench=${1:-$here/build/gpubench}
shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(runs:40 runs:160 mb:100 mb:1000)
cmds=${BENCH_CMDS:-report compare history plan}
limit=${BENCH_LIMIT:-600}
[ -z "${BENCH_GNUPLOT:-}" ] || export GPUBENCH_GNUPLOT=$BENCH_GNUPLOT
src=$here/data/measured/h200-quick.csv
[ -x "$gpubench" ] || { echo "bench-report: $gpubench is not an executable (build first)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench-report: needs /usr/bin/time (GNU time, for -v)" >&2; exit 2; }

if [ -n "${BENCH_TMP:-}" ]; then
  tmp=$BENCH_TMP
  mkdir -p "$tmp"
else
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
fi

src_bytes=$(tail -n +2 "$src" | wc -c)

# gen FILE N [SHIFT]: the source's rows as N runs (run ids r<SHIFT+i>), one header.
gen() {
  local out=$1 n=$2 shift=${3:-0}
  [ -s "$out" ] && return 0
  head -n 1 "$src" >"$out.part"
  # run_id is the second field; neither it nor schema holds a comma or quote
  tail -n +2 "$src" | awk -v n="$n" -v shift="$shift" '
    { body[NR] = $0 }
    END {
      for (i = 1; i <= n; i++) {
        id = sprintf("20261202T%06dZ-bench-r%d", i + shift, i + shift)
        for (j = 1; j <= NR; j++) {
          line = body[j]
          p = index(line, ","); rest = substr(line, p + 1)
          q = index(rest, ",")
          print substr(line, 1, p) id substr(rest, q)
        }
      }
    }' >>"$out.part"
  mv "$out.part" "$out"
}

# timed LABEL CMD...: one line "LABEL  N.NN s  M MiB  rc R"
timed() {
  local label=$1
  shift
  local tf=$tmp/time.txt
  local rc=0
  /usr/bin/time -v -o "$tf" timeout "$limit" "$@" >"$tmp/out.txt" 2>"$tmp/err.txt" || rc=$?
  local wall rss
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, a, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + a[i]; print s }' "$tf")
  rss=$(awk -F': ' '/Maximum resident set size/ { printf "%.0f", $2 / 1024 }' "$tf")
  printf '%-28s %8.2f s %7s MiB  rc %d%s\n' "$label" "$wall" "$rss" "$rc" "$([ "$rc" = 124 ] && echo " (killed at ${limit} s)")"
}

printf 'gpubench: %s\n' "$gpubench"
printf 'nproc %s, load %s, gnuplot %s\n' "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)" "${GPUBENCH_GNUPLOT:-gnuplot}"
for size in "${sizes[@]}"; do
  case $size in
  runs:*) n=${size#runs:} ;;
  mb:*) n=$(((${size#mb:} * 1000000 + src_bytes - 1) / src_bytes)) ;;
  *) echo "bench-report: unknown size $size (runs:N or mb:M)" >&2; exit 2 ;;
  esac
  f=$tmp/runs-$n.csv
  g=$tmp/runs-$n-b.csv
  gen "$f" "$n" 0
  bytes=$(stat -c %s "$f")
  echo "== $size: $n runs, $(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1e6 }') MB, $(($(wc -l <"$f") - 1)) rows"
  for c in $cmds; do
    case $c in
    report) rm -rf "$tmp/rep"; timed "report" "$gpubench" report --out "$tmp/rep" "$f" ;;
    compare) gen "$g" "$n" "$n"; timed "compare" "$gpubench" compare "$f" "$g" ;;
    history) timed "history" "$gpubench" history "$f" ;;
    plan) timed "plan --measured" "$gpubench" plan --measured "$f" ;;
    *) echo "bench-report: unknown command $c" >&2; exit 2 ;;
    esac
  done
done
