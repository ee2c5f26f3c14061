# The collective's multi-node bootstrap (bench/bench_collective_boot.c): the
# launchers' environments and the id over TCP; no GPU.
gb_add_check_test(check_boot check_boot.c LIBS gb_bench)
# run by scripts/test-fleet.sh under a real srun
add_executable(gb_boot_probe gb_boot_probe.c)
target_link_libraries(gb_boot_probe PRIVATE gb_bench)
