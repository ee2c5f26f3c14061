#!/usr/bin/env bash
# Installs the Debian packages gpubench builds with (when missing) and builds
# it into build/. The CUDA 13 toolkit (cuBLASLt, NVRTC, NCCL, runtime) must
# already be installed under /usr/local/cuda; it is not a Debian package here.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
scripts/need-packages.sh cmake gcc make pkg-config libcsv-dev check libsubunit-dev libmicrohttpd-dev gnuplot-nox libsqlite3-dev libpq-dev libcurl4-openssl-dev libjson-c-dev
if [ ! -d /usr/local/cuda ] && ! command -v nvcc >/dev/null; then
  echo "setup: the CUDA toolkit was not found (expected /usr/local/cuda); install CUDA 13 first" >&2
  exit 2
fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"
