#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, with .devbuild/ carried
# there (scripts/build-for-device.sh makes it). Usage:
#   scripts/device-run.sh tests            GPU test programs + gpubench info
#   scripts/device-run.sh asan             the GPU test programs of .devbuild-asan/
#                                          (build-for-device.sh --sanitize) under
#                                          ASan + UBSan
#   scripts/device-run.sh memcheck         the GPU test programs once under
#                                          compute-sanitizer --tool memcheck
#                                          (check_faults_gpu, whose fault is
#                                          deliberate, and check_interrupt_gpu,
#                                          which kills its runs, left out)
#   scripts/device-run.sh bench LIST ARGS  gpubench run --bench LIST ARGS
#   scripts/device-run.sh ref NAME...      scripts/device/NAME_ref.py (PyTorch references)
# Output files go to $OUT (or ./out when unset). Never changes clocks, power
# limits or MIG and leaves NCCL's environment as the machine sets it. The
# lab's probes (tools/device/, tools/README.md) run from the repository root
# too, on the .devbuild/ of scripts/build-for-device.sh --tools.
set -u
out=${OUT:-out}
mkdir -p "$out"
export GPUBENCH_CACHE_DIR=${GPUBENCH_CACHE_DIR:-/tmp/gpubench-cache}
export PYTHONUNBUFFERED=1
bin=.devbuild/gpubench
what=${1:-tests}
shift || true
# run_suites DIR LOG VERDICT SUMMARY COUNTWORD SKIP [WRAPPER...]: runs every
# DIR/check_*_gpu but those named in SKIP, under WRAPPER when given, with its
# output in $out/NAME.LOG; prints the last lines and a verdict per program,
# then "SUMMARY: N COUNTWORD, N failed, N skipped"; fails when one failed.
# When $report_suffix is set, NAME.$report_suffix (a wrapper's own report)
# is what is shown instead of the program's output.
run_suites() {
  local dir=$1 log=$2 verdict=$3 summary=$4 countword=$5 skip=$6
  shift 6
  local pass=0 fail=0 nskip=0 t name rc show
  for t in "$dir"/check_*_gpu; do
    name=$(basename "$t")
    case " $skip " in *" $name "*) continue ;; esac
    "$@" "$t" >"$out/$name.$log" 2>&1
    rc=$?
    show="$out/$name.$log"
    [ -n "${report_suffix:-}" ] && show="$out/$name.$report_suffix"
    tail -n 3 "$show"
    case $rc in
      0) pass=$((pass + 1)); echo "$name: $verdict" ;;
      77) nskip=$((nskip + 1)); echo "$name: SKIPPED" ;;
      *)
        fail=$((fail + 1))
        echo "$name: FAILED (rc=$rc)"
        tail -n 40 "$show"
        [ "$show" = "$out/$name.$log" ] || tail -n 40 "$out/$name.$log"
        ;;
    esac
  done
  echo "$summary: $pass $countword, $fail failed, $nskip skipped"
  [ "$fail" -eq 0 ]
}

case "$what" in
  tests)
    $bin info | tee "$out/info.txt"
    run_suites .devbuild/tests log passed "GPU tests" passed ""
    ;;
  asan)
    # protect_shadow_gap=0: the CUDA driver maps memory where ASan would
    # otherwise protect its shadow gap; detect_leaks=0: the driver's own
    # allocations, never freed before exit, would be reported as leaks
    export ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=0:halt_on_error=1:abort_on_error=1
    export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
    run_suites .devbuild-asan/tests asan.log "passed under ASan + UBSan" asan passed ""
    ;;
  memcheck)
    san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
    # memcheck's own report goes to NAME.memcheck.txt; the program's output to NAME.log
    report_suffix=memcheck.txt
    memcheck() {
      "$san" --tool memcheck --error-exitcode 99 --target-processes all \
        --log-file "$out/$(basename "$1").memcheck.txt" "$1"
    }
    run_suites .devbuild/tests log "memcheck clean" memcheck clean "check_faults_gpu check_interrupt_gpu" memcheck
    ;;
  bench)
    list=$1
    shift
    $bin run --bench "$list" --out "$out/$list.csv" "$@"
    ;;
  ref)
    for name in "$@"; do
      python3 "scripts/device/${name}_ref.py" | tee "$out/${name}_ref.txt"
    done
    ;;
  *)
    echo "usage: $0 tests | asan | memcheck | bench LIST [ARGS] | ref NAME..." >&2
    exit 2
    ;;
esac
