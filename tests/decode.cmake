# decode benchmark: pure parts and registry entry on the CPU; the quick profile end to end on a GPU.
gb_add_check_test(check_decode check_decode.c LIBS gb_bench)
gb_add_check_test(check_decode_gpu check_decode_gpu.c LIBS gb_bench GPU)
