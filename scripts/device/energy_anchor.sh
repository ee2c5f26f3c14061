#!/usr/bin/env bash
# Energy anchors, in one run on one GPU: gpubench's power from
# the energy counter (energy_j / energy_s) over a >= 2 s bf16 8192^3 GEMM
# window, against what the field reads over the same window:
#   - nvidia-smi --query-gpu=power.draw.instant sampled every 100 ms, each
#     sample with nvidia-smi's own timestamp, only in-window samples counted;
#   - the energy counter read the way Zeus (ml.energy) reads it on Volta and
#     newer: nvmlDeviceGetTotalEnergyConsumption at the window's start and
#     end (from the probe's trace of every counter step, read at the window's
#     wall times, GPUBENCH_ENERGY_LOG);
# and how often the counter steps, idle (2 s before) and in the window; then
# a burst window (the default, ~40 ms), whose rows must carry no power
# figure. Prints the table (scripts/device/energy_anchor.py) into
# $OUT/energy-anchor.txt; everything it read stays under $OUT. Needs the lab
# build for the probe: scripts/build-for-device.sh --tools, carrying
# .devbuild. Usage: energy_anchor.sh [ITERS] (samples of the sustained
# window, default 2000: 2.4-3 s of bf16 8192^3 on an H100 or H200).
set -u
out=${OUT:-out}
mkdir -p "$out"
iters=${1:-2000}
bin=$PWD/.devbuild
for f in gpubench energy_probe; do
  if [ ! -x "$bin/$f" ]; then
    echo "energy_anchor.sh: $bin/$f is missing (scripts/build-for-device.sh --tools builds it)" >&2
    exit 2
  fi
done
"$bin/gpubench" info >"$out/info.txt" 2>&1 || { cat "$out/info.txt" >&2; exit 3; }
: >"$out/windows.log"
: >"$out/counter.tsv"
# the counter at rest
"$bin/energy_probe" --seconds 2 >"$out/probe-idle.txt" 2>&1
# the meters of the field, in the background for the whole GEMM run
smi_cmd=(nvidia-smi)
command -v stdbuf >/dev/null && smi_cmd=(stdbuf -oL nvidia-smi) # each sample on disk as it comes
"${smi_cmd[@]}" -i 0 --query-gpu=timestamp,power.draw.instant --format=csv,noheader,nounits -lms 100 \
  >"$out/smi.csv" 2>"$out/smi.err" &
smi=$!
"$bin/energy_probe" --seconds 120 --trace "$out/counter.tsv" >"$out/probe-run.txt" 2>&1 &
probe=$!
sleep 1
opts=(--bench gemm --opt gemm.precs=bf16 --opt gemm.shapes=8192 --opt gemm.layout=tn --opt gemm.grouped=off)
GPUBENCH_ENERGY_LOG=$out/windows.log "$bin/gpubench" run "${opts[@]}" --opt gemm.window=sustained \
  --iters "$iters" --out "$out/sustained.csv" >"$out/sustained.log" 2>&1
rc_sustained=$?
sleep 1
kill "$probe" "$smi" 2>/dev/null
wait "$probe" "$smi" 2>/dev/null
# the burst window (the default): no power figure below the counter's steps
"$bin/gpubench" run "${opts[@]}" --out "$out/burst.csv" >"$out/burst.log" 2>&1
rc_burst=$?
status=0
if [ "$rc_sustained" != 0 ] || [ "$rc_burst" != 0 ]; then
  echo "energy_anchor.sh: gpubench run exited $rc_sustained (sustained), $rc_burst (burst):" >&2
  tail -n 20 "$out/sustained.log" "$out/burst.log" >&2
  status=1
fi
if [ -s "$out/sustained.csv" ] && [ -s "$out/burst.csv" ]; then
  python3 "$(dirname "$0")/energy_anchor.py" "$out" | tee "$out/energy-anchor.txt"
else
  status=1
fi
exit "$status"
