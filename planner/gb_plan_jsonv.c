/* gb_plan_jsonv: JSON values for the plan's writers (gb_plan_out.c's
 * record, gb_plan_json.c's document), built as json-c values and written
 * by json-c: quoting and escaping by construction, strings made valid
 * UTF-8 first (gb_esc_utf8), numbers with the CSV's digits. json-c rather
 * than jansson: it writes a number with the digits we give it, so a figure
 * reads the same, and back as the same double, in the JSON and the CSV
 * (plan_agree); jansson writes %.17g (0.6 as 0.59999999999999998). Called
 * by gb_plan_out.c and gb_plan_json.c; calls no planner file. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gb_escape.h"
#include "gb_num.h"
#include "gb_output.h"
#include "gb_plan_int.h"

/* json-c's null is a NULL value, so a constructor that fails (out of
 * memory) could pass for one: each says so here, and dump() refuses. */
static _Thread_local bool t_oom;

static gb_json *made(gb_json *v) {
  if (!v) t_oom = true;
  return v;
}

gb_json *gb_json_obj(void) { return made(json_object_new_object()); }
gb_json *gb_json_arr(void) { return made(json_object_new_array()); }
gb_json *gb_json_int(long long v) { return made(json_object_new_int64(v)); }
gb_json *gb_json_text(const char *v) { return made(json_object_new_string(v)); }
gb_json *gb_json_bool(bool v) { return made(json_object_new_boolean(v)); }

gb_json *gb_json_str(const char *v) {
  gb_buf b = {0};
  if (gb_esc_utf8(&b, v ? v : "") != GB_OK) return made(NULL);
  gb_json *s = made(json_object_new_string_len(b.data ? b.data : "", (int)b.len));
  gb_buf_free(&b);
  return s;
}

gb_json *gb_json_num(double v) {
  if (!isfinite(v)) return NULL; /* null */
  if (v == floor(v) && fabs(v) <= 9007199254740992.0) return gb_json_int((long long)v);
  char s[64];
  gb_fmt_double(s, sizeof s, v); /* the CSV's digits: both read back the same double */
  return made(json_object_new_double_s(v, s));
}

/* Sets key to v (taken; NULL: null) in o. A missing o or a failed add (out
 * of memory) is noted for gb_json_write(). Everything is built without early exits:
 * gb_json_write() refuses a tree whose building ran out of memory. */
void gb_json_put(gb_json *o, const char *key, gb_json *v) {
  if (!o || json_object_object_add(o, key, v) != 0) {
    t_oom = true;
    json_object_put(v);
  }
}

void gb_json_append(gb_json *a, gb_json *v) {
  if (!a || json_object_array_add(a, v) != 0) {
    t_oom = true;
    json_object_put(v);
  }
}

/* root serialised into path (atomically), then freed; a value that could
 * not be made (out of memory) fails it whole: no file. */
gb_err gb_json_write(gb_json *root, const char *path) {
  int flags = JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE;
  const char *t = root && !t_oom ? json_object_to_json_string_ext(root, flags) : NULL;
  gb_buf b = {0};
  gb_err e = t ? gb_buf_puts(&b, t) : gb_fail(GB_E_NOMEM, "plan --json: out of memory");
  e = e ? e : gb_buf_puts(&b, "\n");
  json_object_put(root);
  t_oom = false;
  if (!e) e = gb_write_file_atomic(path, b.data, b.len);
  gb_buf_free(&b);
  return e;
}

