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
  if (!e && n > 1) qsort(names, n, sizeof *names, cmp_str);
  for (size_t i = 0; i < n && !e; i++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    e = gb_results_read_input(path, res);
    if (!e) (*nfiles)++;
  }
  for (size_t i = 0; i < n; i++) free(names[i]);
  free(names);
  return e;
}

gb_err gb_plan_run_make(const gb_plan_inputs *in, gb_plan_run *r) {
  memset(r, 0, sizeof *r);
  gb_workload_init(&r->w);
  const char *dir = gb_data_dir();
  char path[4096];
  gb_err e;
  snprintf(r->specs_path, sizeof r->specs_path, "%s", in->specs ? in->specs : "");
  if (!in->specs) snprintf(r->specs_path, sizeof r->specs_path, "%s/gpu_specs.csv", dir);
  if ((e = gb_specs_read(r->specs_path, &r->specs))) goto fail;
  snprintf(path, sizeof path, "%s/prices.csv", dir);
  if ((e = gb_prices_read(in->prices ? in->prices : path, &r->specs, &r->prices))) goto fail;
  /* the workload: a file, or keys alone when they give the type, else the default */
  bool has_type = false;
  for (size_t i = 0; i < in->nkeys; i++) has_type |= strcmp(in->keys[i], "type") == 0;
  const char *wl = in->workload_file;
  if (!wl && !has_type) {
    snprintf(r->wl_path, sizeof r->wl_path, "%s/workloads/training-7b.ini", dir);
    wl = r->wl_path;
  }
  if (wl && (e = gb_workload_read(wl, &r->w))) goto fail;
  for (size_t i = 0; i < in->nkeys; i++) {
    char where[80];
    snprintf(where, sizeof where, "--%s", in->keys[i]);
    if ((e = gb_workload_set(&r->w, in->keys[i], in->vals[i], where, 0))) goto fail;
  }
  if ((e = gb_workload_finish(&r->w))) goto fail;
  snprintf(r->meas_dir, sizeof r->meas_dir, "%s/measured", dir);
  if (!in->no_measured) {
    if (in->nmeasured) {
      for (size_t i = 0; i < in->nmeasured; i++)
        if ((e = gb_results_read_input(in->measured[i], &r->measured))) goto fail;
      r->nfiles = in->nmeasured;
    } else if ((e = gb_plan_load_measured_dir(r->meas_dir, &r->measured, &r->nfiles))) {
      goto fail;
    }
  }
  if ((e = gb_perf_build(&r->specs, &r->measured, r->w.precision, r->w.gemm_size, r->w.gemm_sustained, &r->perf)))
    goto fail;
  if ((e = gb_plan_rank(&r->w, &r->perf, &r->prices, &in->opts, &r->plan))) goto fail;
  r->plan.workload = &r->w;
  if ((e = gb_plan_sensitivity(&r->w, &r->perf, &r->prices, &in->opts, r->sens))) goto fail;
  return GB_OK;
fail:
  gb_plan_run_free(r);
  return e;
}

void gb_plan_run_free(gb_plan_run *r) {
  gb_plan_free(&r->plan);
  gb_perf_free(&r->perf);
  gb_results_free(&r->measured);
  gb_prices_free(&r->prices);
  gb_specs_free(&r->specs);
}

gb_err gb_plan_default(const char *plan_csv, const char *sensitivity_csv) {
  gb_plan_inputs in = {0};
  gb_plan_opts_default(&in.opts);
  gb_plan_run *r = malloc(sizeof *r);
  if (!r) return gb_fail(GB_E_NOMEM, "out of memory");
  gb_err e = gb_plan_run_make(&in, r);
  if (e) {
    free(r);
    return e;
  }
  if (plan_csv) e = gb_plan_write_csv(&r->plan, plan_csv);
  if (!e && sensitivity_csv) e = gb_plan_write_sensitivity_csv(r->sens, GB_SENSITIVITY_ROWS, sensitivity_csv);
  gb_plan_run_free(r);
  free(r);
  return e;
}
