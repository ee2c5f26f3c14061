#!/usr/bin/env bash
# Runs nccl-tests' alltoall_perf and sendrecv_perf and gpubench's alltoall and
# sendrecv on the GPUs of this machine alternately (A B A B ...), so the
# card's drift hits both alike, then prints the medians over the rounds and
# their ratios (scripts/device/coll_table.py). Same sizes on both sides:
# 8 B .. 1 GiB by a factor of 4, fp32, out of place (nccl-tests -b 8 -e 1G
# -f 4 -g NGPUS; gpubench --full --opt colls=alltoall:sendrecv,factor=4,
# dtypes=fp32,place=outofplace).
# Usage:
#   coll_interleave.sh [ROUNDS] [NCCL_TESTS_BUILD]
# ROUNDS default 3. NCCL_TESTS_BUILD: the folder holding alltoall_perf and
# sendrecv_perf (build nccl-tests there first against the NCCL gpubench
# loads: make -C src MPI=0 NCCL_HOME=/usr). GB_OLD=DIR adds a third side,
# DIR/gpubench (an earlier build), alltoall only. Files go to $OUT
# (default ./out): coll-nccl-R.txt, coll-gb.csv, coll-old.csv.
set -u
rounds=${1:-3}
nt=${2:?usage: coll_interleave.sh [ROUNDS] NCCL_TESTS_BUILD}
out=${OUT:-out}
mkdir -p "$out"
ngpu=$(nvidia-smi -L | wc -l)
opts=colls=alltoall:sendrecv,factor=4,dtypes=fp32,place=outofplace
for r in $(seq 1 "$rounds"); do
  echo "# round $r: nccl-tests"
  for t in alltoall sendrecv; do
    "$nt/${t}_perf" -b 8 -e 1G -f 4 -g "$ngpu" >"$out/coll-nccl-$t-$r.txt" 2>&1 || echo "nccl-tests $t exit $?"
    grep -E '^# (Avg|Out of)' "$out/coll-nccl-$t-$r.txt"
  done
  echo "# round $r: gpubench"
  .devbuild/gpubench run --full --bench collective --opt "$opts" --out "$out/coll-gb.csv" 2>&1 | grep -E 'rows:'
  if [ -n "${GB_OLD:-}" ]; then
    echo "# round $r: gpubench earlier build"
    "$GB_OLD/gpubench" run --full --bench collective --opt "${opts/alltoall:sendrecv/alltoall}" \
      --out "$out/coll-old.csv" 2>&1 | grep -E 'rows:'
  fi
done
python3 scripts/device/coll_table.py "$out" ${GB_OLD:+--old "$out/coll-old.csv"}
