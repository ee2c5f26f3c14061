/* gb_datecheck: dates of price and datasheet rows. */
#include "gb_datecheck.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

bool gb_date_valid(const char *s) {
  if (strlen(s) != 10 || s[4] != '-' || s[7] != '-') return false;
  for (int i = 0; i < 10; i++)
    if (i != 4 && i != 7 && !isdigit((unsigned char)s[i])) return false;
  int y = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0');
  int m = (s[5] - '0') * 10 + (s[6] - '0');
  int d = (s[8] - '0') * 10 + (s[9] - '0');
  static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (y < 1990 || y > 2100 || m < 1 || m > 12 || d < 1) return false;
  int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return d <= days[m - 1] + (m == 2 && leap);
}

const char *gb_date_today(void) {
  static char buf[16];
  const char *env = getenv("GPUBENCH_TODAY");
  if (env && gb_date_valid(env)) {
    snprintf(buf, sizeof buf, "%s", env);
    return buf;
  }
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

/* Days from the civil date to 1970-01-01 (H. Hinnant's days_from_civil). */
long gb_date_days(const char *s) {
  long y = atol(s), m = atol(s + 5), d = atol(s + 8);
  y -= m <= 2;
  long era = (y >= 0 ? y : y - 399) / 400;
  long yoe = y - era * 400;
  long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

long gb_date_age_days(const char *date, const char *today) { return gb_date_days(today) - gb_date_days(date); }
