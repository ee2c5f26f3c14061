/* gb_error: one error enum for the whole project, and a per-thread detail
 * message written once, at the failure site (what failed, where, what to do).
 * Library code returns a gb_err and never exits or prints. */
#ifndef GB_ERROR_H
#define GB_ERROR_H

typedef enum gb_err {
  GB_OK = 0,
  GB_E_USAGE,       /* bad command-line usage */
  GB_E_INPUT,       /* bad input file or value */
  GB_E_IO,          /* a file could not be read or written */
  GB_E_NOMEM,       /* host memory exhausted */
  GB_E_NODRIVER,    /* no NVIDIA driver could be loaded */
  GB_E_NOGPU,       /* a driver, but no usable GPU */
  GB_E_CUDA,        /* a CUDA runtime, cuBLASLt, NVRTC or NCCL call failed */
  GB_E_OOM,         /* device memory exhausted */
  GB_E_UNSUPPORTED, /* the device or library cannot run this case */
  GB_E_CHECK,       /* a result check failed */
  GB_E_INTERRUPTED, /* stopped by a signal */
  GB_E_INTERNAL     /* a bug */
} gb_err;

/* Human name of an error code ("bad input"); never NULL. */
const char *gb_strerror(gb_err e);

/* Records the detail message for the calling thread and returns e, so a
 * failure site reads `return gb_fail(GB_E_INPUT, "%s:%ld: ...", ...)`. */
gb_err gb_fail(gb_err e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The calling thread's last detail message ("" when none). */
const char *gb_errmsg(void);

/* Clears the calling thread's detail message. */
void gb_errclear(void);

/* Process exit code for an error: 0 ok, 1 check failed, 2 bad usage or
 * input, 3 no usable GPU; other failures map to 1. */
int gb_exit_code(gb_err e);

/* The error idiom, one family: GB_TRY returns an error, GB_TRY_GOTO jumps to
 * a cleanup label with it, GB_TRY_ON chains steps before a cleanup.
 * A gb_err that already failed (propagate). */
#define GB_TRY(expr)                                                                    \
  do {                                                                                  \
    gb_err gb_t_ = (expr);                                                              \
    if (gb_t_ != GB_OK) return gb_t_;                                                   \
  } while (0)

/* In a sequence that must reach its cleanup: evaluates expr only while err
 * is GB_OK, so err keeps the first error. */
#define GB_TRY_ON(err, expr)                                                            \
  do {                                                                                  \
    if ((err) == GB_OK) (err) = (expr);                                                 \
  } while (0)

#define GB_TRY_GOTO(expr, err, label)                                                   \
  do {                                                                                  \
    (err) = (expr);                                                                     \
    if ((err) != GB_OK) goto label;                                                     \
  } while (0)

#endif
