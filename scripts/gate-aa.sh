#!/bin/sh
# gate-aa.sh: the regression gate's A/A check on real runs (docs/ci.md).
# For each pair A B of results files (independent runs of one build, each
# its own process): compare A B and B A (both must exit 0 with 0 regressions
# and 0 improvements); then B's headline figures made 10% and 5% worse
# (HBM arrays >= 1 GiB, GEMM with m >= 4096, fma, out-of-place collectives
# >= 16 MiB of the headline class: on one GPU not those whose two buffers fit
# in L2, l2_bytes recorded; a rate times the factor, a time divided by it)
# and the share of them the gate flags.
# Usage: scripts/gate-aa.sh A1.csv B1.csv [A2.csv B2.csv ...]
#   e.g. on a GPU:  for i in 1 2 3 4; do gpubench run --repeat 5 --out r5-$i.csv; done
#                   scripts/gate-aa.sh r5-1.csv r5-2.csv r5-3.csv r5-4.csv
# GPUBENCH (default build/gpubench) is the binary; extra compare options in
# COMPARE_OPTS (e.g. "--noise floors.csv").
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
gb=${GPUBENCH:-$here/build/gpubench}
[ $# -ge 2 ] && [ $(($# % 2)) -eq 0 ] || { echo "usage: $0 A1.csv B1.csv [A2.csv B2.csv ...]" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export LC_ALL=C
fail=0

# worse IN OUT FACTOR: IN with its headline figures FACTOR as good; prints how many
worse() {
  awk -F, -v OFS=, -v f="$3" -v out="$2" -f "$here/scripts/worse.awk" "$1"
}

while [ $# -ge 2 ]; do
  a=$1 b=$2
  shift 2
  for pair in "$a $b" "$b $a"; do
    # shellcheck disable=SC2086 # the pair is two words on purpose
    set -- $pair "$@"
    rc=0
    # shellcheck disable=SC2086
    "$gb" compare "$1" "$2" --format short ${COMPARE_OPTS:-} >"$tmp/out.txt" || rc=$?
    echo "A/A $(basename "$1") -> $(basename "$2"): exit $rc: $(head -n 1 "$tmp/out.txt" | cut -c1-160)"
    [ $rc -eq 0 ] || fail=1
    echo "$rc" >>"$tmp/aa"
    shift 2
  done
  for f in 0.90 0.95; do
    n=$(worse "$b" "$tmp/worse.csv" $f)
    rc=0
    # shellcheck disable=SC2086
    "$gb" compare "$a" "$tmp/worse.csv" --all ${COMPARE_OPTS:-} >"$tmp/out.txt" || rc=$?
    hbm=$(grep -c '^regression .* membw/.* bytes=[0-9]\{10,\} gbps' "$tmp/out.txt" || true)
    gemm=$(grep '^regression .* gemm/' "$tmp/out.txt" | grep -v speedup | grep -c ' m=[0-9]\{4,\} ' || true)
    fma=$(grep -c '^regression .* fma/' "$tmp/out.txt" || true)
    copy=$(grep -c '^regression .* copy/.*\[headline\]$' "$tmp/out.txt" || true)
    coll=$(grep '^regression .* collective/' "$tmp/out.txt" | grep -vc ' x1 ' || true)
    got=$((hbm + gemm + fma + copy + coll))
    echo "  $(basename "$b") headline figures x$f ($n of them): flagged HBM $hbm, GEMM $gemm, fma $fma," \
         "copies $copy, collectives $coll = $got; exit $rc"
    echo "$f $n $got" >>"$tmp/drops"
  done
done
echo "A/A comparisons: $(wc -l <"$tmp/aa"), failing (exit != 0): $(grep -vc '^0$' "$tmp/aa" || true)"
for f in 0.90 0.95; do
  awk -v f=$f '$1 == f { n += $2; got += $3 }
    END { if (n) printf "x%s: %d of %d headline figures flagged (%.1f%%)\n", f, got, n, 100 * got / n }' "$tmp/drops"
done
exit $fail
