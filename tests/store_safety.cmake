# The store's URL, secrets and deadlines as hostile input (issue 52):
# gpubench subprocesses and a silent server of the test's own.
gb_add_check_test(check_store_safety check_store_safety.c LIBS gb_store)
add_dependencies(check_store_safety gpubench)
set_tests_properties(check_store_safety PROPERTIES TIMEOUT 600)
