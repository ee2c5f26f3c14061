#!/bin/bash
# Queues a gpubench campaign on N nodes (a job array, campaign.sbatch) and
# the merge of their results (merge.sbatch) after it:
#   deploy/slurm/submit-campaign.sh -n 4 -d /shared/gpubench-results [-p PARTITION] [-- RUN ARGS...]
# Prints the two job ids ("campaign JOBID" and "merge JOBID"). The results
# folder must be on a file system every node and the merge job see.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
nodes=1 dir=$PWD/gpubench-results part=()
while [ $# -gt 0 ]; do
  case $1 in
    -n) nodes=$2; shift 2 ;;
    -d) dir=$2; shift 2 ;;
    -p) part=(--partition "$2"); shift 2 ;;
    --) shift; break ;;
    *) echo "usage: $0 [-n NODES] [-d RESULTS_DIR] [-p PARTITION] [-- gpubench run arguments]" >&2; exit 2 ;;
  esac
done
[[ $nodes =~ ^[1-9][0-9]*$ ]] || { echo "$0: -n: not a node count: $nodes" >&2; exit 2; }
mkdir -p "$dir"
export GPUBENCH_RESULTS_DIR=$dir
[ $# -gt 0 ] && export GPUBENCH_RUN_ARGS="$*"
cd "$dir"
campaign=$(sbatch --parsable "${part[@]}" --array=0-$((nodes - 1)) --export=ALL "$here/campaign.sbatch")
campaign=${campaign%%;*}
merge=$(sbatch --parsable "${part[@]}" --dependency=afterany:"$campaign" --export=ALL "$here/merge.sbatch")
merge=${merge%%;*}
echo "campaign $campaign"
echo "merge $merge"
