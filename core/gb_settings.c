/* gb_settings: the --opt key=value list walker and the settings column builder. */
#include "gb_settings.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define GB_TRY_OPT(expr)          \
  do {                            \
    gb_err e_ = (expr);           \
    if (e_ != GB_OK) return e_;   \
  } while (0)

gb_err gb_settings_each(const char *opts, const char *prefix, bool unprefixed, gb_settings_fn fn, void *ctx) {
  if (!opts) return GB_OK;
  size_t plen = prefix ? strlen(prefix) : 0;
  const char *p = opts;
  while (*p) {
    size_t len = strcspn(p, ",");
    if (len > 0) {
      char item[1024];
      if (len >= sizeof item) return gb_fail(GB_E_USAGE, "--opt: an item is longer than %zu characters", sizeof item - 1);
      memcpy(item, p, len);
      item[len] = '\0';
      char *eq = strchr(item, '=');
      const char *dot = strchr(item, '.');
      bool mine_prefixed = plen && strncmp(item, prefix, plen) == 0;
      bool mine_plain = unprefixed && (!dot || (eq && dot > eq));
      if (mine_prefixed || mine_plain) {
        if (!eq || eq == item + (mine_prefixed ? plen : 0) || eq[1] == '\0')
          return gb_fail(GB_E_USAGE, "--opt %s: expected key=value", item);
        *eq = '\0';
        GB_TRY(fn(ctx, item + (mine_prefixed ? plen : 0), eq + 1, mine_prefixed));
      }
    }
    p += len;
    if (*p == ',') p++;
  }
  return GB_OK;
}

gb_err gb_settings_list(const char *key, const char *val, gb_err (*one)(void *ctx, const char *item), void *ctx) {
  const char *p = val;
  for (;;) {
    char item[128];
    size_t len = strcspn(p, ":");
    if (len == 0 || len >= sizeof item)
      return gb_fail(GB_E_USAGE, "--opt %s=%s: expected items separated by ':'", key, val);
    memcpy(item, p, len);
    item[len] = '\0';
    GB_TRY_OPT(one(ctx, item));
    if (p[len] == '\0') return GB_OK;
    p += len + 1;
  }
}

gb_settings gb_settings_start(char *buf, size_t cap) {
  gb_settings s = {.buf = buf, .cap = cap, .len = 0, .truncated = false};
  if (cap) buf[0] = '\0';
  return s;
}

void gb_settings_add(gb_settings *s, const char *fmt, ...) {
  if (!s->cap) {
    s->truncated = true;
    return;
  }
  size_t at = s->len + (s->len ? 1 : 0);
  if (at >= s->cap) {
    s->truncated = true;
    return;
  }
  va_list ap;
  va_start(ap, fmt);
  int w = vsnprintf(s->buf + at, s->cap - at, fmt, ap);
  va_end(ap);
  if (w < 0 || (size_t)w >= s->cap - at) {
    s->buf[s->len] = '\0'; /* the item did not fit whole: leave it out */
    s->truncated = true;
    return;
  }
  if (s->len) s->buf[s->len] = ',';
  s->len = at + (size_t)w;
}
