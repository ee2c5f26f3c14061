#!/usr/bin/env bash
# The Prometheus side end to end (docs/monitoring.md), on loopback only:
#   - `gpubench export` of the shipped measurements passes `promtool check
#     metrics`; a header-only file is refused (exit 2, naming it);
#   - `gpubench monitor` on a free 127.0.0.1 port answers /metrics (valid
#     exposition, gpubench_up 0 and the reason on a machine without NVML)
#     and /healthz, with scrape latency measured;
#   - a real Prometheus scrapes it and node_exporter's textfile collector
#     (the .prom file `export --out` wrote), evaluates
#     deploy/prometheus/gpubench.rules.yml, and its HTTP API returns the
#     expected series (telemetry, figures, recorded rules, pushed metrics);
#   - `export --push` to a local Pushgateway, read back from it; the same
#     behind TLS (a test CA) and basic auth from ~/.netrc, a bearer token,
#     a wrong CA, a wrong password and a silent server, each within its deadline;
#   - promtool check rules and promtool test rules deploy/prometheus/tests/*.yml;
#   - abuse: the port in use (exit 2), an unreadable results file, one
#     truncated and one replaced while watched, 200 concurrent scrapes (RSS
#     before/after), 50 clients that never read.
# Installs Debian's prometheus, prometheus-pushgateway (and node_exporter,
# which prometheus recommends) when missing. Stops all it started. Ends with
# "N passed, N failed"; exits 1 when any failed.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
build=${GB_BUILD_DIR:-build}

scripts/need-packages.sh prometheus prometheus-pushgateway prometheus-node-exporter curl python3 openssl apache2-utils || exit 2
if [ ! -x "$build/gpubench" ]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build "$build" -j2 >/dev/null || exit 2
fi
gpubench=$root/$build/gpubench
[ -x "$gpubench" ] || gpubench=$build/gpubench

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gb-monitor.XXXXXX")
pids=()
fds=()
cleanup() {
  for fd in "${fds[@]}"; do eval "exec $fd>&-" 2>/dev/null; done
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$p" 2>/dev/null
    wait "$p" 2>/dev/null
  done
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   - $*"; }
no() { fail=$((fail + 1)); echo "FAIL - $*"; }
check() { # check NAME COMMAND...
  local name=$1; shift
  if "$@" >"$tmp/last.log" 2>&1; then ok "$name"; else no "$name"; sed 's/^/    /' "$tmp/last.log" | tail -15; return 1; fi
}
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# until COMMAND succeeds, at most N tries 0.2 s apart
retry() { local n=$1; shift; for _ in $(seq "$n"); do "$@" >/dev/null 2>&1 && return 0; sleep 0.2; done; "$@"; }

# a monitor on a free port; sets mon_pid and mon_port from its first line
start_monitor() { # LOGFILE ARGS...
  local log=$1; shift
  : >"$log" # exists before the first read below: the child opens it only after the fork
  "$gpubench" monitor --listen 127.0.0.1:0 "$@" 2>"$log" &
  mon_pid=$!
  pids+=("$mon_pid")
  mon_port=
  for _ in $(seq 100); do
    mon_port=$(sed -n 's|.*listening on http://127.0.0.1:\([0-9]*\)/metrics|\1|p' "$log")
    [ -n "$mon_port" ] && return 0
    kill -0 "$mon_pid" 2>/dev/null || break
    sleep 0.1
  done
  cat "$log" >&2
  return 1
}

quick=data/measured/h200-quick.csv
mkdir -p "$tmp/textfile"

# ---- export ----
check "export of the shipped measurements passes promtool check metrics" \
  bash -c '"$1" export data/measured/*.csv >"$2/all.prom" && promtool check metrics <"$2/all.prom" && [ -s "$2/all.prom" ]' _ "$gpubench" "$tmp"
check "export --out writes the textfile atomically" \
  bash -c '"$1" export --out "$2/textfile/gpubench.prom" "$3" && promtool check metrics <"$2/textfile/gpubench.prom" &&
           grep -q "^gpubench_run_info{" "$2/textfile/gpubench.prom" && ! ls "$2/textfile" | grep -v "^gpubench.prom$"' _ "$gpubench" "$tmp" "$quick"
head -1 "$quick" >"$tmp/header-only.csv"
check "export of a file without rows: exit 2 naming it" \
  bash -c '"$1" export "$2" 2>"$3/err"; [ $? -eq 2 ] && grep -q "header-only.csv: no results rows" "$3/err"' _ "$gpubench" "$tmp/header-only.csv" "$tmp"
check "export of a missing file: exit 2" bash -c '"$1" export /nonexistent/r.csv 2>/dev/null; [ $? -eq 2 ]' _ "$gpubench"

# ---- monitor ----
cp "$quick" "$tmp/results.csv"
if start_monitor "$tmp/monitor.log" --results "$tmp/results.csv" --interval 200; then
  ok "monitor starts on 127.0.0.1:$mon_port"
else
  no "monitor starts"
fi
base=http://127.0.0.1:$mon_port
check "/metrics passes promtool check metrics" bash -c 'curl -sf "$1/metrics" | promtool check metrics' _ "$base"
check "/metrics: gpubench_up with a reason when there is no NVML, or 1 with GPUs" \
  bash -c 'curl -sf "$1/metrics" | grep -Eq "^gpubench_up(\{reason=\".+\"\})? [01]$"' _ "$base"
check "/metrics: the results file's figures" \
  bash -c 'curl -sf "$1/metrics" | grep -q "^gpubench_membw_bandwidth_bytes_per_second{"' _ "$base"
check "/healthz" bash -c '[ "$(curl -sf "$1/healthz")" = ok ]' _ "$base"
check "unknown path: 404" bash -c '[ "$(curl -s -o /dev/null -w "%{http_code}" "$1/x")" = 404 ]' _ "$base"
lat=$(for _ in $(seq 50); do curl -s -o /dev/null -w '%{time_total}\n' "$base/metrics"; done | sort -g | tail -1)
echo "    slowest of 50 scrapes: ${lat} s"
check "a scrape under 50 ms (slowest of 50: ${lat} s; 10 ms is the aim, 2 shared cores here)" \
  python3 -c "import sys; sys.exit(0 if float('$lat') < 0.05 else 1)"

# ---- abuse ----
check "port in use: exit 2 with a clear message" \
  bash -c 'timeout 10 "$1" monitor --listen "127.0.0.1:$2" 2>"$3/inuse.err"; [ $? -eq 2 ] && grep -q "Address already in use" "$3/inuse.err"' _ "$gpubench" "$mon_port" "$tmp"
rss() { awk '/^VmRSS/ {print $2}' "/proc/$1/status"; }
rss0=$(rss "$mon_pid")
# 200 at once, 3 rounds
conc_ok=0
for _ in 1 2 3; do
  n=$(seq 200 | xargs -P 200 -I{} curl -s -o /dev/null -m 10 -w '%{http_code}\n' "$base/metrics" | grep -c '^200$')
  [ "$n" = 200 ] && conc_ok=$((conc_ok + 1))
done
rss1=$(rss "$mon_pid")
echo "    monitor RSS ${rss0} kB -> ${rss1} kB after 3 x 200 concurrent scrapes"
check "200 concurrent scrapes all answered 200 (3 rounds)" [ "$conc_ok" = 3 ]
check "memory bounded under 200 concurrent scrapes (RSS +$((rss1 - rss0)) kB < 32 MB)" [ $((rss1 - rss0)) -lt 32768 ]
# clients that never read their answers (and never close)
for _ in $(seq 50); do
  exec {fd}<>"/dev/tcp/127.0.0.1/$mon_port" || break
  fds+=("$fd")
  printf 'GET /metrics HTTP/1.1\r\nHost: x\r\n\r\nGET /metrics HTTP/1.1\r\nHost: x\r\n\r\n' >&"$fd"
done
check "50 clients that never read: others still served within 1 s" \
  bash -c 'for i in $(seq 5); do curl -sf -m 1 -o /dev/null "$1/metrics" || exit 1; done' _ "$base"
rss2=$(rss "$mon_pid")
check "memory bounded with 50 silent clients (RSS +$((rss2 - rss0)) kB)" [ $((rss2 - rss0)) -lt 32768 ]
for fd in "${fds[@]}"; do eval "exec $fd>&-"; done
fds=()
check "monitor still running after the abuse" kill -0 "$mon_pid"
# the watched file: truncated, replaced, unreadable
: >"$tmp/results.csv"
check "results file truncated: gpubench_results_up 0 with the error, the monitor answers" \
  retry 50 bash -c 'curl -sf "$1/metrics" | grep -Eq "^gpubench_results_up\{file=\"[^\"]*results.csv\",error=\".+\"\} 0$"' _ "$base"
sed 's/,gemm,/,gemm,/' "$quick" >"$tmp/new.csv" && mv "$tmp/new.csv" "$tmp/results.csv"
check "results file replaced (rename): read again, gpubench_results_up 1" \
  retry 50 bash -c 'curl -sf "$1/metrics" | grep -Eq "^gpubench_results_up\{file=\"[^\"]*results.csv\"\} 1$"' _ "$base"
rm "$tmp/results.csv" && mkdir "$tmp/results.csv"
check "results path unreadable (a directory): the error, the monitor answers" \
  retry 50 bash -c 'curl -sf "$1/metrics" | grep -q "results.csv: not a regular file\"} 0$"' _ "$base"
rmdir "$tmp/results.csv" && cp "$quick" "$tmp/results.csv"

# ---- Pushgateway ----
gw_port=$(free_port)
prometheus-pushgateway --web.listen-address="127.0.0.1:$gw_port" >"$tmp/pushgateway.log" 2>&1 &
pids+=($!)
retry 50 curl -sf "http://127.0.0.1:$gw_port/-/ready" >/dev/null
check "export --push to a local Pushgateway" \
  "$gpubench" export --push "http://127.0.0.1:$gw_port" --job gpubench --instance test-host "$quick"
check "the Pushgateway holds the pushed group" \
  bash -c 'curl -sf "http://127.0.0.1:$1/metrics" | grep -E "^gpubench_run_info\{" | grep "instance=\"test-host\"" | grep -q "job=\"gpubench\""' _ "$gw_port"
check "export --push to a closed port: exit 1" \
  bash -c '"$1" export --push "http://127.0.0.1:$2" --timeout 2000 "$3" 2>/dev/null; [ $? -eq 1 ]' _ "$gpubench" "$(free_port)" "$quick"

# ---- Pushgateway behind TLS and basic auth (docs/monitoring.md) ----
# A test CA signs the server's certificate (for 127.0.0.1); the Pushgateway's
# web config asks for TLS and a bcrypt-hashed basic-auth user; gpubench takes
# the password from ~/.netrc (HOME pointed at a folder of the test's).
tls=$tmp/tls
mkdir -p "$tls" "$tmp/home"
pw="gb-pw-$RANDOM$RANDOM"
mkca() { # NAME: a CA key and certificate
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$tls/$1.key" -out "$tls/$1.pem" -days 2 \
    -subj "/CN=gpubench test $1" >/dev/null 2>&1
}
mkca ca && mkca otherca &&
  openssl req -newkey rsa:2048 -nodes -keyout "$tls/server.key" -out "$tls/server.csr" -subj "/CN=127.0.0.1" \
    >/dev/null 2>&1 &&
  printf 'subjectAltName=IP:127.0.0.1\n' >"$tls/san.ext" &&
  openssl x509 -req -in "$tls/server.csr" -CA "$tls/ca.pem" -CAkey "$tls/ca.key" -CAcreateserial \
    -out "$tls/server.pem" -days 2 -extfile "$tls/san.ext" >/dev/null 2>&1 || no "make the test CA and certificate"
hash=$(htpasswd -nbBC 10 ops "$pw" | cut -d: -f2)
printf 'tls_server_config:\n  cert_file: %s\n  key_file: %s\nbasic_auth_users:\n  ops: %s\n' \
  "$tls/server.pem" "$tls/server.key" "'$hash'" >"$tls/web.yml"
tgw_port=$(free_port)
prometheus-pushgateway --web.listen-address="127.0.0.1:$tgw_port" --web.config.file="$tls/web.yml" \
  >"$tmp/pushgateway-tls.log" 2>&1 &
pids+=($!)
retry 50 curl -sf --cacert "$tls/ca.pem" -u "ops:$pw" "https://127.0.0.1:$tgw_port/-/ready" >/dev/null
printf 'machine 127.0.0.1 login ops password %s\n' "$pw" >"$tmp/home/.netrc"
chmod 600 "$tmp/home/.netrc"
tgw=https://127.0.0.1:$tgw_port
# push (HOME: the test's .netrc), everything it prints kept for the secrets check
tpush() { HOME="$tmp/home" "$gpubench" export --push "$tgw" "$@" >>"$tmp/tls-out.log" 2>&1; }
check "export --push https:// with a private CA and basic auth from ~/.netrc" \
  tpush --cacert "$tls/ca.pem" --job gpubench-tls --instance tls-host "$quick"
check "the TLS Pushgateway holds the pushed group (read back with the password)" \
  bash -c 'curl -sf --cacert "$1" -u "ops:$2" "$3/metrics" | grep -E "^gpubench_run_info\{" | grep -q "job=\"gpubench-tls\""' \
  _ "$tls/ca.pem" "$pw" "$tgw"
# within_deadline SECONDS EXPECT_RC GREP ARGS...: the push exits EXPECT_RC in
# under SECONDS and says GREP
within_deadline() {
  local limit=$1 want=$2 say=$3 t0 rc took
  shift 3
  t0=$(date +%s%N)
  HOME="$tmp/home" "$gpubench" export "$@" "$quick" >"$tmp/dl.log" 2>&1
  rc=$?
  took=$((($(date +%s%N) - t0) / 1000000))
  cat "$tmp/dl.log" >>"$tmp/tls-out.log"
  grep -q -- "$say" "$tmp/dl.log" && [ "$rc" -eq "$want" ] && [ "$took" -lt $((limit * 1000)) ] ||
    { echo "rc $rc in $took ms: $(cat "$tmp/dl.log")"; return 1; }
}
check "https push with the wrong CA: exit 1 naming TLS, within the deadline" \
  within_deadline 5 1 "TLS" --push "$tgw" --cacert "$tls/otherca.pem" --timeout 3000
check "https push without --cacert (not a system CA): exit 1 naming TLS" \
  within_deadline 5 1 "TLS" --push "$tgw" --timeout 3000
printf 'machine 127.0.0.1 login ops password wrong-%s\n' "$pw" >"$tmp/home/.netrc.wrong"
chmod 600 "$tmp/home/.netrc.wrong"
check "https push with a wrong password: exit 1, the server's 401, within the deadline" \
  within_deadline 5 1 "401" --push "$tgw" --cacert "$tls/ca.pem" --netrc-file "$tmp/home/.netrc.wrong" --timeout 3000
# a server that accepts and never answers (not even the TLS handshake)
sil_port=$(free_port)
python3 -c 'import socket,sys
s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(8); print("ready", flush=True)
held=[]
while True:
    c,_=s.accept(); held.append(c)' "$sil_port" >"$tmp/silent.log" 2>&1 &
pids+=($!)
retry 50 grep -q ready "$tmp/silent.log"
check "https push to a server that never answers: exit 1 within its 2 s deadline" \
  within_deadline 4 1 "within 2000 ms" --push "https://127.0.0.1:$sil_port" --cacert "$tls/ca.pem" --timeout 2000
check "http push to a server that never answers: exit 1 within its 2 s deadline" \
  within_deadline 4 1 "within 2000 ms" --push "http://127.0.0.1:$sil_port" --timeout 2000
# a bearer token from a file, to an https server that records the header
printf 'tok-%s\n' "$pw" >"$tmp/home/token"
bearer_port=$(free_port)
cat >"$tmp/bearer.py" <<'PY'
import http.server, ssl, sys
port, cert, key, seen = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
class H(http.server.BaseHTTPRequestHandler):
    def do_PUT(self):
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        with open(seen, "w") as f:
            f.write(self.path + "\n" + self.headers.get("Authorization", "(none)") + "\n")
        self.send_response(200); self.send_header("Content-Length", "0"); self.end_headers()
    def log_message(self, *a): pass
srv = http.server.HTTPServer(("127.0.0.1", port), H)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER); ctx.load_cert_chain(cert, key)
srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
print("ready", flush=True)
srv.serve_forever()
PY
python3 "$tmp/bearer.py" "$bearer_port" "$tls/server.pem" "$tls/server.key" "$tmp/bearer.seen" >"$tmp/bearer.log" 2>&1 &
pids+=($!)
retry 50 grep -q ready "$tmp/bearer.log"
check "https push with a bearer token from --token-file: the server sees 'Bearer <token>'" \
  bash -c 'HOME="$1" "$2" export --push "https://127.0.0.1:$3/gw" --cacert "$4" --token-file "$1/token" \
    --job j "$5" >>"$6" 2>&1 && grep -qx "Bearer tok-$7" "$8" && grep -qx "/gw/metrics/job/j/instance/.*" "$8"' \
  _ "$tmp/home" "$gpubench" "$bearer_port" "$tls/ca.pem" "$quick" "$tmp/tls-out.log" "$pw" "$tmp/bearer.seen"
check "credentials over http:// are refused (exit 2), the password not shown" \
  bash -c 'out=$(GPUBENCH_PUSH_USER=ops GPUBENCH_PUSH_PASSWORD="$1" "$2" export --push "http://127.0.0.1:$3" "$4" 2>&1); \
    rc=$?; echo "$out" >>"$5"; [ $rc -eq 2 ] && ! grep -qF -- "$1" <<<"$out"' \
  _ "$pw" "$gpubench" "$gw_port" "$quick" "$tmp/tls-out.log"
check "the password and token appear in no output of the pushes" \
  bash -c '! grep -qF -- "$1" "$2"' _ "$pw" "$tmp/tls-out.log"

# ---- Prometheus scraping the monitor, the textfile and the Pushgateway ----
ne_port=$(free_port)
prometheus-node-exporter --web.listen-address="127.0.0.1:$ne_port" --collector.disable-defaults \
  --collector.textfile --collector.textfile.directory="$tmp/textfile" >"$tmp/node_exporter.log" 2>&1 &
pids+=($!)
prom_port=$(free_port)
cat >"$tmp/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - $root/deploy/prometheus/gpubench.rules.yml
scrape_configs:
  - job_name: gpubench
    static_configs: [{targets: ["127.0.0.1:$mon_port"]}]
  - job_name: node
    static_configs: [{targets: ["127.0.0.1:$ne_port"]}]
  - job_name: pushgateway
    honor_labels: true
    static_configs: [{targets: ["127.0.0.1:$gw_port"]}]
EOF
check "promtool check config" promtool check config "$tmp/prometheus.yml"
prometheus --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/tsdb" \
  --web.listen-address="127.0.0.1:$prom_port" >"$tmp/prometheus.log" 2>&1 &
pids+=($!)
api=http://127.0.0.1:$prom_port/api/v1/query
# query QUERY JQ-LIKE-PYTHON-CHECK: true when the result satisfies the check (python expression on r, the result list)
query() {
  curl -sf --get --data-urlencode "query=$1" "$api" |
    python3 -c "import json,sys; r=json.load(sys.stdin)['data']['result']; sys.exit(0 if ($2) else 1)"
}
check "Prometheus is ready" retry 150 curl -sf "http://127.0.0.1:$prom_port/-/ready"
check "Prometheus: up{job=\"gpubench\"} is 1" retry 100 query 'up{job="gpubench"}' 'len(r)==1 and r[0]["value"][1]=="1"'
check "Prometheus: gpubench_up from the monitor" retry 100 query 'gpubench_up{job="gpubench"}' 'len(r)==1'
check "Prometheus: the monitor's figures of the watched file" \
  retry 100 query 'count(gpubench_membw_bandwidth_bytes_per_second{job="gpubench"})' 'len(r)==1 and float(r[0]["value"][1])>0'
check "Prometheus: the textfile's figures through node_exporter" \
  retry 100 query 'count(gpubench_membw_bandwidth_bytes_per_second{job="node"})' 'len(r)==1 and float(r[0]["value"][1])>0'
check "Prometheus: gpubench_run_info and gpubench_run_timestamp_seconds from the textfile" \
  retry 100 query 'gpubench_run_timestamp_seconds{job="node"} and on(run_id) gpubench_run_info{job="node"}' 'len(r)>=1'
check "Prometheus: the pushed group, with its job and instance" \
  retry 100 query 'gpubench_run_info{job="gpubench",instance="test-host"}' 'len(r)>=1'
check "Prometheus: recording rules evaluated (gpubench:figure:value)" \
  retry 100 query 'count(gpubench:figure:value)' 'len(r)==1 and float(r[0]["value"][1])>0'
rules_ok() {
  curl -sf "http://127.0.0.1:$prom_port/api/v1/rules" | python3 -c 'import json,sys
bad=[(r["name"], r.get("lastError")) for g in json.load(sys.stdin)["data"]["groups"] for r in g["rules"]
     if r.get("health") == "err" or r.get("lastError")]
print(bad); sys.exit(1 if bad else 0)'
}
check "Prometheus: every rule evaluates without an error (rules API)" rules_ok

# ---- rules ----
check "promtool check rules" promtool check rules deploy/prometheus/gpubench.rules.yml
check "promtool test rules" promtool test rules deploy/prometheus/tests/*.yml
check "Grafana dashboard is JSON with panels on gpubench metrics" \
  python3 -c 'import json,sys; d=json.load(open("deploy/grafana/gpubench.json")); q=[t["expr"] for p in d["panels"] for t in p.get("targets",[])]; sys.exit(0 if q and all("gpubench" in e for e in q) else 1)'

# ---- stop ----
kill "$mon_pid"
timeout 10 tail --pid="$mon_pid" -f /dev/null
wait "$mon_pid"
check "monitor stops on SIGTERM with exit 0" [ $? -eq 0 ]

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
