/* gb_plan_default: the shipped data (gb_data_dir()) and the no-argument plan. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_plan.h"
#include "gb_runinfo.h"

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

gb_err gb_plan_load_measured_dir(const char *dir, gb_results *res, size_t *nfiles) {
  *nfiles = 0;
  DIR *d = opendir(dir);
  if (!d) return GB_OK; /* no measurements yet */
  char **names = NULL;
  size_t n = 0, cap = 0;
  gb_err e = GB_OK;
  struct dirent *ent;
  while ((ent = readdir(d))) {
    size_t len = strlen(ent->d_name);
    if (len < 5 || strcmp(ent->d_name + len - 4, ".csv") != 0 || ent->d_name[0] == '.') continue;
    if (n == cap) {
      cap = cap ? cap * 2 : 16;
      char **grown = realloc(names, cap * sizeof *names);
      if (!grown) {
        e = gb_fail(GB_E_NOMEM, "out of memory");
        break;
      }
      names = grown;
    }
    if (!(names[n] = strdup(ent->d_name))) {
      e = gb_fail(GB_E_NOMEM, "out of memory");
      break;
    }
    n++;
  }
  closedir(d);
  if (!e) qsort(names, n, sizeof *names, cmp_str);
  for (size_t i = 0; i < n && !e; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    e = gb_results_read(path, res);
    if (!e) (*nfiles)++;
  }
  for (size_t i = 0; i < n; i++) free(names[i]);
  free(names);
  return e;
}

gb_err gb_plan_default(const char *plan_csv, const char *sensitivity_csv) {
  const char *dir = gb_data_dir();
  char path[4096];
  gb_specs specs = {0};
  gb_prices prices = {0};
  gb_results measured = {0};
  gb_perf perf = {0};
  gb_plan plan = {0};
  gb_workload w;
  gb_workload_init(&w);
  size_t nfiles = 0;
  gb_err e;
  snprintf(path, sizeof path, "%s/gpu_specs.csv", dir);
  if ((e = gb_specs_read(path, &specs))) goto done;
  snprintf(path, sizeof path, "%s/prices.csv", dir);
  if ((e = gb_prices_read(path, &specs, &prices))) goto done;
  snprintf(path, sizeof path, "%s/workloads/training-7b.ini", dir);
  if ((e = gb_workload_read(path, &w)) || (e = gb_workload_finish(&w))) goto done;
  snprintf(path, sizeof path, "%s/measured", dir);
  if ((e = gb_plan_load_measured_dir(path, &measured, &nfiles))) goto done;
  if ((e = gb_perf_build(&specs, &measured, w.precision, w.gemm_size, w.gemm_sustained, &perf))) goto done;
  gb_plan_opts o;
  gb_plan_opts_default(&o);
  if ((e = gb_plan_rank(&w, &perf, &prices, &o, &plan))) goto done;
  if (plan_csv && (e = gb_plan_write_csv(&plan, plan_csv))) goto done;
  if (sensitivity_csv) {
    gb_sensitivity_row sens[GB_SENSITIVITY_ROWS];
    if ((e = gb_plan_sensitivity(&w, &perf, &prices, &o, sens))) goto done;
    e = gb_plan_write_sensitivity_csv(sens, GB_SENSITIVITY_ROWS, sensitivity_csv);
  }
done:
  gb_plan_free(&plan);
  gb_perf_free(&perf);
  gb_results_free(&measured);
  gb_prices_free(&prices);
  gb_specs_free(&specs);
  return e;
}
