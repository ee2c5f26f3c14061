gb_add_check_test(check_specs check_specs.c LIBS gb_specs)
gb_add_check_test(check_planner check_planner.c LIBS gb_planner)
gb_add_check_test(check_planner_data check_planner_data.c LIBS gb_planner)

# The plan command end to end (no GPU needed): exit status and message.
# gb_plan_cli_test(NAME RC EXPECT ARGS...)
function(gb_plan_cli_test name rc expect)
  if(NOT TARGET gpubench)
    return()
  endif()
  add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:gpubench> "-DARGS=${ARGN}" -DRC=${rc}
           "-DEXPECT=${expect}" -P ${CMAKE_CURRENT_SOURCE_DIR}/cli/planner_expect.cmake)
  set_tests_properties(${name} PROPERTIES LABELS cpu)
endfunction()
gb_plan_cli_test(plan_cli_default 0 "Best measured:  " plan --top 3)
gb_plan_cli_test(plan_cli_measured 0 "H200-SXM-141GB         700.0 measured 3%" plan --top 3
                 --measured ${GB_FIXTURES}/planner_h200.csv)
# the H200 bf16 GEMM row of data/measured, throttled (power-capped, checked), beside an ok speedup row:
# the rate is measured from it, not projected, and says so
gb_plan_cli_test(plan_cli_throttled 0 "H200-SXM-141GB         710.5 measured-throttled 5%" plan --top 3
                 --measured ${GB_FIXTURES}/planner_h200_throttled.csv)
gb_plan_cli_test(plan_cli_throttled_note 0
                 "the bf16 GEMM rate 710.5 TFLOP/s at size 8192 rests on throttled rows" plan
                 --top 3 --measured ${GB_FIXTURES}/planner_h200_throttled.csv)
gb_plan_cli_test(plan_cli_help 0 "--max-hours" plan --help)
gb_plan_cli_test(plan_cli_inference 0 "Mtok/USD" plan ${CMAKE_SOURCE_DIR}/data/workloads/inference-70b.ini --top 3)
gb_plan_cli_test(plan_cli_bad_number 2 "--params: params: not a number: \"abc\"" plan --params abc)
gb_plan_cli_test(plan_cli_absurd_gpus 2 "--max-gpus: absurd value 1e12" plan --max-gpus 1e12)
gb_plan_cli_test(plan_cli_bad_prices 2 "results_good.csv:1: missing column provider" plan
                 --prices ${GB_FIXTURES}/results_good.csv)
gb_plan_cli_test(plan_cli_infeasible 1 "no configuration meets the constraints" plan --budget 10)
gb_plan_cli_test(plan_cli_unknown_option 2 "unknown option \"--bogus\"" plan --bogus 1)

# Published runs against the time model (issue 27): prints each case's
# predicted / published ratio, the median and the worst.
gb_add_check_test(check_planner_calibration check_planner_calibration.c LIBS gb_planner)
target_compile_definitions(check_planner_calibration PRIVATE GB_CALIBRATION_DIR="${CMAKE_CURRENT_SOURCE_DIR}/calibration")
