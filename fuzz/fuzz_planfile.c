/* fuzz_planfile: the planner's output CSVs as the report reads them
 * (reports/gb_planfile.h gb_planfile_read_mem and gb_sensfile_read_mem), the
 * same bytes through both.
 *
 * Properties: no crash or sanitizer report; a file that reads has one parsed
 * row per table row, each pointing at text inside the table. */
#include <stdint.h>
#include <string.h>

#include "fuzz_util.h"
#include "gb_planfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  gb_planfile p;
  if (gb_planfile_read_mem("fuzz_plan.csv", (const char *)data, size, &p) == GB_OK) {
    FUZZ_ASSERT(p.n == p.table.nrows);
    for (size_t i = 0; i < p.n; i++) (void)strlen(p.rows[i].gpu_type), (void)strlen(p.rows[i].workload);
    gb_planfile_free(&p);
  }
  gb_sensfile s;
  if (gb_sensfile_read_mem("fuzz_sens.csv", (const char *)data, size, &s) == GB_OK) {
    FUZZ_ASSERT(s.n == s.table.nrows);
    for (size_t i = 0; i < s.n; i++) (void)strlen(s.rows[i].factor), (void)strlen(s.rows[i].top_offering);
    gb_sensfile_free(&s);
  }
  return 0;
}
