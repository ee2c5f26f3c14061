#!/usr/bin/env bash
# The Containerfile checks of scripts/lint.sh, each on a file that breaks
# one rule (exit 1 naming the rule), and on the shipped file (exit 0).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
good=$root/deploy/container/Containerfile
fail=0
# case RULE SED-EXPRESSION: the shipped file edited to break RULE
case_of() {
  sed "$2" "$good" >"$work/Containerfile"
  out=$("$root/scripts/lint.sh" "$work/Containerfile" 2>&1)
  rc=$?
  if [ "$rc" -ne 1 ] || [[ $out != *"$1"* ]]; then
    echo "FAIL: $1: exit $rc: $out" >&2
    fail=1
  else
    echo "ok: $1"
  fi
}
case_of DL3002 's/^USER .*/USER root/'
case_of DL3015 's/ --no-install-recommends//'
case_of DL3009 's|rm -rf /var/lib/apt/lists/\* ||'
case_of DL4006 '/^SHELL/d'
case_of DL3007 's|^ARG CUDA_IMAGE=.*|ARG CUDA_IMAGE=nvidia/cuda:latest|'
case_of DL3006 's|^FROM .*|FROM ubuntu|'
case_of DL3025 's|^CMD .*|CMD gpubench --help|'
case_of DL3020 's|^COPY |ADD |'
case_of DL3004 's|apt-get update|sudo apt-get update|'
case_of DL4000 's|^WORKDIR|MAINTAINER x\nWORKDIR|'
if ! "$root/scripts/lint.sh" "$good" >/dev/null 2>&1; then
  echo "FAIL: the shipped Containerfile does not pass" >&2
  fail=1
fi
exit "$fail"
