gb_add_check_test(check_csv check_csv.c)
gb_add_check_test(check_results check_results.c)
gb_add_check_test(check_num check_num.c)
gb_add_check_test(check_desc check_desc.c)
gb_add_check_test(check_stats check_stats.c)
# gb_energy: window energy from counter reads, the too-short rule, the per-watt bound
gb_add_check_test(check_energy check_energy.c)
# gb_runinfo, and cmake/git_sha.cmake run on a scratch git repository (with
# git and this cmake; without git that test is left out)
gb_add_check_test(check_runinfo check_runinfo.c)
find_program(GB_GIT_EXECUTABLE git)
if(GB_GIT_EXECUTABLE)
  target_compile_definitions(check_runinfo PRIVATE GB_GIT_COMMAND="${GB_GIT_EXECUTABLE}"
    GB_CMAKE_COMMAND="${CMAKE_COMMAND}")
endif()
# Interrupted campaigns: the results writer killed at random moments (SIGKILL,
# SIGINT) and resumed; prints the counts quoted in docs/reliability.md.
gb_add_check_test(check_interrupt check_interrupt.c)
# Bad inputs and unusable outputs, on the readers and on the command line
# (gpubench compare, plan, report, run run as subprocesses).
if(TARGET gpubench)
  gb_add_check_test(check_badinput check_badinput.c LIBS gb_planner gb_gate)
  add_dependencies(check_badinput gpubench)
  set_tests_properties(check_badinput PROPERTIES TIMEOUT 900)
endif()
# gb_ini: long lines, the syntax, the gate config and workload readers on it
gb_add_check_test(check_ini check_ini.c LIBS gb_gate gb_planner)
# gb_escape, and injection through result fields into the gate's markdown
# and JUnit and into plan.csv (gpubench plan run as a subprocess)
gb_add_check_test(check_escape check_escape.c LIBS gb_gate)
if(TARGET gpubench)
  add_dependencies(check_escape gpubench)
endif()
