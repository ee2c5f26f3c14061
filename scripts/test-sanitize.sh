#!/usr/bin/env bash
# The sanitizer build: everything compiled with AddressSanitizer and
# UndefinedBehaviorSanitizer (-DGB_SANITIZE=ON) into build-asan/, and every
# CPU test run under it; any report (memory error, leak, undefined
# behaviour) fails the test that triggered it. GPU tests are left out here
# (label gpu): on a GPU machine, run them with ASAN_OPTIONS also holding
# protect_shadow_gap=0, which the CUDA driver's mappings need.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGB_SANITIZE=ON >/dev/null
cmake --build build-asan -j"$(nproc)"
# halt at the first report, fail loudly; leaks count; the subprocesses the
# tests start (gpubench compare, plan, report, run) inherit these
export ASAN_OPTIONS=halt_on_error=1:abort_on_error=1:detect_leaks=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_string_checks=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# Check's per-test timeouts, for code that runs a few times slower
export CK_TIMEOUT_MULTIPLIER=4
ctest --test-dir build-asan -L cpu --output-on-failure -j2
