/* gb_rep_copy: the report's host/device/peer copy section. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_num.h"
#include "gb_rep.h"
#include "gb_rep_sections.h"

/* ---- copies ---- */

gb_err gb_rep_section_copy(gb_rep *r) {
  gb_err e = gb_doc_heading(&r->doc, 2, "Host, device and peer copies");
  const char *metric[] = {"gbps"};
  gb_rep_names cases = {0};
  if (!e) e = gb_rep_collect_cases(r, "copy", metric, 1, &cases);
  if (!e && cases.n == 0) e = gb_rep_skip(r, "Copy bandwidth", "the results hold no ok copy rows");
  else if (!e) {
    gb_plot_spec p = {.stem = "copy", .title = "Copy bandwidth (largest size measured)", .xlabel = "copy",
                      .ylabel = "bandwidth (GB/s)"};
    e = gb_rep_bars_by_source(r, &p, &cases, "copy", metric, 1, true, NULL,
                       "Host-device, device-device and peer copy bandwidth at the largest size measured");
  }
  gb_rep_names_free(&cases);
  return e;
}
