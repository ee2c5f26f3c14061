#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/, clang, ASan + UBSan) into build-fuzz/
# and runs each for a bounded time from a seed corpus of the shipped data.
# Any crash, sanitizer report, leak or broken property fails the script; the
# input is kept in build-fuzz/artifacts/ (reproduce: build-fuzz/fuzz/<target>
# <file>). Usage:
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]    (default 60, all)
# Needs clang and libclang-rt-dev (libFuzzer); .ci/run installs them.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
secs=${1:-60}
shift || true
all=(fuzz_csv fuzz_results fuzz_ini fuzz_escape fuzz_prom fuzz_measured fuzz_specs fuzz_prices fuzz_workload fuzz_gate_config fuzz_noise fuzz_planfile fuzz_cli
     fuzz_plan_inputs fuzz_merge fuzz_noise_runs fuzz_monitor_http fuzz_selection fuzz_conninfo_mask)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")

scripts/need-packages.sh clang libclang-rt-dev
CC=clang cmake -S . -B build-fuzz -DGB_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-fuzz -j"$(nproc)" --target fuzzers >/dev/null

# seed_files TARGET: the shipped files that seed TARGET's corpus
seed_files() {
  case "$1" in
    fuzz_csv) ls data/*.csv data/measured/*.csv tests/fixtures/*.csv ;;
    fuzz_results) ls data/measured/*.csv tests/fixtures/results_*.csv tests/fixtures/gate_*.csv \
                     tests/fixtures/planner_*.csv tests/fixtures/report_h200.csv tests/fixtures/report_a100.csv ;;
    fuzz_prom) ls data/measured/*.csv tests/fixtures/results_*.csv ;;
    fuzz_measured) ls data/measured/*.csv tests/fixtures/planner_*.csv ;;
    fuzz_specs) ls data/gpu_specs.csv tests/fixtures/report_gpu_specs.csv ;;
    fuzz_prices) ls data/prices.csv ;;
    fuzz_workload) ls data/workloads/*.ini ;;
    fuzz_gate_config) ls fuzz/seeds/gate_config/* ;;
    fuzz_noise) ls fuzz/seeds/noise/* data/noise/floors.csv ;;
    fuzz_ini) ls fuzz/seeds/ini/* data/workloads/*.ini fuzz/seeds/gate_config/* ;;
    fuzz_escape) ls fuzz/seeds/escape/* ;;
    fuzz_planfile) ls tests/fixtures/report_plan.csv tests/fixtures/report_sensitivity.csv ;;
    fuzz_cli) ls fuzz/seeds/cli/* ;;
    fuzz_noise_runs) ls tests/fixtures/gate_*.csv tests/fixtures/aa/*.csv ;;
    fuzz_monitor_http) ls fuzz/seeds/monitor_http/* ;;
    fuzz_selection) ls fuzz/seeds/selection/* ;;
    fuzz_conninfo_mask) ls fuzz/seeds/conninfo_mask/* ;;
  esac
  # inputs of crashes found earlier, kept as regression tests
  ls tests/fixtures/"${1}"_* 2>/dev/null || true
}

# joined_seeds TARGET DIR: seeds of the targets that take several files in one
# input, joined at "----" lines
joined_seeds() {
  local i=0 w p
  case "$1" in
    fuzz_plan_inputs)
      for w in data/workloads/*.ini; do
        for p in data/prices*.csv; do
          { cat "$w"; printf '\n----\n'; head -n 40 "$p"; } >"$2/joined$i"
          i=$((i + 1))
        done
      done ;;
    fuzz_merge)
      { cat tests/fixtures/gate_base.csv; printf -- '----\n'; cat tests/fixtures/gate_cur.csv; } >"$2/joined0"
      { cat tests/fixtures/results_good.csv; printf -- '----\n'; cat tests/fixtures/results_good.csv; printf -- '----\n'
        head -c 300 tests/fixtures/results_good.csv; } >"$2/joined1" ;;
  esac
}

mkdir -p build-fuzz/artifacts
summary=()
failed=0
for t in "${targets[@]}"; do
  name=${t#fuzz_}
  seeds=build-fuzz/seeds/$t corpus=build-fuzz/corpus/$t
  rm -rf "$seeds"
  mkdir -p "$seeds" "$corpus"
  seed_files "$t" | while read -r f; do cp "$f" "$seeds/"; done
  joined_seeds "$t" "$seeds"
  case "$t" in
    fuzz_csv | fuzz_results | fuzz_prom | fuzz_measured | fuzz_planfile) max_len=65536 ;;
    *) max_len=8192 ;;
  esac
  log=build-fuzz/$t.log
  echo "fuzz: $t for ${secs}s ($(ls "$seeds" | wc -l) seeds, $(ls "$corpus" | wc -l) in the corpus)" >&2
  set +e
  dict=fuzz/dict/$name.dict
  # these read results files
  case "$t" in fuzz_measured | fuzz_prom) dict=fuzz/dict/results.dict ;; esac
  [ -s "$dict" ] || { echo "fuzz: $t: no dictionary $dict" >&2; exit 2; }
  "build-fuzz/fuzz/$t" "$corpus" "$seeds" -dict="$dict" -max_total_time="$secs" \
    -max_len="$max_len" -timeout=10 -rss_limit_mb=2560 -malloc_limit_mb=2048 -close_fd_mask=3 \
    -print_final_stats=1 -artifact_prefix="build-fuzz/artifacts/$t-" >"$log" 2>&1
  rc=$?
  set -e
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  cov=$( (grep -o 'cov: [0-9]*' "$log" || true) | tail -n 1 | cut -d' ' -f2)
  if [ "$rc" -ne 0 ]; then
    failed=1
    summary+=("$t: FAILED (rc=$rc) after ${runs:-?} runs")
    echo "fuzz: $t FAILED; the end of its log ($log):" >&2
    tail -n 60 "$log" >&2
  else
    summary+=("$t: ok, ${secs}s, ${runs:-?} runs, coverage ${cov:-?} edges, corpus $(ls "$corpus" | wc -l)")
  fi
done
printf 'fuzz: %s\n' "${summary[@]}" >&2
exit $failed
