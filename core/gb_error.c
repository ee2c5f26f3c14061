/* gb_error: error names, the per-thread detail message and exit codes. */
#include "gb_error.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char g_msg[2048];

const char *gb_strerror(gb_err e) {
  switch (e) {
  case GB_OK: return "success";
  case GB_E_USAGE: return "bad usage";
  case GB_E_INPUT: return "bad input";
  case GB_E_IO: return "input/output error";
  case GB_E_NOMEM: return "out of host memory";
  case GB_E_NODRIVER: return "no NVIDIA driver";
  case GB_E_NOGPU: return "no usable GPU";
  case GB_E_CUDA: return "CUDA library call failed";
  case GB_E_OOM: return "out of device memory";
  case GB_E_UNSUPPORTED: return "not supported";
  case GB_E_CHECK: return "result check failed";
  case GB_E_INTERRUPTED: return "interrupted";
  case GB_E_INTERNAL: return "internal error";
  }
  return "unknown error";
}

gb_err gb_fail(gb_err e, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(g_msg, sizeof g_msg, fmt, ap);
  va_end(ap);
  return e;
}

const char *gb_errmsg(void) { return g_msg; }

void gb_errclear(void) { g_msg[0] = '\0'; }

int gb_exit_code(gb_err e) {
  switch (e) {
  case GB_OK: return 0;
  case GB_E_USAGE:
  case GB_E_INPUT:
  case GB_E_IO: return 2;
  case GB_E_NODRIVER:
  case GB_E_NOGPU: return 3;
  default: return 1;
  }
}
