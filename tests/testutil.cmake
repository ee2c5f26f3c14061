# The tests' own helpers (tests/testutil.c): the temporary directories each
# test makes are gone when it ends.
gb_add_check_test(check_testutil check_testutil.c)
