/* gb_runinfo: version, host, time and run-id helpers. */
#include "gb_runinfo.h"

#include <fcntl.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gb_git_sha.h" /* GB_GIT_SHA, written at build time (cmake/git_sha.cmake) */
#ifndef GB_VERSION
#define GB_VERSION "0.0.0"
#endif

#ifndef GB_DATA_DIR
#define GB_DATA_DIR "data"
#endif

int gb_exe_dir(char *buf, size_t n) {
  char exe[PATH_MAX];
  ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (len <= 0) return -1;
  exe[len] = '\0';
  char *slash = strrchr(exe, '/');
  if (!slash) return -1;
  *slash = '\0';
  if ((size_t)snprintf(buf, n, "%s", exe[0] ? exe : "/") >= n) return -1;
  return 0;
}

/* The folders gb_data_dir considers beside the program: DIR/data (taken
 * when it is a directory), DIR/../share/gpubench (when it holds
 * gpu_specs.csv; named by its real path), found once. */
typedef struct exe_dirs {
  int state; /* 0 not looked, 1 looked */
  int n;     /* candidates: 0 (no /proc/self/exe), else 2 */
  int taken; /* the one taken, -1 none */
  char dir[2][PATH_MAX];
} exe_dirs;

static bool is_dir(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static const exe_dirs *beside_exe(void) {
  static exe_dirs d;
  if (d.state) return &d;
  d.state = 1;
  d.taken = -1;
  char exe_dir[PATH_MAX], probe[PATH_MAX + 64];
  if (gb_exe_dir(exe_dir, sizeof exe_dir) != 0 ||
      (size_t)snprintf(d.dir[0], sizeof d.dir[0], "%s/data", exe_dir) >= sizeof d.dir[0] ||
      (size_t)snprintf(d.dir[1], sizeof d.dir[1], "%s/../share/gpubench", exe_dir) >= sizeof d.dir[1])
    return &d;
  d.n = 2;
  if (is_dir(d.dir[0])) {
    d.taken = 0;
    return &d;
  }
  snprintf(probe, sizeof probe, "%s/gpu_specs.csv", d.dir[1]);
  if (access(probe, R_OK) == 0) {
    d.taken = 1;
    char real[PATH_MAX];
    if (realpath(d.dir[1], real)) snprintf(d.dir[1], sizeof d.dir[1], "%s", real); /* PREFIX/share/gpubench */
  }
  return &d;
}

const char *gb_data_dir(void) {
  const char *env = getenv("GPUBENCH_DATA_DIR");
  if (env && *env) return env;
  const exe_dirs *d = beside_exe();
  return d->taken >= 0 ? d->dir[d->taken] : GB_DATA_DIR;
}

void gb_data_dir_tried(const char *suffix, char *buf, size_t n) {
  if (!n) return;
  buf[0] = '\0';
  const char *env = getenv("GPUBENCH_DATA_DIR");
  const char *dirs[3];
  size_t nd = 0;
  if (env && *env) {
    dirs[nd++] = env;
  } else {
    const exe_dirs *d = beside_exe();
    for (int i = 0; i < d->n && (i == 0 || d->taken < 0 || i <= d->taken); i++) dirs[nd++] = d->dir[i];
    if (d->taken < 0) dirs[nd++] = GB_DATA_DIR;
  }
  size_t off = 0;
  for (size_t i = 0; i < nd && off < n; i++) {
    int w = snprintf(buf + off, n - off, "%s%s%s", i ? ", " : "", dirs[i], suffix);
    if (w < 0) break;
    off += (size_t)w;
  }
}

const char *gb_version(void) { return GB_VERSION; }
const char *gb_git_sha(void) { return GB_GIT_SHA; }

const char *gb_hostname(void) {
  static char host[256];
  if (host[0] == '\0') {
    if (gethostname(host, sizeof host - 1) != 0 || host[0] == '\0') snprintf(host, sizeof host, "unknown");
    host[sizeof host - 1] = '\0';
  }
  return host;
}

void gb_iso8601_utc(time_t t, char *buf, size_t n) {
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void gb_make_run_id(char *buf, size_t n) {
  unsigned rnd = 0;
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    if (read(fd, &rnd, sizeof rnd) != (ssize_t)sizeof rnd) rnd = 0;
    close(fd);
  }
  if (rnd == 0) rnd = (unsigned)getpid() * 2654435761u ^ (unsigned)time(NULL);
  char host[64];
  size_t hl = strcspn(gb_hostname(), ".");
  if (hl > sizeof host - 1) hl = sizeof host - 1;
  memcpy(host, gb_hostname(), hl);
  host[hl] = '\0';
  struct tm tm;
  time_t now = time(NULL);
  gmtime_r(&now, &tm);
  char ts[32];
  strftime(ts, sizeof ts, "%Y%m%dT%H%M%SZ", &tm);
  snprintf(buf, n, "%s-%s-%06x", ts, host, rnd & 0xFFFFFFu);
}
