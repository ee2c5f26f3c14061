/* gb_plot: writes gnuplot data and scripts and runs gnuplot on them. */
/* posix_spawn_file_actions_addchdir_np (glibc 2.29+) */
#define _GNU_SOURCE
#include "gb_plot.h"
#include "gb_svg.h"

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
  if (!e) e = gb_svg_slim_file(svg); /* small enough to inline (gb_svg.h) */
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
