/* gb_results_writer: the crash-safe appending writer of the results CSV
 * (gb_writer_*, core/gb_results.h): one writer per file (flock), the
 * `.committed` marker that a resumed run cuts a torn tail back to, and rows
 * written in the columns an existing file already has. The column table and
 * the row format are core/gb_results.c's. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gb_num.h"
#include "gb_results.h"
#include "gb_results_int.h"

/* ---- writing ---- */

static gb_err write_all(int fd, const char *path, const char *p, size_t n) {
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return gb_fail(GB_E_IO, "%s: write failed: %s", path, strerror(errno));
    }
    p += w;
    n -= (size_t)w;
  }
  return GB_OK;
}

/* ---- the commit marker (PATH.committed) ----
 *
 * One fixed-width line, rewritten in place: the length of the file up to its
 * last finished commit, the size of the commit being written (0 between
 * commits), and a hash of the bytes just before that length. A kill during
 * a write() of several pages leaves part of the commit behind (the kernel
 * stops between pages); the next open cuts the file back to the committed
 * length -- but only when the extra bytes are no more than the commit in
 * flight and the hash matches, so a stale marker never cuts a file that was
 * edited or replaced since. A clean close removes the marker. */

#define MARKER_FMT "gpubench commit marker 1: committed %020lld in_flight %020lld tail %016llx pid %010ld\n"
#define MARKER_TAIL 256 /* bytes hashed before the committed length */

/* FNV-1a of the MARKER_TAIL bytes before end; false when they cannot be read. */
static bool tail_hash(int fd, int64_t end, uint64_t *out) {
  char buf[MARKER_TAIL];
  size_t n = end < MARKER_TAIL ? (size_t)end : MARKER_TAIL;
  if (n && pread(fd, buf, n, (off_t)(end - (int64_t)n)) != (ssize_t)n) return false;
  uint64_t h = 14695981039346656037ULL;
  for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)buf[i]) * 1099511628211ULL;
  *out = h;
  return true;
}

/* Rewrites the marker; with sync, makes it durable before returning. */
static gb_err marker_put(gb_results_writer *w, int64_t in_flight, bool sync) {
  if (w->marker_fd < 0) return GB_OK;
  uint64_t h;
  if (!tail_hash(w->fd, w->committed_bytes, &h))
    return gb_fail(GB_E_IO, "%s: cannot read back: %s", w->path, strerror(errno));
  char line[160];
  int n = snprintf(line, sizeof line, MARKER_FMT, (long long)w->committed_bytes, (long long)in_flight,
                   (unsigned long long)h, (long)getpid());
  if (pwrite(w->marker_fd, line, (size_t)n, 0) != n || (sync && fsync(w->marker_fd) != 0))
    return gb_fail(GB_E_IO, "%s: cannot write: %s", w->marker_path, strerror(errno));
  return GB_OK;
}

/* The committed length a marker left by a killed writer allows cutting the
 * file back to, or -1 when there is no usable marker. */
/* The marker beside a results file, opened for reading, never through a link. */
static FILE *marker_open_read(const char *marker_path) {
  int fd = open(marker_path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  struct stat st;
  if (fd < 0) return NULL;
  FILE *f = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? fdopen(fd, "r") : NULL;
  if (!f) close(fd);
  return f;
}

static int64_t marker_cut(const char *marker_path, int fd, int64_t size) {
  FILE *f = marker_open_read(marker_path);
  if (!f) return -1;
  long long committed, in_flight;
  unsigned long long tail;
  int got = fscanf(f, "gpubench commit marker 1: committed %lld in_flight %lld tail %llx", &committed, &in_flight,
                   &tail);
  fclose(f);
  uint64_t h;
  if (got != 3 || committed < 0 || in_flight < 0 || committed > size || size - committed > in_flight ||
      !tail_hash(fd, committed, &h) || h != tail)
    return -1;
  return committed;
}

/* Without a marker (a file written before markers existed, or whose marker
 * was deleted): cuts a torn last record when it is a last line without its
 * line end. A remainder that spans a line end -- a record cut inside a
 * quoted field that holds a newline, or a stray quote that swallows every
 * row after it -- cannot be told apart, so the file is left as it is and
 * the reader then names the line. */
static gb_err cut_torn_tail(int fd, const char *path, int64_t size) {
  if (size == 0) return GB_OK;
  char *buf = malloc((size_t)size);
  if (!buf) return gb_fail(GB_E_NOMEM, "%s: out of memory reading %lld bytes", path, (long long)size);
  int64_t got = 0;
  while (got < size) {
    ssize_t r = pread(fd, buf + got, (size_t)(size - got), (off_t)got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      free(buf);
      return gb_fail(GB_E_IO, "%s: cannot read: %s", path, r < 0 ? strerror(errno) : "file shrank");
    }
    got += r;
  }
  size_t keep = gb_csv_complete_prefix(buf, (size_t)size);
  bool one_line = memchr(buf + keep, '\n', (size_t)size - keep) == NULL;
  free(buf);
  if ((int64_t)keep < size && one_line && ftruncate(fd, (off_t)keep) != 0)
    return gb_fail(GB_E_IO, "%s: cannot cut a torn last line: %s", path, strerror(errno));
  return GB_OK;
}

/* ---- one writer per results file ----
 *
 * An exclusive flock() on the results file, held from gb_writer_open to
 * gb_writer_close (the kernel drops it when the process dies, however it
 * dies). A second writer -- another run, or --resume while a run writes --
 * is refused at once, before it cuts or writes anything, with an error that
 * names the file and the holder's pid (from the holder's marker). Refusing
 * rather than waiting: a campaign holds the file for hours. */

/* The pid recorded in the marker beside path, or 0. */
static long marker_pid(const char *marker_path) {
  FILE *f = marker_open_read(marker_path);
  if (!f) return 0;
  char line[200];
  long pid = 0;
  if (fgets(line, sizeof line, f)) {
    const char *p = strstr(line, " pid ");
    if (p) pid = strtol(p + 5, NULL, 10);
  }
  fclose(f);
  return pid;
}

static gb_err writer_lock(gb_results_writer *w) {
  while (flock(w->fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EINTR) continue;
    if (errno != EWOULDBLOCK)
      return gb_fail(GB_E_IO, "%s: cannot lock for writing: %s", w->path, strerror(errno));
    long pid = marker_pid(w->marker_path);
    char who[48] = "another process";
    if (pid > 0) snprintf(who, sizeof who, "another gpubench (pid %ld)", pid);
    return gb_fail(GB_E_IO,
                   "%s: %s is writing to this results file; wait for it to finish or give another "
                   "file (one writer at a time)",
                   w->path, who);
  }
  return GB_OK;
}

static void writer_fail_cleanup(gb_results_writer *w) {
  if (w->fd >= 0 && w->fd != STDOUT_FILENO) close(w->fd);
  if (w->marker_fd >= 0) close(w->marker_fd);
  free(w->path);
  free(w->marker_path);
  free(w->cols);
  w->fd = w->marker_fd = -1;
  w->path = w->marker_path = NULL;
  w->cols = NULL;
}

/* Maps the columns of an existing file's header t onto the writer's (see
 * gb_results_writer.cols); a header that is exactly the writer's needs no
 * map. */
static gb_err writer_map_columns(gb_results_writer *w, const gb_csv_table *t) {
  bool same = t->ncols == gb_results_ncols();
  for (size_t i = 0; i < t->ncols && same; i++) same = strcmp(gb_csv_header(t, i), gb_results_col_name(i)) == 0;
  if (same) return GB_OK;
  w->cols = malloc((t->ncols ? t->ncols : 1) * sizeof *w->cols);
  if (!w->cols) return gb_fail(GB_E_NOMEM, "out of memory");
  w->ncols = t->ncols;
  for (size_t i = 0; i < t->ncols; i++) {
    w->cols[i] = -1;
    for (size_t j = 0; j < gb_results_ncols() && w->cols[i] < 0; j++)
      if (strcmp(gb_csv_header(t, i), gb_results_col_name(j)) == 0) w->cols[i] = (int)j;
  }
  size_t used = 0;
  for (size_t j = 0; j < gb_results_ncols(); j++)
    if (gb_csv_col(t, gb_results_col_name(j)) < 0 && used < sizeof w->missing) {
      int n = snprintf(w->missing + used, sizeof w->missing - used, "%s%s", used ? " " : "", gb_results_col_name(j));
      if (n > 0) used += (size_t)n;
    }
  return GB_OK;
}

gb_err gb_writer_open(gb_results_writer *w, const char *path) {
  memset(w, 0, sizeof *w);
  w->fd = -1;
  w->marker_fd = -1;
  w->path = strdup(path);
  if (!w->path) return gb_fail(GB_E_NOMEM, "out of memory");
  if (strcmp(path, "-") == 0) {
    w->fd = STDOUT_FILENO;
    gb_buf hdr = {0};
    gb_err e = gb_results_put_header(&hdr);
    GB_TRY_ON(e, write_all(w->fd, "standard output", hdr.data, hdr.len));
    gb_buf_free(&hdr);
    return e;
  }
  struct stat st;
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
    free(w->path);
    w->path = NULL;
    return gb_fail(GB_E_IO, "%s: is a directory; give a file name for the results", path);
  }
  w->marker_path = malloc(strlen(path) + sizeof ".committed");
  if (!w->marker_path) {
    writer_fail_cleanup(w);
    return gb_fail(GB_E_NOMEM, "out of memory");
  }
  sprintf(w->marker_path, "%s.committed", path);
  int fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    gb_err e = gb_fail(GB_E_IO, "%s: cannot open for writing: %s", path, strerror(errno));
    writer_fail_cleanup(w);
    return e;
  }
  w->fd = fd;
  gb_err e = GB_OK;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    e = gb_fail(GB_E_IO, "%s: not a regular file; give a file name for the results", path);
  /* one writer at a time, before anything is cut or written */
  GB_TRY_ON(e, writer_lock(w));
  /* a killed writer's leftovers: back to its last commit, else a torn last line */
  int64_t cut = e ? -1 : marker_cut(w->marker_path, fd, (int64_t)st.st_size);
  if (cut >= 0 && cut < (int64_t)st.st_size && ftruncate(fd, (off_t)cut) != 0)
    e = gb_fail(GB_E_IO, "%s: cannot cut an unfinished commit: %s", path, strerror(errno));
  if (!e && cut < 0) e = cut_torn_tail(fd, path, (int64_t)st.st_size);
  if (!e && fstat(fd, &st) != 0) e = gb_fail(GB_E_IO, "%s: %s", path, strerror(errno));
  if (!e && st.st_size > 0) {
    gb_results existing = {0};
    e = gb_results_read(path, &existing);
    if (e == GB_E_INPUT) {
      char msg[2048];
      snprintf(msg, sizeof msg, "%s", gb_errmsg());
      e = gb_fail(GB_E_INPUT, "%s: exists and is not a valid results file, so it was not appended to: %s",
                  path, msg);
    }
    if (!e && existing.ntables == 1) e = writer_map_columns(w, &existing.tables[0]);
    gb_results_free(&existing);
  } else if (!e) {
    gb_buf hdr = {0};
    e = gb_results_put_header(&hdr);
    GB_TRY_ON(e, write_all(fd, path, hdr.data, hdr.len));
    if (!e && fsync(fd) != 0) e = gb_fail(GB_E_IO, "%s: fsync failed: %s", path, strerror(errno));
    if (e && ftruncate(fd, 0) != 0) { /* a header cut short by a full disk goes; the error stands */ }
    gb_buf_free(&hdr);
    if (!e && fstat(fd, &st) != 0) e = gb_fail(GB_E_IO, "%s: %s", path, strerror(errno));
  }
  if (e) {
    writer_fail_cleanup(w);
    return e;
  }
  w->committed_bytes = (int64_t)st.st_size;
  /* best effort: without the marker (e.g. a directory that is not writable
   * while the file is) a kill inside a write() can leave a partial last case */
  /* never through a link planted at the predictable name (it would be written) */
  w->marker_fd = open(w->marker_path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (w->marker_fd >= 0 && (e = marker_put(w, 0, true))) {
    writer_fail_cleanup(w);
    return e;
  }
  return GB_OK;
}

bool gb_writer_records(const gb_results_writer *w, const char *column) {
  int j = -1;
  for (size_t i = 0; i < gb_results_ncols() && j < 0; i++)
    if (strcmp(gb_results_col_name(i), column) == 0) j = (int)i;
  if (j < 0) return false;
  if (!w->cols) return true;
  for (size_t i = 0; i < w->ncols; i++)
    if (w->cols[i] == j) return true;
  return false;
}

gb_err gb_writer_add(gb_results_writer *w, const gb_row *r) {
  gb_err e = gb_results_put_row_in(&w->pending, r, w->cols, w->cols ? w->ncols : gb_results_ncols());
  if (!e) w->pending_rows++;
  return e;
}

gb_err gb_writer_commit(gb_results_writer *w) {
  if (w->pending.len == 0) return GB_OK;
  const char *name = w->fd == STDOUT_FILENO ? "standard output" : w->path;
  gb_err e = GB_OK;
  /* the lock keeps other gpubench writers out; a file that grew or shrank
   * all the same (another program) is not written, nor cut back */
  struct stat st;
  if (w->fd != STDOUT_FILENO && fstat(w->fd, &st) == 0 && (int64_t)st.st_size != w->committed_bytes) {
    e = gb_fail(GB_E_IO, "%s: changed by another program since this run's last commit (%lld bytes, expected %lld); "
                "not written", name, (long long)st.st_size, (long long)w->committed_bytes);
    w->pending.len = 0;
    w->pending_rows = 0;
    return e;
  }
  e = marker_put(w, (int64_t)w->pending.len, false);
  GB_TRY_ON(e, write_all(w->fd, name, w->pending.data, w->pending.len));
  if (!e && w->fd != STDOUT_FILENO && fsync(w->fd) != 0)
    e = gb_fail(GB_E_IO, "%s: fsync failed: %s", name, strerror(errno));
  if (e && w->fd != STDOUT_FILENO) {
    /* a write cut short (disk full): take the partial case back out */
    if (ftruncate(w->fd, (off_t)w->committed_bytes) != 0) { /* the marker still allows the next open to */ }
  } else if (!e) {
    w->committed_bytes += (int64_t)w->pending.len;
    e = marker_put(w, 0, true);
    if (!e) w->written += w->pending_rows;
  }
  w->pending.len = 0;
  w->pending_rows = 0;
  return e;
}

gb_err gb_writer_close(gb_results_writer *w) {
  gb_err e = GB_OK;
  if (w->marker_fd >= 0) {
    /* the file ends at its last commit: the marker has nothing left to say;
     * removed while the lock is held, so it is never the next writer's */
    close(w->marker_fd);
    unlink(w->marker_path);
  }
  if (w->fd >= 0 && w->fd != STDOUT_FILENO && close(w->fd) != 0) /* drops the lock */
    e = gb_fail(GB_E_IO, "%s: close failed: %s", w->path, strerror(errno));
  w->fd = w->marker_fd = -1;
  gb_buf_free(&w->pending);
  free(w->path);
  free(w->marker_path);
  free(w->cols);
  w->path = w->marker_path = NULL;
  w->cols = NULL;
  return e;
}
