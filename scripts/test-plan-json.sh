#!/usr/bin/env bash
# CI: the plan's JSON against docs/plan.schema.json (python3-jsonschema,
# installed here), and the default plan's text, CSV, JSON and report in
# agreement. Needs the build of scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/need-packages.sh python3 python3-jsonschema
ctest --test-dir build --output-on-failure -R '^plan_(json_schema|agree)$'
# a skip (jsonschema missing) is a failure here
python3 tests/cli/plan_schema.py build/gpubench docs/plan.schema.json data build/tests/planner_inputs/schema-ci
