#!/usr/bin/env bash
# Builds gpubench and its GPU test programs on a build machine (this one has
# the CUDA toolkit, libcsv and Check) and gathers them into .devbuild/, a
# folder git ignores, to be carried to a GPU machine that has the CUDA 13
# libraries and driver but neither libcsv nor Check: both are linked
# statically, as is the CUDA runtime. See docs/device.md.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
cmake -S . -B build-device -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build-device -j"$(nproc)" >/dev/null
rm -rf .devbuild
mkdir -p .devbuild/tests
cp build-device/gpubench .devbuild/
for t in build-device/tests/check_*_gpu; do
  [ -x "$t" ] && cp "$t" .devbuild/tests/
done
echo "built: $(ls .devbuild .devbuild/tests | tr '\n' ' ')"
