/* gb_runinfo: version, host, time and run-id helpers. */
#include "gb_runinfo.h"

#include <fcntl.h>
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

/* The installed layout: PREFIX/bin/gpubench and PREFIX/share/gpubench/. */
static const char *installed_data_dir(void) {
  static char dir[PATH_MAX];
  static int state; /* 0 not looked, 1 found, -1 absent */
  if (state == 0) {
    char exe_dir[PATH_MAX], probe[PATH_MAX + 64];
    state = -1;
    if (gb_exe_dir(exe_dir, sizeof exe_dir) == 0 &&
        (size_t)snprintf(dir, sizeof dir, "%s/../share/gpubench", exe_dir) < sizeof dir) {
      snprintf(probe, sizeof probe, "%s/gpu_specs.csv", dir);
      if (access(probe, R_OK) == 0) {
        state = 1;
        char real[PATH_MAX];
        if (realpath(dir, real)) snprintf(dir, sizeof dir, "%s", real); /* PREFIX/share/gpubench in messages */
      }
    }
  }
  return state == 1 ? dir : NULL;
}

const char *gb_data_dir(void) {
  const char *d = getenv("GPUBENCH_DATA_DIR");
  if (d && *d) return d;
  const char *inst = installed_data_dir();
  return inst ? inst : GB_DATA_DIR;
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
