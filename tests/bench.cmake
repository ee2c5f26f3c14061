# GPU-library suites: CPU parts run everywhere, GPU parts skip (77) without a GPU.
gb_add_check_test(check_kernels check_kernels.c LIBS gb_bench)
gb_add_check_test(check_fma check_fma.c LIBS gb_bench)
gb_add_check_test(check_harness check_harness.c LIBS gb_bench)
gb_add_check_test(check_registry check_registry.c LIBS gb_bench)
gb_add_check_test(check_runner check_runner.c LIBS gb_bench)
gb_add_check_test(check_gputype check_gputype.c)
gb_add_check_test(check_foundation_gpu check_foundation_gpu.c LIBS gb_bench GPU)
# GPU faults (out of memory, unsupported precision, a kernel that faults)
# and a real campaign killed and resumed: run gpubench as a subprocess.
gb_add_check_test(check_faults_gpu check_faults_gpu.c LIBS gb_bench GPU)
gb_add_check_test(check_interrupt_gpu check_interrupt_gpu.c LIBS gb_bench GPU)
add_dependencies(check_faults_gpu gpubench)
add_dependencies(check_interrupt_gpu gpubench)
gb_add_check_test(check_telemetry check_telemetry.c LIBS gb_bench)
# The device probes (scripts/device/*.py): their arithmetic on hand-worked
# fixtures. Only where a Python 3 interpreter is found.
find_package(Python3 COMPONENTS Interpreter QUIET)
if(Python3_Interpreter_FOUND)
  add_test(NAME check_device_probes
    COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/check_device_probes.py ${CMAKE_SOURCE_DIR})
  set_tests_properties(check_device_probes PROPERTIES LABELS cpu)
endif()
