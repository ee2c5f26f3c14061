/* gb_input: non-blocking opens of regular files only. */
#include "gb_input.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *kind(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO (named pipe)";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  return "not a regular file";
}

gb_err gb_input_open(const char *path, bool allow_stdin, int *fd) {
  *fd = -1;
  if (allow_stdin && strcmp(path, "-") == 0) {
    int d = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
    if (d < 0) return gb_fail(GB_E_IO, "standard input: cannot read: %s", strerror(errno));
    *fd = d;
    return GB_OK;
  }
  int d = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (d < 0) {
    int saved = errno;
    gb_err e = gb_fail(GB_E_IO, "%s: cannot open: %s", path, strerror(saved));
    errno = saved;
    return e;
  }
  struct stat st;
  if (fstat(d, &st) != 0 || !S_ISREG(st.st_mode)) {
    gb_err e = gb_fail(GB_E_IO, "%s: not a regular file (%s); give a file", path, kind(st.st_mode));
    close(d);
    errno = EINVAL;
    return e;
  }
  int fl = fcntl(d, F_GETFL);
  if (fl >= 0) fcntl(d, F_SETFL, fl & ~O_NONBLOCK);
  *fd = d;
  return GB_OK;
}

gb_err gb_input_read(const char *path, bool allow_stdin, char **data, size_t *len) {
  *data = NULL;
  *len = 0;
  int fd;
  GB_TRY(gb_input_open(path, allow_stdin, &fd));
  struct stat st;
  size_t cap = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? (size_t)st.st_size + 1 : 65536, n = 0;
  char *buf = malloc(cap);
  if (!buf) {
    close(fd);
    return gb_fail(GB_E_NOMEM, "%s: out of memory reading %zu bytes", path, cap);
  }
  for (;;) {
    if (n + 1 >= cap) {
      char *p = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap * 2);
      if (!p) {
        free(buf);
        close(fd);
        return gb_fail(GB_E_NOMEM, "%s: out of memory", path);
      }
      buf = p;
      cap *= 2;
    }
    ssize_t r = read(fd, buf + n, cap - n - 1);
    if (r < 0) {
      if (errno == EINTR) continue;
      int saved = errno;
      free(buf);
      close(fd);
      gb_err e = gb_fail(GB_E_IO, "%s: read failed: %s", path, strerror(saved));
      errno = saved;
      return e;
    }
    if (r == 0) break;
    n += (size_t)r;
  }
  close(fd);
  buf[n] = '\0';
  *data = buf;
  *len = n;
  return GB_OK;
}
