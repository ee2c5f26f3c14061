#!/usr/bin/env bash
# Builds gpubench and its GPU test programs on a build machine (this one has
# the CUDA toolkit, libcsv and Check) and gathers them into .devbuild/, a
# folder git ignores, to be carried to a GPU machine that has the CUDA 13
# libraries and driver but neither libcsv nor Check: both are linked
# statically, as is the CUDA runtime. See docs/device.md.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# --sanitize: the same with AddressSanitizer and UndefinedBehaviorSanitizer
# (their runtimes linked statically) into .devbuild-asan/, for
# scripts/device-run.sh asan.
# --tools: the lab build (-DGB_TOOLS=ON, tools/README.md) into .devbuild/:
# gpubench with the probe-only options, and the kernel tracer
# (tools/ktrace/ktrace.c) with the CUPTI it was built against; the probes
# under tools/device/ run it from there.
build=build-device dest=.devbuild flags=(-DCMAKE_BUILD_TYPE=Release -DGB_CARRY_LIBS=ON) tools=0
for arg in "$@"; do
  case $arg in
    --sanitize)
      build=${build}-asan dest=.devbuild-asan
      flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DGB_SANITIZE=ON -DGB_SANITIZE_STATIC=ON -DGB_CARRY_LIBS=ON)
      ;;
    --tools) tools=1 ;;
    *)
      echo "usage: $0 [--sanitize] [--tools]" >&2
      exit 2
      ;;
  esac
done
if [ "$tools" = 1 ]; then
  build=${build}-tools
  flags+=(-DGB_TOOLS=ON)
fi
cmake -S . -B "$build" "${flags[@]}" >/dev/null
cmake --build "$build" -j"$(nproc)" >/dev/null
rm -rf "$dest"
mkdir -p "$dest/tests"
# the program and its measuring module (run and info dlopen() it from beside
# the program: docs/install.md; the --sanitize build has none, its program
# links the measuring side itself)
cp "$build/gpubench" "$dest/"
[ -f "$build/libgpubench-measure.so" ] && cp "$build/libgpubench-measure.so" "$dest/"
# the shipped data (1.4 MB) beside the program: a data/ there is the data
# folder of a copied build, taken whole (gb_data_dir, core/gb_runinfo.h),
# so the gate's noise floors are DIR/data/noise/floors.csv
cp -r "$root/data" "$dest/data"
# `gpubench monitor` links libmicrohttpd (and through it gnutls), the results
# store libsqlite3 and libpq (and through it OpenSSL, Kerberos, LDAP), the
# push libcurl, plan --json libjson-c, which
# the GPU machine may lack: carry them and every library they need but
# glibc's into lib/, where the program's rpath ($ORIGIN/lib, GB_CARRY_LIBS)
# looks first
mkdir -p "$dest/lib"
for carried in $(ldd "$build/gpubench" | awk '$1 ~ /^lib(microhttpd|sqlite3|pq|curl|json-c)\./ {print $3}'); do
  for lib in "$carried" $(ldd "$carried" | awk '$3 ~ /^\// {print $3}'); do
    case $(basename "$lib") in
      libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | librt.so.* | ld-linux*) ;;
      *) cp -L "$lib" "$dest/lib/$(basename "$lib")" ;;
    esac
  done
done
# the lab build's kernel tracer with the CUPTI it was built against, which
# its rpath ($ORIGIN) finds there
if [ "$tools" = 1 ] && [ -f "$build/tools/libgb_ktrace.so" ]; then
  cp "$build/tools/libgb_ktrace.so" "$dest/"
  cupti=$(sed -n 's/^CUDA_cupti_LIBRARY:FILEPATH=//p' "$build/CMakeCache.txt")
  [ -n "$cupti" ] && cp -L "$cupti" "$dest/$(basename "$(readlink -f "$cupti")")"
fi
# the lab build's energy-counter probe (tools/energy/energy_probe.c), which
# scripts/device/energy_anchor.sh runs
if [ "$tools" = 1 ] && [ -x "$build/tools/energy_probe" ]; then
  cp "$build/tools/energy_probe" "$dest/"
fi
for t in "$build"/tests/check_*_gpu; do
  [ -x "$t" ] && cp "$t" "$dest/tests/"
done
echo "built: $(ls "$dest" "$dest/tests" | tr '\n' ' ')"
