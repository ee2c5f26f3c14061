#!/bin/bash
# One collective rank under mpirun or torchrun-style launchers (Slurm's
# collective.sbatch does the same inline), e.g.
#   mpirun -np 16 -npernode 8 -x GPUBENCH_NCCL_ID_FILE=/shared/id \
#     deploy/slurm/rank.sh gpubench run --bench collective --opt mp=launcher --out coll.csv
# Each process is one rank: rank 0 writes the results file
# named on the command line, every other rank a private one (it appends no
# rows, but --out must be writable): "--out F" becomes "--out F.rankN".
rank=${SLURM_PROCID:-${OMPI_COMM_WORLD_RANK:-${RANK:-${JOB_COMPLETION_INDEX:-0}}}}
args=()
while [ $# -gt 0 ]; do
  if [ "$1" = --out ] && [ $# -ge 2 ] && [ "$rank" != 0 ]; then
    args+=(--out "$2.rank$rank")
    shift 2
  else
    args+=("$1")
    shift
  fi
done
exec "${args[@]}"
