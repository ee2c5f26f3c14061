# The results store as hostile as a file (issue 52, classes 1-6): the
# library against SQLite (and the PostgreSQL of GB_STORE_TEST_PG:
# scripts/test-store.sh), the commands as subprocesses.
if(TARGET gpubench)
  gb_add_check_test(check_store_harden check_store_harden.c LIBS gb_store)
  target_include_directories(check_store_harden PRIVATE ${CMAKE_SOURCE_DIR}/store ${CMAKE_SOURCE_DIR}/cli)
  add_dependencies(check_store_harden gpubench)
  set_tests_properties(check_store_harden PROPERTIES TIMEOUT 600)
endif()
