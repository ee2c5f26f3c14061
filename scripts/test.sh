#!/usr/bin/env bash
# Sets up, builds and runs every test. GPU tests report SKIPPED on a machine
# without a GPU (never passed); run them on a GPU machine (docs/device.md).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/setup.sh
ctest --test-dir build --output-on-failure -j2
