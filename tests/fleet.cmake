# Fleet campaigns (issue 25): merge, the multi-node bootstrap, progress.
# gpubench merge (core/gb_merge, cli/cmd_merge.c): fleet results into one file.
gb_add_check_test(check_merge check_merge.c)
if(TARGET gpubench)
  add_dependencies(check_merge gpubench)
endif()

# The collective's multi-node bootstrap (bench/collective/collective_boot.c): the
# launchers' environments and the id over TCP; no GPU.
gb_add_check_test(check_boot check_boot.c LIBS gb_bench)
# run by scripts/test-fleet.sh under a real srun
add_executable(gb_boot_probe gb_boot_probe.c)
target_link_libraries(gb_boot_probe PRIVATE gb_bench)
# The campaign's progress line and time left (bench/gb_progress.c).
gb_add_check_test(check_progress check_progress.c LIBS gb_bench)
