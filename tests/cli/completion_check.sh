#!/bin/bash
# Checks the generated bash completion: valid bash, and it completes
# subcommands, options and files by extension.
# bash completion_check.sh gpubench.bash-completion
script=$1
fails=0
bash -n "$script" || { echo "FAIL: bash -n $script"; exit 1; }
# shellcheck source=/dev/null
source "$script"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir "$dir/sub"
touch "$dir/a.csv" "$dir/b.ini" "$dir/c.txt"

# complete WORDS...: the completions of the last word, sorted, one a line
complete_words() {
  COMP_WORDS=("$@")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  _gpubench
  printf '%s\n' "${COMPREPLY[@]}" | sort
}

expect() {
  local want=$1
  shift
  local got
  got=$(complete_words "$@")
  if [[ "$got" != "$want" ]]; then
    echo "FAIL: '$*' completes to [$got], expected [$want]"
    fails=$((fails + 1))
  fi
}

expect compare gpubench comp
expect --bench gpubench run --be
expect $'--plan\n--plan-sensitivity' gpubench report --p
expect $'--plan\n--plan-sensitivity' gpubench report --out x --pl
expect --objective gpubench plan --obj
expect $'--all\n--allow-mismatch\n--allow-missing\n--alpha' gpubench compare --al
expect "" gpubench run --iters ""
# files by extension, and directories to walk into
expect "$dir/a.csv"$'\n'"$dir/sub" gpubench compare "$dir/"
expect "$dir/b.ini"$'\n'"$dir/sub" gpubench compare x.csv --config "$dir/"
expect "$dir/sub" gpubench report --out "$dir/"
expect "$dir/a.csv"$'\n'"$dir/b.ini"$'\n'"$dir/c.txt"$'\n'"$dir/sub" gpubench compare --junit "$dir/"
expect "$dir/b.ini"$'\n'"$dir/sub" gpubench plan "$dir/"
# option values from the shipped data: GPU types, providers, offerings, workloads
expect H200-SXM-141GB gpubench plan --gpu-type H2
expect $'H100-SXM-80GB\nH100-SXM-96GB' gpubench plan --gpu-type H10
expect CoreWeave gpubench plan --provider Co
expect spot gpubench plan --offering sp
expect $'on-demand\npurchase\nreserved\nspot' gpubench plan --offering ""
expect training-7b gpubench plan --workload train
expect inference-70b gpubench plan --top 3 --workload inf
if ((fails)); then
  echo "$fails completion check(s) failed"
  exit 1
fi
echo "completion: all checks passed"
