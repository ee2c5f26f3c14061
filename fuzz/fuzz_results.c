/* fuzz_results: the results CSV reader (core/gb_results.h
 * gb_results_read_mem), the contract every other module reads through.
 *
 * Properties: no crash or sanitizer report on any input; the rows of a file
 * that reads, written back with gb_results_put_row (what gpubench run
 * writes), read again to the same rows: same case keys, status, numbers
 * (bit for bit, or both empty) and text. A row the writer can produce that
 * the reader then refuses would be a lost result. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_util.h"
#include "gb_results.h"

static int same_double(double a, double b) {
  if (isnan(a) || isnan(b)) return isnan(a) && isnan(b);
  return memcmp(&a, &b, sizeof a) == 0 || a == b;
}

/* x and y name the same case and metric */
static int same_key(const gb_row *x, const gb_row *y) {
  char kx[1024], ky[1024];
  gb_row_case_key(x, true, kx, sizeof kx);
  gb_row_case_key(y, true, ky, sizeof ky);
  return strcmp(kx, ky) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  gb_results res = {0}, lean = {0};
  gb_err full_err = gb_results_read_mem("fuzz.csv", (const char *)data, size, &res);
  gb_err lean_err = gb_results_read_lean_mem("fuzz.csv", (const char *)data, size, &lean);
  FUZZ_ASSERT(full_err == lean_err);
  if (full_err != GB_OK) {
    FUZZ_ASSERT(res.nrows == 0 && res.ntables == 0);
    FUZZ_ASSERT(lean.nrows == 0 && !lean.rows && !lean.pool);
    return 0;
  }
  FUZZ_ASSERT(lean.nrows == res.nrows);
  for (size_t i = 0; i < res.nrows; i++) {
    const gb_row *x = &res.rows[i], *y = &lean.rows[i];
    FUZZ_ASSERT(same_key(x, y) && x->line == y->line && x->status == y->status);
    FUZZ_ASSERT(same_double(x->value, y->value) && strcmp(x->run_id, y->run_id) == 0);
    FUZZ_ASSERT(strcmp(y->detail, x->status == GB_STATUS_OK ? "" : x->detail) == 0);
  }
  gb_results_free(&lean);
  gb_buf b = {0};
  FUZZ_ASSERT(gb_results_put_header(&b) == GB_OK);
  for (size_t i = 0; i < res.nrows; i++) FUZZ_ASSERT(gb_results_put_row(&b, &res.rows[i]) == GB_OK);
  gb_results again = {0};
  FUZZ_ASSERT(gb_results_read_mem("again.csv", b.data, b.len, &again) == GB_OK);
  FUZZ_ASSERT(again.nrows == res.nrows);
  for (size_t i = 0; i < res.nrows; i++) {
    const gb_row *x = &res.rows[i], *y = &again.rows[i];
    FUZZ_ASSERT(same_key(x, y));
    FUZZ_ASSERT(x->status == y->status && x->gpu_count == y->gpu_count && x->rep == y->rep);
    FUZZ_ASSERT(x->m == y->m && x->n == y->n && x->k == y->k && x->bytes == y->bytes && x->samples == y->samples);
    FUZZ_ASSERT(same_double(x->value, y->value) && same_double(x->min, y->min) && same_double(x->max, y->max));
    FUZZ_ASSERT(same_double(x->stddev, y->stddev) && same_double(x->temp_c, y->temp_c));
    FUZZ_ASSERT(same_double(x->power_w, y->power_w) && same_double(x->peak, y->peak));
    /* the energy columns */
    FUZZ_ASSERT(same_double(x->energy_j, y->energy_j) && same_double(x->energy_s, y->energy_s));
    FUZZ_ASSERT(same_double(x->power_instant_w, y->power_instant_w) && strcmp(x->energy_note, y->energy_note) == 0);
    FUZZ_ASSERT(strcmp(x->run_id, y->run_id) == 0 && strcmp(x->detail, y->detail) == 0);
    FUZZ_ASSERT(strcmp(x->gpu_type, y->gpu_type) == 0 && strcmp(x->variant, y->variant) == 0);
    /* the typed columns; a headline column the input lacks (-1) is written empty and reads as 0 */
    FUZZ_ASSERT(x->l2_bytes == y->l2_bytes && strcmp(x->regime, y->regime) == 0);
    FUZZ_ASSERT((x->headline == 1) == (y->headline == 1) && y->headline >= 0);
  }
  gb_results_free(&again);
  gb_buf_free(&b);
  gb_results_free(&res);
  return 0;
}
