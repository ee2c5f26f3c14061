/* gpubench fleet: the slow-node finder (gate/gb_fleet.h). Ranks the nodes
 * of one campaign (a merged fleet file, or the nodes' files) per headline
 * figure and names those slower than their peers; exit 1 when one is. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_cli.h"
#include "gb_cli_args.h"
#include "gb_fleet.h"
#include "gb_gate.h"
#include "gb_noise.h"
#include "gb_output.h"

typedef struct fleet_args {
  const char **inputs; /* malloc'd by the parser */
  size_t ninputs;
  const char *noise_path, *markdown, *junit;
  double threshold_pct, alpha;
  bool strict;
} fleet_args;

#define A(m) GB_OPT_AT(fleet_args, m)
static const gb_opt k_opts[] = {
    {"threshold", 0, "PCT", "smallest gap to the other nodes ever flagged, percent (default 5)", GB_OPT_DOUBLE,
     A(threshold_pct), .lo = 0, .hi = INFINITY},
    {"alpha", 0, "A", "significance level (default 0.01)", GB_OPT_DOUBLE, A(alpha), .lo = 0, .hi = 1,
     .bounds = GB_OPT_LO_OPEN | GB_OPT_HI_OPEN},
    {"noise", 0, "FILE", "noise floors (default @DATA@/noise/floors.csv; \"none\": built-in)", GB_OPT_PATH,
     A(noise_path), .ext = "csv"},
    {"strict", 0, NULL, "no floors file found is an error (exit 2), not a warning", GB_OPT_FLAG, A(strict)},
    {"markdown", 0, "FILE", "write the ranking as markdown (at most 65,536 bytes: what\nis left out is counted; the text output lists it)", GB_OPT_PATH, A(markdown),
     .group = "Output", .writes = GB_OPT_WRITES_FILE},
    {"junit", 0, "FILE", "write JUnit XML: one test case per node", GB_OPT_PATH, A(junit),
     .writes = GB_OPT_WRITES_FILE},
    {0}};

const gb_opt_cmd gb_fleet_cmd = {
    .name = "fleet",
    .synopsis = "[OPTIONS] RESULTS.csv|DIR...",
    .summary = "rank the nodes of one campaign and name the slow ones (exit 1)",
    .description =
        "Ranks the nodes (host, gpu_uuid) of one campaign against each other, headline\n"
        "figure by headline figure: a merged fleet file (`gpubench merge`) or the nodes'\n"
        "results files. A node's value is the median of its runs; it is compared with\n"
        "the median of the other nodes, and is slow on the figure when it is behind by\n"
        "more than max(--threshold, z(1 - alpha/2) x the figure's card-to-card spread x\n"
        "sqrt(1 + 1/(nodes - 1))): the spread is the floors' \"cards\" row (`gpubench\n"
        "noise` over runs of several cards), or for a figure that switches power state\n"
        "its \"peak\" row, judged by the runs' best samples. Needs 3 nodes or more. The\n"
        "slow-node check to run after maintenance (docs/ci.md).",
    .options = k_opts,
    .operands = {.metavar = "RESULTS.csv|DIR...", .help = "the campaign's results files, or directories of them",
                 .min = 1, .max = -1, .ext = "csv", A(inputs), GB_OPT_COUNT(fleet_args, ninputs),
                 .missing = "needs the results of one campaign over 3 or more nodes"},
    .exit_status = "0 no slow node; 1 a node is slow; 2 bad usage or input (fewer than 3 nodes,\n"
                   "a file with no rows, no floors file with --strict).",
};
#undef A

static int fleet_outputs(const fleet_args *a, const gb_fleet_report *rep, const char *warning) {
  gb_buf text = {0}, md = {0}, xml = {0};
  gb_err e = gb_fleet_format_text(rep, &text);
  if (!e && warning[0]) e = gb_buf_printf(&text, "fleet: %s\n", warning);
  if (!e && a->markdown && !(e = gb_fleet_format_markdown(rep, &md)) && warning[0])
    e = gb_buf_printf(&md, "\n**%s**\n", warning);
  if (!e && a->junit) e = gb_fleet_format_junit(rep, &xml);
  if (!e && a->markdown) e = gb_write_file_atomic(a->markdown, md.data ? md.data : "", md.len);
  if (!e && a->junit) e = gb_write_file_atomic(a->junit, xml.data ? xml.data : "", xml.len);
  if (!e) fwrite(text.data, 1, text.len, stdout);
  gb_buf_free(&text);
  gb_buf_free(&md);
  gb_buf_free(&xml);
  return e ? 2 : 0;
}

int gb_cmd_fleet(int argc, char **argv) {
  fleet_args a;
  memset(&a, 0, sizeof a);
  a.threshold_pct = a.alpha = NAN;
  int rc = gb_cli_parse(&gb_fleet_cmd, argc, argv, &a);
  if (rc != GB_CLI_CONTINUE) return gb_opt_free(&gb_fleet_cmd, &a), rc;
  const char *in[2] = {a.noise_path, NULL};
  size_t nin = a.noise_path ? 1 : 0;
  gb_results res = {0};
  gb_noise_table noise;
  memset(&noise, 0, sizeof noise);
  gb_fleet_report rep;
  memset(&rep, 0, sizeof rep);
  char warning[1400];
  gb_err e = GB_OK;
  for (size_t i = 0; i < a.ninputs && !e; i++) {
    in[nin] = a.inputs[i];
    e = gb_output_check(a.markdown, in, nin + 1);
    if (!e) e = gb_output_check(a.junit, in, nin + 1);
  }
  if (!e) e = gb_output_check(a.junit, &a.markdown, 1);
  if (!e) e = gb_noise_load(a.noise_path, a.strict, &noise, warning, sizeof warning);
  if (!e) e = gb_gate_read_side((char *const *)a.inputs, a.ninputs, true, &res);
  gb_fleet_options opt = {.threshold_pct = a.threshold_pct, .alpha = a.alpha, .noise = &noise};
  if (!e) e = gb_fleet_check(&res, &opt, &rep);
  rc = 2;
  if (!e) {
    if (warning[0]) fprintf(stderr, "gpubench fleet: %s\n", warning);
    rc = fleet_outputs(&a, &rep, warning);
    if (rc == 0) rc = gb_fleet_exit_code(&rep);
  }
  if (e || rc == 2) fprintf(stderr, "gpubench fleet: %s\n", gb_errmsg());
  gb_fleet_free(&rep);
  gb_noise_free(&noise);
  gb_results_free(&res);
  gb_opt_free(&gb_fleet_cmd, &a);
  return rc;
}
