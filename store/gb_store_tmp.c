/* gb_store_tmp: selections of a store as results files in a temporary
 * folder, for the commands that read files (report, plan --measured).
 *
 * The folder is private (mkdtemp: 0700) and so are its files (0600, made
 * with O_EXCL). While it exists, SIGINT, SIGTERM, SIGHUP and SIGQUIT
 * remove it before the signal does what it did before (a signal handler
 * that only unlinks and rmdirs the paths already made, both
 * async-signal-safe, then raises the signal again under the old action):
 * an interrupted report leaves no copy of the results behind. SIGKILL
 * cannot be caught. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gb_store_int.h"

/* The file of selection i: "NN-SELECTION.csv", the selection's characters
 * other than letters, digits and "=,.-_" written as '_'. */
static void tmp_name(const char *dir, size_t i, const char *sel, char *buf, size_t n) {
  char name[128];
  size_t k = 0;
  for (const char *p = sel; *p && k < sizeof name - 1; p++)
    name[k++] = strchr("=,.-_", *p) || (*p >= '0' && *p <= '9') || ((*p | 32) >= 'a' && (*p | 32) <= 'z') ? *p : '_';
  name[k] = '\0';
  snprintf(buf, n, "%s/%02zu-%s.csv", dir, i + 1, name);
}

static const int k_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
#define NSIG_CAUGHT (sizeof k_signals / sizeof k_signals[0])
static struct sigaction g_old[NSIG_CAUGHT];
static gb_store_tmp *volatile g_live; /* the folder the handler removes */

static void remove_all(const gb_store_tmp *t) {
  for (size_t i = 0; i < t->n; i++)
    if (t->path && t->path[i]) unlink(t->path[i]);
  if (t->dir[0]) rmdir(t->dir);
}

static void on_signal(int sig) {
  gb_store_tmp *t = g_live;
  if (t) remove_all(t);
  for (size_t i = 0; i < NSIG_CAUGHT; i++)
    if (k_signals[i] == sig) sigaction(sig, &g_old[i], NULL);
  raise(sig);
}

/* The handler on (t: the folder) or back to what it was (NULL). */
static void guard(gb_store_tmp *t) {
  sigset_t all, old;
  sigfillset(&all);
  sigprocmask(SIG_BLOCK, &all, &old);
  if (t && !g_live) {
    struct sigaction a = {0};
    a.sa_handler = on_signal;
    sigfillset(&a.sa_mask);
    for (size_t i = 0; i < NSIG_CAUGHT; i++) { /* a signal ignored (nohup) stays ignored */
      sigaction(k_signals[i], NULL, &g_old[i]);
      if (g_old[i].sa_handler != SIG_IGN) sigaction(k_signals[i], &a, NULL);
    }
  } else if (!t && g_live) {
    for (size_t i = 0; i < NSIG_CAUGHT; i++) sigaction(k_signals[i], &g_old[i], NULL);
  }
  g_live = t;
  sigprocmask(SIG_SETMASK, &old, NULL);
}

static gb_err write_one(gb_store *s, const char *sel, const char *path) {
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (!f) {
    if (fd >= 0) close(fd);
    return gb_fail(GB_E_IO, "%s: cannot create it", path);
  }
  size_t n = 0;
  gb_err e = gb_store_write_csv(s, sel, f, &n);
  if (fclose(f) != 0 && !e) e = gb_fail(GB_E_IO, "%s: cannot write it", path);
  if (!e && n == 0) e = gb_fail(GB_E_INPUT, "%s: selection \"%s\": no rows", s->name, sel);
  return e;
}

gb_err gb_store_export_tmp(const char *url, const char *const *sels, size_t n, gb_store_tmp *t) {
  memset(t, 0, sizeof *t);
  const char *tmp = getenv("TMPDIR") && getenv("TMPDIR")[0] ? getenv("TMPDIR") : "/tmp";
  snprintf(t->dir, sizeof t->dir, "%s/gpubench-store.XXXXXX", tmp);
  if (!mkdtemp(t->dir)) {
    t->dir[0] = '\0';
    return gb_fail(GB_E_IO, "cannot make a temporary folder in %s", tmp);
  }
  chmod(t->dir, 0700); /* mkdtemp's mode, whatever the umask */
  if (!(t->path = calloc(n ? n : 1, sizeof *t->path))) return gb_fail(GB_E_NOMEM, "out of memory");
  guard(t);
  gb_store *s = NULL;
  gb_err e = gb_store_open_read(url, &s);
  for (size_t i = 0; i < n && !e; i++) {
    char path[4400];
    tmp_name(t->dir, i, sels[i], path, sizeof path);
    if (!(t->path[i] = strdup(path))) e = gb_fail(GB_E_NOMEM, "out of memory");
    t->n = i + 1; /* the handler removes the file from here on */
    if (!e) e = write_one(s, sels[i], path);
  }
  gb_store_close(s);
  return e;
}

void gb_store_tmp_free(gb_store_tmp *t) {
  remove_all(t);
  if (g_live == t) guard(NULL);
  for (size_t i = 0; i < t->n; i++) free(t->path[i]);
  free(t->path);
  memset(t, 0, sizeof *t);
}
