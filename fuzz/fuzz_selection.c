/* fuzz_selection: the results store's selection parser
 * (store/gb_store_sel.c gb_sel_parse) and its quoting (gb_store_sel_quote).
 *
 * Properties: no crash or sanitizer report; a selection is accepted
 * (GB_OK) or refused as bad usage (GB_E_USAGE, a message naming the
 * selection), nothing else; an accepted one is "all" (no condition) or has
 * at least one condition; its SQL holds only the key table's text and $N
 * parameters, as many as it binds (no byte of the input reaches the SQL),
 * every parameter lies in the parser's own copy; an empty selection or one
 * of commas only is refused; and any text at all, quoted by
 * gb_store_sel_quote, selects exactly that text as campaign and case. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fuzz_util.h"
#include "gb_store_int.h"

/* The SQL of w: only the characters of the key table's fragments, and as
 * many parameters as w binds (first: the number of the first one). */
static void where_ok(const gb_sel_where *w, const gb_sel_sql *q, size_t first) {
  size_t dollars = 0;
  for (const char *p = w->sql; *p; p++) {
    FUZZ_ASSERT(strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_ .=<>()$\"*,", *p));
    if (*p == '$') dollars++;
  }
  FUZZ_ASSERT(dollars == w->np - first);
  for (size_t i = first; i < w->np; i++)
    FUZZ_ASSERT(w->param[i] >= q->buf && w->param[i] < q->buf + sizeof q->buf);
}

static void quoted_selects(const char *name) {
  gb_buf b = {0};
  FUZZ_ASSERT(gb_buf_puts(&b, "campaign=") == GB_OK && gb_store_sel_quote(name, &b) == GB_OK);
  FUZZ_ASSERT(gb_buf_puts(&b, ",case=") == GB_OK && gb_store_sel_quote(name, &b) == GB_OK);
  static gb_sel_sql q;
  if (b.len + 2 < sizeof q.buf) {
    FUZZ_ASSERT(gb_sel_parse("fuzz.db", b.data, &q) == GB_OK);
    FUZZ_ASSERT(q.all.np == 2 && strcmp(q.all.param[0], name) == 0 && strcmp(q.all.param[1], name) == 0);
  }
  gb_buf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_text(data, size);
  static gb_sel_sql q;
  gb_err e = gb_sel_parse("fuzz.db", text, &q);
  FUZZ_ASSERT(e == GB_OK || e == GB_E_USAGE);
  if (e) {
    FUZZ_ASSERT(strstr(gb_errmsg(), "fuzz.db: ") == gb_errmsg());
  } else {
    FUZZ_ASSERT(strcmp(text, "all") == 0 ? q.all.np == 0 && !q.all.sql[0] : q.all.sql[0] != '\0');
    where_ok(&q.all, &q, 0);
    where_ok(&q.runs, &q, 0);
    where_ok(&q.rows, &q, 1);
    size_t commas = strspn(text, ",");
    FUZZ_ASSERT(text[0] && text[commas]); /* "" and ",,," are refused */
  }
  quoted_selects(text);
  free(text);
  return 0;
}
