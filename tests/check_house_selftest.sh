#!/usr/bin/env bash
# check_house_selftest.sh: tests/check_house.sh fails on each kind of
# offender, shown on a small tree holding one of each, and passes on a clean one.
set -u
export CHECK_HOUSE_NO_ALLOW=1
here=$(cd "$(dirname "$0")" && pwd)
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
mkdir -p "$t"/{core,bench,reports,cli,kernels,gate,planner,store,monitor,fuzz,tools,scripts,cmake,deploy}
touch "$t/CMakeLists.txt"
cat >"$t/core/gb_registry.def" <<'D'
GB_BENCHMARK(membw, "Device memory bandwidth",
             GB_METRICS(GB_METRIC(gbps, "GB/s", GB_DIR_HIGHER, "bandwidth", "bytes_per_second", 1e9, "bw")),
             gbps, GB_HEADLINE_HBM, classify_membw, "membw")
D
printf 'int ok(void) {\n  return 0;\n}\n' >"$t/core/clean.c"
# a subcommand parsing its own table through the getopt_long parser
printf 'int gb_opt_read(void) {\n  return getopt_long(0, 0, "", 0, 0);\n}\n' >"$t/core/gb_optable.c"
printf 'int gb_cmd_good(int argc, char **argv) {\n  return gb_cli_parse(&gb_good_cmd, argc, argv, 0);\n}\n' >"$t/cli/cmd_good.c"
out=$(bash "$here/check_house.sh" "$t" 2>&1)
case "$out" in *"0 offenders"*) ;; *) echo "a clean tree fails: $out"; exit 1 ;; esac

seq 801 | sed 's#^#// #' >"$t/core/big.c"
{ echo 'static int long_one(void) {'; seq 99 | sed 's/^/  (void)0;/'; echo '}'; } >"$t/core/long.c"
printf '#include "b.h"\n' >"$t/core/a.c"; printf '\n' >"$t/core/a.h"
printf '#include "a.h"\n' >"$t/core/b.c"; printf '\n' >"$t/core/b.h"
printf 'static const char *m = "gbps";\n' >"$t/bench/bench_x.c"
printf 'static const char *k = "triad";\n' >"$t/reports/rep.c"
printf 'static const struct { const char *n; int b; } d[] = {{"bf16", 2}};\n' >"$t/planner/p.c"
printf '/* see issue 12 */\n' >"$t/cli/c.c"
printf 'int gb_cmd_hand(int argc, char **argv) {\n  return argc > 1 && argv[1][0] == 0x2d;\n}\n' >"$t/cli/cmd_hand.c"
printf 'int gb_cmd_short(int argc, char **argv) {\n  return getopt(argc, argv, "x");\n}\n' >"$t/cli/cmd_short.c"
out=$(bash "$here/check_house.sh" "$t" 2>&1)
rc=$?
fail=0
[ "$rc" -ne 0 ] || { echo "check_house.sh passed a tree with offenders"; fail=1; }
for want in "size: core/big.c" "func: core/long.c:1: long_one is 101 lines" "cycle: " "metric: bench/bench_x.c:1" \
            "kernel: reports/rep.c:1" "dtype: planner/p.c:1" "issue: cli/c.c:1" "getopt: cli/cmd_hand.c:" \
            "getopt: cli/cmd_short.c:" "getopt: cli/cmd_short.c:2: plain getopt"; do
  case "$out" in *"OFFENDER: $want"*) ;; *) echo "not reported: $want"; fail=1 ;; esac
done
case "$out" in *"cli/cmd_good.c"*) echo "reported a subcommand that parses with getopt_long: $out"; fail=1 ;; esac
[ "$fail" -eq 0 ] && echo "check_house_selftest: every kind of offender fails the check"
exit "$fail"
