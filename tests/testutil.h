/* testutil: helpers shared by the Check suites. */
#ifndef GB_TESTUTIL_H
#define GB_TESTUTIL_H

#include <check.h>
#include <stdarg.h>
#include <stddef.h>

/* Runs one suite with Check's default fork mode; returns the exit code for
 * main (0 when every test passed). */
int gb_test_run_suite(Suite *s);

/* Path of a fixture under tests/fixtures (static buffer). */
const char *gb_fixture(const char *name);

/* A fresh temporary directory for this test (mkdtemp under $TMPDIR), removed with what it holds when the
 * process that made it exits (GB_TEST_KEEP=1 keeps it). */
const char *gb_test_tmpdir(void);

/* Writes len bytes to path; returns 0 on success. */
int gb_test_write(const char *path, const char *data, size_t len);

/* Reads a whole file (malloc'd, NUL-terminated) or NULL. */
char *gb_test_slurp(const char *path, size_t *len);

/* The gpubench program beside the tests' folder (build/ and .devbuild/ both
 * hold tests/ and gpubench), else in the build directory; NULL when there is
 * none (static buffer). */
const char *gb_test_gpubench(void);

/* Runs argv (argv[0] a path) through posix_spawn with stdout and stderr into
 * log_path (created or truncated) and waits. Returns the exit status, 128 +
 * the signal when killed, or -1 when it could not be started. */
int gb_test_run(char *const argv[], const char *log_path);

/* Runs the gpubench program (gb_test_gpubench) with the arguments in ap (a
 * NULL-terminated list of char *, at most 62), stdout and stderr into
 * log_path; *out gets the log's text (malloc'd). Asserts that it ran; returns
 * its exit status. */
int gb_test_gpubench_va(const char *log_path, char **out, va_list ap);

/* A small XML well-formedness check (one root element, nested and matching
 * tags, quoted attributes, no raw '<' or stray '&', only the predefined or
 * numeric references, no control characters): 1 when s passes. */
int gb_test_xml_well_formed(const char *s);

#endif
