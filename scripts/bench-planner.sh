#!/bin/sh
# Times the planner ranking 100,000 configurations (100 offerings x GPU
# counts 1..1000 of the shipped 7B training workload; best of 5). Not a
# test: timings on a shared machine are reported, not judged. The
# bar is under 1 s on a 2-core machine.
#   scripts/bench-planner.sh [BUILD_DIR]   (default build/, Release)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
if [ ! -x "$build/planner/bench_planner" ]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$build" -j2 --target bench_planner >/dev/null
fi
"$build/planner/bench_planner"
