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
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "gb_csv.h"
#include "gb_runinfo.h"

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

/* Which file a path names: the file itself (device, inode) when it exists,
 * else its directory's (device, inode) and its last component. */
typedef struct fkey {
  bool exists, known, is_dir, is_reg;
  dev_t dev;
  ino_t ino;
  const char *base; /* when !exists: points into the path */
} fkey;

static fkey key_of(const char *path) {
  fkey k = {0};
  struct stat st;
  if (stat(path, &st) == 0) {
    k.exists = k.known = true;
    k.dev = st.st_dev, k.ino = st.st_ino;
    k.is_dir = S_ISDIR(st.st_mode), k.is_reg = S_ISREG(st.st_mode);
    return k;
  }
  const char *slash = strrchr(path, '/');
  char *dir = slash ? strndup(path, (size_t)(slash - path) + (slash == path)) : strdup(".");
  if (dir && stat(dir, &st) == 0) {
    k.known = true;
    k.dev = st.st_dev, k.ino = st.st_ino;
    k.base = slash ? slash + 1 : path;
  }
  free(dir);
  return k;
}

static bool key_same(const fkey *a, const fkey *b, const char *pa, const char *pb) {
  if (!a->known || !b->known) return strcmp(pa, pb) == 0;
  if (a->exists != b->exists || a->dev != b->dev || a->ino != b->ino) return false;
  return a->exists || strcmp(a->base, b->base) == 0;
}

/* Whether the resolved path rout lies in the resolved folder rdir (or,
 * with or_equal, is it); never for an rdir of "" (not there). */
static bool inside(const char *rout, const char *rdir, bool or_equal) {
  size_t dl = strlen(rdir);
  if (dl == 0 || strncmp(rout, rdir, dl) != 0) return false;
  if (strcmp(rdir, "/") == 0) return true;
  return rout[dl] == '/' || (or_equal && rout[dl] == '\0');
}

/* The data folders, resolved: the shipped data (gb_data_dir()) and its measured/. */
static void data_dirs(char *data, char *measured, size_t n) {
  char m[4200];
  char *r = realpath(gb_data_dir(), NULL);
  snprintf(data, n, "%s", r ? r : "");
  free(r);
  snprintf(m, sizeof m, "%s/measured", gb_data_dir());
  r = realpath(m, NULL);
  snprintf(measured, n, "%s", r ? r : "");
  free(r);
}

/* Whether path (an output file, or with is_dir an output directory) lies
 * in the data folders; with measured_ok, data/measured/ is allowed. */
static gb_err check_data(const char *path, bool is_dir, bool measured_ok) {
  char data[4200], measured[4200];
  data_dirs(data, measured, sizeof data);
  char *r = resolve(path);
  if (!r) return GB_OK; /* its folder is not there: it cannot be in one */
  gb_err e = GB_OK;
  if (inside(r, data, is_dir) && !(measured_ok && inside(r, measured, false)))
    e = gb_fail(GB_E_USAGE,
                "%s: %s the data folder %s that gpubench reads its datasheets, prices and measurements from; "
                "give a path outside it",
                path, is_dir ? "the output directory is in" : "the output is in", data);
  free(r);
  return e;
}

/* An output directly in an input directory, with a name the command reads
 * there (a .csv file): the next run would read it as an input. */
static bool in_input_dir(const char *out, const fkey *in) {
  if (!in->is_dir) return false;
  const char *slash = strrchr(out, '/');
  char *dir = slash ? strndup(out, (size_t)(slash - out) + (slash == out)) : strdup(".");
  struct stat st;
  bool hit = dir && stat(dir, &st) == 0 && st.st_dev == in->dev && st.st_ino == in->ino;
  free(dir);
  size_t l = strlen(out);
  return hit && l > 4 && strcmp(out + l - 4, ".csv") == 0;
}

static bool skip(const char *p) { return !p || strcmp(p, "-") == 0; }

gb_err gb_output_guard(const char *const outs[], size_t nout, const char *const ins[], size_t nin, unsigned flags) {
  for (size_t o = 0; o < nout; o++) {
    if (skip(outs[o])) continue;
    fkey ko = key_of(outs[o]);
    if (ko.exists && !ko.is_reg && !ko.is_dir) continue; /* a device or FIFO (/dev/stdout) */
    gb_err e = check_data(outs[o], false, flags & GB_OUT_MEASURED_OK);
    if (e) return e;
    for (size_t i = 0; i < nin; i++) {
      if (skip(ins[i])) continue;
      fkey ki = key_of(ins[i]);
      if (key_same(&ko, &ki, outs[o], ins[i]))
        return gb_fail(GB_E_USAGE, "%s: the output is also an input (%s); give another output file", outs[o],
                       ins[i]);
      if (in_input_dir(outs[o], &ki))
        return gb_fail(GB_E_USAGE, "%s: the output is in the input directory %s, which is read for *.csv; give "
                       "another output file", outs[o], ins[i]);
    }
    for (size_t p = 0; p < o; p++) {
      if (skip(outs[p])) continue;
      fkey kp = key_of(outs[p]);
      if (key_same(&ko, &kp, outs[o], outs[p]))
        return gb_fail(GB_E_USAGE, "%s: two outputs name one file (%s); give each its own", outs[o], outs[p]);
    }
  }
  return GB_OK;
}

gb_err gb_output_check(const char *out, const char *const inputs[], size_t n) {
  return gb_output_guard(&out, 1, inputs, n, 0);
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
  gb_err e = check_data(dir, true, false);
  if (e) return e;
  char *rdir = resolve(dir);
  if (!rdir) return GB_OK; /* not there yet: nothing in it can be an input */
  for (size_t i = 0; i < n && !e; i++) {
    if (!inputs[i] || strcmp(inputs[i], "-") == 0) continue;
    char *ri = resolve(inputs[i]);
    if (!ri) continue;
    char *slash = strrchr(ri, '/');
    size_t dl = slash ? (size_t)(slash - ri) : 0;
    bool in_dir = slash && (dl == strlen(rdir) || (dl == 0 && strcmp(rdir, "/") == 0)) &&
                  strncmp(ri, rdir, dl) == 0;
    if (in_dir && name_matches(slash + 1, suffixes))
      e = gb_fail(GB_E_USAGE, "%s: the output directory would overwrite the input %s; give another directory",
                  dir, inputs[i]);
    free(ri);
  }
  free(rdir);
  return e;
}

/* ---- file names from data ---- */

static uint64_t stem_hash(const char *s, bool fold) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (fold && c >= 'A' && c <= 'Z') c = (unsigned char)(c - 'A' + 'a');
    h = (h ^ c) * 1099511628211ull;
  }
  return h;
}

/* The slot of name (compared without case): its own or the empty one. */
static size_t stem_slot(const gb_stem_set *set, const char *name) {
  size_t j = stem_hash(name, true) & (set->cap - 1);
  while (set->slot[j] && strcasecmp(set->slot[j], name) != 0) j = (j + 1) & (set->cap - 1);
  return j;
}

static gb_err stem_grow(gb_stem_set *set) {
  if (set->cap && 2 * (set->n + 1) <= set->cap) return GB_OK;
  size_t cap = set->cap ? set->cap * 2 : 64;
  gb_stem_set bigger = {calloc(cap, sizeof(char *)), cap, set->n};
  if (!bigger.slot) return gb_fail(GB_E_NOMEM, "out of memory for file names");
  for (size_t i = 0; i < set->cap; i++)
    if (set->slot[i]) bigger.slot[stem_slot(&bigger, set->slot[i])] = set->slot[i];
  free(set->slot);
  *set = bigger;
  return GB_OK;
}

gb_err gb_stem_unique(gb_stem_set *set, const char *key, char buf[GB_STEM_MAX]) {
  gb_err e = stem_grow(set);
  if (e) return e;
  size_t len = strlen(key), n = 0;
  for (size_t i = 0; i < len && n < GB_STEM_MAX - 1; i++) {
    char c = key[i];
    bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
                c == '_';
    buf[n++] = keep ? c : '_';
  }
  buf[n] = '\0';
  if (len == 0 || len > 100 || set->slot[stem_slot(set, buf)]) {
    n = n > 64 ? 64 : n;
    snprintf(buf + n, GB_STEM_MAX - n, "-%016llx", (unsigned long long)stem_hash(key, false));
    size_t base = strlen(buf);
    for (unsigned k = 2; set->slot[stem_slot(set, buf)]; k++) snprintf(buf + base, GB_STEM_MAX - base, "-%u", k);
  }
  char *copy = strdup(buf);
  if (!copy) return gb_fail(GB_E_NOMEM, "out of memory for file names");
  set->slot[stem_slot(set, copy)] = copy;
  set->n++;
  return GB_OK;
}

void gb_stem_set_free(gb_stem_set *set) {
  for (size_t i = 0; i < set->cap; i++) free(set->slot[i]);
  free(set->slot);
  *set = (gb_stem_set){0};
}
