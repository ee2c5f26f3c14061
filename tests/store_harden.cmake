# The results store as hostile as a file (docs/reliability.md round four, classes 1-6): the
# library against SQLite (and the PostgreSQL of GB_STORE_TEST_PG:
# scripts/test-store.sh), the commands as subprocesses. It links the
# command tables (cli/ but main.c, as check_cli does) to walk every output
# option of every command that takes --store.
if(TARGET gpubench)
  file(GLOB GB_STORE_HARDEN_CLI CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/cli/*.c)
  list(REMOVE_ITEM GB_STORE_HARDEN_CLI ${CMAKE_SOURCE_DIR}/cli/main.c)
  gb_add_check_test(check_store_harden check_store_harden.c ${GB_STORE_HARDEN_CLI}
    LIBS gb_gate gb_reports gb_planner gb_bench gb_monitor gb_store gb_push)
  target_include_directories(check_store_harden PRIVATE ${CMAKE_SOURCE_DIR}/store ${CMAKE_SOURCE_DIR}/cli)
  add_dependencies(check_store_harden gpubench)
  if(TARGET gpubench-measure) # run's output guard lives in the measuring module
    add_dependencies(check_store_harden gpubench-measure)
  endif()
  set_tests_properties(check_store_harden PROPERTIES TIMEOUT 600)
endif()
