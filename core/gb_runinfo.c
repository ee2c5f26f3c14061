/* gb_runinfo: version, host, time and run-id helpers. */
#include "gb_runinfo.h"

#include <fcntl.h>
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

const char *gb_data_dir(void) {
  const char *d = getenv("GPUBENCH_DATA_DIR");
  return d && *d ? d : GB_DATA_DIR;
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
