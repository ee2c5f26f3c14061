/* check_testutil: the tests' own helpers; gb_test_tmpdir's directories go when the process that made them exits. */
#include "testutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* Forks a child that makes a temporary directory holding a file, a subdirectory and a link out of it (to the
 * fixtures), with GB_TEST_KEEP set to keep (NULL: unset), and exits; the directory's path into path. */
static void child_makes_dir(const char *keep, char *path, size_t n) {
  int fd[2];
  ck_assert_int_eq(pipe(fd), 0);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    close(fd[0]);
    if (keep) setenv("GB_TEST_KEEP", keep, 1);
    else unsetenv("GB_TEST_KEEP");
    const char *d = gb_test_tmpdir();
    char p[2048];
    snprintf(p, sizeof p, "%s/sub", d);
    if (!d || mkdir(p, 0700) != 0) _exit(3);
    snprintf(p, sizeof p, "%s/sub/file", d);
    if (gb_test_write(p, "x\n", 2) != 0) _exit(4);
    snprintf(p, sizeof p, "%s/fixtures", d);
    if (symlink(GB_FIXTURES, p) != 0) _exit(5);
    if (write(fd[1], d, strlen(d)) != (ssize_t)strlen(d)) _exit(6);
    exit(0); /* the atexit removal runs here, as at the end of a forked Check test */
  }
  close(fd[1]);
  ssize_t r = read(fd[0], path, n - 1);
  close(fd[0]);
  int status;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %d", status);
  ck_assert_int_gt(r, 0);
  path[r] = '\0';
}

START_TEST(test_tmpdir_removed_at_exit) {
  char path[2048];
  child_makes_dir(NULL, path, sizeof path);
  struct stat st;
  ck_assert_msg(stat(path, &st) != 0 && errno == ENOENT, "%s is still there", path);
  /* the link was removed, not followed */
  ck_assert_int_eq(stat(GB_FIXTURES, &st), 0);
  ck_assert_int_eq(access(gb_fixture("report_gpu_specs.csv"), R_OK), 0);
}
END_TEST

START_TEST(test_tmpdir_kept_on_request) {
  char path[2048], file[2100];
  child_makes_dir("1", path, sizeof path);
  snprintf(file, sizeof file, "%s/sub/file", path);
  ck_assert_int_eq(access(file, R_OK), 0);
  char *argv[] = {"/bin/rm", "-rf", path, NULL};
  ck_assert_int_eq(gb_test_run(argv, "/dev/null"), 0);
}
END_TEST

/* A child's exit removes only the directories it made: this process's stays for the rest of the test. */
START_TEST(test_tmpdir_parent_keeps_its_own) {
  const char *d = gb_test_tmpdir();
  ck_assert_ptr_nonnull(d);
  char mine[1024];
  snprintf(mine, sizeof mine, "%s", d);
  char path[2048];
  child_makes_dir(NULL, path, sizeof path);
  struct stat st;
  ck_assert_int_eq(stat(mine, &st), 0);
  ck_assert(S_ISDIR(st.st_mode));
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("testutil");
  TCase *tc = tcase_create("tmpdir");
  tcase_add_test(tc, test_tmpdir_removed_at_exit);
  tcase_add_test(tc, test_tmpdir_kept_on_request);
  tcase_add_test(tc, test_tmpdir_parent_keeps_its_own);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
