#!/usr/bin/env bash
# Runs the CI recipes of docs/ci.md as written: the shell steps of its GitHub
# Actions and GitLab CI snippets are extracted from the page (so the two
# cannot drift), then run from an empty folder against the built gpubench,
# with fixture results standing in for the GPU campaign (`gpubench run`).
# For each recipe, three pipelines share one $HISTORY:
#   1. no baseline yet: the gate bootstraps (exit 0) and the run is kept;
#   2. an A/A run: the gate passes (exit 0) and the run is kept;
#   3. the same run with every GEMM figure 10% slower: the gate fails
#      (exit 1), gate.md and gate.xml say so, and the run is not kept.
# Usage: scripts/test-ci-recipe.sh [BUILD_DIR]   (default build)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$here/build}" && pwd)
[ -x "$build/gpubench" ] || { echo "test-ci-recipe: $build/gpubench not built" >&2; exit 2; }
command -v python3 >/dev/null || "$here/scripts/need-packages.sh" python3 || exit 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# the steps, one file per step: NN-<recipe>-<job>.sh
python3 - "$here/docs/ci.md" "$work/steps" <<'PY'
import os, re, sys
doc = open(sys.argv[1], encoding="utf-8").read()
out = sys.argv[2]
os.makedirs(out)

def block(heading):
    sec = doc[doc.index(heading):]
    return sec[sec.index("```yaml\n") + 8:sec.index("\n```", sec.index("```yaml\n"))].split("\n")

def indent(l):
    return len(l) - len(l.lstrip(" "))

n = 0
def emit(recipe, job, text):
    global n
    n += 1
    with open(os.path.join(out, "%02d-%s-%s.sh" % (n, recipe, job)), "w") as f:
        f.write(text.rstrip("\n") + "\n")

# GitHub Actions: each step's run (a line, or a | block); the build step
# (cmake) is the one not run: the build is given
gh = block("## GitHub Actions")
name = None
for i, l in enumerate(gh):
    m = re.match(r"\s*- name: (.*)", l)
    if m:
        name = re.sub(r"[^a-z]+", "_", m.group(1).lower()).strip("_")[:24]
    m = re.match(r"(\s*)run: (.*)", l)
    if not m:
        continue
    if m.group(2) != "|":
        body = m.group(2) + "\n"
    else:
        base, body = indent(l), ""
        for k in gh[i + 1:]:
            if k.strip() and indent(k) <= base:
                break
            body += k[base + 2:] + "\n"
    if "cmake" in body:
        continue
    emit("github", name, body.replace("${{ github.sha }}", "$GITHUB_SHA"))

# GitLab CI: each job's script items (a plain scalar continued on deeper
# lines is one line); the build job is not run
gl = block("## GitLab CI")
job = None
for i, l in enumerate(gl):
    if re.match(r"[a-z-]+:\s*$", l):
        job = l.rstrip(":\n ")
    if not re.match(r"\s+script:\s*$", l) or job == "build":
        continue
    base, cmds = indent(l), []
    for k in gl[i + 1:]:
        if k.strip() and indent(k) <= base:
            break
        if re.match(r"\s*- ", k):
            cmds.append(k.strip()[2:])
        elif k.strip():
            cmds[-1] += " " + k.strip()
    emit("gitlab", job, "\n".join(cmds))
PY
compgen -G "$work/steps/*github*" >/dev/null || { echo "test-ci-recipe: no GitHub Actions steps in docs/ci.md" >&2; exit 1; }
compgen -G "$work/steps/*gitlab*" >/dev/null || { echo "test-ci-recipe: no GitLab CI steps in docs/ci.md" >&2; exit 1; }

# fixture results in place of the GPU campaign; 10% slower GEMMs for the third run
fx="$here/tests/fixtures/aa"
python3 - "$fx/aa-quick-2.csv" "$work/slow.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
h = rows[0]
b, m = h.index("benchmark"), h.index("metric")
with open(sys.argv[2], "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(h)
    for r in rows[1:]:
        if r[b] == "gemm" and r[m] == "tflops":
            for c in ("value", "min", "max"):
                if r[h.index(c)]:
                    r[h.index(c)] = repr(float(r[h.index(c)]) * 0.9)
        w.writerow(r)
PY

# one pipeline of recipe $1 in a fresh checkout, the campaign giving $2;
# prints the gate step's exit status
pipeline() {
  local recipe=$1 results=$2 job="$work/job-$3" rc=0 gate=0
  mkdir -p "$job/build"
  printf '#!/bin/sh\nif [ "$1" = run ]; then shift; while [ $# -gt 0 ]; do [ "$1" = --out ] && cp "%s" "$2"; shift; done; exit 0; fi\nexec "%s" "$@"\n' \
    "$results" "$build/gpubench" >"$job/build/gpubench"
  chmod +x "$job/build/gpubench"
  for step in "$work/steps/"*-"$recipe"-*.sh; do
    case "$step" in
    *keep*) [ "$gate" = 0 ] || continue ;; # main only, after the gate passed
    esac
    rc=0
    (cd "$job" && HISTORY="$work/history-$recipe" GITHUB_SHA="sha$3" CI_COMMIT_SHA="sha$3" \
      GITHUB_STEP_SUMMARY="$job/summary.md" bash -eo pipefail "$step") >"$job/$(basename "$step").log" 2>&1 || rc=$?
    case "$step" in
    *gate*) gate=$rc ;;
    *) [ "$rc" = 0 ] || { echo "test-ci-recipe: $recipe step $(basename "$step") exited $rc:" >&2; cat "$job/$(basename "$step").log" >&2; exit 1; } ;;
    esac
  done
  echo "$gate"
}

fail=0
check() { # what, got, want
  if [ "$2" = "$3" ]; then echo "ok   $1: $2"; else echo "FAIL $1: got $2, want $3"; fail=1; fi
}
for recipe in github gitlab; do
  h="$work/history-$recipe"
  check "$recipe: first run, no baseline: gate exit" "$(pipeline $recipe "$fx/aa-quick-1.csv" ${recipe}1)" 0
  grep -q "BOOTSTRAP" "$work/job-${recipe}1/"*gate*.log || { echo "FAIL $recipe: no bootstrap notice"; fail=1; }
  check "$recipe: runs kept after run 1" "$(find "$h" -name '*.csv' | wc -l)" 1
  check "$recipe: A/A run: gate exit" "$(pipeline $recipe "$fx/aa-quick-2.csv" ${recipe}2)" 0
  check "$recipe: runs kept after run 2" "$(find "$h" -name '*.csv' | wc -l)" 2
  check "$recipe: GEMM 10% slower: gate exit" "$(pipeline $recipe "$work/slow.csv" ${recipe}3)" 1
  check "$recipe: runs kept after run 3" "$(find "$h" -name '*.csv' | wc -l)" 2
  grep -q "FAIL" "$work/job-${recipe}3/gate.md" || { echo "FAIL $recipe: gate.md does not say FAIL"; fail=1; }
  grep -q "<failure" "$work/job-${recipe}3/gate.xml" || { echo "FAIL $recipe: gate.xml has no failure"; fail=1; }
done
[ "$fail" = 0 ] && echo "test-ci-recipe: both recipes of docs/ci.md ran as written from an empty folder"
exit "$fail"
