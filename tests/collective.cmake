# The NCCL collective benchmark: CPU parts (accounting, plan, check; bootstrap
# with real processes) everywhere; the GPU suite skips (77) without a GPU.
gb_add_check_test(check_collective check_collective.c LIBS gb_bench)
gb_add_check_test(check_collective_gpu check_collective_gpu.c LIBS gb_bench GPU)
gb_add_check_test(check_collective_boot check_collective_boot.c LIBS gb_bench)
