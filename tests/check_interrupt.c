/* check_interrupt: interrupted campaigns on the CPU side. A child process
 * drives the results writer the way the runner does (open, which repairs a
 * killed file; read the file and skip the cases it holds; per case: measure,
 * add its rows, commit) and reports each case through a pipe once its commit
 * has returned. The parent kills it at random moments, with SIGKILL (no
 * chance to clean up) or SIGINT (the runner's clean stop), and checks after
 * every kill that:
 *   - every case reported committed is in the file with all of its rows, and
 *     no (case, metric) appears twice;
 *   - the file reads, at the latest once the next writer has opened it (a
 *     kill inside a multi-page write() can tear the last case; the writer
 *     cuts it off on open: gb_results.h);
 * and after the last kill that a resume completes the campaign with every
 * row exactly once. The totals (kills, rows checked, rows lost) are printed
 * for docs/reliability.md. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gb_results.h"
#include "testutil.h"

#define NCASES 40
#define MAX_ROWS_PER_CASE 6
#define CAMPAIGNS 40
#define KILLS_PER_CAMPAIGN 5 /* 40 x 5 = 200 kills */
#define EXIT_INTERRUPTED 3
#define DETAIL_MAX (96 * 1024)

/* ---- the campaign the child runs ---- */

/* Rows of case i: 1..6, so a commit holds one to six rows. */
static int rows_of(int i) { return 1 + (i * 5) % MAX_ROWS_PER_CASE; }

/* The detail text of row j of case i: commas, quotes and a newline (quoted
 * on disk), padded to 0..84000 bytes so that a commit spans up to a hundred
 * pages and a SIGKILL can land inside its write(), which the kernel may then
 * leave half done (it checks for fatal signals between pages). */
static void detail_of(int i, int j, char *buf, size_t n) {
  size_t pad = (size_t)((i * 7 + j * 13) % 5) * 21000;
  int len = snprintf(buf, n, "case %d, row %d: \"quoted\"\nsecond line,", i, j);
  for (size_t k = 0; k < pad && (size_t)len + 1 < n; k++) buf[len++] = (char)('a' + (k % 26));
  buf[len] = '\0';
}

static double value_of(int i, int j) { return i * 10 + j + 0.5; }

static gb_row row_of(int i, int j, char *case_name, char *metric, char *detail, size_t dn) {
  gb_row r = gb_row_empty();
  sprintf(case_name, "c%d", i);
  sprintf(metric, "m%d", j);
  detail_of(i, j, detail, dn);
  r.run_id = "interrupt-test";
  r.timestamp = "2026-01-01T00:00:00Z";
  r.gpu_type = "TEST-GPU";
  r.benchmark = "fake";
  r.case_name = case_name;
  r.metric = metric;
  r.unit = "x";
  r.value = value_of(i, j);
  r.samples = 1;
  r.status = GB_STATUS_OK;
  r.detail = detail;
  return r;
}

static volatile sig_atomic_t g_stop;

static void on_sigint(int sig) {
  g_stop = 1;
  signal(sig, SIG_DFL); /* as the runner: a second one ends the process */
}

/* Case index of a row of this campaign, or -1. */
static int case_index(const gb_row *r) {
  int i;
  char extra;
  if (strcmp(r->benchmark, "fake") != 0 || sscanf(r->case_name, "c%d%c", &i, &extra) != 1) return -1;
  return i >= 0 && i < NCASES ? i : -1;
}

/* The child: what gpubench run does around the writer. Exit 0 finished,
 * EXIT_INTERRUPTED after SIGINT, 10+ on an error. */
static int campaign(const char *path, int report_fd, const sigset_t *mask) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigprocmask(SIG_SETMASK, mask, NULL);
  gb_results_writer w;
  if (gb_writer_open(&w, path) != GB_OK) {
    fprintf(stderr, "child: %s\n", gb_errmsg());
    return 10;
  }
  bool done[NCASES] = {false};
  gb_results prev = {0};
  if (gb_results_read(path, &prev) != GB_OK) {
    fprintf(stderr, "child: %s\n", gb_errmsg());
    return 11;
  }
  for (size_t k = 0; k < prev.nrows; k++) {
    int i = case_index(&prev.rows[k]);
    if (i >= 0) done[i] = true;
  }
  gb_results_free(&prev);
  for (int i = 0; i < NCASES && !g_stop; i++) {
    if (done[i]) continue;
    /* the measurement: a short sleep, during which a kill drops the case */
    struct timespec ts = {0, 300 * 1000};
    nanosleep(&ts, NULL);
    for (int j = 0; j < rows_of(i); j++) {
      char cn[16], mn[16];
      static char detail[DETAIL_MAX];
      gb_row r = row_of(i, j, cn, mn, detail, sizeof detail);
      if (gb_writer_add(&w, &r) != GB_OK) return 12;
    }
    if (gb_writer_commit(&w) != GB_OK) {
      fprintf(stderr, "child: %s\n", gb_errmsg());
      return 13;
    }
    if (write(report_fd, &i, sizeof i) != (ssize_t)sizeof i) return 14;
  }
  gb_writer_close(&w);
  return g_stop ? EXIT_INTERRUPTED : 0;
}

/* ---- the parent ---- */

typedef struct counts {
  int kills, sigkills, sigints;
  int landed;         /* the child was still running when the signal came */
  int clean_stops;    /* SIGINT answered by a clean exit */
  long rows_checked;  /* committed rows found in the file after a kill */
  long rows_lost;     /* committed rows missing (must stay 0) */
  int torn;           /* kills after which the raw file ended in a torn case */
  int resumes;        /* final resumes run to completion */
} counts;

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Starts the campaign in a child; kills it with sig after delay_s (sig 0:
 * lets it finish). Fills committed[] with the cases the child reported and
 * returns its wait status. */
static int run_child(const char *path, int sig, double delay_s, bool committed[NCASES]) {
  int fds[2];
  ck_assert_int_eq(pipe(fds), 0);
  fflush(NULL);
  /* SIGINT stays blocked until the child has its handler: before that it
   * would run the handler inherited from Check's runner, which kills the
   * whole process group */
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigprocmask(SIG_BLOCK, &block, &old);
  pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    _exit(campaign(path, fds[1], &old));
  }
  sigprocmask(SIG_SETMASK, &old, NULL);
  ck_assert_int_ge(pid, 0);
  close(fds[1]);
  if (sig) {
    struct timespec ts = {(time_t)delay_s, (long)((delay_s - floor(delay_s)) * 1e9)};
    nanosleep(&ts, NULL);
    kill(pid, sig);
  }
  int i;
  ssize_t r;
  while ((r = read(fds[0], &i, sizeof i)) == (ssize_t)sizeof i) {
    ck_assert(i >= 0 && i < NCASES);
    committed[i] = true;
  }
  close(fds[0]);
  int status;
  while (waitpid(pid, &status, 0) < 0) ck_assert_int_eq(errno, EINTR);
  return status;
}

/* Checks the file against the cases committed so far. With allow_torn, the
 * last case in the file may be partial, or the file may not read at all
 * (a kill tore a write; the next open repairs it): returns true when so. */
static bool check_file(const char *path, const bool committed[NCASES], bool allow_torn, counts *c) {
  int rows[NCASES][MAX_ROWS_PER_CASE] = {{0}};
  struct stat st;
  if (stat(path, &st) != 0 || st.st_size == 0) {
    for (int i = 0; i < NCASES; i++) ck_assert_msg(!committed[i], "case %d committed but the file is empty", i);
    return false;
  }
  gb_results res = {0};
  gb_err e = gb_results_read(path, &res);
  if (e != GB_OK) {
    ck_assert_msg(allow_torn, "%s does not read: %s", path, gb_errmsg());
    /* the file ends inside a quoted field: torn; the rest is checked after the repair */
    return true;
  }
  int last_case = -1;
  for (size_t k = 0; k < res.nrows; k++) {
    const gb_row *r = &res.rows[k];
    int i = case_index(r), j;
    ck_assert_int_ge(i, 0);
    ck_assert_int_eq(sscanf(r->metric, "m%d", &j), 1);
    ck_assert(j >= 0 && j < rows_of(i));
    static char detail[DETAIL_MAX];
    detail_of(i, j, detail, sizeof detail);
    ck_assert_msg(strcmp(r->detail, detail) == 0, "%s:%ld: case %d row %d: the detail differs (%zu bytes, %zu expected)",
                  path, r->line, i, j, strlen(r->detail), strlen(detail));
    ck_assert_double_eq(r->value, value_of(i, j));
    rows[i][j]++;
    ck_assert_msg(rows[i][j] == 1, "case %d metric %d twice", i, j);
    last_case = i;
  }
  gb_results_free(&res);
  bool torn = false;
  for (int i = 0; i < NCASES; i++) {
    int have = 0;
    for (int j = 0; j < rows_of(i); j++) have += rows[i][j];
    if (committed[i]) {
      c->rows_checked += have;
      c->rows_lost += rows_of(i) - have;
      ck_assert_msg(have == rows_of(i), "committed case %d has %d of its %d rows", i, have, rows_of(i));
    } else if (have && have < rows_of(i)) {
      ck_assert_msg(allow_torn && i == last_case, "case %d is partial (%d of %d rows) and not the last", i, have,
                    rows_of(i));
      torn = true;
    }
  }
  return torn;
}

START_TEST(test_kill_and_resume) {
  const char *dir = gb_test_tmpdir();
  ck_assert_ptr_nonnull(dir);
  char path[4200];
  counts c;
  memset(&c, 0, sizeof c);
  unsigned seed = 12345;
  /* calibration: how long an uninterrupted campaign takes here */
  snprintf(path, sizeof path, "%s/calibrate.csv", dir);
  bool committed[NCASES] = {false};
  double t0 = now_s();
  int status = run_child(path, 0, 0, committed);
  double full_s = now_s() - t0;
  ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  check_file(path, committed, false, &c);
  memset(&c, 0, sizeof c);

  for (int camp = 0; camp < CAMPAIGNS; camp++) {
    snprintf(path, sizeof path, "%s/campaign%d.csv", dir, camp);
    memset(committed, 0, sizeof committed);
    for (int k = 0; k < KILLS_PER_CAMPAIGN; k++) {
      int sig = rand_r(&seed) % 4 == 0 ? SIGINT : SIGKILL;
      /* a random moment in the run, from before the file is opened to
       * after the last case; a resume skips what is done, so the window
       * shrinks with the cases left */
      int left = 0;
      for (int i = 0; i < NCASES; i++) left += !committed[i];
      double delay = full_s * (left + 1.0) / NCASES * 1.1 * (rand_r(&seed) / (double)RAND_MAX);
      status = run_child(path, sig, delay, committed);
      c.kills++;
      if (sig == SIGKILL) c.sigkills++;
      else c.sigints++;
      if (WIFSIGNALED(status)) {
        ck_assert_int_eq(WTERMSIG(status), sig);
        c.landed++;
      } else if (WIFEXITED(status) && WEXITSTATUS(status) == EXIT_INTERRUPTED) {
        ck_assert_int_eq(sig, SIGINT);
        c.landed++;
        c.clean_stops++;
      } else {
        ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child failed: status %d", status);
      }
      /* a clean stop never leaves a torn file */
      bool torn = check_file(path, committed, sig == SIGKILL, &c);
      c.torn += torn;
    }
    /* the resume that completes the campaign */
    status = run_child(path, 0, 0, committed);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "resume failed: status %d", status);
    /* every case now, each once: those committed by a run killed before it
     * could report them were kept, and skipped by the resumes */
    for (int i = 0; i < NCASES; i++) committed[i] = true;
    ck_assert(!check_file(path, committed, false, &c));
    c.resumes++;
    /* the writer's commit marker goes with a clean close */
    char side[4300];
    snprintf(side, sizeof side, "%s.committed", path);
    ck_assert_int_ne(access(side, F_OK), 0);
  }
  printf("interrupt: %d kills (%d SIGKILL, %d SIGINT; %d landed while running, %d clean SIGINT stops), "
         "%d torn last cases repaired, %d resumes to completion, %ld committed rows checked, %ld rows lost; "
         "an uninterrupted campaign took %.3f s\n",
         c.kills, c.sigkills, c.sigints, c.landed, c.clean_stops, c.torn, c.resumes, c.rows_checked, c.rows_lost,
         full_s);
  ck_assert_int_eq(c.rows_lost, 0);
  ck_assert_int_eq(c.kills, CAMPAIGNS * KILLS_PER_CAMPAIGN);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("interrupt");
  TCase *tc = tcase_create("writer");
  tcase_set_timeout(tc, 900);
  tcase_add_test(tc, test_kill_and_resume);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
