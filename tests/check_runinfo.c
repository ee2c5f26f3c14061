/* Tests for gb_runinfo (version, revision, host, time, run id, data folder)
 * and for cmake/git_sha.cmake, which writes the revision at build time. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>

#include "gb_runinfo.h"
#include "testutil.h"

/* 12 lowercase hex digits, then "-dirty" or nothing */
static int is_revision(const char *s) {
  for (int i = 0; i < 12; i++)
    if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i])) return 0;
  return s[12] == '\0' || strcmp(s + 12, "-dirty") == 0;
}

START_TEST(test_git_sha_format) {
  const char *sha = gb_git_sha();
  ck_assert_msg(strcmp(sha, "unknown") == 0 || is_revision(sha), "%s", sha);
  int major, minor, patch;
  char extra;
  ck_assert_msg(sscanf(gb_version(), "%d.%d.%d%c", &major, &minor, &patch, &extra) == 3, "%s", gb_version());
}
END_TEST

START_TEST(test_iso8601_utc) {
  char buf[32];
  gb_iso8601_utc(0, buf, sizeof buf);
  ck_assert_str_eq(buf, "1970-01-01T00:00:00Z");
  gb_iso8601_utc(951782400, buf, sizeof buf); /* 11016 days * 86400 s */
  ck_assert_str_eq(buf, "2000-02-29T00:00:00Z");
  gb_iso8601_utc(1796256000 + 3 * 3600 + 4 * 60 + 5, buf, sizeof buf); /* 20790 days, then 03:04:05 */
  ck_assert_str_eq(buf, "2026-12-03T03:04:05Z");
}
END_TEST

/* YYYYMMDDTHHMMSSZ-<host up to its first dot>-<6 hex digits> */
START_TEST(test_run_id_format) {
  char id[128], id2[128];
  gb_make_run_id(id, sizeof id);
  gb_make_run_id(id2, sizeof id2);
  ck_assert_msg(strlen(id) > 16 + 1 + 1 + 6, "%s", id);
  for (int i = 0; i < 16; i++)
    ck_assert_msg(i == 8 ? id[i] == 'T' : i == 15 ? id[i] == 'Z' : isdigit((unsigned char)id[i]), "%s", id);
  ck_assert_int_eq(id[16], '-');
  size_t host_len = strcspn(gb_hostname(), ".");
  ck_assert_int_eq(strncmp(id + 17, gb_hostname(), host_len), 0);
  ck_assert_int_eq(id[17 + host_len], '-');
  const char *rnd = id + 17 + host_len + 1;
  ck_assert_uint_eq(strlen(rnd), 6);
  for (int i = 0; i < 6; i++) ck_assert(isxdigit((unsigned char)rnd[i]));
  ck_assert_str_ne(id, id2); /* 24 random bits each */
}
END_TEST

START_TEST(test_data_dir) {
  setenv("GPUBENCH_DATA_DIR", "/opt/gb-data", 1);
  ck_assert_str_eq(gb_data_dir(), "/opt/gb-data");
  setenv("GPUBENCH_DATA_DIR", "", 1); /* empty: the built-in folder */
  ck_assert_str_ne(gb_data_dir(), "");
  ck_assert_ptr_nonnull(strstr(gb_data_dir(), "data"));
  unsetenv("GPUBENCH_DATA_DIR");
}
END_TEST

/* Where data files are looked for: the environment alone when set; else
 * beside the program (DIR/data, DIR/../share/gpubench), then the source
 * tree's data/, which a test in the build tree takes. */
START_TEST(test_data_dir_tried) {
  char buf[16384], want[16384], exe[4096];
  setenv("GPUBENCH_DATA_DIR", "/opt/gb-data", 1);
  gb_data_dir_tried("/noise/floors.csv", buf, sizeof buf);
  ck_assert_str_eq(buf, "/opt/gb-data/noise/floors.csv");
  unsetenv("GPUBENCH_DATA_DIR");
  ck_assert_int_eq(gb_exe_dir(exe, sizeof exe), 0);
  gb_data_dir_tried("/noise/floors.csv", buf, sizeof buf);
  snprintf(want, sizeof want, "%s/data/noise/floors.csv, %s/../share/gpubench/noise/floors.csv, %s/noise/floors.csv",
           exe, exe, gb_data_dir());
  ck_assert_str_eq(buf, want);
  char small[12];
  gb_data_dir_tried("/noise/floors.csv", small, sizeof small); /* cut to fit */
  ck_assert_uint_eq(strlen(small), sizeof small - 1);
}
END_TEST

#if defined(GB_GIT_COMMAND) && defined(GB_CMAKE_COMMAND)
static char g_tmp[1024]; /* this test's scratch folder */

/* Runs argv with its output into g_tmp/log; returns the exit status. */
static int run_logged(char *const argv[]) {
  char log[1100];
  snprintf(log, sizeof log, "%s/log", g_tmp);
  return gb_test_run(argv, log);
}

static int git(const char *repo, const char *a1, const char *a2, const char *a3) {
  char *argv[] = {GB_GIT_COMMAND, "-C", (char *)repo, "-c", "user.name=gpubench test", "-c",
                  "user.email=test@gpubench.invalid", (char *)a1, (char *)a2, (char *)a3, NULL};
  return run_logged(argv);
}

/* git rev-parse --short=12 HEAD of repo, into out */
static void head_of(const char *repo, char out[13]) {
  char *argv[] = {GB_GIT_COMMAND, "-C", (char *)repo, "rev-parse", "--short=12", "HEAD", NULL};
  ck_assert_int_eq(run_logged(argv), 0);
  char log[1100];
  snprintf(log, sizeof log, "%s/log", g_tmp);
  char *text = gb_test_slurp(log, NULL);
  ck_assert_ptr_nonnull(text);
  ck_assert_msg(strlen(text) >= 12, "%s", text);
  memcpy(out, text, 12);
  out[12] = '\0';
  free(text);
}

/* Runs cmake/git_sha.cmake for src into header; returns the header text
 * (malloc'd). */
static char *write_header(const char *src, const char *header) {
  char script[512], d_src[1200], d_out[1200];
  snprintf(script, sizeof script, "%s/cmake/git_sha.cmake", GB_SOURCE_ROOT);
  snprintf(d_src, sizeof d_src, "-DSRC=%s", src);
  snprintf(d_out, sizeof d_out, "-DOUT=%s", header);
  char *argv[] = {GB_CMAKE_COMMAND, d_src, d_out, "-P", script, NULL};
  ck_assert_int_eq(run_logged(argv), 0);
  char *text = gb_test_slurp(header, NULL);
  ck_assert_ptr_nonnull(text);
  return text;
}

static void expect_sha(const char *text, const char *sha) {
  char want[64];
  snprintf(want, sizeof want, "#define GB_GIT_SHA \"%s\"\n", sha);
  ck_assert_msg(strstr(text, want), "want %s in: %s", want, text);
}

/* The bug this guards: the revision used to be read when cmake configured
 * the build, so a rebuild after a commit stamped every row with the old one.
 * The script runs at every build: a new commit changes the header, a
 * changed tracked file adds "-dirty", an unchanged revision leaves the file
 * untouched (nothing recompiles), and outside git it says "unknown". */
START_TEST(test_git_sha_script) {
  const char *tmp = gb_test_tmpdir();
  ck_assert_ptr_nonnull(tmp);
  snprintf(g_tmp, sizeof g_tmp, "%s", tmp);
  char repo[1100], file[1200], header[1100];
  snprintf(repo, sizeof repo, "%s/repo", g_tmp);
  snprintf(file, sizeof file, "%s/a.txt", repo);
  snprintf(header, sizeof header, "%s/gb_git_sha.h", g_tmp);
  setenv("GIT_CEILING_DIRECTORIES", g_tmp, 1); /* never the checkout the tests run in */
  setenv("GIT_CONFIG_GLOBAL", "/dev/null", 1);   /* no signing, hooks or templates of the user's */
  setenv("GIT_CONFIG_NOSYSTEM", "1", 1);

  /* not a git checkout */
  ck_assert_int_eq(mkdir(repo, 0755), 0);
  char *text = write_header(repo, header);
  expect_sha(text, "unknown");
  free(text);

  ck_assert_int_eq(git(repo, "init", "-q", NULL), 0);
  ck_assert_int_eq(gb_test_write(file, "one\n", 4), 0);
  ck_assert_int_eq(git(repo, "add", "a.txt", NULL), 0);
  ck_assert_int_eq(git(repo, "commit", "-qm", "one"), 0);
  char first[13];
  head_of(repo, first);
  text = write_header(repo, header);
  expect_sha(text, first);
  free(text);

  /* unchanged: the header is not rewritten (its time, set an hour back, stays) */
  struct timespec past[2] = {{.tv_sec = time(NULL) - 3600, .tv_nsec = 0}, {.tv_sec = time(NULL) - 3600, .tv_nsec = 0}};
  ck_assert_int_eq(utimensat(AT_FDCWD, header, past, 0), 0);
  text = write_header(repo, header);
  free(text);
  struct stat after;
  ck_assert_int_eq(stat(header, &after), 0);
  ck_assert_int_eq((long long)after.st_mtime, (long long)past[1].tv_sec);

  /* a tracked file changed: the same revision, dirty */
  ck_assert_int_eq(gb_test_write(file, "two\n", 4), 0);
  char dirty[32];
  snprintf(dirty, sizeof dirty, "%s-dirty", first);
  text = write_header(repo, header);
  expect_sha(text, dirty);
  free(text);

  /* committed: the new revision, clean */
  ck_assert_int_eq(git(repo, "commit", "-qam", "two"), 0);
  char second[13];
  head_of(repo, second);
  ck_assert_str_ne(first, second);
  text = write_header(repo, header);
  expect_sha(text, second);
  free(text);
}
END_TEST
#endif

static Suite *suite(void) {
  Suite *s = suite_create("runinfo");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_git_sha_format);
  tcase_add_test(tc, test_iso8601_utc);
  tcase_add_test(tc, test_run_id_format);
  tcase_add_test(tc, test_data_dir);
  tcase_add_test(tc, test_data_dir_tried);
#if defined(GB_GIT_COMMAND) && defined(GB_CMAKE_COMMAND)
  tcase_add_test(tc, test_git_sha_script);
#endif
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
