/* gb_num: strict parsing and C-locale formatting of numbers. */
#include "gb_num.h"

#include <ctype.h>
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static locale_t c_locale(void) {
  static locale_t loc = (locale_t)0;
  if (loc == (locale_t)0) loc = newlocale(LC_ALL_MASK, "C", (locale_t)0);
  return loc;
}

static bool all_blank(const char *p) {
  while (*p && isspace((unsigned char)*p)) p++;
  return *p == '\0';
}

bool gb_parse_double_any(const char *s, double *out) {
  if (!s) return false;
  while (isspace((unsigned char)*s)) s++;
  if (*s == '\0') return false;
  locale_t old = uselocale(c_locale());
  errno = 0;
  char *end = NULL;
  double v = strtod(s, &end);
  int err = errno;
  uselocale(old);
  if (end == s || !all_blank(end)) return false;
  if (err == ERANGE && isinf(v)) return false;
  /* reject hex floats: a results file never holds them */
  if (strpbrk(s, "xX") && !isnan(v) && !isinf(v)) return false;
  *out = v;
  return true;
}

bool gb_parse_double(const char *s, double *out) {
  double v;
  if (!gb_parse_double_any(s, &v) || !isfinite(v)) return false;
  *out = v;
  return true;
}

bool gb_parse_i64(const char *s, int64_t *out) {
  if (!s) return false;
  while (isspace((unsigned char)*s)) s++;
  if (*s == '\0') return false;
  errno = 0;
  char *end = NULL;
  long long v = strtoll(s, &end, 10);
  if (end == s || errno == ERANGE || !all_blank(end)) return false;
  *out = (int64_t)v;
  return true;
}

bool gb_parse_size(const char *s, int64_t *out) {
  if (!s) return false;
  char *end = NULL;
  errno = 0;
  while (isspace((unsigned char)*s)) s++;
  if (!isdigit((unsigned char)*s)) return false;
  unsigned long long v = strtoull(s, &end, 10);
  if (end == s || errno == ERANGE) return false;
  unsigned shift = 0;
  switch (toupper((unsigned char)*end)) {
  case 'K': shift = 10; end++; break;
  case 'M': shift = 20; end++; break;
  case 'G': shift = 30; end++; break;
  case 'T': shift = 40; end++; break;
  default: break;
  }
  if (shift && (*end == 'i' || *end == 'I')) end++;
  if (shift && (*end == 'b' || *end == 'B')) end++;
  if (!all_blank(end)) return false;
  if (shift && v > (unsigned long long)(INT64_MAX >> shift)) return false;
  if (v > (unsigned long long)INT64_MAX) return false;
  *out = (int64_t)(v << shift);
  return true;
}

int gb_snprintf_c(char *buf, size_t n, const char *fmt, ...) {
  locale_t old = uselocale(c_locale());
  va_list ap;
  va_start(ap, fmt);
  int r = vsnprintf(buf, n, fmt, ap);
  va_end(ap);
  uselocale(old);
  return r;
}

void gb_fmt_double(char *buf, size_t n, double v) {
  if (isnan(v)) {
    if (n) buf[0] = '\0';
    return;
  }
  if (isinf(v)) {
    snprintf(buf, n, "%s", v > 0 ? "inf" : "-inf");
    return;
  }
  /* shortest %.Ng that reads back exactly */
  for (int prec = 6; prec <= 17; prec++) {
    gb_snprintf_c(buf, n, "%.*g", prec, v);
    double back;
    if (gb_parse_double(buf, &back) && back == v) return;
  }
  gb_snprintf_c(buf, n, "%.17g", v);
}

void gb_fmt_size(char *buf, size_t n, int64_t bytes) {
  static const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = (double)bytes;
  int u = 0;
  while (v >= 1024.0 && u < 4) {
    v /= 1024.0;
    u++;
  }
  if (v == floor(v))
    gb_snprintf_c(buf, n, "%.0f %s", v, units[u]);
  else
    gb_snprintf_c(buf, n, "%.3g %s", v, units[u]);
}
