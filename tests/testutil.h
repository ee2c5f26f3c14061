/* testutil: helpers shared by the Check suites. */
#ifndef GB_TESTUTIL_H
#define GB_TESTUTIL_H

#include <check.h>
#include <stddef.h>

/* Runs one suite with Check's default fork mode; returns the exit code for
 * main (0 when every test passed). */
int gb_test_run_suite(Suite *s);

/* Path of a fixture under tests/fixtures (static buffer). */
const char *gb_fixture(const char *name);

/* A fresh temporary directory for this test (mkdtemp under $TMPDIR). */
const char *gb_test_tmpdir(void);

/* Writes len bytes to path; returns 0 on success. */
int gb_test_write(const char *path, const char *data, size_t len);

/* Reads a whole file (malloc'd, NUL-terminated) or NULL. */
char *gb_test_slurp(const char *path, size_t *len);

#endif
