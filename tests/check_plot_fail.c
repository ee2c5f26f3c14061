/* Tests for plots that fail (issue 23, item 6): gnuplot's exit status and
 * its output checked, a failed plot reported and not linked, an
 * interrupted report that kills gnuplot and leaves no partial file, and
 * history --plot on a full disk. gnuplot is replaced by small shell scripts
 * named by GPUBENCH_GNUPLOT (they answer --version, then misbehave); the
 * full-disk case mounts a 16 KiB tmpfs and is skipped, with a message, when
 * not root or when mounting is not allowed. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gb_plot.h"
#include "reportutil.h"
#include "testutil.h"

extern char **environ;

/* Writes an executable shell script at dir/name; returns its path (static). */
static const char *fake_gnuplot(const char *dir, const char *name, const char *body) {
  static char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  char text[8192];
  /* --version answers, so gnuplot counts as installed */
  snprintf(text, sizeof text, "#!/bin/sh\n[ \"$1\" = --version ] && { echo 'gnuplot 5.4'; exit 0; }\n%s\n", body);
  ck_assert_int_eq(gb_test_write(path, text, strlen(text)), 0);
  ck_assert_int_eq(chmod(path, 0755), 0);
  return path;
}

/* Names in dir that contain needle (or end with it when suffix). */
static size_t count_names(const char *dir, const char *needle, bool suffix) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  size_t n = 0;
  struct dirent *de;
  while ((de = readdir(d)) != NULL) {
    size_t l = strlen(de->d_name), nl = strlen(needle);
    if (suffix ? l >= nl && strcmp(de->d_name + l - nl, needle) == 0 : strstr(de->d_name, needle) != NULL) n++;
  }
  closedir(d);
  return n;
}

static bool exists_in(const char *dir, const char *name) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  struct stat st;
  return stat(path, &st) == 0;
}

/* A PNG with its signature and header and, at its end, the IEND chunk. */
static bool png_whole(const char *path) {
  unsigned w, h;
  size_t len = 0;
  char *data = gb_test_slurp(path, &len);
  bool ok = data && gb_png_valid(path, &w, &h) && len >= 12 && memcmp(data + len - 12, "\0\0\0\0IEND\xae\x42\x60\x82", 12) == 0;
  free(data);
  return ok;
}

/* A fake's session loop (gb_plot.c's protocol on stdin): sets $gb_png and
 * $gb_svg, calls the shell function draw for each load, answers each print
 * with the plot's marker and GPVAL_ERRNO 0. */
#define SESSION_LOOP                                                                                  \
  "while IFS= read -r line; do\n"                                                                     \
  "  case $line in\n"                                                                                 \
  "  reset*) eval \"$(printf '%s\\n' \"$line\" | sed -e 's/^reset; reset errors; //' -e 's/ = /=/g')\";;\n" \
  "  load*) draw;;\n"                                                                                 \
  "  print*) printf '%s 0 \\n' \"$(printf '%s\\n' \"$line\" | sed -n \"s/.*'\\(gpubench-plot-done-[0-9]*\\) .*/\\1/p\")\" >&2;;\n" \
  "  esac\n"                                                                                          \
  "done\n"

static const double k_x[] = {1, 2, 3}, k_y[] = {10, 20, 15};

static gb_err one_plot(const char *dir) {
  gb_plot_series s = {.title = "a", .n = 3, .x = k_x, .y = k_y};
  gb_plot_spec p = {.stem = "p", .title = "t", .xlabel = "x", .ylabel = "y"};
  return gb_plot_lines(dir, &p, &s, 1);
}

/* gnuplot exits 1: the error names its status and message; no picture,
 * not even one from an earlier render, and no temporary file remains. */
START_TEST(test_gnuplot_fails) {
  char dir[1024];
  snprintf(dir, sizeof dir, "%s", gb_test_tmpdir());
  setenv("GPUBENCH_GNUPLOT", fake_gnuplot(dir, "fake-gnuplot", "echo 'cannot plot' >&2\nexit 1"), 1);
  char old[4096];
  snprintf(old, sizeof old, "%s/p.png", dir);
  ck_assert_int_eq(gb_test_write(old, "old", 3), 0);
  ck_assert_int_eq(one_plot(dir), GB_E_IO);
  ck_assert_msg(strstr(gb_errmsg(), "gnuplot exited with status 1: cannot plot"), "%s", gb_errmsg());
  ck_assert(!exists_in(dir, "p.png"));
  ck_assert(!exists_in(dir, "p.svg"));
  ck_assert_uint_eq(count_names(dir, ".tmp.", false), 0);
  ck_assert(exists_in(dir, "p.gp")); /* kept, to debug */
  unsetenv("GPUBENCH_GNUPLOT");
}
END_TEST

/* gnuplot exits 0 but its PNG is cut short (as on a full disk, whose write
 * errors gnuplot ignores): an error, and nothing left behind. */
START_TEST(test_gnuplot_truncated) {
  char dir[1024];
  snprintf(dir, sizeof dir, "%s", gb_test_tmpdir());
  setenv("GPUBENCH_GNUPLOT",
         fake_gnuplot(dir, "fake-gnuplot",
                      "draw() { printf '\\211PNG\\r\\n\\032\\n\\0\\0\\0\\rIHDR' > \"$gb_png\"; "
                      "printf '<svg></svg>\\n' > \"$gb_svg\"; }\n" SESSION_LOOP),
         1);
  ck_assert_int_eq(one_plot(dir), GB_E_IO);
  ck_assert_msg(strstr(gb_errmsg(), "p.png: gnuplot wrote an incomplete file"), "%s", gb_errmsg());
  ck_assert(!exists_in(dir, "p.png"));
  ck_assert(!exists_in(dir, "p.svg"));
  ck_assert_uint_eq(count_names(dir, ".tmp.", false), 0);
  unsetenv("GPUBENCH_GNUPLOT");
}
END_TEST

/* Runs argv with env added, stdout and stderr into log; returns the pid. */
static pid_t spawn_with(char *const argv[], const char *env_add, const char *log) {
  size_t n = 0;
  while (environ[n]) n++;
  char **env = calloc(n + 2, sizeof *env);
  ck_assert_ptr_nonnull(env);
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (strncmp(environ[i], "GPUBENCH_GNUPLOT=", 17) != 0) env[k++] = environ[i];
  env[k++] = (char *)env_add;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  pid_t pid;
  int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, env);
  posix_spawn_file_actions_destroy(&fa);
  free(env);
  ck_assert_int_eq(rc, 0);
  return pid;
}

/* Waits at most secs for pid; returns its wait status, or -1 (then kills it). */
static int wait_bounded(pid_t pid, double secs) {
  for (int i = 0; i < (int)(secs * 20); i++) {
    int st;
    pid_t w = waitpid(pid, &st, WNOHANG);
    if (w == pid) return st;
    usleep(50000);
  }
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
  return -1;
}

/* A report whose every plot fails: exit 1, the failures named on stderr and
 * under Problems, and no picture linked from report.md. */
START_TEST(test_report_failed_plot) {
  const char *exe = gb_test_gpubench();
  if (!exe) return;
  char dir[1024], out[1100], log[1100], env[1200];
  snprintf(dir, sizeof dir, "%s", gb_test_tmpdir());
  snprintf(out, sizeof out, "%s/rep", dir);
  snprintf(log, sizeof log, "%s/log", dir);
  snprintf(env, sizeof env, "GPUBENCH_GNUPLOT=%s",
           fake_gnuplot(dir, "fake-gnuplot", "echo 'plot failed here' >&2\nexit 3"));
  char *argv[] = {(char *)exe, "report", "--out", out, (char *)gb_fixture("report_h200.csv"), NULL};
  int st = wait_bounded(spawn_with(argv, env, log), 120);
  ck_assert(st != -1 && WIFEXITED(st));
  ck_assert_int_eq(WEXITSTATUS(st), 1);
  char *text = gb_test_slurp(log, NULL);
  ck_assert_ptr_nonnull(text);
  ck_assert_msg(strstr(text, "could not be rendered") && strstr(text, "gnuplot exited with status 3: plot failed here"),
                "%s", text);
  free(text);
  char md[1200];
  snprintf(md, sizeof md, "%s/report.md", out);
  text = gb_test_slurp(md, NULL);
  ck_assert_ptr_nonnull(text);
  ck_assert_msg(!strstr(text, ".png)") && !strstr(text, ".svg)"), "a failed plot is linked");
  const char *problems = strstr(text, "## Problems");
  ck_assert_ptr_nonnull(problems);
  ck_assert_msg(strstr(problems, "could not be rendered and are not shown"), "%s", problems);
  free(text);
  ck_assert_uint_eq(count_names(out, ".png", true), 0);
  ck_assert_uint_eq(count_names(out, ".tmp.", false), 0);
}
END_TEST

/* SIGINT while gnuplot renders: the report ends by SIGINT within a bounded
 * time, the gnuplot it started is gone, and neither a temporary file nor a
 * partial picture remains. */
START_TEST(test_report_interrupted) {
  const char *exe = gb_test_gpubench();
  if (!exe) return;
  char dir[1024], out[1100], log[1100], env[1200], pidf[1100], body[4000];
  snprintf(dir, sizeof dir, "%s", gb_test_tmpdir());
  snprintf(out, sizeof out, "%s/rep", dir);
  snprintf(log, sizeof log, "%s/log", dir);
  snprintf(pidf, sizeof pidf, "%s/gnuplot.pid", dir);
  /* writes half a PNG, says who it is, then hangs (exec keeps the pid) */
  snprintf(body, sizeof body, "draw() { printf '\\211PNG\\r\\n\\032\\n' > \"$gb_png\"; echo $$ > '%s.part'; "
                              "mv '%s.part' '%s'; exec sleep 60; }\n", pidf, pidf, pidf);
  strcat(body, SESSION_LOOP);
  snprintf(env, sizeof env, "GPUBENCH_GNUPLOT=%s", fake_gnuplot(dir, "fake-gnuplot", body));
  char *argv[] = {(char *)exe, "report", "--out", out, (char *)gb_fixture("report_h200.csv"), NULL};
  pid_t pid = spawn_with(argv, env, log);
  char *gp = NULL;
  for (int i = 0; i < 400 && !gp; i++) { /* 20 s at most */
    gp = gb_test_slurp(pidf, NULL);
    if (!gp) usleep(50000);
  }
  ck_assert_msg(gp != NULL, "gnuplot never started");
  pid_t child = (pid_t)atol(gp);
  free(gp);
  ck_assert_int_gt(child, 0);
  ck_assert_int_eq(kill(pid, SIGINT), 0);
  int st = wait_bounded(pid, 10);
  ck_assert_msg(st != -1, "report did not end within 10 s of SIGINT");
  ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGINT, "report ended with status %d, not by SIGINT", st);
  bool alive = kill(child, 0) == 0;
  if (alive) kill(child, SIGKILL);
  ck_assert_msg(!alive, "gnuplot (pid %d) survived the report", (int)child);
  ck_assert_uint_eq(count_names(out, ".tmp.", false), 0);
  ck_assert_uint_eq(count_names(out, ".png", true), 0);
  ck_assert_uint_eq(count_names(out, ".svg", true), 0);
}
END_TEST

/* history --plot into a 16 KiB tmpfs: the pictures cannot be written
 * whole, so history must fail, and leave no cut PNG and no temporary file.
 * Before, gnuplot's status 0 let it exit 0 with empty PNGs. */
START_TEST(test_history_plot_full_disk) {
  const char *exe = gb_test_gpubench();
  if (!exe) return;
  if (geteuid() != 0) {
    printf("check_plot_fail: history --plot on a full disk skipped: needs root to mount a tmpfs\n");
    return;
  }
  char dir[1024], mnt[1100], log[1100];
  snprintf(dir, sizeof dir, "%s", gb_test_tmpdir());
  snprintf(mnt, sizeof mnt, "%s/full", dir);
  snprintf(log, sizeof log, "%s/log", dir);
  ck_assert_int_eq(mkdir(mnt, 0755), 0);
  if (mount("tmpfs", mnt, "tmpfs", 0, "size=16k") != 0) {
    printf("check_plot_fail: history --plot on a full disk skipped: cannot mount a tmpfs: %s\n", strerror(errno));
    return;
  }
  /* with real gnuplot when there is one; else one that, like it, ignores
   * its write errors and exits 0 */
  char env[1200] = "GPUBENCH_GNUPLOT=gnuplot";
  if (!gb_gnuplot_available())
    snprintf(env, sizeof env, "GPUBENCH_GNUPLOT=%s",
             fake_gnuplot(dir, "fake-gnuplot", "draw() { head -c 65536 /dev/zero > \"$gb_png\" 2>/dev/null; "
                                               "head -c 65536 /dev/zero > \"$gb_svg\" 2>/dev/null; }\n" SESSION_LOOP));
  char base[1100], cur[1100]; /* gb_fixture's buffer is static */
  snprintf(base, sizeof base, "%s", gb_fixture("gate_base.csv"));
  snprintf(cur, sizeof cur, "%s", gb_fixture("gate_cur.csv"));
  char *argv[] = {(char *)exe, "history", "--all", "--plot", mnt, base, cur, NULL};
  int st = wait_bounded(spawn_with(argv, env, log), 60);
  /* every PNG left must be whole */
  size_t bad = 0, pngs = 0;
  DIR *d = opendir(mnt);
  struct dirent *de;
  while (d && (de = readdir(d)) != NULL) {
    size_t l = strlen(de->d_name);
    if (l < 4 || strcmp(de->d_name + l - 4, ".png") != 0) continue;
    char path[2400];
    snprintf(path, sizeof path, "%s/%s", mnt, de->d_name);
    pngs++;
    bad += !png_whole(path);
  }
  if (d) closedir(d);
  size_t tmps = count_names(mnt, ".tmp.", false);
  umount2(mnt, MNT_DETACH);
  ck_assert(st != -1 && WIFEXITED(st));
  char *text = gb_test_slurp(log, NULL);
  ck_assert_msg(WEXITSTATUS(st) != 0, "history exited 0 on a full disk: %s", text ? text : "");
  free(text);
  ck_assert_msg(bad == 0, "%zu of %zu PNGs are cut short", bad, pngs);
  ck_assert_uint_eq(tmps, 0);
}
END_TEST

int main(void) {
  Suite *s = suite_create("plot_fail");
  TCase *tc = tcase_create("fail");
  tcase_set_timeout(tc, 180);
  tcase_add_test(tc, test_gnuplot_fails);
  tcase_add_test(tc, test_gnuplot_truncated);
  tcase_add_test(tc, test_report_failed_plot);
  tcase_add_test(tc, test_report_interrupted);
  tcase_add_test(tc, test_history_plot_full_disk);
  suite_add_tcase(s, tc);
  return gb_test_run_suite(s);
}
