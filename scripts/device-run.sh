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
# limits or MIG and leaves NCCL's environment as the machine sets it.
set -u
out=${OUT:-out}
mkdir -p "$out"
export GPUBENCH_CACHE_DIR=${GPUBENCH_CACHE_DIR:-/tmp/gpubench-cache}
export PYTHONUNBUFFERED=1
bin=.devbuild/gpubench
what=${1:-tests}
shift || true
case "$what" in
  tests)
    $bin info | tee "$out/info.txt"
    pass=0 fail=0 skip=0
    for t in .devbuild/tests/check_*_gpu; do
      name=$(basename "$t")
      "$t" >"$out/$name.log" 2>&1
      rc=$?
      tail -n 3 "$out/$name.log"
      case $rc in
        0) pass=$((pass + 1)); echo "$name: passed" ;;
        77) skip=$((skip + 1)); echo "$name: SKIPPED" ;;
        *) fail=$((fail + 1)); echo "$name: FAILED (rc=$rc)"; tail -n 30 "$out/$name.log" ;;
      esac
    done
    echo "GPU tests: $pass passed, $fail failed, $skip skipped"
    [ "$fail" -eq 0 ]
    ;;
  asan)
    # protect_shadow_gap=0: the CUDA driver maps memory where ASan would
    # otherwise protect its shadow gap; detect_leaks=0: the driver's own
    # allocations, never freed before exit, would be reported as leaks
    export ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=0:halt_on_error=1:abort_on_error=1
    export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
    pass=0 fail=0 skip=0
    for t in .devbuild-asan/tests/check_*_gpu; do
      name=$(basename "$t")
      "$t" >"$out/$name.asan.log" 2>&1
      rc=$?
      tail -n 3 "$out/$name.asan.log"
      case $rc in
        0) pass=$((pass + 1)); echo "$name: passed under ASan + UBSan" ;;
        77) skip=$((skip + 1)); echo "$name: SKIPPED" ;;
        *) fail=$((fail + 1)); echo "$name: FAILED (rc=$rc)"; tail -n 40 "$out/$name.asan.log" ;;
      esac
    done
    echo "asan: $pass passed, $fail failed, $skip skipped"
    [ "$fail" -eq 0 ]
    ;;
  memcheck)
    san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
    pass=0 fail=0 skip=0
    for t in .devbuild/tests/check_*_gpu; do
      name=$(basename "$t")
      case "$name" in check_faults_gpu | check_interrupt_gpu) continue ;; esac
      "$san" --tool memcheck --error-exitcode 99 --target-processes all --log-file "$out/$name.memcheck.txt" \
        "$t" >"$out/$name.log" 2>&1
      rc=$?
      tail -n 3 "$out/$name.memcheck.txt"
      case $rc in
        0) pass=$((pass + 1)); echo "$name: memcheck clean" ;;
        77) skip=$((skip + 1)); echo "$name: SKIPPED" ;;
        *) fail=$((fail + 1)); echo "$name: FAILED (rc=$rc)"; tail -n 40 "$out/$name.memcheck.txt" "$out/$name.log" ;;
      esac
    done
    echo "memcheck: $pass clean, $fail failed, $skip skipped"
    [ "$fail" -eq 0 ]
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
