#!/usr/bin/env bash
# Installs the Debian packages gpubench builds with (when missing) and builds
# it into build/. The CUDA 13 toolkit (cuBLASLt, NVRTC, NCCL, runtime) must
# already be installed under /usr/local/cuda; it is not a Debian package here.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
pkgs=(cmake gcc make pkg-config libcsv-dev check libsubunit-dev libinih-dev gnuplot-nox)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if [ ! -d /usr/local/cuda ] && ! command -v nvcc >/dev/null; then
  echo "setup: the CUDA toolkit was not found (expected /usr/local/cuda); install CUDA 13 first" >&2
  exit 2
fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)"
