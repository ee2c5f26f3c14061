/* gb_gate_pair: one baseline file against one current file, judged as
 * `gpubench compare BASELINE CURRENT` judges them with its defaults. */
#include <stdio.h>
#include <string.h>

#include "gb_gate.h"

gb_err gb_gate_judge_pair(const char *base_path, const char *cur_path, gb_gate_pair *p) {
  memset(p, 0, sizeof *p);
  char looked[1024];
  if (!gb_noise_find_default(p->floors, sizeof p->floors, looked, sizeof looked)) p->floors[0] = '\0';
  gb_err e = gb_noise_load(NULL, false, &p->noise, p->warning, sizeof p->warning);
  char *b[1] = {(char *)base_path}, *c[1] = {(char *)cur_path};
  if (!e) e = gb_gate_read_side(b, 1, true, &p->base);
  if (!e) e = gb_gate_read_side(c, 1, false, &p->cur);
  gb_gate_options opt = gb_gate_defaults();
  opt.noise = &p->noise;
  opt.warning = p->warning;
  if (!e) e = gb_gate_compare(&p->base, &p->cur, &opt, &p->rep);
  if (e) gb_gate_pair_free(p);
  return e;
}

void gb_gate_pair_free(gb_gate_pair *p) {
  gb_gate_report_free(&p->rep);
  gb_results_free(&p->base);
  gb_results_free(&p->cur);
  gb_noise_free(&p->noise);
  memset(p, 0, sizeof *p);
}
