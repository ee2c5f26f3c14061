# GEMM benchmark: pure parts on the CPU, the cuBLASLt path on a GPU.
gb_add_check_test(check_gemm check_gemm.c LIBS gb_bench)
gb_add_check_test(check_gemm_gpu check_gemm_gpu.c LIBS gb_bench GPU)
gb_add_check_test(check_settings check_settings.c LIBS gb_bench)
gb_add_check_test(check_gemm_layout check_gemm_layout.c LIBS gb_bench)
gb_add_check_test(check_gemm_derive check_gemm_derive.c LIBS gb_bench)
gb_add_check_test(check_gemm_grouped check_gemm_grouped.c LIBS gb_bench)
gb_add_check_test(check_gemm_blockscale check_gemm_blockscale.c LIBS gb_bench)
