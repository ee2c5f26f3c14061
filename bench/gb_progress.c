/* gb_progress: the campaign's progress line with the time left (see gb_progress.h). */
#include "gb_progress.h"

#include <math.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

double gb_progress_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

void gb_progress_start(gb_progress *p, double now_s) {
  memset(p, 0, sizeof *p);
  p->t0 = now_s;
  p->case_start = -1;
}

void gb_progress_note(gb_progress *p, double now_s, bool finished) {
  if (!finished) {
    p->case_start = now_s;
    return;
  }
  if (p->case_start >= 0 && now_s >= p->case_start) {
    p->measured_s += now_s - p->case_start;
    p->measured++;
  }
  p->case_start = -1;
}

double gb_progress_eta(const gb_progress *p, size_t left) {
  if (p->measured == 0) return left == 0 ? 0 : -1;
  return p->measured_s / (double)p->measured * (double)left;
}

void gb_progress_fmt_duration(double s, char *buf, size_t n) {
  if (!(s >= 0) || isinf(s)) {
    snprintf(buf, n, "?");
    return;
  }
  long t = lround(s);
  if (t < 60) snprintf(buf, n, "%lds", t);
  else if (t < 3600) snprintf(buf, n, "%ldm%02lds", t / 60, t % 60);
  else if (t < 86400) snprintf(buf, n, "%ldh%02ldm", t / 3600, t % 3600 / 60);
  else snprintf(buf, n, "%ldd%02ldh", t / 86400, t % 86400 / 3600);
}

void gb_progress_format(const gb_progress *p, double now_s, bool tty, int width, size_t done, size_t total,
                        const char *what, const char *result, char *buf, size_t n) {
  char eta[32] = "", elapsed[32];
  size_t left = total > done ? total - done : 0;
  double e = gb_progress_eta(p, left);
  if (e >= 0) {
    char d[24];
    gb_progress_fmt_duration(e, d, sizeof d);
    snprintf(eta, sizeof eta, "ETA %s", d);
  }
  gb_progress_fmt_duration(now_s - p->t0, elapsed, sizeof elapsed);
  if (!tty) {
    snprintf(buf, n, "[%zu/%zu] %s: %s (elapsed %s%s%s)\n", done, total, what, result ? result : "", elapsed,
             eta[0] ? ", " : "", eta);
    return;
  }
  char bar[32];
  int bw = 20, fill = total ? (int)(bw * done / total) : bw;
  for (int i = 0; i < bw; i++) bar[i] = i < fill ? '#' : '.';
  bar[bw] = '\0';
  /* the bar, counts and ETA first, so a narrow terminal cuts the case's text */
  snprintf(buf, n, "[%s] %zu/%zu %s%s%s%s%s", bar, done, total, eta[0] ? eta : "", eta[0] ? "  " : "", what,
           result ? ": " : "", result ? result : "");
  if (width > 0 && (size_t)width < n && strlen(buf) >= (size_t)width) buf[width - 1] = '\0';
}

static int term_width(FILE *fp) {
  struct winsize ws;
  if (ioctl(fileno(fp), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return 100;
}

void gb_progress_draw(gb_progress *p, FILE *fp, bool tty, size_t done, size_t total, const char *what,
                      const char *result) {
  double now = gb_progress_now();
  gb_progress_note(p, now, result != NULL);
  if (!fp || (!tty && !result)) return;
  char line[1024];
  gb_progress_format(p, now, tty, tty ? term_width(fp) : 0, done, total, what, result, line, sizeof line);
  if (tty) fprintf(fp, "\r\033[K%s", line);
  else fputs(line, fp);
  fflush(fp);
}
