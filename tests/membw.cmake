# membw and copy benchmarks: pure parts on the CPU; an end-to-end run on a GPU.
gb_add_check_test(check_membw check_membw.c LIBS gb_bench)
gb_add_check_test(check_membw_gpu check_membw_gpu.c LIBS gb_bench GPU)
