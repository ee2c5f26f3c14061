#!/usr/bin/env bash
# scripts/check-doc-examples.sh on a fixture document (tests/fixtures/doc-examples/examples.md):
# it extracts the four gpubench commands of indented and fenced blocks (a continued line joined,
# inline code and program output left out), passes the good one and the one that says
# "expect exit 1", fails the bad one, and skips the GPU one with its reason.
# Usage: check_doc_examples_selftest.sh SOURCE_DIR GPUBENCH
set -uo pipefail
src=$1 bin=$2
doc=$src/tests/fixtures/doc-examples/examples.md
fail=0
no() { echo "FAIL: $*"; fail=1; }
out=$("$src/scripts/check-doc-examples.sh" --bin "$bin" "$doc" 2>&1)
rc=$?
echo "$out"
[ "$rc" -eq 1 ] || no "exit $rc, expected 1 (the bad command fails)"
grep -q '^FAIL .*examples.md:13: gpubench plan --no-such-option 1  \[exit 2, expected 0\]' <<< "$out" || no "the bad command is not reported failed"
grep -q '^pass .*examples.md:5: gpubench plan --top 1  \[exit 0\]' <<< "$out" || no "the good command does not pass"
grep -q '^pass .*examples.md:6: build/gpubench plan --budget 10  \[exit 1\]' <<< "$out" || no "the expected failure does not pass"
grep -q '^pass .*examples.md:7: build/gpubench plan --gpu-type H200-SXM-141GB --gpus 64 --top 1  \[exit 0\]' <<< "$out" \
  || no "the continued line is not one command"
grep -q '^skip .*examples.md:14: gpubench run --bench fma --out r.csv  \[needs a GPU\]' <<< "$out" || no "the GPU command is not skipped"
grep -q -- '--bogus\|cannot load' <<< "$out" && no "inline code or program output taken for a command"
grep -q '^check-doc-examples: 4 run, 3 pass, 1 skipped, 1 failed' <<< "$out" || no "wrong counts"
[ "$fail" -eq 0 ] && echo "check_doc_examples_selftest: ok"
exit "$fail"
