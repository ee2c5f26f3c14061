#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root, with .devbuild/ carried
# there (scripts/build-for-device.sh). Starts `gpubench monitor` on a free
# 127.0.0.1 port watching $OUT/campaign.csv, runs the quick campaign into that
# file (at most GB_CAMPAIGN_S seconds, default 100), scrapes /metrics every
# second meanwhile into $OUT/scrapes.txt (each scrape headed by
# "# scrape N TIME http=CODE seconds=LATENCY"), stops the monitor and prints
# a summary: scrapes taken and answered, their slowest latency, min/max of
# utilization, power, temperature and SM clock seen, the figures served from
# the campaign file at the end, the monitor's memory. About 2 minutes at
# most; no pipe through tee, every wait bounded. docs/monitoring.md.
set -u
out=${OUT:-out}
mkdir -p "$out"
export GPUBENCH_CACHE_DIR=${GPUBENCH_CACHE_DIR:-/tmp/gpubench-cache}
bin=${GB_BIN:-.devbuild/gpubench}
limit=${GB_CAMPAIGN_S:-100}
mon='' run=''
stop_all() {
  [ -n "$run" ] && kill "$run" 2>/dev/null
  [ -n "$mon" ] && kill "$mon" 2>/dev/null
}
trap stop_all EXIT

echo "device-monitor: $(ldd "$bin" | grep -c '=> not found') libraries not found; libmicrohttpd from: $(ldd "$bin" | awk '/libmicrohttpd/ {print $3}')"
rm -f "$out/campaign.csv" "$out/campaign.csv.committed"
: >"$out/monitor.log" # exists before the first read below: the child opens it only after the fork
"$bin" monitor --listen 127.0.0.1:0 --results "$out/campaign.csv" --interval 500 2>"$out/monitor.log" &
mon=$!
port=
for _ in $(seq 100); do
  port=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/metrics|\1|p' "$out/monitor.log")
  [ -n "$port" ] && break
  kill -0 "$mon" 2>/dev/null || break
  sleep 0.1
done
if [ -z "$port" ]; then
  echo "device-monitor: the monitor did not start:"
  cat "$out/monitor.log"
  exit 1
fi
url=http://127.0.0.1:$port/metrics
echo "device-monitor: monitor pid $mon on $url"

: >"$out/scrapes.txt"
scrape() { # N: one scrape appended to scrapes.txt
  local r
  r=$(curl -s -m 2 -o "$out/scrape.tmp" -w '%{http_code} %{time_total}' "$url")
  echo "# scrape $1 $(date -u +%FT%TZ) http=${r% *} seconds=${r#* }" >>"$out/scrapes.txt"
  cat "$out/scrape.tmp" >>"$out/scrapes.txt" 2>/dev/null
}
# two idle scrapes, the campaign with one a second, two after
scrape 0
sleep 1
scrape 1
timeout -s INT "$limit" "$bin" run --out "$out/campaign.csv" >"$out/campaign.log" 2>&1 &
run=$!
t0=$(date +%s)
n=2
while kill -0 "$run" 2>/dev/null && [ "$n" -lt $((limit + 10)) ]; do
  sleep 1
  scrape "$n"
  n=$((n + 1))
done
wait "$run"
run_rc=$?
run=
t1=$(date +%s)
sleep 1
scrape "$n"
n=$((n + 1))
sleep 1
scrape "$n"
n=$((n + 1))
rss=$(awk '/^VmRSS/ {print $2}' "/proc/$mon/status" 2>/dev/null)
kill "$mon"
for _ in $(seq 50); do kill -0 "$mon" 2>/dev/null || break; sleep 0.1; done
wait "$mon"
mon_rc=$?
mon=

rows=0
[ -f "$out/campaign.csv" ] && rows=$(($(wc -l <"$out/campaign.csv") - 1))
echo "device-monitor: campaign exit $run_rc after $((t1 - t0)) s ($rows rows); monitor exit $mon_rc, RSS ${rss:-?} kB at the end"
awk '
  /^# scrape / { total++; split($5, h, "="); split($6, s, "="); if (h[2] == "200") ok++; if (s[2] + 0 > maxlat) maxlat = s[2] + 0; last = total; delete fig; next }
  /^#/ { next }
  function track(key, v) { if (!(key in mn) || v < mn[key]) mn[key] = v; if (!(key in mx) || v > mx[key]) mx[key] = v }
  /^gpubench_up[ {]/ { up = $NF }
  /^gpubench_gpu_utilization_ratio\{/ { track("utilization (ratio)", $NF) }
  /^gpubench_gpu_power_watts\{/ { track("power (W)", $NF) }
  /^gpubench_gpu_temperature_celsius\{/ { track("temperature (C)", $NF) }
  /^gpubench_gpu_sm_clock_hertz\{/ { track("SM clock (MHz)", $NF / 1e6) }
  /^gpubench_gpu_memory_used_bytes\{/ { track("memory used (GiB)", $NF / 1073741824) }
  /^gpubench_gpu_clock_event_active\{.*reason="(sw_power_cap|hw_slowdown|sw_thermal|hw_thermal|hw_power_brake)"\} 1$/ { throttled++ }
  /^gpubench_(gemm|membw|copy|collective|fma)_/ { fig[$1] = 1 }
  /^gpubench_gpu_info\{/ { if (!seen[$0]++) gpus++ }
  END {
    nf = 0; for (k in fig) nf++
    printf "device-monitor: %d scrapes, %d answered 200, slowest %.1f ms; gpubench_up %s; %d GPU info lines\n", total, ok, maxlat * 1000, up, gpus
    for (k in mn) printf "device-monitor:   %-20s min %10.3f max %10.3f\n", k, mn[k], mx[k]
    printf "device-monitor:   power/heat throttle reason samples: %d\n", throttled + 0
    printf "device-monitor:   benchmark figure series in the last scrape: %d\n", nf
  }' "$out/scrapes.txt"
rm -f "$out/scrape.tmp"
# fails when a scrape went unanswered or the monitor did not stop cleanly
failed=$(grep -c '^# scrape .* http=[^2]' "$out/scrapes.txt")
echo "device-monitor: $((n - failed)) passed, $failed failed scrapes; monitor exit $mon_rc"
[ "$failed" -eq 0 ] && [ "$mon_rc" -eq 0 ]
