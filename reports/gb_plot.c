/* gb_plot: writes gnuplot data and scripts and runs gnuplot on them. */
/* posix_spawn_file_actions_addchdir_np (glibc 2.29+) */
#define _GNU_SOURCE
#include "gb_plot.h"

#include "gb_escape.h"
#include "gb_output.h"

#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gb_csv.h"
#include "gb_num.h"

extern char **environ;

#define GB_PLOT_STDERR_MAX 4000 /* bytes of gnuplot's stderr kept for the message */

const char *gb_gnuplot_program(void) {
  const char *p = getenv("GPUBENCH_GNUPLOT");
  return (p && *p) ? p : "gnuplot";
}

/* ---- interruption ----
 *
 * While gnuplot renders, the running child and the temporary pictures it
 * writes are recorded here; a SIGINT, SIGTERM or SIGHUP then kills and reaps
 * the child, removes the temporary files and hands the signal on to the
 * disposition that was there before (the default ends the process with the
 * signal's status; a handler such as core's output registry runs next and
 * removes its own temporary files). The handler is installed only around a
 * render, so it never hides another's. */

static volatile pid_t g_child;
#define GB_PLOT_LIVE 2
static char *volatile g_live[GB_PLOT_LIVE]; /* temporary pictures of the render under way */
static struct sigaction g_old[3];
static const int k_sigs[3] = {SIGINT, SIGTERM, SIGHUP};

static void on_signal(int sig) {
  int saved = errno;
  pid_t c = __atomic_load_n(&g_child, __ATOMIC_SEQ_CST);
  if (c > 0) {
    kill(c, SIGKILL);
    while (waitpid(c, NULL, 0) < 0 && errno == EINTR) {
    }
  }
  for (int i = 0; i < GB_PLOT_LIVE; i++) {
    char *p = __atomic_load_n(&g_live[i], __ATOMIC_SEQ_CST);
    if (p) unlink(p); /* async-signal-safe */
  }
  for (int i = 0; i < 3; i++)
    if (k_sigs[i] == sig) sigaction(sig, &g_old[i], NULL);
  errno = saved;
  raise(sig); /* delivered to the previous disposition once this returns */
}

/* Nested: the session holds one level while gnuplot runs, each render one
 * while its temporary files exist; installed at the first, restored at the
 * last. */
static int g_guard_depth;

static void guard_on(void) {
  if (g_guard_depth++ > 0) return;
  gb_output_guard_signals(); /* handed on to: removes core's temporary outputs too */
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  for (int i = 0; i < 3; i++) sigaddset(&sa.sa_mask, k_sigs[i]);
  for (int i = 0; i < 3; i++) {
    struct sigaction cur;
    if (sigaction(k_sigs[i], NULL, &cur) != 0) continue;
    if (!(cur.sa_flags & SA_SIGINFO) && cur.sa_handler == SIG_IGN) {
      g_old[i] = cur; /* ignored (nohup): stays ignored */
      continue;
    }
    sigaction(k_sigs[i], &sa, &g_old[i]);
  }
}

static void guard_off(void) {
  if (g_guard_depth == 0 || --g_guard_depth > 0) return;
  for (int i = 0; i < 3; i++) {
    struct sigaction cur;
    if (sigaction(k_sigs[i], NULL, &cur) == 0 && !(cur.sa_flags & SA_SIGINFO) && cur.sa_handler == on_signal)
      sigaction(k_sigs[i], &g_old[i], NULL);
  }
}

static void live_set(int i, char *path) {
  char *old = __atomic_exchange_n(&g_live[i], path, __ATOMIC_SEQ_CST);
  (void)old; /* owned by the caller */
}

/* ---- subprocess ---- */

/* The environment for gnuplot: ours without LC_ALL / LC_NUMERIC, plus
 * LC_NUMERIC=C, so no locale can make it read or print a decimal comma.
 * Returns a malloc'd NULL-terminated vector whose strings are borrowed
 * (except the one added, which is static). */
static char **gnuplot_env(void) {
  size_t n = 0;
  while (environ && environ[n]) n++;
  char **env = calloc(n + 2, sizeof *env);
  if (!env) return NULL;
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    if (strncmp(environ[i], "LC_ALL=", 7) == 0 || strncmp(environ[i], "LC_NUMERIC=", 11) == 0) continue;
    env[k++] = environ[i];
  }
  static char lc_numeric[] = "LC_NUMERIC=C";
  env[k++] = lc_numeric;
  env[k] = NULL;
  return env;
}

/* Spawns argv[0] (searched in PATH) with fa and env and records it as the
 * running child. SIGINT, SIGTERM and SIGHUP are held back until it is
 * recorded, so an interruption never leaves it running unknown; the child
 * gets their default handling and an empty mask. Returns posix_spawnp's
 * result. */
static int spawn_registered(pid_t *pid, char *const argv[], const posix_spawn_file_actions_t *fa, char **env) {
  sigset_t stop, old, none;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  sigaddset(&stop, SIGHUP);
  sigemptyset(&none);
  posix_spawnattr_t at;
  posix_spawnattr_init(&at);
  posix_spawnattr_setsigmask(&at, &none);
  posix_spawnattr_setsigdefault(&at, &stop);
  posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  pthread_sigmask(SIG_BLOCK, &stop, &old);
  int rc = posix_spawnp(pid, argv[0], fa, &at, argv, env);
  if (rc == 0) __atomic_store_n(&g_child, *pid, __ATOMIC_SEQ_CST);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  posix_spawnattr_destroy(&at);
  return rc;
}

/* Runs argv (argv[0] looked up in PATH) in directory dir (NULL: here) with
 * stdout discarded and stderr collected into err (NUL-terminated, truncated
 * to errcap). *status gets the exit status, or -1 if the program could not be
 * started (errno in *spawn_errno). */
static gb_err run_program(const char *dir, char *const argv[], int *status, int *spawn_errno, char *err,
                          size_t errcap) {
  err[0] = '\0';
  *status = -1;
  *spawn_errno = 0;
  int pipefd[2];
  if (pipe(pipefd) != 0) return gb_fail(GB_E_IO, "cannot create a pipe for %s: %s", argv[0], strerror(errno));
  char **env = gnuplot_env();
  if (!env) {
    close(pipefd[0]);
    close(pipefd[1]);
    return gb_fail(GB_E_NOMEM, "out of memory starting %s", argv[0]);
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, pipefd[1], 2);
  posix_spawn_file_actions_addclose(&fa, pipefd[0]);
  posix_spawn_file_actions_addclose(&fa, pipefd[1]);
  if (dir) posix_spawn_file_actions_addchdir_np(&fa, dir);
  pid_t pid;
  int rc = spawn_registered(&pid, argv, &fa, env);
  posix_spawn_file_actions_destroy(&fa);
  free(env);
  close(pipefd[1]);
  if (rc != 0) {
    close(pipefd[0]);
    *spawn_errno = rc;
    return GB_OK;
  }
  size_t len = 0;
  char chunk[1024];
  for (;;) {
    ssize_t r = read(pipefd[0], chunk, sizeof chunk);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    size_t take = (size_t)r;
    if (len + take + 1 > errcap) take = errcap - 1 - len;
    memcpy(err + len, chunk, take);
    len += take;
  }
  err[len] = '\0';
  close(pipefd[0]);
  int ws;
  while (waitpid(pid, &ws, 0) < 0) {
    if (errno != EINTR) {
      __atomic_store_n(&g_child, 0, __ATOMIC_SEQ_CST);
      return gb_fail(GB_E_IO, "waiting for %s: %s", argv[0], strerror(errno));
    }
  }
  __atomic_store_n(&g_child, 0, __ATOMIC_SEQ_CST);
  *status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + (WIFSIGNALED(ws) ? WTERMSIG(ws) : 0);
  /* A child that could not exec (posix_spawnp reports it through rc on
   * glibc, but be safe) exits 127. */
  if (*status == 127 && len == 0) *spawn_errno = ENOENT;
  return GB_OK;
}

bool gb_gnuplot_available(void) {
  char *argv[] = {(char *)gb_gnuplot_program(), "--version", NULL};
  char err[256];
  int status, spawn_errno;
  if (run_program(NULL, argv, &status, &spawn_errno, err, sizeof err) != GB_OK) return false;
  return spawn_errno == 0 && status == 0;
}

/* Trims trailing blanks and newlines of s in place. */
static void rtrim(char *s) {
  size_t n = strlen(s);
  while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' ')) s[--n] = '\0';
}

/* Creates dir/stem.ext.tmp.XXXXXX exclusively (mkstemp: O_EXCL, never
 * through a link) for gnuplot to write into; *path gets the full path, the
 * return value its name in dir. */
static gb_err make_tmp(const char *dir, const char *stem, const char *ext, char **path) {
  size_t n = strlen(dir) + strlen(stem) + strlen(ext) + 16;
  *path = malloc(n);
  if (!*path) return gb_fail(GB_E_NOMEM, "out of memory");
  snprintf(*path, n, "%s/%s.%s.tmp.XXXXXX", dir, stem, ext);
  int fd = mkostemp(*path, O_CLOEXEC);
  if (fd < 0) {
    gb_err e = gb_fail(GB_E_IO, "%s/%s.%s: cannot create: %s", dir, stem, ext, strerror(errno));
    free(*path);
    *path = NULL;
    return e;
  }
  close(fd);
  return GB_OK;
}

/* Whether the file gnuplot wrote is whole: a PNG ends with its IEND chunk,
 * an SVG with its closing tag. gnuplot ignores write errors (a full disk
 * leaves an empty or cut file and exit status 0), so this is the check.
 * It is then synced, so a later failure cannot cut it either. */
static gb_err check_whole(const char *path, const char *shown, bool png) {
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return gb_fail(GB_E_IO, "%s: gnuplot wrote nothing: %s", shown, strerror(errno));
  struct stat st;
  char tail[64];
  size_t want = png ? 12 : sizeof tail;
  bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= (off_t)(png ? 20 : 16);
  if (ok) {
    if ((off_t)want > st.st_size) want = (size_t)st.st_size;
    ok = pread(fd, tail, want, st.st_size - (off_t)want) == (ssize_t)want;
  }
  if (ok && png) ok = memcmp(tail, "\0\0\0\0IEND\xae\x42\x60\x82", 12) == 0;
  if (ok && !png) {
    ok = false;
    for (size_t i = 0; i + 6 <= want; i++)
      if (memcmp(tail + i, "</svg>", 6) == 0) ok = true;
  }
  int sync_err = ok && fsync(fd) != 0 ? errno : 0;
  close(fd);
  if (!ok) return gb_fail(GB_E_IO, "%s: gnuplot wrote an incomplete file (%lld bytes; disk full?)", shown,
                          (long long)st.st_size);
  if (sync_err) return gb_fail(GB_E_IO, "%s: write failed: %s", shown, strerror(sync_err));
  return GB_OK;
}

/* ---- one gnuplot for many plots ----
 *
 * Starting gnuplot costs about as much as drawing a plot, and a report of
 * many runs draws hundreds: the plots of one directory go to one gnuplot
 * session, which reads, per plot, on its standard input (a socket, so a
 * dead gnuplot is an error, not a SIGPIPE)
 *   reset; reset errors; gb_png = '...'; gb_svg = '...'
 *   load 'STEM.gp'
 *   print sprintf('gpubench-plot-done-N %d %s', GPVAL_ERRNO, GPVAL_ERRMSG)
 * and answers on stderr. An error in a script ends its load and sets
 * GPVAL_ERRNO; gnuplot itself going away (a crash) is seen as the end of its
 * stderr, and the next plot starts a new session. */

typedef struct plot_session {
  pid_t pid;        /* 0: none */
  int in, err;      /* our ends */
  char *dir;        /* its working directory */
  unsigned seq;     /* plots sent */
  char buf[GB_PLOT_STDERR_MAX]; /* stderr since the last answer */
  size_t len;
} plot_session;

static plot_session g_sess = {.in = -1, .err = -1};

/* Ends the session: gnuplot reads the end of its input and exits; *status
 * gets its exit status (-1 unknown), and what it still wrote is appended to
 * the buffer. */
static void session_close(int *status) {
  if (status) *status = -1;
  if (!g_sess.pid) return;
  if (g_sess.in >= 0) close(g_sess.in);
  g_sess.in = -1;
  for (;;) {
    char chunk[1024];
    ssize_t r = read(g_sess.err, chunk, sizeof chunk);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    size_t take = (size_t)r;
    if (g_sess.len + take + 1 > sizeof g_sess.buf) take = sizeof g_sess.buf - 1 - g_sess.len;
    memcpy(g_sess.buf + g_sess.len, chunk, take);
    g_sess.len += take;
  }
  g_sess.buf[g_sess.len] = '\0';
  close(g_sess.err);
  g_sess.err = -1;
  int ws;
  pid_t w;
  while ((w = waitpid(g_sess.pid, &ws, 0)) < 0 && errno == EINTR) {
  }
  if (w == g_sess.pid && status) *status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + (WIFSIGNALED(ws) ? WTERMSIG(ws) : 0);
  __atomic_store_n(&g_child, 0, __ATOMIC_SEQ_CST);
  g_sess.pid = 0;
  free(g_sess.dir);
  g_sess.dir = NULL;
  guard_off();
}

void gb_plot_session_end(void) {
  session_close(NULL);
  g_sess.len = 0;
}

static gb_err session_open(const char *dir) {
  if (g_sess.pid && g_sess.dir && strcmp(g_sess.dir, dir) == 0) return GB_OK;
  gb_plot_session_end();
  int in[2], err[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) != 0)
    return gb_fail(GB_E_IO, "cannot create a socket for gnuplot: %s", strerror(errno));
  if (pipe2(err, O_CLOEXEC) != 0) {
    close(in[0]);
    close(in[1]);
    return gb_fail(GB_E_IO, "cannot create a pipe for gnuplot: %s", strerror(errno));
  }
  char **env = gnuplot_env();
  g_sess.dir = strdup(dir);
  if (!env || !g_sess.dir) {
    free(env);
    free(g_sess.dir);
    g_sess.dir = NULL;
    close(in[0]);
    close(in[1]);
    close(err[0]);
    close(err[1]);
    return gb_fail(GB_E_NOMEM, "out of memory starting gnuplot");
  }
  guard_on();
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in[1], 0);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, err[1], 2);
  posix_spawn_file_actions_addchdir_np(&fa, dir);
  char *argv[] = {(char *)gb_gnuplot_program(), NULL};
  pid_t pid;
  int rc = spawn_registered(&pid, argv, &fa, env);
  posix_spawn_file_actions_destroy(&fa);
  free(env);
  close(in[1]);
  close(err[1]);
  if (rc != 0) {
    close(in[0]);
    close(err[0]);
    free(g_sess.dir);
    g_sess.dir = NULL;
    guard_off();
    return gb_fail(GB_E_UNSUPPORTED, "cannot run %s: %s (install gnuplot, e.g. apt-get install gnuplot-nox)", argv[0],
                   strerror(rc));
  }
  g_sess.pid = pid;
  g_sess.in = in[0];
  g_sess.err = err[0];
  g_sess.len = 0;
  return GB_OK;
}

static bool send_all(int fd, const char *p, size_t n) {
  while (n) {
    ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= (size_t)w;
  }
  return true;
}

/* Renders stem.gp in the session: GB_OK, or an error with gnuplot's words. */
static gb_err session_plot(const char *dir, const char *stem, const char *png, const char *svg) {
  gb_err e = session_open(dir);
  if (e) return e;
  unsigned seq = ++g_sess.seq;
  char cmd[2400], marker[64];
  snprintf(cmd, sizeof cmd,
           "reset; reset errors; gb_png = '%s'; gb_svg = '%s'\nload '%s.gp'\n"
           "print sprintf('gpubench-plot-done-%u %%d %%s', GPVAL_ERRNO, GPVAL_ERRMSG)\n",
           png, svg, stem, seq);
  int mlen = snprintf(marker, sizeof marker, "gpubench-plot-done-%u ", seq);
  g_sess.len = 0;
  bool sent = send_all(g_sess.in, cmd, strlen(cmd));
  /* read stderr up to this plot's answer (or its end: gnuplot went away) */
  char *answer = NULL;
  while (sent && !answer) {
    if (g_sess.len + 1 >= sizeof g_sess.buf) { /* keep the last half: the answer comes last */
      memmove(g_sess.buf, g_sess.buf + sizeof g_sess.buf / 2, g_sess.len - sizeof g_sess.buf / 2);
      g_sess.len -= sizeof g_sess.buf / 2;
    }
    ssize_t r = read(g_sess.err, g_sess.buf + g_sess.len, sizeof g_sess.buf - 1 - g_sess.len);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    g_sess.len += (size_t)r;
    g_sess.buf[g_sess.len] = '\0';
    char *m = strstr(g_sess.buf, marker);
    if (m && strchr(m, '\n')) answer = m;
  }
  if (!answer) {
    int status;
    session_close(&status);
    rtrim(g_sess.buf);
    return gb_fail(GB_E_IO, "%s/%s.gp: gnuplot exited with status %d: %s", dir, stem, status,
                   g_sess.buf[0] ? g_sess.buf : "(no message)");
  }
  int gp_errno = atoi(answer + mlen);
  if (gp_errno == 0) return GB_OK;
  const char *msg = strchr(answer + mlen, ' ');
  *answer = '\0'; /* what came before: gnuplot's own report, with the line */
  rtrim(g_sess.buf);
  char *nl = strchr(answer + 1, '\n');
  if (nl) *nl = '\0';
  return gb_fail(GB_E_IO, "%s/%s.gp: gnuplot failed: %s", dir, stem,
                 g_sess.buf[0] ? g_sess.buf : msg ? msg + 1 : "(no message)");
}

gb_err gb_plot_render(const char *dir, const char *stem) {
  char final_png[4096], final_svg[4096];
  snprintf(final_png, sizeof final_png, "%s/%s.png", dir, stem);
  snprintf(final_svg, sizeof final_svg, "%s/%s.svg", dir, stem);
  char *png = NULL, *svg = NULL;
  guard_on(); /* also when the session is not up yet: the temporary files */
  gb_err e = make_tmp(dir, stem, "png", &png);
  if (!e) live_set(0, png);
  if (!e) e = make_tmp(dir, stem, "svg", &svg);
  if (!e) live_set(1, svg);
  /* names in dir: the stem is plain (stem_ok) and mkstemp adds letters and digits */
  if (!e) e = session_plot(dir, stem, strrchr(png, '/') + 1, strrchr(svg, '/') + 1);
  if (!e) e = check_whole(png, final_png, true);
  if (!e) e = check_whole(svg, final_svg, false);
  if (!e && rename(png, final_png) != 0) e = gb_fail(GB_E_IO, "%s: cannot replace: %s", final_png, strerror(errno));
  if (!e && rename(svg, final_svg) != 0) e = gb_fail(GB_E_IO, "%s: cannot replace: %s", final_svg, strerror(errno));
  if (e) {
    /* no picture of a failed plot: neither a cut one nor one from before */
    if (png) unlink(png);
    if (svg) unlink(svg);
    if (e != GB_E_UNSUPPORTED && e != GB_E_NOMEM) {
      unlink(final_png);
      unlink(final_svg);
    }
  }
  live_set(0, NULL);
  live_set(1, NULL);
  guard_off();
  free(png);
  free(svg);
  return e;
}

/* ---- script and data writing ---- */

static bool stem_ok(const char *stem) {
  if (!stem || !*stem || stem[0] == '.') return false;
  for (const char *c = stem; *c; c++)
    if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '_' ||
          *c == '-' || *c == '.'))
      return false;
  return true;
}

/* Appends s as a gnuplot single-quoted string (core/gb_escape.h: '' for a
 * quote, a blank for a line end or control character). */
static gb_err put_gp_string(gb_buf *b, const char *s) {
  gb_err e = gb_buf_puts(b, "'");
  if (!e) e = gb_esc_gnuplot(b, s ? s : "");
  return e ? e : gb_buf_puts(b, "'");
}

/* A tic label: gnuplot reads it as a format for the tic's value, so a
 * '%' in a name ("%s" in a case name failed the whole plot with "Bad format
 * character") is doubled. */
static gb_err put_gp_tic(gb_buf *b, const char *s) {
  gb_buf t = {0};
  gb_err e = gb_esc_gnuplot(&t, s ? s : "");
  if (!e) e = gb_buf_puts(b, "'");
  for (size_t i = 0; i < t.len && !e; i++) e = t.data[i] == '%' ? gb_buf_puts(b, "%%") : gb_buf_append(b, t.data + i, 1);
  gb_buf_free(&t);
  return e ? e : gb_buf_puts(b, "'");
}

/* Appends s as a double-quoted string column of a gnuplot data file
 * (gnuplot knows no escapes there, so a double quote becomes a single one). */
static gb_err put_dat_string(gb_buf *b, const char *s) {
  gb_err e = gb_buf_puts(b, "\"");
  for (const char *c = s ? s : ""; *c && e == GB_OK; c++) {
    if (*c == '"') e = gb_buf_puts(b, "'");
    else if (*c == '\n' || *c == '\r') e = gb_buf_puts(b, " ");
    else e = gb_buf_append(b, c, 1);
  }
  if (e == GB_OK) e = gb_buf_puts(b, "\"");
  return e;
}

static gb_err put_num(gb_buf *b, double v) {
  char num[64];
  gb_fmt_double(num, sizeof num, v);
  return gb_buf_puts(b, num);
}

/* C-locale printf into the buffer. */
static gb_err put_c(gb_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static gb_err put_c(gb_buf *b, const char *fmt, ...) {
  static locale_t c_loc = (locale_t)0;
  if (c_loc == (locale_t)0) c_loc = newlocale(LC_ALL_MASK, "C", (locale_t)0);
  locale_t old = c_loc ? uselocale(c_loc) : (locale_t)0;
  char small[1024];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (old) uselocale(old);
  if (n < 0 || (size_t)n >= sizeof small) return gb_fail(GB_E_INTERNAL, "plot script line too long");
  return gb_buf_append(b, small, (size_t)n);
}

static bool point_ok(const gb_plot_spec *p, double x, double y) {
  if (!isfinite(x) || !isfinite(y)) return false;
  if (p->logx && x <= 0) return false;
  if (p->logy && y <= 0) return false;
  return true;
}

static gb_err write_file(const char *dir, const char *stem, const char *ext, const gb_buf *b) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s.%s", dir, stem, ext);
  return gb_write_file_atomic(path, b->data ? b->data : "", b->len);
}

/* The common head of every script: terminal, output, titles, axes, grid,
 * key and marker lines. The body (plot command) follows; the tail repeats
 * it for the SVG terminal. */
/* Legends of up to this many entries go below the plot, where they take no
 * width from it; longer ones to its right, in columns. */
#define GB_PLOT_KEY_BELOW_MAX 8
#define GB_PLOT_COLOURS 8 /* gnuplot's default line colours */

/* The longest legend entry of the series drawn (and of the reference ticks'
 * title when ref_title is not NULL), in characters. */
static size_t longest_title(const gb_plot_series *s, size_t ns, const char *ref_title) {
  size_t l = ref_title ? strlen(ref_title) : 0;
  for (size_t i = 0; i < ns; i++)
    if (s[i].title && strlen(s[i].title) > l) l = strlen(s[i].title);
  return l;
}

/* Byte-count ticks on a log x axis over [xmin, xmax]: powers of two a
 * step of 1, 2, 5, 10 or 20 doublings apart (at most 9 ticks), labelled
 * "32 B", "1 KiB", "4 GiB" (gnuplot's own %b %B pads "32   B"). */
static gb_err put_byte_tics(gb_buf *g, double xmin, double xmax) {
  static const int steps[] = {1, 2, 5, 10, 20};
  int kmin = (int)floor(log2(xmin)), kmax = (int)ceil(log2(xmax));
  int step = 20;
  for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
    if ((kmax - kmin) / steps[i] <= 8) {
      step = steps[i];
      break;
    }
  gb_err e = gb_buf_puts(g, "set xtics (");
  bool first = true;
  for (int k = kmin; k <= kmax && !e; k++) {
    if (k < 0 || k > 62 || k % step != 0) continue;
    char lab[48], at[64];
    gb_fmt_size(lab, sizeof lab, (int64_t)1 << k);
    gb_fmt_double(at, sizeof at, ldexp(1.0, k));
    e = put_c(g, "%s'%s' %s", first ? "" : ", ", lab, at);
    first = false;
  }
  if (!e) e = gb_buf_puts(g, ")\n");
  /* a little room at both ends, so a tick at the first or last point shows */
  char lo[64], hi[64];
  gb_fmt_double(lo, sizeof lo, xmin / pow(2, 0.2));
  gb_fmt_double(hi, sizeof hi, xmax * pow(2, 0.2));
  if (!e) e = put_c(g, "set xrange [%s:%s]\n", lo, hi);
  return e;
}

/* nkey legend entries, the longest of longest characters; the x tic
 * labels take tick_rows lines below the axis; [xmin, xmax] the x values
 * drawn (NaN: not known). */
static gb_err put_head(gb_buf *g, const gb_plot_spec *p, size_t nkey, size_t longest, double tick_rows, double xmin,
                       double xmax) {
  int w = p->width_px > 0 ? p->width_px : 1000;
  int h = p->height_px > 0 ? p->height_px : 600;
  gb_err e = put_c(g, "# gnuplot script written by gpubench report; re-run with: gnuplot %s.gp\n", p->stem);
  if (!e) e = put_c(g, "# data: %s.dat (one block per series, numbers in the C locale)\n", p->stem);
  if (!e) e = put_c(g, "set terminal pngcairo size %d,%d font 'Sans,11' noenhanced\n", w, h);
  if (!e) e = gb_buf_puts(g, "set termoption noenhanced\nset decimalsign '.'\nset encoding utf8\n");
  /* gpubench renders into temporary names it passes as gb_png and gb_svg
   * (gnuplot -e); a user re-running the script gets the plain names */
  if (!e) e = put_c(g, "if (!exists('gb_png')) gb_png = '%s.png'\nset output gb_png\n", p->stem);
  if (!e) e = gb_buf_puts(g, "set title ");
  if (!e) e = put_gp_string(g, p->title);
  if (!e) e = gb_buf_puts(g, "\nset xlabel ");
  if (!e) e = put_gp_string(g, p->xlabel);
  if (!e) e = gb_buf_puts(g, "\nset ylabel ");
  if (!e) e = put_gp_string(g, p->ylabel);
  if (!e) e = gb_buf_puts(g, "\nset grid back lc rgb '#dddddd'\n");
  if (nkey <= GB_PLOT_KEY_BELOW_MAX) {
    /* below, at the bottom of the canvas, in one or two columns (two when an
     * entry of about 9 px a character, with margin, plus its sample fits half
     * the width: gnuplot may pick one column where this guesses two).
     * gnuplot 5.4's own "key below" is drawn over the x label, so the key is
     * placed and the bottom margin sized by hand: the tic labels, 3 rows for
     * the x label and the gaps, the key 1.2 rows an entry line, 1 to spare. */
    int cols = (double)longest * 9 + 100 <= (double)w / 2 - 40 ? 2 : 1;
    size_t rows = (nkey + (size_t)cols - 1) / (size_t)cols;
    if (!e)
      e = put_c(g,
                "set key at screen 0.5, screen 0.015 center bottom horizontal box opaque Left reverse spacing 1.2 "
                "width 2 maxcols %d\nset bmargin %d\n",
                cols, (int)ceil(tick_rows + 3 + 1.2 * (double)rows + 1));
  } else if (!e) {
    e = gb_buf_puts(g, "set key outside right top box opaque Left reverse spacing 1.2\n");
  }
  if (!e) e = gb_buf_puts(g, "set border 3\nset tics nomirror\n");
  if (!e && p->logx) e = gb_buf_puts(g, p->x_bytes ? "set logscale x 2\n" : "set logscale x 10\n");
  /* binary-prefixed byte counts on the x axis: 64 KiB, 1 GiB */
  if (!e && p->x_bytes && p->logx && xmin > 0 && xmax >= xmin) e = put_byte_tics(g, xmin, xmax);
  else if (!e && p->x_bytes) e = gb_buf_puts(g, "set format x '%.0b %BB'\n");
  if (!e && p->logy) e = gb_buf_puts(g, "set logscale y 10\n");
  /* a y marker's label goes at the right end (data tends to start at the
   * left: small sizes, first bars), unless a labelled x marker stands in the
   * right half: its label runs down from the top along its line, over the
   * right end of a y label ("budget" under "deadline") */
  bool ylabel_left = false;
  for (size_t i = 0; i < p->nmarkers && isfinite(xmin) && isfinite(xmax) && xmax > xmin; i++) {
    const gb_plot_marker *m = &p->markers[i];
    if (m->axis != 'x' || !m->label || !m->label[0]) continue;
    bool lg = p->logx && xmin > 0 && m->at > 0;
    double f = lg ? log(m->at / xmin) / log(xmax / xmin) : (m->at - xmin) / (xmax - xmin);
    if (f > 0.5) ylabel_left = true;
  }
  for (size_t i = 0; i < p->nmarkers && !e; i++) {
    const gb_plot_marker *m = &p->markers[i];
    char at[64];
    gb_fmt_double(at, sizeof at, m->at);
    if (m->axis == 'x') {
      e = put_c(g, "set arrow from first %s, graph 0 to first %s, graph 1 nohead dt 2 lw 1.5 lc rgb '#aa0000' front\n",
                at, at);
      if (!e) e = gb_buf_puts(g, "set label ");
      if (!e) e = put_gp_string(g, m->label);
      /* along the line from the top; over named rows (a tornado), whose
       * bars span the height, across the half row free at the top instead */
      if (!e && p->nylabels > 0)
        e = put_c(g, " at first %s, graph 1 left offset 0.6,-1 tc rgb '#aa0000' front\n", at);
      else if (!e)
        e = put_c(g, " at first %s, graph 0.97 rotate by 90 right offset -1.3,0 tc rgb '#aa0000' front\n", at);
    } else {
      e = put_c(g, "set arrow from graph 0, first %s to graph 1, first %s nohead dt 2 lw 1.5 lc rgb '#aa0000' front\n",
                at, at);
      if (!m->label || !m->label[0]) continue; /* a line without a label */
      if (!e) e = gb_buf_puts(g, "set label ");
      if (!e) e = put_gp_string(g, m->label);
      if (!e)
        e = put_c(g, " at graph %s, first %s %s offset 0,0.7 tc rgb '#aa0000' front\n", ylabel_left ? "0.01" : "0.99",
                  at, ylabel_left ? "left" : "right");
    }
  }
  return e;
}

static gb_err put_tail(gb_buf *g, const gb_plot_spec *p) {
  int w = p->width_px > 0 ? p->width_px : 1000;
  int h = p->height_px > 0 ? p->height_px : 600;
  gb_err e = put_c(g, "set terminal svg size %d,%d font 'Sans,11' noenhanced background rgb 'white'\n", w, h);
  if (!e) e = gb_buf_puts(g, "set termoption noenhanced\n");
  if (!e) e = put_c(g, "if (!exists('gb_svg')) gb_svg = '%s.svg'\nset output gb_svg\nreplot\nunset output\n", p->stem);
  return e;
}

/* The first plottable point of any series, to anchor invisible marker
 * points that pull the autoscaled range over the markers. */
static bool first_point(const gb_plot_spec *p, const gb_plot_series *s, size_t ns, double *x, double *y) {
  for (size_t i = 0; i < ns; i++)
    for (size_t j = 0; j < s[i].n; j++)
      if (point_ok(p, s[i].x[j], s[i].y[j])) {
        *x = s[i].x[j];
        *y = s[i].y[j];
        return true;
      }
  return false;
}

static bool series_has_bar(const gb_plot_series *s, size_t ncat) {
  for (size_t j = 0; j < ncat; j++)
    if (isfinite(s->y[j])) return true;
  return false;
}

/* gnuplot's alignment and offset (in characters) of a label side: the text
 * clears the point marker by 0.8 characters across and 0.4 (above) or 0.7
 * (below, the text's own height) up or down. */
static const char *label_placement(gb_plot_label_side side) {
  switch (side) {
  case GB_PLOT_LABEL_LEFT_BELOW: return "right offset -0.8,-0.7";
  case GB_PLOT_LABEL_LEFT_ABOVE: return "right offset -0.8,0.4";
  case GB_PLOT_LABEL_RIGHT_BELOW: return "left offset 0.8,-0.7";
  case GB_PLOT_LABEL_RIGHT_ABOVE: break;
  }
  return "left offset 0.8,0.4";
}

/* A plottable point with a non-empty label (see series_has_bar). */
static bool series_has_label(const gb_plot_spec *p, const gb_plot_series *s) {
  if (!s->labels) return false;
  for (size_t j = 0; j < s->n; j++)
    if (point_ok(p, s->x[j], s->y[j]) && s->labels[j] && s->labels[j][0]) return true;
  return false;
}

/* True when a series has something to draw: a plottable point (lines) or a
 * finite bar (bars, ncat > 0). */
static bool series_has_data(const gb_plot_spec *p, const gb_plot_series *s, bool bars, size_t ncat) {
  if (bars) return series_has_bar(s, ncat);
  for (size_t j = 0; j < s->n; j++)
    if (point_ok(p, s->x[j], s->y[j])) return true;
  return false;
}

/* The series with data, in order, into *kept (malloc'd, *nkept of them),
 * and each one's colour: its own, else the 1-based index it had in s (a
 * series keeps its colour whether or not others are left out). Series with nothing to draw
 * are left out: no legend entry, no bar slot. */
static gb_err keep_series(const gb_plot_spec *p, const gb_plot_series *s, size_t ns, bool bars, size_t ncat,
                          gb_plot_series **kept, size_t **colour, size_t *nkept) {
  *kept = calloc(ns ? ns : 1, sizeof **kept);
  *colour = calloc(ns ? ns : 1, sizeof **colour);
  *nkept = 0;
  if (!*kept || !*colour) {
    free(*kept);
    free(*colour);
    *kept = NULL;
    *colour = NULL;
    return gb_fail(GB_E_NOMEM, "plot %s: out of memory", p->stem);
  }
  for (size_t i = 0; i < ns; i++) {
    if (!series_has_data(p, &s[i], bars, ncat)) continue;
    (*kept)[*nkept] = s[i];
    (*colour)[*nkept] = s[i].colour > 0 ? (size_t)s[i].colour : i + 1;
    (*nkept)++;
  }
  return GB_OK;
}

static gb_err check_spec(const gb_plot_spec *p) {
  if (!p || !stem_ok(p->stem))
    return gb_fail(GB_E_INPUT, "plot stem \"%s\" is not a plain file name", p && p->stem ? p->stem : "");
  return GB_OK;
}

static gb_err lines_files(const char *dir, const gb_plot_spec *p, const gb_plot_series *all, size_t nall) {
  gb_err e = check_spec(p);
  if (e) return e;
  double ax, ay;
  if (!first_point(p, all, nall, &ax, &ay)) return gb_fail(GB_E_INPUT, "plot %s: no data to plot", p->stem);
  gb_plot_series *s;
  size_t *colour, ns;
  if ((e = keep_series(p, all, nall, false, 0, &s, &colour, &ns))) return e;
  gb_buf d = {0}, g = {0};
  /* data: block i = series i; columns x y [label]; a blank line breaks the
   * line where a point is missing */
  for (size_t i = 0; i < ns && !e; i++) {
    e = put_c(&d, "%s# series %zu: ", i ? "\n\n" : "", i);
    if (!e) e = put_dat_string(&d, s[i].title);
    if (!e) e = gb_buf_puts(&d, "\n# x y label\n");
    bool any = false;
    for (size_t j = 0; j < s[i].n && !e; j++) {
      if (!point_ok(p, s[i].x[j], s[i].y[j])) {
        if (any) e = gb_buf_puts(&d, "\n");
        continue;
      }
      any = true;
      e = put_num(&d, s[i].x[j]);
      if (!e) e = gb_buf_puts(&d, " ");
      if (!e) e = put_num(&d, s[i].y[j]);
      if (!e) e = gb_buf_puts(&d, " ");
      if (!e) e = put_dat_string(&d, s[i].labels && s[i].labels[j] ? s[i].labels[j] : "");
      if (!e) e = gb_buf_puts(&d, "\n");
    }
    /* a block needs one point or gnuplot stops; a series with none gets a
     * single undefined point ("NaN"), which gnuplot skips */
    if (!e && !any) e = gb_buf_puts(&d, "NaN NaN \"\"\n");
  }
  /* markers block: invisible points that stretch the axes over markers */
  if (!e) e = put_c(&d, "\n\n# markers (invisible, widen the axes)\n");
  for (size_t m = 0; m < p->nmarkers && !e; m++) {
    double mx = p->markers[m].axis == 'x' ? p->markers[m].at : ax;
    double my = p->markers[m].axis == 'x' ? ay : p->markers[m].at;
    if (!point_ok(p, mx, my)) continue;
    e = put_num(&d, mx);
    if (!e) e = gb_buf_puts(&d, " ");
    if (!e) e = put_num(&d, my);
    if (!e) e = gb_buf_puts(&d, "\n");
  }
  if (!e) e = put_num(&d, ax);
  if (!e) e = gb_buf_puts(&d, " ");
  if (!e) e = put_num(&d, ay);
  if (!e) e = gb_buf_puts(&d, "\n");

  /* the x extent drawn, markers included (for byte ticks) */
  double xmin = INFINITY, xmax = -INFINITY;
  for (size_t i = 0; i < ns; i++)
    for (size_t j = 0; j < s[i].n; j++)
      if (point_ok(p, s[i].x[j], s[i].y[j])) xmin = fmin(xmin, s[i].x[j]), xmax = fmax(xmax, s[i].x[j]);
  for (size_t m = 0; m < p->nmarkers; m++)
    if (p->markers[m].axis == 'x' && point_ok(p, p->markers[m].at, ay))
      xmin = fmin(xmin, p->markers[m].at), xmax = fmax(xmax, p->markers[m].at);
  size_t nkey = 0;
  for (size_t i = 0; i < ns; i++) nkey += s[i].title && s[i].title[0];
  if (!e) e = put_head(&g, p, nkey, longest_title(s, ns, NULL), 1, xmin, xmax);
  if (!e && p->nylabels) {
    e = gb_buf_puts(&g, "set ytics (");
    for (size_t i = 0; i < p->nylabels && !e; i++) {
      e = put_gp_tic(&g, p->ylabels[i]);
      if (!e) e = put_c(&g, " %zu%s", i + 1, i + 1 < p->nylabels ? ", " : "");
    }
    if (!e) e = gb_buf_puts(&g, ")\nset offsets graph 0.15, graph 0.15, 0, 0\n");
    /* the named rows 1..n with half a row free above and below (no
     * reference lines at the ends to widen the axis: they read as limits) */
    if (!e) e = put_c(&g, "set yrange [0.4:%zu.6]\n", p->nylabels);
  }
  if (!e) e = gb_buf_puts(&g, "plot \\\n");
  for (size_t i = 0; i < ns && !e; i++) {
    /* dashed: a dashed line through open circles; solid: filled circles.
     * gnuplot has 8 line colours: colours 9 and up reuse them dashed, so
     * series 1 and 9 still differ */
    bool dashed = s[i].dashed || colour[i] > GB_PLOT_COLOURS;
    size_t lc = (colour[i] - 1) % GB_PLOT_COLOURS + 1;
    const char *with = s[i].style == GB_PLOT_POINTS ? (dashed ? "points pt 6 ps 1.2" : "points pt 7 ps 1.2")
                       : s[i].style == GB_PLOT_LINES ? (dashed ? "lines dt 2" : "lines")
                       : dashed                      ? "linespoints dt 2 pt 6 ps 0.8"
                                                     : "linespoints pt 7 ps 0.8";
    e = put_c(&g, "  '%s.dat' index %zu using 1:2 with %s lw %s lc %zu ", p->stem, i, with,
              s[i].emphasis ? "3" : "1.5", lc);
    /* no title: no legend entry (a second style of a series already listed) */
    if (!e) e = s[i].title && s[i].title[0] ? gb_buf_puts(&g, "title ") : gb_buf_puts(&g, "notitle");
    if (!e && s[i].title && s[i].title[0]) e = put_gp_string(&g, s[i].title);
    if (!e && series_has_label(p, &s[i]))
      e = put_c(&g, ", \\\n  '%s.dat' index %zu using 1:2:3 with labels %s font ',9' notitle", p->stem, i,
                label_placement(s[i].label_side));
    if (!e) e = gb_buf_puts(&g, ", \\\n");
  }
  if (!e) e = put_c(&g, "  '%s.dat' index %zu using 1:2 with points ps 0 lc rgb 'white' notitle\n", p->stem, ns);
  if (!e) e = put_tail(&g, p);
  if (!e) e = write_file(dir, p->stem, "dat", &d);
  if (!e) e = write_file(dir, p->stem, "gp", &g);
  gb_buf_free(&d);
  gb_buf_free(&g);
  free(s);
  free(colour);
  return e;
}

gb_err gb_plot_lines_script(const char *dir, const gb_plot_spec *p, const gb_plot_series *s, size_t ns) {
  return lines_files(dir, p, s, ns);
}

gb_err gb_plot_lines(const char *dir, const gb_plot_spec *p, const gb_plot_series *s, size_t ns) {
  gb_err e = lines_files(dir, p, s, ns);
  return e ? e : gb_plot_render(dir, p->stem);
}

/* A bar's value as printed above it: 3 significant figures or so. */
static void bar_label(char *buf, size_t n, double v) {
  double a = fabs(v);
  if (a >= 100) gb_snprintf_c(buf, n, "%.0f", v);
  else if (a >= 10) gb_snprintf_c(buf, n, "%.1f", v);
  else gb_snprintf_c(buf, n, "%.2f", v);
}

static gb_err bars_files(const char *dir, const gb_plot_spec *p, const char *const *cats, size_t ncat,
                         const gb_plot_series *all, size_t nall) {
  gb_err e = check_spec(p);
  if (e) return e;
  if (p->logx || p->logy) return gb_fail(GB_E_INPUT, "plot %s: bars take linear axes", p->stem);
  for (size_t i = 0; i < nall; i++)
    if (all[i].n != ncat) return gb_fail(GB_E_INTERNAL, "plot %s: series %zu has %zu bars for %zu categories",
                                         p->stem, i, all[i].n, ncat);
  gb_plot_series *s;
  size_t *colour, ns;
  if ((e = keep_series(p, all, nall, true, ncat, &s, &colour, &ns))) return e;
  if (ns == 0) {
    free(s);
    free(colour);
    return gb_fail(GB_E_INPUT, "plot %s: no data to plot", p->stem);
  }
  /* reference ticks of the series drawn (a left-out series has no bar to mark) */
  bool any_ref = false;
  for (size_t i = 0; i < ns; i++)
    for (size_t j = 0; j < ncat; j++)
      if (s[i].ref && isfinite(s[i].ref[j])) any_ref = true;
  /* geometry: group j spans [j - 0.4, j + 0.4]; bar i of ns sits at
   * x = j - 0.4 + (i + 0.5) * w with w = 0.8 / ns */
  double w = 0.8 / (double)ns;
  /* values over the bars when a bar is at least 30 px wide (a plot of about
   * width - 120 px, groups 0.8 of their slot) */
  double bar_px = ((p->width_px > 0 ? p->width_px : 1000) - 120.0) / (double)ncat * w;
  bool value_labels = bar_px >= 30;
  gb_buf d = {0}, g = {0};
  for (size_t i = 0; i < ns && !e; i++) {
    e = put_c(&d, "%s# series %zu: ", i ? "\n\n" : "", i);
    if (!e) e = put_dat_string(&d, s[i].title);
    if (!e) e = gb_buf_puts(&d, "\n# x value reference category value_text\n");
    size_t rows = 0;
    for (size_t j = 0; j < ncat && !e; j++) {
      double ref = s[i].ref ? s[i].ref[j] : NAN;
      if (!isfinite(s[i].y[j]) && !isfinite(ref)) continue;
      double x = (double)j - 0.4 + ((double)i + 0.5) * w;
      char lab[64] = "";
      if (isfinite(s[i].y[j])) bar_label(lab, sizeof lab, s[i].y[j]);
      e = put_num(&d, x);
      if (!e) e = gb_buf_puts(&d, " ");
      if (!e) e = isfinite(s[i].y[j]) ? put_num(&d, s[i].y[j]) : gb_buf_puts(&d, "NaN");
      if (!e) e = gb_buf_puts(&d, " ");
      if (!e) e = isfinite(ref) ? put_num(&d, ref) : gb_buf_puts(&d, "NaN");
      if (!e) e = gb_buf_puts(&d, " ");
      if (!e) e = put_dat_string(&d, cats[j]);
      if (!e) e = gb_buf_puts(&d, " ");
      if (!e) e = put_dat_string(&d, lab);
      if (!e) e = gb_buf_puts(&d, "\n");
      rows++;
    }
    if (!e && rows == 0) e = gb_buf_puts(&d, "NaN NaN NaN \"\" \"\"\n");
  }
  size_t nkey = ns + (any_ref ? 1 : 0);
  const char *ref_title = p->ref_title ? p->ref_title : "reference";
  /* names wider than their group: slanted by 30 degrees, ending at their
   * tick. The plot is about width - 120 px wide (less the key's width when
   * it sits on the right, about 300 px); a character of the 11-point font is
   * about 8 px wide and half a line high, so a slanted name of L characters
   * takes L x 0.5 x 0.5 lines below the axis. */
  size_t longest = 0;
  for (size_t j = 0; j < ncat; j++)
    if (strlen(cats[j]) > longest) longest = strlen(cats[j]);
  int width = p->width_px > 0 ? p->width_px : 1000;
  double plot_px = (double)width - 120 - (nkey > GB_PLOT_KEY_BELOW_MAX ? 300 : 0);
  bool slanted = (double)longest * 8 + 12 > plot_px / (double)ncat;
  double tick_rows = slanted ? 1 + 0.25 * (double)longest : 1;
  if (!e) e = put_head(&g, p, nkey, longest_title(s, ns, any_ref ? ref_title : NULL), tick_rows, NAN, NAN);
  if (!e) e = put_c(&g, "set style fill solid 0.85 border rgb '#333333'\nset boxwidth %.6f absolute\n", w * 0.95);
  if (!e) e = put_c(&g, "set xrange [-0.6:%.1f]\nset yrange [0:*]\nset offsets 0,0,graph 0.08,0\n",
                    (double)ncat - 0.4);
  if (!e) e = gb_buf_puts(&g, "set grid noxtics ytics\nset xtics (");
  for (size_t j = 0; j < ncat && !e; j++) {
    e = put_gp_tic(&g, cats[j]);
    if (!e) e = put_c(&g, " %zu%s", j, j + 1 < ncat ? ", " : ")\n");
  }
  if (!e && slanted) {
    /* the first name runs left of the plot by about cos(30) = 0.87 of its
     * length: widen the left margin (in characters) to keep it whole */
    int lmargin = (int)((double)longest * 0.87) - 2;
    if (lmargin < 10) lmargin = 10;
    if (lmargin > 40) lmargin = 40;
    e = put_c(&g, "set xtics rotate by 30 right\nset lmargin %d\n", lmargin);
    /* gnuplot keeps room on the right as if the last name ran that way */
    if (!e && nkey <= GB_PLOT_KEY_BELOW_MAX) e = gb_buf_puts(&g, "set rmargin 3\n");
  }
  if (!e) e = gb_buf_puts(&g, "plot \\\n");
  for (size_t i = 0; i < ns && !e; i++) {
    e = put_c(&g, "  '%s.dat' index %zu using 1:2 with boxes lc %zu title ", p->stem, i, colour[i]);
    if (!e) e = put_gp_string(&g, s[i].title);
    /* labels only over real bars: gnuplot 5.4 crashes (SIGSEGV) drawing
     * "with labels" from a block whose only point is undefined */
    if (!e && value_labels && series_has_bar(&s[i], ncat))
      e = put_c(&g, ", \\\n  '%s.dat' index %zu using 1:2:5 with labels offset 0,0.6 font ',8' notitle", p->stem, i);
    if (!e) e = gb_buf_puts(&g, i + 1 < ns || any_ref ? ", \\\n" : "\n");
  }
  bool titled = false;
  for (size_t i = 0; i < ns && !e && any_ref; i++) {
    e = put_c(&g, "  '%s.dat' index %zu using 1:3:(%.6f) with xerrorbars pt 0 ps 0 lw 2.5 lc rgb 'black' ", p->stem,
              i, w * 0.5);
    if (!e && !titled) {
      e = gb_buf_puts(&g, "title ");
      if (!e) e = put_gp_string(&g, ref_title);
      titled = true;
    } else if (!e) {
      e = gb_buf_puts(&g, "notitle");
    }
    if (!e) e = gb_buf_puts(&g, i + 1 < ns ? ", \\\n" : "\n");
  }
  if (!e) e = put_tail(&g, p);
  if (!e) e = write_file(dir, p->stem, "dat", &d);
  if (!e) e = write_file(dir, p->stem, "gp", &g);
  gb_buf_free(&d);
  gb_buf_free(&g);
  free(s);
  free(colour);
  return e;
}

gb_err gb_plot_bars_script(const char *dir, const gb_plot_spec *p, const char *const *categories, size_t ncat,
                           const gb_plot_series *s, size_t ns) {
  return bars_files(dir, p, categories, ncat, s, ns);
}

gb_err gb_plot_bars(const char *dir, const gb_plot_spec *p, const char *const *categories, size_t ncat,
                    const gb_plot_series *s, size_t ns) {
  gb_err e = bars_files(dir, p, categories, ncat, s, ns);
  return e ? e : gb_plot_render(dir, p->stem);
}
