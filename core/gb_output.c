/* gb_output: exclusive temporary files, renamed into place; a registry of
 * live ones removed on SIGINT/SIGTERM; output = input refused. */
#include "gb_output.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gb_csv.h"

/* ---- the registry of live temporary files ---- */

#define REG_SLOTS 64

/* Paths are written before the slot is published and the slot is cleared
 * before the path is freed, so the handler only ever sees whole strings. */
static char *volatile g_reg[REG_SLOTS];

static void on_fatal_signal(int sig) {
  int saved = errno;
  for (int i = 0; i < REG_SLOTS; i++) {
    char *p = __atomic_load_n(&g_reg[i], __ATOMIC_SEQ_CST);
    if (p) unlink(p); /* async-signal-safe */
  }
  errno = saved;
  signal(sig, SIG_DFL);
  raise(sig); /* the process ends as the signal would have ended it */
}

/* Installs the handler for a signal whose disposition is the default (a
 * command that handles it itself, such as run, keeps its own); checked at
 * every new temporary file, so a handler reset since is installed again. */
static void install_handlers(void) {
  int sigs[] = {SIGINT, SIGTERM, SIGHUP};
  for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
    struct sigaction old;
    if (sigaction(sigs[i], NULL, &old) != 0) continue;
    if (!(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL) {
      struct sigaction sa;
      memset(&sa, 0, sizeof sa);
      sa.sa_handler = on_fatal_signal;
      sigemptyset(&sa.sa_mask);
      sigaction(sigs[i], &sa, NULL);
    }
  }
}

void gb_output_guard_signals(void) { install_handlers(); }

static int reg_add(const char *path) {
  install_handlers();
  char *copy = strdup(path);
  if (!copy) return -1;
  for (int i = 0; i < REG_SLOTS; i++) {
    char *expect = NULL;
    if (__atomic_compare_exchange_n(&g_reg[i], &expect, copy, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) return i;
  }
  free(copy);
  return -2; /* full: the file is still removed on every error path, not on a signal */
}

static void reg_del(int slot) {
  if (slot < 0) return;
  char *p = __atomic_exchange_n(&g_reg[slot], NULL, __ATOMIC_SEQ_CST);
  free(p);
}

size_t gb_output_live(void) {
  size_t n = 0;
  for (int i = 0; i < REG_SLOTS; i++) n += __atomic_load_n(&g_reg[i], __ATOMIC_SEQ_CST) != NULL;
  return n;
}

/* ---- injected write failures (tests) ---- */

static size_t g_inject_after;
static int g_inject_err;

void gb_output_inject_write_error(size_t after, int err) {
  g_inject_after = after;
  g_inject_err = err;
}

/* ---- random temporary names ---- */

static uint64_t random_u64(void) {
  uint64_t v = 0;
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    if (read(fd, &v, sizeof v) != (ssize_t)sizeof v) v = 0;
    close(fd);
  }
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  static uint64_t counter;
  v ^= ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^ ((uint64_t)getpid() << 40) ^ ++counter * 0x9E3779B97F4A7C15ULL;
  return v;
}

/* Creates "<target>.tmp.<12 random hex digits>" exclusively; never through
 * a link (O_EXCL fails on any existing name, O_NOFOLLOW on a link). */
static int create_tmp(const char *target, char **out) {
  size_t n = strlen(target) + 32;
  char *tmp = malloc(n);
  if (!tmp) {
    errno = ENOMEM;
    return -1;
  }
  for (int tries = 0; tries < 100; tries++) {
    snprintf(tmp, n, "%s.tmp.%012llx", target, (unsigned long long)(random_u64() & 0xFFFFFFFFFFFFULL));
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd >= 0) {
      *out = tmp;
      return fd;
    }
    if (errno != EEXIST && errno != ELOOP) break;
  }
  int saved = errno;
  free(tmp);
  errno = saved;
  return -1;
}

/* ---- outputs ---- */

static void output_reset(gb_output *o) {
  free(o->path);
  free(o->target);
  free(o->tmp);
  o->path = o->target = o->tmp = NULL;
  o->fd = -1;
  o->slot = -1;
}

gb_err gb_output_open(gb_output *o, const char *path) {
  memset(o, 0, sizeof *o);
  o->fd = -1;
  o->slot = -1;
  o->path = strdup(path);
  if (!o->path) return gb_fail(GB_E_NOMEM, "out of memory");
  struct stat st;
  if (stat(path, &st) == 0) {
    if (S_ISDIR(st.st_mode)) {
      output_reset(o);
      return gb_fail(GB_E_IO, "%s: is a directory; give a file name", path);
    }
    if (!S_ISREG(st.st_mode)) {
      /* a device or FIFO (/dev/stdout): nothing to rename over, written in place */
      o->fd = open(path, O_WRONLY | O_CLOEXEC);
      if (o->fd < 0) {
        gb_err e = gb_fail(GB_E_IO, "%s: cannot write: %s", path, strerror(errno));
        output_reset(o);
        return e;
      }
      return GB_OK;
    }
  }
  /* through a symbolic link the user gave, the file it names is replaced */
  if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) o->target = realpath(path, NULL);
  if (!o->target) o->target = strdup(path);
  if (!o->target) {
    output_reset(o);
    return gb_fail(GB_E_NOMEM, "out of memory");
  }
  o->fd = create_tmp(o->target, &o->tmp);
  if (o->fd < 0) {
    gb_err e = gb_fail(GB_E_IO, "%s: cannot write: %s", path, strerror(errno));
    output_reset(o);
    return e;
  }
  o->slot = reg_add(o->tmp);
  if (o->slot == -1) {
    gb_output_abort(o);
    return gb_fail(GB_E_NOMEM, "out of memory");
  }
  return GB_OK;
}

gb_err gb_output_write(gb_output *o, const char *data, size_t len) {
  size_t off = 0;
  while (off < len) {
    size_t want = len - off;
    if (g_inject_err && o->tmp) {
      if (g_inject_after == 0) {
        errno = g_inject_err;
        g_inject_err = 0;
        return gb_fail(GB_E_IO, "%s: write failed: %s", o->path, strerror(errno));
      }
      if (want > g_inject_after) want = g_inject_after;
      g_inject_after -= want;
    }
    ssize_t w = write(o->fd, data + off, want);
    if (w < 0) {
      if (errno == EINTR) continue;
      return gb_fail(GB_E_IO, "%s: write failed: %s", o->path, strerror(errno));
    }
    off += (size_t)w;
  }
  return GB_OK;
}

void gb_output_abort(gb_output *o) {
  if (o->fd >= 0) close(o->fd);
  o->fd = -1;
  if (o->tmp) unlink(o->tmp);
  reg_del(o->slot);
  output_reset(o);
}

gb_err gb_output_commit(gb_output *o) {
  gb_err e = GB_OK;
  if (!o->tmp) { /* written in place */
    if (o->fd >= 0 && close(o->fd) != 0) e = gb_fail(GB_E_IO, "%s: write failed: %s", o->path, strerror(errno));
    o->fd = -1;
    output_reset(o);
    return e;
  }
  if (fsync(o->fd) != 0) e = gb_fail(GB_E_IO, "%s: write failed: %s", o->path, strerror(errno));
  if (close(o->fd) != 0 && !e) e = gb_fail(GB_E_IO, "%s: write failed: %s", o->path, strerror(errno));
  o->fd = -1;
  if (!e && rename(o->tmp, o->target) != 0) e = gb_fail(GB_E_IO, "%s: cannot replace: %s", o->path, strerror(errno));
  if (!e) {
    free(o->tmp); /* renamed: nothing to remove */
    o->tmp = NULL;
  }
  gb_output_abort(o);
  return e;
}

gb_err gb_write_file_atomic(const char *path, const char *data, size_t len) {
  gb_output o;
  gb_err e = gb_output_open(&o, path);
  if (e) return e;
  e = gb_output_write(&o, data, len);
  if (e) {
    gb_output_abort(&o);
    return e;
  }
  return gb_output_commit(&o);
}

/* ---- output = input ---- */

/* realpath of a path that may not exist: its directory resolved, then its
 * last component appended (malloc'd; NULL when the directory is not there). */
static char *resolve(const char *path) {
  char *r = realpath(path, NULL);
  if (r) return r;
  const char *slash = strrchr(path, '/');
  char *dir = slash ? strndup(path, (size_t)(slash - path) + (slash == path)) : strdup(".");
  if (!dir) return NULL;
  char *rd = realpath(dir, NULL);
  free(dir);
  if (!rd) return NULL;
  const char *base = slash ? slash + 1 : path;
  size_t n = strlen(rd) + strlen(base) + 2;
  char *out = malloc(n);
  if (out) snprintf(out, n, "%s/%s", strcmp(rd, "/") == 0 ? "" : rd, base);
  free(rd);
  return out;
}

static bool same_file(const char *a, const char *b) {
  struct stat sa, sb;
  if (stat(a, &sa) == 0 && stat(b, &sb) == 0) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  char *ra = resolve(a), *rb = resolve(b);
  bool same = ra && rb && strcmp(ra, rb) == 0;
  if (!ra || !rb) same = strcmp(a, b) == 0;
  free(ra);
  free(rb);
  return same;
}

gb_err gb_output_check(const char *out, const char *const inputs[], size_t n) {
  if (!out || strcmp(out, "-") == 0) return GB_OK;
  for (size_t i = 0; i < n; i++) {
    if (!inputs[i] || strcmp(inputs[i], "-") == 0) continue;
    if (same_file(out, inputs[i]))
      return gb_fail(GB_E_USAGE, "%s: the output is also an input (%s); give another output file", out,
                     inputs[i]);
  }
  return GB_OK;
}

static bool name_matches(const char *base, const char *const suffixes[]) {
  size_t bl = strlen(base);
  for (size_t i = 0; suffixes[i]; i++) {
    const char *s = suffixes[i];
    size_t sl = strlen(s);
    if (s[0] == '.' ? bl > sl && strcmp(base + bl - sl, s) == 0 : strcmp(base, s) == 0) return true;
  }
  return false;
}

gb_err gb_output_check_dir(const char *dir, const char *const suffixes[], const char *const inputs[],
                           size_t n) {
  if (!dir) return GB_OK;
  char *rdir = resolve(dir);
  if (!rdir) return GB_OK; /* not there yet: nothing in it can be an input */
  gb_err e = GB_OK;
  for (size_t i = 0; i < n && !e; i++) {
    if (!inputs[i] || strcmp(inputs[i], "-") == 0) continue;
    char *ri = resolve(inputs[i]);
    if (!ri) continue;
    char *slash = strrchr(ri, '/');
    size_t dl = slash ? (size_t)(slash - ri) : 0;
    bool inside = slash && (dl == strlen(rdir) || (dl == 0 && strcmp(rdir, "/") == 0)) &&
                  strncmp(ri, rdir, dl) == 0;
    if (inside && name_matches(slash + 1, suffixes))
      e = gb_fail(GB_E_USAGE, "%s: the output directory would overwrite the input %s; give another directory",
                  dir, inputs[i]);
    free(ri);
  }
  free(rdir);
  return e;
}
