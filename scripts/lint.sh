#!/usr/bin/env bash
# Lints the shell scripts and the container file (CI: .ci/run).
#  - shellcheck (Debian's package) at severity warning on scripts/*.sh and
#    deploy/**/*.sh and *.sbatch;
#  - the Containerfile against the hadolint rules that matter here (hadolint
#    is not packaged for Debian): a final USER that is not root (DL3002),
#    apt-get install with --no-install-recommends (DL3015), the apt lists
#    removed in the same RUN (DL3009), a pipefail SHELL before RUN (DL4006).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
scripts/need-packages.sh shellcheck
shopt -s nullglob globstar
shellcheck -S warning scripts/*.sh deploy/**/*.sh deploy/**/*.sbatch
echo "lint: shellcheck clean"
cf=deploy/container/Containerfile
fail=0
user=$(awk 'toupper($1) == "USER" { u = $2 } END { print u }' "$cf")
case "$user" in
  "" | root | 0 | 0:* | root:*) echo "$cf: the image must end with USER <unprivileged> (DL3002)" >&2; fail=1 ;;
esac
if grep -q 'apt-get install' "$cf" && ! grep -q 'apt-get install[^&]*--no-install-recommends' "$cf"; then
  echo "$cf: apt-get install without --no-install-recommends (DL3015)" >&2; fail=1
fi
if grep -q 'apt-get update' "$cf" && ! grep -q 'rm -rf /var/lib/apt/lists' "$cf"; then
  echo "$cf: the apt lists are not removed (DL3009)" >&2; fail=1
fi
if ! grep -q '^SHELL \[.*pipefail' "$cf"; then
  echo "$cf: no SHELL with -o pipefail (DL4006)" >&2; fail=1
fi
[ "$fail" -eq 0 ] && echo "lint: $cf: runs as $user"
exit "$fail"
