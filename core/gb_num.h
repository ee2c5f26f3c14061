/* gb_num: strict number parsing and locale-independent number formatting.
 * Parsing accepts the whole string or nothing; formatting always uses the C
 * locale, so a user's locale never turns a decimal point into a comma. */
#ifndef GB_NUM_H
#define GB_NUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Parses a finite double from all of s (leading/trailing blanks allowed).
 * Returns false on an empty string, trailing junk, NaN, inf or overflow. */
bool gb_parse_double(const char *s, double *out);

/* Like gb_parse_double but also accepts "nan", "inf" and "-inf". */
bool gb_parse_double_any(const char *s, double *out);

/* Parses a signed 64-bit integer (decimal) from all of s. */
bool gb_parse_i64(const char *s, int64_t *out);

/* Parses a size with an optional binary suffix: 8, 64K, 1M, 4G (powers of
 * 1024) or a plain byte count. */
bool gb_parse_size(const char *s, int64_t *out);

/* Writes v into buf with %.17g-or-shorter round-trip precision in the C
 * locale ("" for NaN, so NaN means "empty / not applicable"). */
void gb_fmt_double(char *buf, size_t n, double v);

/* The text of a numeric constant macro, for a default shown in help: GB_STR(0.3) is "0.3". */
#define GB_STR_(x) #x
#define GB_STR(x) GB_STR_(x)

/* snprintf in the C locale. */
int gb_snprintf_c(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Human-readable size, binary units: "1 KiB", "4 GiB", "1.5 MiB", "12 B". */
void gb_fmt_size(char *buf, size_t n, int64_t bytes);

#endif
