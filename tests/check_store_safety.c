/* check_store_safety: the store's URL as hostile input (issue 52, classes
 * 7-9), through every command that takes --store.
 *   - a URL that looks like a misspelt PostgreSQL one never becomes a new
 *     SQLite file (exit 2 at once, no file), and a write says which engine
 *     and where;
 *   - a password, in every form libpq accepts, never reaches a message
 *     (gb_store_mask, gb_store_redact, and the commands' output);
 *   - a server that accepts and never answers (at connect, and after the
 *     start-up, at the first statement) ends a command within its
 *     --store-timeout with a clear error.
 * PostgreSQL mid-COPY silence needs a real server: scripts/test-store.sh. */
#include <check.h>
#include <glob.h>
#include <libpq-fe.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gb_store.h"
#include "testutil.h"

static char g_dir[4096];
static char g_fixture[4200];

static void setup(void) {
  snprintf(g_dir, sizeof g_dir, "%s", gb_test_tmpdir());
  snprintf(g_fixture, sizeof g_fixture, "%s", gb_fixture("aa/aa-quick-1.csv"));
  ck_assert_int_eq(chdir(g_dir), 0);
  unsetenv("PGPASSWORD");
}

#define EXPECT_HAS(text, needle) ck_assert_msg(strstr(text, needle) != NULL, "\"%s\" not in:\n%.3000s", needle, text)
#define EXPECT_NOT(text, needle) ck_assert_msg(strstr(text, needle) == NULL, "\"%s\" in:\n%.3000s", needle, text)

/* Every command that takes --store, as argv with "U" for the URL (and "F"
 * for a results file, "D" for an output folder). */
static const char *const k_cmds[][10] = {
    {"import", "--store", "U", "F"},
    {"compare", "--store", "U", "all", "all"},
    {"history", "--store", "U", "all"},
    {"export", "--store", "U", "all"},
    {"export", "--store", "U", "--csv", "all"},
    {"report", "--store", "U", "--out", "D", "all"},
    {"plan", "--store", "U", "--measured", "all"},
    {"run", "--store", "U", "--out", "F"},
};
#define NCMDS (sizeof k_cmds / sizeof k_cmds[0])

/* Runs command i with url and the timeout (NULL: none); its output in *out. */
static int run_cmd(size_t i, const char *url, const char *timeout, char **out) {
  char *argv[16];
  size_t n = 0;
  char dir[4400], res[4400], log[4400];
  snprintf(dir, sizeof dir, "%s/rep%zu", g_dir, i);
  snprintf(res, sizeof res, "%s/run%zu.csv", g_dir, i);
  snprintf(log, sizeof log, "%s/cmd.log", g_dir);
  argv[n++] = (char *)gb_test_gpubench();
  for (size_t k = 0; k < 10 && k_cmds[i][k]; k++) {
    const char *a = k_cmds[i][k];
    argv[n++] = (char *)(strcmp(a, "U") == 0   ? url
                         : strcmp(a, "F") == 0 ? (i == 0 ? g_fixture : res)
                         : strcmp(a, "D") == 0 ? dir
                                               : a);
    if (timeout && k == 2) {
      argv[n++] = "--store-timeout";
      argv[n++] = (char *)timeout;
    }
  }
  argv[n] = NULL;
  int rc = gb_test_run(argv, log);
  ck_assert_int_ge(rc, 0);
  *out = gb_test_slurp(log, NULL);
  ck_assert_ptr_nonnull(*out);
  return rc;
}

/* The names in g_dir besides the test's own files. */
static int dir_entries(void) {
  char cmd[4500];
  snprintf(cmd, sizeof cmd, "ls -A '%s' | grep -v '^cmd.log$' | wc -l", g_dir);
  FILE *p = popen(cmd, "r");
  int n = -1;
  ck_assert_int_eq(fscanf(p, "%d", &n), 1);
  pclose(p);
  return n;
}

/* ---- 7. URLs that look like PostgreSQL ---- */

START_TEST(test_misspelt_urls_never_make_a_file) {
  static const char *const bad[] = {"postgres:/x", "postgresq://gb@localhost/db", "postgresql:x", "pg//host/db",
                                    "pgsql://h/db", "postgresql//gb@h/db", "host=localhost dbname=x",
                                    " dbname = x", "gb@localhost/db", "sqlite3:x.db", "file:x.db",
                                    "results.db?sslmode=require"};
  for (size_t u = 0; u < sizeof bad / sizeof bad[0]; u++)
    for (size_t i = 0; i < NCMDS; i++) {
      char *out;
      int rc = run_cmd(i, bad[u], NULL, &out);
      ck_assert_msg(rc == 2, "%s --store '%s': exit %d, expected 2:\n%s", k_cmds[i][0], bad[u], rc, out);
      EXPECT_HAS(out, "not taken as a SQLite file name");
      ck_assert_msg(dir_entries() == 0, "%s --store '%s' left a file", k_cmds[i][0], bad[u]);
      free(out);
    }
  /* what is plainly a path, or says sqlite:, stays SQLite */
  gb_store_kind k;
  const char *t;
  ck_assert_int_eq(gb_store_url_parse("results.db", &k, &t), GB_OK);
  ck_assert_int_eq(k, GB_STORE_SQLITE);
  ck_assert_int_eq(gb_store_url_parse("./postgres:x", &k, &t), GB_OK);
  ck_assert_int_eq(gb_store_url_parse("sqlite:postgres:x", &k, &t), GB_OK);
  ck_assert_str_eq(t, "postgres:x");
  ck_assert_int_eq(gb_store_url_parse("pg:service=x", &k, &t), GB_OK);
  ck_assert_int_eq(k, GB_STORE_PG);
}
END_TEST

START_TEST(test_write_says_engine_and_where) {
  char *out;
  ck_assert_int_eq(run_cmd(0, "res.db", NULL, &out), 0);
  char want[4600];
  snprintf(want, sizeof want, "into SQLite file %s/res.db (new)\n", g_dir);
  EXPECT_HAS(out, want);
  free(out);
  ck_assert_int_eq(run_cmd(0, "sqlite:res.db", NULL, &out), 0);
  snprintf(want, sizeof want, "into SQLite file %s/res.db\n", g_dir);
  EXPECT_HAS(out, want);
  free(out);
}
END_TEST

/* ---- 8. secrets in messages ---- */

/* A password in each form libpq accepts, and what libpq decodes it to
 * (the long one: "s3cret" 5000 times); those libpq does not parse hold
 * "s3cret" too. */
static const char *const k_forms[][2] = {
    {"postgresql://gb:s3cret@127.0.0.1:1/db", "s3cret"},
    {"postgres://gb:s3%63ret@127.0.0.1:1/db", "s3cret"},
    {"postgresql://gb@127.0.0.1:1/db?password=s3cret", "s3cret"},
    {"postgresql://gb@127.0.0.1:1/db?password=%73%33%63%72%65%74&connect_timeout=2", "s3cret"},
    {"pg:host=127.0.0.1 port=1 password=s3cret", "s3cret"},
    {"pg:host=127.0.0.1 port=1 password = 's3cret'", "s3cret"},
    {"pg:host=127.0.0.1 port=1 password='s3cret and \\'more'", "s3cret and 'more"},
    {"pg:host=127.0.0.1 port=1 PASSWORD=s3cret", "s3cret"},
    {"pg:host=127.0.0.1 port=1 Password='s3cret'", "s3cret"},
    {"postgresql://gb@127.0.0.1:1/db?PassWord=s3cret", "s3cret"},
    {"postgresql://gb:s3%zzcret@127.0.0.1:1/db", "s3cret"},
    {"postgresql://gb:s3cret@[::1:1/db", "s3cret"},
    {"pg:host=127.0.0.1 port=1 sslpassword=s3cret", "s3cret"},
    {"pg:host=s3cret port=1 password=s3cret", "s3cret"},
};
#define NFORMS (sizeof k_forms / sizeof k_forms[0])

static char *long_form(void) {
  size_t n = 5000 * 6 + 64;
  char *u = malloc(n);
  strcpy(u, "postgresql://gb:");
  for (int i = 0; i < 5000; i++) strcat(u, "s3cret");
  strcat(u, "@127.0.0.1:1/db");
  return u;
}

START_TEST(test_mask_every_form) {
  char *lf = long_form();
  for (size_t f = 0; f <= NFORMS; f++) {
    const char *url = f < NFORMS ? k_forms[f][0] : lf, *pw = f < NFORMS ? k_forms[f][1] : lf + 16;
    if (f == NFORMS) lf[strlen(lf) - strlen("@127.0.0.1:1/db")] = '\0'; /* the decoded password */
    char *u = f < NFORMS ? NULL : long_form();
    if (u) url = u;
    for (size_t n = 1; n < 700; n += 7) { /* every buffer size: masked before it is cut */
      char buf[700];
      gb_store_mask(url, buf, n);
      ck_assert_msg(!strstr(buf, "s3c") && !strstr(buf, "%73"), "%s -> %s", url, buf);
    }
    /* libpq's own messages: the parse's, and one quoting the URL */
    char *err = NULL;
    const char *target = strncmp(url, "pg:", 3) == 0 ? url + 3 : url;
    PQconninfoOption *o = PQconninfoParse(target, &err);
    PQconninfoFree(o);
    size_t qn = 2 * strlen(url) + 2 * strlen(pw) + 1000;
    char *quoting = malloc(qn);
    snprintf(quoting, qn, "%s; could not translate host name \"%s\"; \"%s\"", err ? err : "ok", url, pw);
    gb_buf b = {0};
    ck_assert_int_eq(gb_store_redact(url, quoting, &b), GB_OK);
    ck_assert_msg(!strstr(b.data, "s3c") && !strstr(b.data, "%73"), "%s -> %s", url, b.data);
    gb_buf_free(&b);
    PQfreemem(err);
    free(u);
    free(quoting);
  }
  /* PGPASSWORD too */
  setenv("PGPASSWORD", "envs3cret", 1);
  gb_buf b = {0};
  ck_assert_int_eq(gb_store_redact("pg:host=x", "password for envs3cret failed", &b), GB_OK);
  EXPECT_NOT(b.data, "envs3cret");
  gb_buf_free(&b);
  free(lf);
}
END_TEST

START_TEST(test_no_command_prints_a_password) {
  char *lf = long_form();
  setenv("PGCONNECT_TIMEOUT", "2", 1);
  for (size_t f = 0; f <= NFORMS; f++) {
    const char *url = f < NFORMS ? k_forms[f][0] : lf;
    for (size_t i = 0; i + 1 < NCMDS; i++) { /* run: no GPU here, it stops before the store */
      char *out;
      int rc = run_cmd(i, url, NULL, &out);
      ck_assert_msg(rc == 1 || rc == 2, "%s --store '%.80s': exit %d:\n%s", k_cmds[i][0], url, rc, out);
      ck_assert_msg(!strstr(out, "s3c") && !strstr(out, "%73"), "%s --store '%.80s':\n%.3000s", k_cmds[i][0], url,
                    out);
      free(out);
    }
  }
  free(lf);
}
END_TEST

/* ---- 9. a server that does not answer ---- */

/* A server on 127.0.0.1 (its port in *port) in a child process: each
 * connection is accepted and then, with startup false, never answered;
 * with startup true, answered through the start-up (SSL and GSS requests
 * refused, authentication ok, ready for a query) and then never again. */
static pid_t silent_server(bool startup, int *port) {
  int ls = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  ck_assert_int_eq(bind(ls, (struct sockaddr *)&a, sizeof a), 0);
  socklen_t len = sizeof a;
  ck_assert_int_eq(getsockname(ls, (struct sockaddr *)&a, &len), 0);
  ck_assert_int_eq(listen(ls, 16), 0);
  *port = ntohs(a.sin_port);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid) {
    close(ls);
    return pid;
  }
  for (;;) {
    int c = accept(ls, NULL, NULL);
    if (c < 0 || !startup) continue; /* held open, never read */
    unsigned char h[8];
    while (recv(c, h, 8, MSG_WAITALL) == 8) {
      uint32_t n = (uint32_t)h[0] << 24 | h[1] << 16 | h[2] << 8 | h[3];
      uint32_t code = (uint32_t)h[4] << 24 | h[5] << 16 | h[6] << 8 | h[7];
      char skip[4096];
      if (n > 8 && n - 8 <= sizeof skip && recv(c, skip, n - 8, MSG_WAITALL) != (ssize_t)(n - 8)) break;
      if (code == 80877103 || code == 80877104) { /* SSLRequest, GSSENCRequest */
        if (send(c, "N", 1, 0) != 1) break;
        continue;
      }
      static const char ok[] = {'R', 0, 0, 0, 8, 0, 0, 0, 0, 'Z', 0, 0, 0, 5, 'I'};
      if (send(c, ok, sizeof ok, 0) != (ssize_t)sizeof ok) break;
      break; /* then silent */
    }
  }
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static void expect_ends_in_time(bool startup, const char *why) {
  int port;
  pid_t srv = silent_server(startup, &port);
  char url[256];
  snprintf(url, sizeof url, "postgresql://gb@127.0.0.1:%d/db?sslmode=disable", port);
  size_t cmds[] = {0, 1, 2, 4, 5, 6}; /* import, compare, history, export --csv, report, plan */
  for (size_t k = 0; k < sizeof cmds / sizeof cmds[0]; k++) {
    double t0 = now_s();
    char *out;
    int rc = run_cmd(cmds[k], url, "2", &out);
    double took = now_s() - t0;
    ck_assert_msg(rc == 1 || rc == 2, "%s: exit %d:\n%s", k_cmds[cmds[k]][0], rc, out);
    ck_assert_msg(took < 6, "%s took %.1f s against a silent server", k_cmds[cmds[k]][0], took);
    EXPECT_HAS(out, why);
    free(out);
  }
  kill(srv, SIGKILL);
  waitpid(srv, NULL, 0);
}

START_TEST(test_silent_at_connect) { expect_ends_in_time(false, "timeout expired"); }
END_TEST

START_TEST(test_silent_after_startup) { expect_ends_in_time(true, "did not answer within 2 s (--store-timeout)"); }
END_TEST

START_TEST(test_timeout_flag) {
  char *out;
  const char *argv[] = {gb_test_gpubench(), "import", "--store", "x.db", "--store-timeout", "0", g_fixture, NULL};
  char log[4400];
  snprintf(log, sizeof log, "%s/cmd.log", g_dir);
  ck_assert_int_eq(gb_test_run((char *const *)argv, log), 2);
  out = gb_test_slurp(log, NULL);
  EXPECT_HAS(out, "--store-timeout: \"0\" is not a number of seconds from 1 to 86400");
  free(out);
  ck_assert_double_eq(gb_store_timeout(), GB_STORE_TIMEOUT_S);
}
END_TEST

/* ---- 10. temporary copies ---- */

/* The folder report or plan made under tmp, once it holds a file; its
 * path into dir. */
static bool copy_made(const char *tmp, char *dir, size_t n) {
  char cmd[4500];
  snprintf(cmd, sizeof cmd, "ls -d '%s'/gpubench-store.*/*.csv 2>/dev/null | head -n 1", tmp);
  FILE *p = popen(cmd, "r");
  bool got = fgets(dir, (int)n, p) != NULL;
  pclose(p);
  if (got) dir[strcspn(dir, "\n")] = '\0';
  return got;
}

START_TEST(test_signal_removes_copies) {
  gb_store *s;
  ck_assert_int_eq(gb_store_open("big.db", &s), GB_OK);
  char pat[4200];
  snprintf(pat, sizeof pat, "%s", gb_fixture("aa/*.csv"));
  glob_t g;
  ck_assert_int_eq(glob(pat, 0, NULL, &g), 0);
  ck_assert_uint_ge(g.gl_pathc, 50); /* 27,060 rows or more: report takes seconds */
  for (size_t i = 0; i < g.gl_pathc; i++)
    ck_assert_msg(gb_store_import(s, g.gl_pathv[i], NULL, NULL) == GB_OK, "%s", gb_errmsg());
  globfree(&g);
  gb_store_close(s);
  ck_assert_int_eq(mkdir("tmp", 0755), 0);
  char tmp[4200];
  snprintf(tmp, sizeof tmp, "%s/tmp", g_dir);
  const char *const cmds[][8] = {{"report", "--store", "big.db", "--out", "rep", "all"},
                                 {"plan", "--store", "big.db", "--measured", "all"}};
  const int sigs[] = {SIGTERM, SIGINT};
  for (size_t c = 0; c < 2; c++)
    for (size_t k = 0; k < 2; k++) {
      pid_t pid = fork();
      ck_assert_int_ge(pid, 0);
      if (pid == 0) {
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        setenv("TMPDIR", tmp, 1);
        ck_assert_ptr_nonnull(freopen("/dev/null", "w", stdout));
        ck_assert_ptr_nonnull(freopen("/dev/null", "w", stderr));
        char *argv[10] = {(char *)gb_test_gpubench()};
        for (size_t i = 0; cmds[c][i]; i++) argv[i + 1] = (char *)cmds[c][i];
        execv(argv[0], argv);
        _exit(127);
      }
      char file[4400] = "";
      bool made = false;
      for (int i = 0; i < 20000 && !(made = copy_made(tmp, file, sizeof file)); i++) usleep(1000);
      ck_assert_msg(made, "%s made no copy", cmds[c][0]);
      struct stat f, d;
      ck_assert_int_eq(stat(file, &f), 0);
      *strrchr(file, '/') = '\0';
      ck_assert_int_eq(stat(file, &d), 0);
      ck_assert_msg((f.st_mode & 0777) == 0600 && (d.st_mode & 0777) == 0700, "modes %o, %o", f.st_mode & 0777,
                    d.st_mode & 0777);
      ck_assert_int_eq(kill(pid, sigs[k]), 0);
      int st;
      ck_assert_int_eq(waitpid(pid, &st, 0), pid);
      ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == sigs[k], "%s: not ended by the signal (status %d)",
                    cmds[c][0], st);
      char cmd[4500];
      snprintf(cmd, sizeof cmd, "test -z \"$(ls -A '%s')\"", tmp);
      ck_assert_msg(system(cmd) == 0, "%s left a copy after signal %d", cmds[c][0], sigs[k]);
    }
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("store_safety");
  TCase *tc = tcase_create("store_safety");
  tcase_add_checked_fixture(tc, setup, NULL);
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_misspelt_urls_never_make_a_file);
  tcase_add_test(tc, test_write_says_engine_and_where);
  tcase_add_test(tc, test_mask_every_form);
  tcase_add_test(tc, test_no_command_prints_a_password);
  tcase_add_test(tc, test_silent_at_connect);
  tcase_add_test(tc, test_silent_after_startup);
  tcase_add_test(tc, test_timeout_flag);
  tcase_add_test(tc, test_signal_removes_copies);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return gb_test_run_suite(suite()); }
