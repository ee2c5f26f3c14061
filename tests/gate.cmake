# Regression gate (gate/): Mann-Whitney, change points, compare and history,
# including the command-line front ends' exit codes.
gb_add_check_test(check_changepoint check_changepoint.c LIBS gb_gate)
gb_add_check_test(check_gate check_gate.c ${CMAKE_SOURCE_DIR}/cli/cmd_compare.c ${CMAKE_SOURCE_DIR}/cli/gb_compare_record.c
  ${CMAKE_SOURCE_DIR}/cli/cmd_history.c ${CMAKE_SOURCE_DIR}/cli/gb_history_record.c ${GB_CLI_PARSE_SOURCES}
  LIBS gb_gate gb_reports gb_store)
target_include_directories(check_gate PRIVATE ${CMAKE_SOURCE_DIR}/cli)
# --repeat in turn, setup/teardown per repetition (the runner), on a GPU.
gb_add_check_test(check_gate_gpu check_gate_gpu.c LIBS gb_bench GPU)
# The gate on real A/A campaigns (tests/fixtures/aa/) and injected drops,
# baselines of several runs, bad input, the markdown cap, noise floors (and
# the noise command's --earlier/--changed).
gb_add_check_test(check_gate_aa check_gate_aa.c ${CMAKE_SOURCE_DIR}/cli/cmd_compare.c ${CMAKE_SOURCE_DIR}/cli/gb_compare_record.c ${CMAKE_SOURCE_DIR}/cli/cmd_noise.c
  ${GB_CLI_PARSE_SOURCES} LIBS gb_gate gb_reports gb_store)
target_include_directories(check_gate_aa PRIVATE ${CMAKE_SOURCE_DIR}/cli)
# A type the floors do not hold (the cross-type prior), floors learned from a store.
gb_add_check_test(check_gate_learned check_gate_learned.c ${CMAKE_SOURCE_DIR}/cli/cmd_compare.c ${CMAKE_SOURCE_DIR}/cli/gb_compare_record.c
  ${CMAKE_SOURCE_DIR}/cli/cmd_noise.c ${GB_CLI_PARSE_SOURCES} LIBS gb_gate gb_reports gb_store)
target_include_directories(check_gate_learned PRIVATE ${CMAKE_SOURCE_DIR}/cli)
# Collapsed, erratic and missing headline figures, power-state figures
# judged by their peak, shipped files against themselves, many-run floors.
gb_add_check_test(check_gate_judge check_gate_judge.c LIBS gb_gate)
# One judge: report --compare and compare agree on every adjacent pair of fixtures.
gb_add_check_test(check_gate_report check_gate_report.c ${CMAKE_SOURCE_DIR}/cli/cmd_compare.c ${CMAKE_SOURCE_DIR}/cli/gb_compare_record.c
  ${GB_CLI_PARSE_SOURCES} LIBS gb_gate gb_reports gb_store)
target_include_directories(check_gate_report PRIVATE ${CMAKE_SOURCE_DIR}/cli)
# The floors found by a copied binary and the device layout; their absence said by every output.
add_test(NAME check_gate_floors COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/check_gate_floors.sh
  $<TARGET_FILE:gpubench> ${CMAKE_SOURCE_DIR})
# Floors from more cards than a fixed buffer holds (100 cards: every one counted).
gb_add_check_test(check_noise_scale check_noise_scale.c LIBS gb_gate)
gb_add_check_test(check_noise_index check_noise_index.c LIBS gb_gate)
# data/noise/floors.csv is what data/noise/README.md's command makes of the shipped runs, byte for byte.
add_test(NAME check_noise_regen COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/check_noise_regen.sh
  $<TARGET_FILE:gpubench> ${CMAKE_SOURCE_DIR})
