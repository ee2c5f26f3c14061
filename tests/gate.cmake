# Regression gate (gate/): Mann-Whitney, change points, compare and history,
# including the command-line front ends' exit codes.
gb_add_check_test(check_mannwhitney check_mannwhitney.c LIBS gb_gate)
gb_add_check_test(check_changepoint check_changepoint.c LIBS gb_gate)
gb_add_check_test(check_gate check_gate.c ${CMAKE_SOURCE_DIR}/cli/cmd_compare.c
  ${CMAKE_SOURCE_DIR}/cli/cmd_history.c ${CMAKE_SOURCE_DIR}/cli/gb_cli.c ${CMAKE_SOURCE_DIR}/cli/gb_opt.c LIBS gb_gate gb_reports)
target_include_directories(check_gate PRIVATE ${CMAKE_SOURCE_DIR}/cli)
