/* fuzz_csv: the CSV table reader (core/gb_csv.h gb_csv_read_mem).
 *
 * Properties: no crash or sanitizer report on any input; a table that reads
 * has every cell within the arena; writing its cells back with
 * gb_csv_put_field and reading that again gives the same table (the writer
 * and the reader agree). One-column tables are left out of the round trip: a
 * row holding one empty cell is a blank line, which the reader skips by
 * design. */
#include <stdint.h>
#include <string.h>

#include "fuzz_util.h"
#include "gb_csv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  gb_csv_table t;
  if (gb_csv_read_mem("fuzz.csv", (const char *)data, size, &t) != GB_OK) return 0;
  FUZZ_ASSERT(t.ncols > 0);
  for (size_t r = 0; r < t.nrows; r++) {
    FUZZ_ASSERT(gb_csv_line(&t, r) >= 1);
    for (size_t c = 0; c < t.ncols; c++) (void)strlen(gb_csv_cell(&t, r, (int)c));
  }
  for (size_t c = 0; c < t.ncols; c++) FUZZ_ASSERT(gb_csv_col(&t, gb_csv_header(&t, c)) == (int)c);
  if (t.ncols >= 2) {
    gb_buf b = {0};
    for (size_t c = 0; c < t.ncols; c++) FUZZ_ASSERT(gb_csv_put_field(&b, gb_csv_header(&t, c), c ? ',' : 0) == GB_OK);
    FUZZ_ASSERT(gb_buf_append(&b, "\n", 1) == GB_OK);
    for (size_t r = 0; r < t.nrows; r++) {
      for (size_t c = 0; c < t.ncols; c++)
        FUZZ_ASSERT(gb_csv_put_field(&b, gb_csv_cell(&t, r, (int)c), c ? ',' : 0) == GB_OK);
      FUZZ_ASSERT(gb_buf_append(&b, "\n", 1) == GB_OK);
    }
    gb_csv_table u;
    FUZZ_ASSERT(gb_csv_read_mem("again.csv", b.data, b.len, &u) == GB_OK);
    FUZZ_ASSERT(u.ncols == t.ncols && u.nrows == t.nrows);
    for (size_t c = 0; c < t.ncols; c++) FUZZ_ASSERT(strcmp(gb_csv_header(&t, c), gb_csv_header(&u, c)) == 0);
    for (size_t r = 0; r < t.nrows; r++)
      for (size_t c = 0; c < t.ncols; c++)
        FUZZ_ASSERT(strcmp(gb_csv_cell(&t, r, (int)c), gb_csv_cell(&u, r, (int)c)) == 0);
    gb_csv_free(&u);
    gb_buf_free(&b);
  }
  gb_csv_free(&t);
  return 0;
}
