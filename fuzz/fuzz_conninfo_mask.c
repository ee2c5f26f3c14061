/* fuzz_conninfo_mask: the store's secret filter (gb_store_mask,
 * gb_store_redact in store/gb_store_url.c) on connection strings holding a
 * password in each form libpq accepts, around text the fuzzer chooses.
 *
 * Input: byte 0 picks the form, byte 1 the password's length, then the
 * password's bytes, then the text before and after it (split in half). The
 * password is written with a '~' before, between and after its characters,
 * and '~' (also as "%7E") is taken out of the rest, so any piece of the
 * password of two characters or more holds a '~'. Forms: a URI's
 * user:PASSWORD@ raw and percent-encoded, ?password= percent-encoded, a
 * keyword string unquoted, quoted with escapes, with spaces around "=", as
 * sslpassword, and the key in capitals (which libpq refuses).
 *
 * Property: when libpq parses the string to that password and no other of
 * its fields to a value holding '~' or "%7E" (the rest is cleaned of them,
 * but an escape may still decode to them: the store shows those fields
 * decoded), or does not parse it at all, no '~' and no "%7E" is in the
 * store's name (at every buffer size), in libpq's own parse message
 * filtered, or in a message quoting the whole string and the password,
 * filtered. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <libpq-fe.h>

#include "fuzz_util.h"
#include "gb_store.h"

enum { URI_RAW, URI_PCT, URI_QUERY, KW_PLAIN, KW_QUOTED, KW_SPACED, KW_SSL, KW_CAPS, NFORMS };

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  c = (char)(c | 32);
  return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* The rest: no NUL, no '~', no "%7e", and none once a URI's percent
 * escapes are decoded (libpq shows a URI's user decoded: "%257E" is the
 * user "%7E", not the password), so no escape of '%', '~', '7' or 'e'
 * (what still decodes to them, e.g. the keyword value "%\7E", the
 * property's libpq check below skips). */
static void clean_rest(char *s, size_t n) {
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '\0' || s[i] == '~') s[i] = '_';
    if (i >= 2 && s[i - 2] == '%' && s[i - 1] == '7' && (s[i] | 32) == 'e') s[i] = 'f';
  }
  s[n] = '\0';
  for (size_t i = 0; i + 2 < n; i++) {
    int hi = hexval(s[i + 1]), lo = hexval(s[i + 2]);
    if (s[i] == '%' && hi >= 0 && lo >= 0 && strchr("%~7eE", hi * 16 + lo)) s[i] = '_';
  }
}

/* A character the form can hold as itself (raw URI, unquoted keyword). */
static bool plain_ok(int form, unsigned char c) {
  if (c < 33 || c > 126) return false;
  if (form == URI_RAW) return !strchr("@:/?#&=%[]\"'\\", c);
  return !strchr("'\\=", c);
}

/* Appends one password character c as the form writes it. */
static void put_char(int form, unsigned char c, gb_buf *b) {
  if (form == URI_PCT || form == URI_QUERY) {
    FUZZ_ASSERT(gb_buf_printf(b, "%%%02X", c) == GB_OK);
  } else if (form == KW_QUOTED || form == KW_SSL || form == KW_SPACED) {
    char e[3] = {'\\', (char)c, 0};
    FUZZ_ASSERT(gb_buf_puts(b, c == '\'' || c == '\\' ? e : e + 1) == GB_OK);
  } else if (plain_ok(form, c)) {
    FUZZ_ASSERT(gb_buf_append(b, (const char *)&c, 1) == GB_OK);
  }
}

static bool clean(const char *s) {
  for (const char *p = s; *p; p++)
    if (*p == '~' || (p[0] == '%' && p[1] == '7' && (p[2] | 32) == 'e')) return false;
  return true;
}

static void check_text(const char *url, const char *text) {
  gb_buf b = {0};
  FUZZ_ASSERT(gb_store_redact(url, text, &b) == GB_OK);
  FUZZ_ASSERT(clean(b.data));
  gb_buf_free(&b);
}

/* The connection string of the form, its password (decoded) into pw. */
static void build(int form, const unsigned char *p, size_t np, const char *r1, const char *r2, gb_buf *url,
                  gb_buf *pw) {
  static const char *const pre[NFORMS] = {"postgresql://", "postgresql://", "postgres://", "pg:",
                                          "pg:",           "pg:",           "pg:",         "pg:"};
  static const char *const key[NFORMS] = {":", ":", "?password=", " password=", " password='", " password = '",
                                          " sslpassword='", " PASSWORD="};
  static const char *const end[NFORMS] = {"@", "@", "&", " ", "' ", "' ", "' ", " "};
  FUZZ_ASSERT(gb_buf_printf(url, "%s%s%s", pre[form], r1, key[form]) == GB_OK);
  FUZZ_ASSERT(gb_buf_puts(pw, "") == GB_OK);
  put_char(form, '~', url);
  FUZZ_ASSERT(gb_buf_puts(pw, "~") == GB_OK);
  for (size_t i = 0; i < np; i++) {
    if (!p[i] || p[i] == '~' || (!plain_ok(form, p[i]) && (form == URI_RAW || form == KW_PLAIN || form == KW_CAPS)))
      continue;
    put_char(form, p[i], url);
    put_char(form, '~', url);
    char two[3] = {(char)p[i], '~', 0};
    FUZZ_ASSERT(gb_buf_puts(pw, two) == GB_OK);
  }
  FUZZ_ASSERT(gb_buf_printf(url, "%s%s", end[form], r2) == GB_OK);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2) return 0;
  int form = data[0] % NFORMS;
  size_t np = data[1] % 48;
  if (np > size - 2) np = size - 2;
  const unsigned char *p = data + 2;
  size_t nr = size - 2 - np, h = nr / 2;
  char *r1 = fuzz_text(data + 2 + np, h), *r2 = fuzz_text(data + 2 + np + h, nr - h);
  clean_rest(r1, h);
  clean_rest(r2, nr - h);
  gb_buf url = {0}, pw = {0};
  build(form, p, np, r1, r2, &url, &pw);
  const char *target = strncmp(url.data, "pg:", 3) == 0 ? url.data + 3 : url.data;
  char *err = NULL;
  PQconninfoOption *o = PQconninfoParse(target, &err);
  bool holds = o == NULL; /* not parsed: nothing of it may show */
  bool other = false;       /* a field besides the password that libpq decodes to hold the mark */
  for (PQconninfoOption *q = o; q && q->keyword; q++) {
    if (!q->val) continue;
    if (!strcmp(q->keyword, "password") || !strcmp(q->keyword, "sslpassword"))
      holds = holds || strcmp(q->val, pw.data) == 0;
    else
      other = other || !clean(q->val);
  }
  PQconninfoFree(o);
  if (holds && !other) {
    char buf[512];
    size_t sizes[] = {1, 2, 7, 64, sizeof buf};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
      gb_store_mask(url.data, buf, sizes[i]);
      FUZZ_ASSERT(clean(buf));
    }
    check_text(url.data, err ? err : "");
    gb_buf quoting = {0};
    FUZZ_ASSERT(gb_buf_printf(&quoting, "could not use \"%s\" with password \"%s\"", url.data, pw.data) == GB_OK);
    check_text(url.data, quoting.data);
    gb_buf_free(&quoting);
  }
  gb_store_url_check(url.data);
  PQfreemem(err);
  gb_buf_free(&url);
  gb_buf_free(&pw);
  free(r1);
  free(r2);
  return 0;
}
