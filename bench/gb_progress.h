/* gb_progress: the campaign's progress line with the time left.
 *
 * On a terminal one line is redrawn in place (a bar, done/total, the case,
 * its result, "ETA 3m10s"), cut to the terminal's width; into a log (not a
 * terminal) one plain line per finished case:
 *   [12/40] gemm bf16 4096x4096x4096: 812.3 TFLOP/s ok (elapsed 1m02s, ETA 3m10s)
 * The estimate is the mean time of the cases this process measured times
 * the cases left (cases --resume skips are not measured, and not counted);
 * none before the first case ends. No CUDA here. */
#ifndef GB_PROGRESS_H
#define GB_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct gb_progress {
  double t0;         /* when the campaign started (monotonic seconds) */
  double case_start; /* when the case in flight started; < 0: none */
  double measured_s; /* time spent in finished cases */
  size_t measured;   /* finished cases */
} gb_progress;

/* Starts the clock (now_s: monotonic seconds, gb_progress_now()). */
void gb_progress_start(gb_progress *p, double now_s);

/* Monotonic seconds. */
double gb_progress_now(void);

/* A case starts (result NULL) or ends (result set) at now_s. */
void gb_progress_note(gb_progress *p, double now_s, bool finished);

/* Seconds left for `left` more cases; negative when there is no estimate yet. */
double gb_progress_eta(const gb_progress *p, size_t left);

/* "42s", "3m05s", "1h02m", "2d03h"; "?" for a negative time. */
void gb_progress_fmt_duration(double s, char *buf, size_t n);

/* Formats the progress text into buf: tty, the redrawn line (no "\r" or
 * escape; cut to width columns when width > 0); else the plain log line
 * (with "\n"). */
void gb_progress_format(const gb_progress *p, double now_s, bool tty, int width, size_t done, size_t total,
                        const char *what, const char *result, char *buf, size_t n);

/* Notes the case and draws: on a tty (redraw) at a case's start and end, to
 * a log only at its end. fp NULL: only notes. */
void gb_progress_draw(gb_progress *p, FILE *fp, bool tty, size_t done, size_t total, const char *what,
                      const char *result);

#endif
