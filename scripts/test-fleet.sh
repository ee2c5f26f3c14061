#!/usr/bin/env bash
# The fleet test, no GPU needed; runs as root (CI: .ci/run).
#   1. the collective bootstrap's reading of Slurm, Open MPI, torchrun and
#      Indexed Job variables (check_boot, and gb_boot_probe under env);
#   2. a real single-node Slurm cluster on this machine (munge, slurmctld,
#      slurmd from Debian's slurm-wlm, configured in a temporary folder, on
#      127.0.0.1 only): the campaign job array and its merge through
#      deploy/slurm/submit-campaign.sh (sbatch, --dependency=afterany), and
#      srun starting two ranks that read their rank from Slurm. Here `run`
#      exits 3 on every node (no GPU), which the array records; two nodes'
#      worth of results seeded into the folder show the merge, report and
#      plan steps working on what the nodes leave;
#   3. every manifest in deploy/k8s/ validated offline against the
#      Kubernetes API schemas (npm: kubernetes-models, in a temporary folder);
#   4. the .deb: cpack, apt-get install ./gpubench_*.deb, gpubench plan from
#      it, then removed again;
#   5. a clean clone built and installed to a temporary prefix, whose
#      gpubench plan and report run from / with every CUDA library hidden (a
#      mount namespace), and whose run says which library is missing (exit 3).
# Every daemon it starts is stopped on exit. Ends with "N passed, N failed";
# exit 1 if any failed. About 4 minutes on 2 cores (most of it the clean
# clone's build).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
if [ "$(id -u)" != 0 ]; then
  echo "test-fleet: needs root (daemons, apt-get, mount namespaces)" >&2
  exit 2
fi

# shellcheck source=scripts/check-tally.sh
. scripts/check-tally.sh

tmp=$(mktemp -d /tmp/gpubench-fleet.XXXXXX)
chmod 755 "$tmp"
pids=()
deb_installed=0
cleanup() {
  for p in "${pids[@]}"; do
    kill "$p" 2>/dev/null
  done
  for p in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$p" 2>/dev/null
  done
  [ "$deb_installed" = 1 ] && DEBIAN_FRONTEND=noninteractive apt-get remove -y gpubench >/dev/null 2>&1
  rm -rf "$tmp"
}
trap cleanup EXIT

# ---- what it needs ----
scripts/need-packages.sh slurm-wlm munge git || { echo "test-fleet: apt-get install failed" >&2; exit 2; }
# node and npm: any install will do (nodesource's node carries its own npm,
# which Debian's npm package conflicts with)
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  scripts/need-packages.sh nodejs npm || { echo "test-fleet: apt-get install nodejs npm failed" >&2; exit 2; }
fi
if [ ! -x build/gpubench ] || [ ! -f build/libgpubench-measure.so ] || [ ! -x build/tests/gb_boot_probe ]; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build build -j2 >/dev/null \
    || { echo "test-fleet: build failed" >&2; exit 2; }
fi
gb=$root/build/gpubench

# ---- 1. the bootstrap's reading of launchers' variables ----
check "bootstrap unit tests (check_boot)" build/tests/check_boot
probe() { env -i PATH=/usr/bin:/bin "$@" "$root/build/tests/gb_boot_probe" 2>&1; }
expect_probe() {
  local name=$1 want=$2
  shift 2
  local got
  got=$(probe "$@")
  if [[ $got == *"$want"* ]]; then ok "bootstrap: $name"; else bad "bootstrap: $name: got '$got', want '$want'"; fi
}
expect_probe "Slurm" "launcher=SLURM rank=3 world=4 local_rank=1 id=/shared/id" \
  SLURM_PROCID=3 SLURM_NTASKS=4 SLURM_LOCALID=1 GPUBENCH_NCCL_ID_FILE=/shared/id
expect_probe "Open MPI inside a Slurm step" "launcher=OMPI rank=5 world=8 local_rank=1 id=gpubench-nccl-id.42.0" \
  OMPI_COMM_WORLD_RANK=5 OMPI_COMM_WORLD_SIZE=8 OMPI_COMM_WORLD_LOCAL_RANK=1 SLURM_PROCID=0 SLURM_NTASKS=1 \
  SLURM_JOB_ID=42
expect_probe "torchrun" "launcher=TORCHRUN rank=2 world=4 local_rank=0 id=tcp://10.1.2.3:29501" \
  RANK=2 WORLD_SIZE=4 LOCAL_RANK=0 LOCAL_WORLD_SIZE=2 MASTER_ADDR=10.1.2.3 MASTER_PORT=29500
expect_probe "Indexed Job" "launcher=K8S rank=1 world=2 local_rank=0 id=tcp://coll-0.coll:29501" \
  JOB_COMPLETION_INDEX=1 WORLD_SIZE=2 MASTER_ADDR=coll-0.coll MASTER_PORT=29500
expect_probe "inconsistent local rank" "OMPI_COMM_WORLD_LOCAL_RANK=2 is not below OMPI_COMM_WORLD_LOCAL_SIZE=2" \
  OMPI_COMM_WORLD_RANK=0 OMPI_COMM_WORLD_SIZE=4 OMPI_COMM_WORLD_LOCAL_RANK=2 OMPI_COMM_WORLD_LOCAL_SIZE=2

# ---- 2. a single-node Slurm cluster ----
slurm_test() {
  local s=$tmp/slurm host
  host=$(hostname -s)
  mkdir -p "$s/state" "$s/spool" "$s/munge" "$s/results"
  chmod 700 "$s/munge"
  dd if=/dev/urandom of="$s/munge/munge.key" bs=1024 count=1 status=none
  chmod 400 "$s/munge/munge.key"
  munged --force --key-file="$s/munge/munge.key" --socket="$s/munge/munge.sock" --pid-file="$s/munge/munged.pid" \
    --log-file="$s/munge/munged.log" --seed-file="$s/munge/munged.seed" || { echo "munged failed"; return 1; }
  pids+=("$(cat "$s/munge/munged.pid")")
  local mem
  mem=$(awk '/MemTotal/ {print int($2 / 1024 / 2)}' /proc/meminfo)
  cat > "$s/slurm.conf" <<EOF
ClusterName=gbtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=16817
SlurmdPort=16818
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$s/munge/munge.sock
CredType=cred/munge
StateSaveLocation=$s/state
SlurmdSpoolDir=$s/spool/%n
SlurmctldPidFile=$s/slurmctld.pid
SlurmdPidFile=$s/slurmd.pid
SlurmctldLogFile=$s/slurmctld.log
SlurmdLogFile=$s/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
MinJobAge=600
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
  export SLURM_CONF=$s/slurm.conf
  slurmctld -c -f "$s/slurm.conf" || { echo "slurmctld failed"; return 1; }
  for _ in $(seq 50); do [ -s "$s/slurmctld.pid" ] && break; sleep 0.1; done
  pids+=("$(cat "$s/slurmctld.pid")")
  slurmd -f "$s/slurm.conf" -N "$host" || { echo "slurmd failed"; return 1; }
  for _ in $(seq 50); do [ -s "$s/slurmd.pid" ] && break; sleep 0.1; done
  pids+=("$(cat "$s/slurmd.pid")")
  local state=""
  for _ in $(seq 60); do
    state=$(sinfo -h -n "$host" -o %t 2>/dev/null)
    [ "$state" = idle ] && break
    sleep 1
  done
  if [ "$state" != idle ]; then
    bad "slurm: node $host not idle after 60 s (state '$state'); slurmctld.log:"
    tail -5 "$s/slurmctld.log"
    return 1
  fi
  ok "slurm: munged, slurmctld and slurmd up, node $host idle"

  # srun: two ranks read their rank from Slurm's variables
  local out
  out=$(cd "$s" && timeout 60 srun -n 2 -t 1 "$root/build/tests/gb_boot_probe" 2>&1 | sort)
  if [[ $out == *"launcher=SLURM rank=0 world=2 local_rank=0"*"launcher=SLURM rank=1 world=2 local_rank=1"* ]]; then
    ok "slurm: srun -n 2 ranks 0 and 1 of 2 from SLURM_PROCID/NTASKS/LOCALID"
  else
    bad "slurm: srun -n 2 probe: $out"
  fi

  # two nodes' results already in the folder (the shipped quick campaign as
  # two hosts, and one file copied twice): what the array's nodes leave on a
  # GPU machine
  local res=$s/results src=$root/data/measured/h200-quick.csv rows
  rows=$(($(wc -l < "$src") - 1))
  cp "$src" "$res/seed-gpu01.csv"
  sed -e '2,$ s/^1,\([^,]*\)-vm-\([0-9a-f]*\),/1,\1-gpu02-\2,/' -e '2,$ s/,vm,/,gpu02,/' "$src" > "$res/seed-gpu02.csv"
  cp "$res/seed-gpu01.csv" "$res/seed-gpu01-copy.csv"
  local ids campaign merge
  ids=$(GPUBENCH=$gb GPUBENCH_RUN_ARGS="--quick --bench membw" \
    "$root/deploy/slurm/submit-campaign.sh" -n 2 -d "$res" 2>&1)
  campaign=$(sed -n 's/^campaign //p' <<< "$ids")
  merge=$(sed -n 's/^merge //p' <<< "$ids")
  if [ -z "$campaign" ] || [ -z "$merge" ]; then
    bad "slurm: submit-campaign.sh: $ids"
    return 1
  fi
  ok "slurm: sbatch array $campaign (2 tasks) and merge $merge (afterany)"
  local left=1
  for _ in $(seq 180); do
    left=$(squeue -h -j "$campaign,$merge" 2>/dev/null | wc -l)
    [ "$left" = 0 ] && break
    sleep 1
  done
  if [ "$left" != 0 ]; then
    bad "slurm: jobs still queued after 180 s"
    squeue
    return 1
  fi
  ok "slurm: the array and the merge ended within 180 s"
  local st
  st=$(scontrol -o show job "$campaign" 2>/dev/null | grep -o 'JobState=[A-Z]* .*ExitCode=[0-9:]*' |
    sed 's/JobState=\([A-Z]*\) .*ExitCode=\([0-9:]*\)/\1 \2/' | sort | uniq -c | tr -s ' ')
  if [[ $st == *"2 FAILED 3:0"* ]]; then
    ok "slurm: both array tasks recorded run's exit 3 (no GPU):$st"
  else
    bad "slurm: array tasks' states:$st"
  fi
  if [ "$(cat "$res"/node-*.rc 2>/dev/null | sort | tr '\n' ' ')" = "3 3 " ] &&
     [ "$(wc -l < "$res/nodes.txt")" = 2 ]; then
    ok "slurm: one .rc per node, and the merge job's nodes.txt lists both"
  else
    bad "slurm: node exit files: $(ls "$res")"
  fi
  st=$(scontrol -o show job "$merge" 2>/dev/null | grep -o 'JobState=[A-Z]*\|ExitCode=[0-9:]*' | tr '\n' ' ')
  if [[ $st == "JobState=COMPLETED ExitCode=0:0 " ]]; then ok "slurm: merge job completed"; else
    bad "slurm: merge job: $st"
    cat "$res"/../gpubench-merge-*.log "$res"/gpubench-merge-*.log 2>/dev/null | tail -5
  fi
  local merged
  merged=$(($(wc -l < "$res/fleet.csv" 2>/dev/null || echo 1) - 1))
  if [ "$merged" = $((2 * rows)) ]; then
    ok "slurm: fleet.csv holds both hosts' $rows rows, the copied file's dropped ($merged rows)"
  else
    bad "slurm: fleet.csv has $merged rows, expected $((2 * rows))"
  fi
  check "slurm: the merge job wrote the report on fleet.csv" test -s "$res/report/report.md"
  if "$gb" report "$res/fleet.csv" --out "$s/rep" >/dev/null 2>&1 && grep -q gpu02 "$s/rep/report.md"; then
    ok "slurm: report reads fleet.csv as one run (both hosts)"
  else
    bad "slurm: report on fleet.csv"
  fi
  if "$gb" plan --measured "$res/fleet.csv" > "$s/plan.txt" 2>&1 && grep -q "measured" "$s/plan.txt"; then
    ok "slurm: plan --measured fleet.csv ranks on the measurements"
  else
    bad "slurm: plan --measured fleet.csv: $(tail -2 "$s/plan.txt")"
  fi
  if "$gb" compare "$res/seed-gpu01.csv" "$res/fleet.csv" --allow-mismatch > "$s/cmp.txt" 2>&1; then
    ok "slurm: compare reads fleet.csv"
  else
    bad "slurm: compare seed fleet: $(tail -2 "$s/cmp.txt")"
  fi
  unset SLURM_CONF
}
slurm_test || bad "slurm: set-up stopped early"

# ---- 3. Kubernetes manifests against the API schemas ----
k8s_test() {
  local n=$tmp/npm
  mkdir -p "$n"
  if ! (cd "$n" && npm install --silent --no-audit --no-fund kubernetes-models js-yaml >/dev/null 2>&1); then
    bad "k8s: npm install kubernetes-models js-yaml"
    return
  fi
  local f
  for f in deploy/k8s/*.yaml; do
    local out
    if out=$(NODE_PATH=$n/node_modules node scripts/k8s-validate.cjs "$f" 2>&1); then
      ok "k8s: $f valid ($(grep -c '^ok' <<< "$out") object(s))"
    else
      bad "k8s: $f: $out"
    fi
  done
  # the validator does reject a wrong manifest
  printf 'apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: x\nspec:\n  completions: "four"\n  template:\n    spec:\n      containers: []\n' \
    > "$tmp/bad.yaml"
  if NODE_PATH=$n/node_modules node scripts/k8s-validate.cjs "$tmp/bad.yaml" >/dev/null 2>&1; then
    bad "k8s: a Job with completions: \"four\" passed validation"
  else
    ok "k8s: the validator rejects completions: \"four\""
  fi
}
k8s_test

# ---- 4. the Debian package ----
deb_test() {
  rm -f build/gpubench_*.deb
  if ! (cd build && cpack -G DEB >/dev/null 2>&1); then
    bad "deb: cpack -G DEB"
    return
  fi
  local deb
  deb=$(ls build/gpubench_*.deb)
  ok "deb: cpack built $(basename "$deb") (Depends: $(dpkg-deb -f "$deb" Depends))"
  if ! (cd build && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "./$(basename "$deb")" >/dev/null 2>&1); then
    bad "deb: apt-get install ./$(basename "$deb")"
    return
  fi
  deb_installed=1
  ok "deb: apt-get install ./$(basename "$deb")"
  if (cd / && /usr/bin/gpubench plan > "$tmp/deb-plan.txt" 2>&1) &&
     grep -q "/usr/share/gpubench/gpu_specs.csv" "$tmp/deb-plan.txt"; then
    ok "deb: gpubench plan from / reads /usr/share/gpubench"
  else
    bad "deb: gpubench plan: $(head -3 "$tmp/deb-plan.txt")"
  fi
  check "deb: the module in /usr/lib/gpubench" test -f /usr/lib/gpubench/libgpubench-measure.so
  check "deb: man gpubench and its completion" test -s /usr/share/man/man1/gpubench.1 -a \
    -s /usr/share/bash-completion/completions/gpubench
  DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq gpubench >/dev/null 2>&1 && deb_installed=0
}
deb_test

# ---- 5. a clean clone, installed, with CUDA hidden ----
install_test() {
  local src=$tmp/clone prefix=$tmp/prefix
  if ! git clone -q "$root" "$src"; then
    bad "install: git clone"
    return
  fi
  if ! (cmake -S "$src" -B "$src/build" -DCMAKE_BUILD_TYPE=Release >/dev/null &&
        cmake --build "$src/build" -j2 --target gpubench gpubench-measure gpubench_docs >/dev/null 2>&1 &&
        cmake --install "$src/build" --prefix "$prefix" >/dev/null); then
    bad "install: build and cmake --install of a clean clone"
    return
  fi
  ok "install: clean clone built and installed to a temporary prefix"
  check "install: bin, module and data under the prefix" test -x "$prefix/bin/gpubench" -a \
    -f "$prefix/lib/gpubench/libgpubench-measure.so" -a -f "$prefix/share/gpubench/gpu_specs.csv" -a \
    -d "$prefix/share/gpubench/workloads" -a -d "$prefix/share/gpubench/measured"
  check "install: man page and bash completion" test -s "$prefix/share/man/man1/gpubench.1" -a \
    -s "$prefix/share/bash-completion/completions/gpubench"
  # every CUDA library hidden: tmpfs over /usr/local/cuda*, /dev/null over
  # any other copy the loader knows
  cat > "$tmp/hidden.sh" <<'EOF'
set -u
prefix=$1 out=$2
for d in /usr/local/cuda*; do
  [ -d "$d" ] && ! [ -L "$d" ] && mount -t tmpfs none "$d"
done
ldconfig -p | awk '/libcublas|libnccl|libnvrtc|libcudart|libcuda\.so/ {print $NF}' | while read -r f; do
  [ -e "$f" ] && mount --bind /dev/null "$f"
done
cd /
if ls /usr/local/cuda*/lib*/libcublasLt.so* >/dev/null 2>&1; then echo "cuda still visible"; exit 1; fi
"$prefix/bin/gpubench" plan > "$out/plan.txt" 2>&1 || { echo "plan exit $?"; exit 1; }
"$prefix/bin/gpubench" report --out "$out/report" > "$out/report.txt" 2>&1 || { echo "report exit $?"; exit 1; }
"$prefix/bin/gpubench" run --help > "$out/run-help.txt" 2>&1 || { echo "run --help exit $?"; exit 1; }
"$prefix/bin/gpubench" run --bench membw --out "$out/r.csv" > "$out/run.txt" 2>&1
echo "run exit $?"
EOF
  local out=$tmp/hidden
  mkdir -p "$out"
  local said
  said=$(unshare -m --propagation private bash "$tmp/hidden.sh" "$prefix" "$out" 2>&1)
  if grep -q "$prefix/share/gpubench/gpu_specs.csv" "$out/plan.txt" 2>/dev/null; then
    ok "install: gpubench plan from / with CUDA hidden, data from the prefix"
  else
    bad "install: plan with CUDA hidden: $said $(head -3 "$out/plan.txt" 2>/dev/null)"
  fi
  check "install: gpubench report from / with CUDA hidden" test -s "$out/report/report.md"
  check "install: gpubench run --help with CUDA hidden (the option table is in the program)" \
    grep -q "^Usage: gpubench run" "$out/run-help.txt"
  if [[ $said == *"run exit 3"* ]] && grep -q "cannot load the measuring module: lib.*\.so.*: cannot open" "$out/run.txt"; then
    ok "install: run with CUDA hidden exits 3 naming the library ($(grep -o 'lib[A-Za-z]*\.so[.0-9]*' "$out/run.txt" | head -1))"
  else
    bad "install: run with CUDA hidden: $said $(cat "$out/run.txt" 2>/dev/null)"
  fi
}
install_test

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
