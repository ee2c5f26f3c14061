# Sourced by the integration test scripts (test-store.sh, test-fleet.sh,
# test-grafana-store.sh): the pass/fail tally they print at the end as
# "N passed, N failed".
#   ok TEXT / bad TEXT     count one result and print "PASS TEXT" / "FAIL TEXT"
#   check NAME COMMAND...  passes when COMMAND exits 0
# shellcheck shell=bash
passed=0 failed=0
ok() { passed=$((passed + 1)); echo "PASS $*"; }
bad() { failed=$((failed + 1)); echo "FAIL $*"; }
check() {
  local name=$1
  shift
  if "$@"; then ok "$name"; else bad "$name"; fi
}
