#!/usr/bin/env bash
# Runs every gpubench command shown in the documentation's code blocks and checks its exit
# status (CI: .ci/run), so that every example in the documentation runs.
#
# Extracts from README.md and docs/*.md (or the FILEs given) each line of a fenced (```) or
# indented code block that runs `gpubench ...` or `build/gpubench ...` (a line ending in '\'
# continues on the next). Each runs with bash in a fresh temporary directory holding `gpubench`
# on PATH and as build/gpubench, the source tree's data/ (read only by convention), and results
# files under the names the examples use for "your results" (r.csv, results.csv, base.csv,
# cur.csv, other.csv, run1.csv, run2.csv: copies of data/measured/h200-quick.csv). Commands run
# in document order in one directory per file, so a file an example writes (plan.csv) is there
# for the next.
#
# Expected exit status: 0, or N when the line's comment says "expect exit N" (an example that
# must fail says so). Exit 3 (no usable GPU) counts as skipped. Skipped without running, with
# the reason printed: `run` (needs a GPU), a cluster launcher (srun, sbatch, mpirun, kubectl,
# deploy/slurm/...), `monitor` or a push or listen address (a server, the network), a results
# store (--store, import), an absolute path or `..` (outside the temporary directory), a shell
# variable or substitution ($...: the context of a longer recipe), a placeholder (DIR, FILE,
# ...), a command inside a loop or function, and an input file that neither the directory nor
# the fixtures above provide.
#
# Usage: scripts/check-doc-examples.sh [--bin GPUBENCH] [--list] [FILE...]
#   --bin   the gpubench to run (default build/gpubench)
#   --list  print each extracted command with its verdict (run or skip: reason) and run none
# Prints each command's verdict and "N run, N pass, N skipped"; exit 0 when every run command
# exited as expected, 1 otherwise, 2 on bad usage.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$root/build/gpubench
list=0
files=()
while [ $# -gt 0 ]; do
  case "$1" in
    --bin) bin=$(cd "$(dirname "$2")" && pwd)/$(basename "$2"); shift 2 ;;
    --list) list=1; shift ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "check-doc-examples: unknown option $1" >&2; exit 2 ;;
    *) files+=("$1"); shift ;;
  esac
done
if [ ${#files[@]} -eq 0 ]; then
  files=("$root/README.md" "$root"/docs/*.md)
fi
if [ "$list" -eq 0 ] && [ ! -x "$bin" ]; then
  echo "check-doc-examples: no $bin (build first, or give --bin)" >&2
  exit 2
fi

# file:line<TAB>command<TAB>comment, one a command, from the code blocks of one Markdown file
extract() {
  awk '
    function emit(cmd, comment) {
      sub(/^[ \t]+/, "", cmd); sub(/[ \t]+$/, "", cmd); gsub(/\t/, " ", cmd); gsub(/\t/, " ", comment)
      if (cmd !~ /(^|[;&|({ ]|^do |[A-Za-z0-9_]=[^ ]* )(build\/)?gpubench +(--?[a-z]|[a-z][a-z-]*( |$))/) return
      if (cmd ~ /^(build\/)?gpubench +[a-z][a-z-]*:/) return   # a message the program printed
      print FILENAME ":" start "\t" cmd "\t" comment
    }
    /^[ \t]*(```|~~~)/ { fenced = !fenced; prev_blank = 0; next }
    {
      indented = !fenced && $0 ~ /^(    |\t)/ && (prev_blank || in_indent)
      in_indent = indented
      prev_blank = $0 ~ /^[ \t]*$/
      if (!fenced && !indented && !pending) next
      line = $0
      if (!pending) { start = FNR; acc = "" } else sub(/^[ \t]+/, "", line)
      if (line ~ /\\[ \t]*$/) { sub(/[ \t]*\\[ \t]*$/, "", line); acc = acc line " "; pending = 1; next }
      acc = acc line; pending = 0
      # the comment: from the first " #" outside quotes
      cmd = acc; comment = ""; q = ""
      for (i = 1; i <= length(acc); i++) {
        c = substr(acc, i, 1)
        if (q != "") { if (c == q) q = ""; continue }
        if (c == "\"" || c == "\047") { q = c; continue }
        if (c == "#" && (i == 1 || substr(acc, i - 1, 1) ~ /[ \t]/)) {
          cmd = substr(acc, 1, i - 1); comment = substr(acc, i + 1); break
        }
      }
      emit(cmd, comment)
    }' "$1"
}

# Why a command cannot run here (empty: it can). $1 the command, $2 the directory it runs in.
skip_reason() {
  local cmd=$1 dir=$2 w prev="" out_flag=0 sub=""
  case "$cmd" in
    *'$'*) echo "uses shell variables or substitutions of a longer recipe"; return ;;
    *srun* | *sbatch* | *mpirun* | *kubectl* | *deploy/slurm/* | *torchrun*) echo "needs a cluster"; return ;;
  esac
  while [[ $cmd =~ ^[A-Za-z_][A-Za-z0-9_]*=[^\ ]*\ +(.*)$ ]]; do cmd=${BASH_REMATCH[1]}; done # VAR=value gpubench ...
  if [[ ! $cmd =~ ^(build/)?gpubench\  ]]; then
    if [[ $cmd =~ (^|[^a-z])gpubench\ +run( |$) ]]; then echo "needs a GPU (gpubench run, inside a shell construct)"
    else echo "inside a shell construct (loop, function or wrapper)"; fi
    return
  fi
  if [[ $cmd =~ [\;\|\&] ]]; then echo "several commands on one line"; return; fi
  read -r -a words <<< "$cmd"
  sub=${words[1]:-}
  case "$sub" in
    run) case " $cmd " in *" --help "* | *" -h "*) ;; *) echo "needs a GPU"; return ;; esac ;;
    monitor) echo "needs a server (listens for scrapes until stopped)"; return ;;
    import) echo "needs a results store"; return ;;
  esac
  for w in "${words[@]:2}"; do
    case "$w" in
      --store | --store=*) echo "needs a results store"; return ;;
      --push | --push=* | --listen | --listen=*) echo "needs the network (a push or listen address)"; return ;;
      /* | ../* | */../*) echo "uses a path outside the temporary directory ($w)"; return ;;
      ... | DIR | DIR/ | FILE | CSV | N | URL) echo "placeholder argument ($w)"; return ;;
    esac
  done
  # inputs: .csv/.ini arguments and directories that are not an option's output file
  for w in "${words[@]:2}"; do
    out_flag=0
    case "$prev" in
      --out | --csv | --json | --junit | --markdown | --plot | --sensitivity-csv | --hybrid-csv | --plan-sensitivity-out) out_flag=1 ;;
    esac
    prev=$w
    [ "$out_flag" -eq 1 ] && continue
    case "$w" in
      -*) continue ;;
      *.csv | *.ini | */)
        if [[ $w == *[*?[]* ]]; then # a glob (node-*.csv): matched as the shell would
          if ! (cd "$dir" && compgen -G "$w" > /dev/null); then echo "needs an input the docs do not ship ($w)"; return; fi
        elif [ ! -e "$dir/$w" ]; then
          echo "needs an input the docs do not ship ($w)"; return
        fi ;;
    esac
  done
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin"
ln -s "$bin" "$tmp/bin/gpubench"
fixture=$root/data/measured/h200-quick.csv
setup_dir() { # $1: a fresh directory for one document's examples
  mkdir -p "$1/build"
  ln -s "$bin" "$1/build/gpubench"
  ln -s "$root/data" "$1/data"
  local f
  for f in r results base cur other run1 run2; do cp "$fixture" "$1/$f.csv"; done
}

nrun=0 npass=0 nskip=0 nfail=0
start_s=$SECONDS
for doc in "${files[@]}"; do
  [ -f "$doc" ] || { echo "check-doc-examples: no file $doc" >&2; exit 2; }
  dir=$tmp/work/$(basename "$doc" .md)
  setup_dir "$dir"
  while IFS=$'\t' read -r where cmd comment; do
    where=${where#"$root"/}
    reason=$(skip_reason "$cmd" "$dir")
    if [ -n "$reason" ]; then
      nskip=$((nskip + 1))
      echo "skip  $where: $cmd  [$reason]"
      continue
    fi
    expect=0
    if [[ $comment =~ expect\ exit\ ([0-9]+) ]]; then expect=${BASH_REMATCH[1]}; fi
    if [ "$list" -eq 1 ]; then
      nrun=$((nrun + 1))
      echo "run   $where: $cmd  [expect exit $expect]"
      continue
    fi
    rc=0
    (cd "$dir" && PATH="$tmp/bin:$PATH" timeout 300 bash -c "$cmd" > "$tmp/out" 2>&1) < /dev/null || rc=$?
    if [ "$rc" -eq 3 ]; then
      nskip=$((nskip + 1))
      echo "skip  $where: $cmd  [exit 3: no usable GPU]"
    elif [ "$rc" -eq "$expect" ]; then
      nrun=$((nrun + 1)) npass=$((npass + 1))
      echo "pass  $where: $cmd  [exit $rc]"
    else
      nrun=$((nrun + 1)) nfail=$((nfail + 1))
      echo "FAIL  $where: $cmd  [exit $rc, expected $expect]"
      tail -n 15 "$tmp/out" | sed 's/^/      | /'
    fi
  done < <(extract "$doc")
done
if [ "$list" -eq 1 ]; then
  echo "check-doc-examples: $nrun to run, $nskip skipped (--list: none run)"
  exit 0
fi
echo "check-doc-examples: $nrun run, $npass pass, $nskip skipped, $nfail failed ($((SECONDS - start_s)) s)"
[ "$nfail" -eq 0 ]
