/* gb_datecheck: validation of the YYYY-MM-DD dates carried by data rows. */
#ifndef GB_DATECHECK_H
#define GB_DATECHECK_H

#include <stdbool.h>

/* True for a calendar date YYYY-MM-DD with year 1990..2100 (days checked
 * against the month, leap years included). */
bool gb_date_valid(const char *s);

/* Today's date YYYY-MM-DD (UTC), or $GPUBENCH_TODAY when it holds a valid
 * date (tests). */
const char *gb_date_today(void);

/* Days from 1970-01-01 to a valid date YYYY-MM-DD (proleptic Gregorian). */
long gb_date_days(const char *s);

/* Whole days from date to today (both valid YYYY-MM-DD); negative when date
 * is after today. */
long gb_date_age_days(const char *date, const char *today);

#endif
