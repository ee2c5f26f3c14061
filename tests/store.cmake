# The results store (store/): SQLite always; PostgreSQL too when
# GB_STORE_TEST_PG names a throwaway database (scripts/test-store.sh).
gb_add_check_test(check_store check_store.c LIBS gb_store gb_gate)
target_include_directories(check_store PRIVATE ${CMAKE_SOURCE_DIR}/store)
# What history --record and compare --record write (gb_changes, gb_verdicts).
gb_add_check_test(check_store_record check_store_record.c reportutil.c LIBS gb_store gb_gate)
target_include_directories(check_store_record PRIVATE ${CMAKE_SOURCE_DIR}/store)
