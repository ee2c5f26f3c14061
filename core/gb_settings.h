/* gb_settings: a benchmark's settings as key=value lists, both ways: the
 * `--opt key=value,...` list every benchmark reads its own options from, and
 * the `settings` column a benchmark writes back. An item may carry the
 * benchmark's prefix ("gemm.precs=bf16"); items with another benchmark's
 * prefix are left to that benchmark. (Command-line option tables are
 * another thing: core/gb_optable.h.) */
#ifndef GB_SETTINGS_H
#define GB_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>

#include "gb_error.h"

/* Called for each item meant for the caller: key without the prefix, value,
 * and whether the item carried the prefix (an unknown prefixed key is the
 * caller's error; an unknown plain one may belong to another benchmark).
 * Returning an error stops the walk. */
typedef gb_err (*gb_settings_fn)(void *ctx, const char *key, const char *val, bool prefixed);

/* Walks opts (NULL or "" = none). Items that start with prefix (e.g.
 * "gemm.") are passed on with the prefix removed; with unprefixed, items
 * with no '.' before their '=' are passed on too. A malformed item meant for
 * the caller ("precs", "=x", an item over 1000 characters) is a GB_E_USAGE
 * error naming it. */
gb_err gb_settings_each(const char *opts, const char *prefix, bool unprefixed, gb_settings_fn fn, void *ctx);

/* Walks a ':'-separated value ("bf16:fp16"), calling one for each item;
 * an empty or overlong item is a GB_E_USAGE error naming key and value. */
gb_err gb_settings_list(const char *key, const char *val, gb_err (*one)(void *ctx, const char *item), void *ctx);

/* The other way: a ','-joined list of key=value items built into a caller's
 * buffer (the results' `settings` column). Items that do not fit whole are
 * left out and mark the list truncated. */
typedef struct gb_settings {
  char *buf;
  size_t cap, len;
  bool truncated;
} gb_settings;

/* Starts an empty list in buf (cap >= 1). */
gb_settings gb_settings_start(char *buf, size_t cap);

/* Appends one item, printf-style, with a ',' before it when not first. */
void gb_settings_add(gb_settings *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
