#!/usr/bin/env bash
# The lab build (tools/README.md): configures build-tools/ with -DGB_TOOLS=ON,
# builds it (the CUPTI tracer under -Werror, and the probe-only options), and
# runs the lab's tests (ctest label "tools"). The default build, which
# scripts/test.sh tests, compiles none of the lab.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
cmake -S . -B build-tools -DCMAKE_BUILD_TYPE=Release -DGB_TOOLS=ON >/dev/null
cmake --build build-tools -j"$(nproc)"
ctest --test-dir build-tools -L tools --output-on-failure -j2
