#!/usr/bin/env bash
# Lints the shell scripts and the container file (CI: .ci/run).
#  - shellcheck (Debian's package) at severity warning, and SC2086 (unquoted
#    expansions), on every shell script of the tree (*.sh, *.sbatch);
#  - the Kubernetes manifests (tests/lint/check_k8s.py): securityContext
#    (non-root, seccomp, no privilege escalation, read-only root, all
#    capabilities dropped) and CPU/memory requests and limits;
#  - the Containerfile against the hadolint rules that matter here (hadolint
#    is not packaged for Debian): a final USER that is not root (DL3002),
#    apt-get install with --no-install-recommends (DL3015), the apt lists
#    removed in the same RUN (DL3009), a pipefail SHELL before RUN (DL4006),
#    a FROM with a tag other than latest (DL3006/DL3007, also through an ARG
#    default), CMD and ENTRYPOINT in JSON form (DL3025), COPY rather than ADD
#    for local files (DL3020), no sudo (DL3004), no MAINTAINER (DL4000);
#    hadolint itself as well where it is on PATH (not installable here: no
#    Debian package, and the pip wheel needs the network CI lacks).
# Usage: scripts/lint.sh [CONTAINERFILE]  (default deploy/container/Containerfile;
# a file given skips shellcheck: tests/check_lint.sh feeds it broken files).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
cf=${1:-deploy/container/Containerfile}
if [ $# -eq 0 ]; then
  scripts/need-packages.sh shellcheck python3-yaml
  shopt -s nullglob globstar
  # every shell script of the tree (tests and lab tools too), tracked or not
  mapfile -t sh < <(git ls-files --cached --others --exclude-standard '*.sh' '*.sbatch' 2>/dev/null)
  [ ${#sh[@]} -gt 0 ] || sh=(scripts/*.sh deploy/**/*.sh deploy/**/*.sbatch tests/**/*.sh tools/**/*.sh)
  shellcheck -S warning "${sh[@]}"
  # unquoted expansions (SC2086 is "info": asked for by name)
  shellcheck -S info -i SC2086 "${sh[@]}"
  echo "lint: shellcheck clean (${#sh[@]} scripts)"
  # the Kubernetes manifests: non-root, no escalation, read-only root,
  # capabilities dropped, requests and limits (tests/lint/check_k8s.py)
  python3 tests/lint/check_k8s.py deploy/k8s/*.yaml
fi
fail=0
bad() { echo "$cf: $1" >&2; fail=1; }
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
# the base image: FROM IMAGE[:TAG], an ARG default when it is ${NAME}
base=$(awk 'toupper($1) == "FROM" { print $2; exit }' "$cf")
if [[ $base =~ ^\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?$ ]]; then
  base=$(sed -n "s/^ARG ${BASH_REMATCH[1]}=//p" "$cf" | head -n 1)
fi
case "$base" in
  *@sha256:*) ;;
  *:latest) bad "FROM $base: pin a tag other than latest (DL3007)" ;;
  *:*) ;;
  scratch) ;;
  *) bad "FROM ${base:-?}: no tag (DL3006)" ;;
esac
grep -Eiq '^(CMD|ENTRYPOINT)[[:space:]]+[^[[:space:]]' "$cf" && bad "CMD or ENTRYPOINT not in JSON form (DL3025)"
grep -Eiq '^ADD[[:space:]]+[^h]' "$cf" && bad "ADD of local files: use COPY (DL3020)"
grep -Eq '(^|[[:space:]&;|])sudo[[:space:]]' "$cf" && bad "sudo in a RUN (DL3004)"
grep -Eiq '^MAINTAINER[[:space:]]' "$cf" && bad "MAINTAINER is deprecated: use a LABEL (DL4000)"
if command -v hadolint >/dev/null; then
  hadolint --failure-threshold warning "$cf" || fail=1
fi
[ "$fail" -eq 0 ] && echo "lint: $cf: runs as $user"
exit "$fail"
