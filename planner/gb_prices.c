/* gb_prices: the data/prices.csv reader and its validation. */
#include "gb_prices.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb_csv.h"
#include "gb_datecheck.h"
#include "gb_num.h"

static const char *const k_offer_names[] = {"on-demand", "spot", "reserved", "purchase"};

const char *gb_offering_name(gb_offering o) { return k_offer_names[o]; }

bool gb_offering_parse(const char *s, gb_offering *out) {
  for (int i = 0; i < 4; i++)
    if (strcmp(s, k_offer_names[i]) == 0) {
      *out = (gb_offering)i;
      return true;
    }
  return false;
}

enum { C_PROVIDER, C_OFFERING, C_TYPE, C_GPN, C_RATE, C_PURCHASE, C_DATE, C_SOURCE, C_CONF, C_N };
static const char *const k_col_names[C_N] = {"provider", "offering", "gpu_type", "gpus_per_node",
                                             "price_usd_per_gpu_hour", "purchase_usd_per_gpu", "date", "source",
                                             "confidence"};

static gb_err copy_text(const char *file, long line, const char *col, const char *s, char *dst, size_t n) {
  if (!*s) return gb_fail(GB_E_INPUT, "%s:%ld: %s: empty; every row needs one", file, line, col);
  if (strlen(s) >= n) return gb_fail(GB_E_INPUT, "%s:%ld: %s: longer than %zu characters", file, line, col, n - 1);
  memcpy(dst, s, strlen(s) + 1);
  return GB_OK;
}

/* A money figure: a finite number in (0, max]. */
static gb_err parse_money(const char *file, long line, const char *col, const char *s, double max, double *out) {
  double v;
  if (!gb_parse_double(s, &v)) return gb_fail(GB_E_INPUT, "%s:%ld: %s: not a number: \"%s\"", file, line, col, s);
  if (v <= 0) return gb_fail(GB_E_INPUT, "%s:%ld: %s: must be > 0: %s", file, line, col, s);
  if (v > max)
    return gb_fail(GB_E_INPUT, "%s:%ld: %s: absurd value %s (above %g); check the unit (per GPU, USD)", file, line,
                   col, s, max);
  *out = v;
  return GB_OK;
}

static gb_err parse_row(const gb_csv_table *t, size_t r, const int *idx, const gb_specs *specs, gb_price *p) {
  const char *file = t->name;
  long line = gb_csv_line(t, r);
  const char *cell[C_N];
  for (int c = 0; c < C_N; c++) cell[c] = gb_csv_cell(t, r, idx[c]);
  p->line = line;
  gb_err e;
  if ((e = copy_text(file, line, "provider", cell[C_PROVIDER], p->provider, sizeof p->provider))) return e;
  if (!gb_offering_parse(cell[C_OFFERING], &p->offering))
    return gb_fail(GB_E_INPUT, "%s:%ld: offering: \"%s\" is not one of on-demand, spot, reserved, purchase", file,
                   line, cell[C_OFFERING]);
  if ((e = copy_text(file, line, "gpu_type", cell[C_TYPE], p->gpu_type, sizeof p->gpu_type))) return e;
  if (specs && !gb_specs_find(specs, p->gpu_type))
    return gb_fail(GB_E_INPUT, "%s:%ld: gpu_type: unknown GPU type \"%s\" (not in gpu_specs.csv; add its datasheet row)",
                   file, line, p->gpu_type);
  int64_t gpn;
  if (!gb_parse_i64(cell[C_GPN], &gpn))
    return gb_fail(GB_E_INPUT, "%s:%ld: gpus_per_node: not a whole number: \"%s\"", file, line, cell[C_GPN]);
  if (gpn < 1 || gpn > GB_GPUS_PER_NODE_MAX)
    return gb_fail(GB_E_INPUT, "%s:%ld: gpus_per_node: %lld is outside 1..%d", file, line, (long long)gpn,
                   GB_GPUS_PER_NODE_MAX);
  p->gpus_per_node = (int)gpn;
  p->price_usd_per_gpu_hour = NAN;
  p->purchase_usd_per_gpu = NAN;
  if (p->offering == GB_OFFER_PURCHASE) {
    if (*cell[C_RATE])
      return gb_fail(GB_E_INPUT, "%s:%ld: price_usd_per_gpu_hour: must be empty on a purchase row", file, line);
    if (!*cell[C_PURCHASE])
      return gb_fail(GB_E_INPUT, "%s:%ld: purchase_usd_per_gpu: empty; a purchase row needs the price per GPU", file,
                     line);
    if ((e = parse_money(file, line, "purchase_usd_per_gpu", cell[C_PURCHASE], GB_PURCHASE_MAX_USD_PER_GPU,
                         &p->purchase_usd_per_gpu)))
      return e;
    if (p->purchase_usd_per_gpu < GB_PURCHASE_MIN_USD_PER_GPU)
      return gb_fail(GB_E_INPUT, "%s:%ld: purchase_usd_per_gpu: %s is below %g USD per GPU; check the unit", file,
                     line, cell[C_PURCHASE], GB_PURCHASE_MIN_USD_PER_GPU);
  } else {
    if (*cell[C_PURCHASE])
      return gb_fail(GB_E_INPUT, "%s:%ld: purchase_usd_per_gpu: must be empty on a %s row", file, line,
                     gb_offering_name(p->offering));
    if (!*cell[C_RATE])
      return gb_fail(GB_E_INPUT, "%s:%ld: price_usd_per_gpu_hour: empty; a %s row needs the rate per GPU-hour", file,
                     line, gb_offering_name(p->offering));
    if ((e = parse_money(file, line, "price_usd_per_gpu_hour", cell[C_RATE], GB_PRICE_MAX_USD_PER_GPU_HOUR,
                         &p->price_usd_per_gpu_hour)))
      return e;
    if (p->price_usd_per_gpu_hour < GB_PRICE_MIN_USD_PER_GPU_HOUR)
      return gb_fail(GB_E_INPUT, "%s:%ld: price_usd_per_gpu_hour: %s is below %g USD per GPU-hour; check the unit",
                     file, line, cell[C_RATE], GB_PRICE_MIN_USD_PER_GPU_HOUR);
  }
  if (!gb_date_valid(cell[C_DATE]))
    return gb_fail(GB_E_INPUT, "%s:%ld: date: not a date YYYY-MM-DD: \"%s\"", file, line, cell[C_DATE]);
  memcpy(p->date, cell[C_DATE], 11);
  const char *today = gb_date_today();
  if (strcmp(p->date, today) > 0)
    return gb_fail(GB_E_INPUT, "%s:%ld: date: %s is in the future (today is %s); a price is read on a past date",
                   file, line, p->date, today);
  if ((e = copy_text(file, line, "source", cell[C_SOURCE], p->source, sizeof p->source))) return e;
  const char *cf = cell[C_CONF];
  if (strcmp(cf, "V") != 0 && strcmp(cf, "S") != 0 && strcmp(cf, "M") != 0)
    return gb_fail(GB_E_INPUT, "%s:%ld: confidence: \"%s\" is not V (primary), S (secondary) or M (memory)", file,
                   line, cf);
  memcpy(p->confidence, cf, 2);
  return GB_OK;
}

/* The optional node_nic_gbit cell: empty (NaN: the specs') or a line rate. */
static gb_err parse_nic(const gb_csv_table *t, size_t r, int c, gb_price *p) {
  p->node_nic_gbit = NAN;
  const char *s = c >= 0 ? gb_csv_cell(t, r, c) : "";
  if (!*s) return GB_OK;
  double v;
  if (!gb_parse_double(s, &v) || !(v > 0) || v > 1e6)
    return gb_fail(GB_E_INPUT, "%s:%ld: node_nic_gbit: not a line rate from 0 to 1e6 Gb/s: \"%s\"", t->name,
                   gb_csv_line(t, r), s);
  p->node_nic_gbit = v;
  return GB_OK;
}

/* Validates a table read from path (a file name or a memory name) into *out;
 * frees the table. */
static gb_err prices_from_table(const char *path, gb_csv_table t, const gb_specs *specs, gb_prices *out) {
  gb_err e = GB_OK;
  int idx[C_N];
  for (int c = 0; c < C_N; c++) {
    idx[c] = gb_csv_col(&t, k_col_names[c]);
    if (idx[c] < 0) {
      e = gb_fail(GB_E_INPUT, "%s:%ld: missing column %s", path, t.lines[0], k_col_names[c]);
      goto done;
    }
  }
  if (t.nrows == 0) {
    e = gb_fail(GB_E_INPUT, "%s: no price rows", path);
    goto done;
  }
  out->v = calloc(t.nrows, sizeof *out->v);
  if (!out->v) {
    e = gb_fail(GB_E_NOMEM, "%s: out of memory", path);
    goto done;
  }
  snprintf(out->path, sizeof out->path, "%s", path);
  int nic_idx = gb_csv_col(&t, "node_nic_gbit"); /* optional: the offering's network */
  for (size_t r = 0; r < t.nrows; r++) {
    gb_price *p = &out->v[r];
    if ((e = parse_row(&t, r, idx, specs, p))) goto done;
    if ((e = parse_nic(&t, r, nic_idx, p))) goto done;
    for (size_t j = 0; j < r; j++) {
      const gb_price *q = &out->v[j];
      if (q->offering == p->offering && q->gpus_per_node == p->gpus_per_node &&
          strcmp(q->provider, p->provider) == 0 && strcmp(q->gpu_type, p->gpu_type) == 0) {
        e = gb_fail(GB_E_INPUT, "%s:%ld: provider: duplicate of line %ld (%s %s %s x%d); keep one row", path, p->line,
                    q->line, p->provider, gb_offering_name(p->offering), p->gpu_type, p->gpus_per_node);
        goto done;
      }
    }
    out->n = r + 1;
  }
done:
  gb_csv_free(&t);
  if (e) gb_prices_free(out);
  return e;
}

gb_err gb_prices_read(const char *path, const gb_specs *specs, gb_prices *out) {
  memset(out, 0, sizeof *out);
  gb_csv_table t;
  gb_err e = gb_csv_read_file(path, &t);
  return e ? e : prices_from_table(path, t, specs, out);
}

gb_err gb_prices_read_mem(const char *name, const char *data, size_t len, const gb_specs *specs, gb_prices *out) {
  memset(out, 0, sizeof *out);
  gb_csv_table t;
  gb_err e = gb_csv_read_mem(name, data, len, &t);
  return e ? e : prices_from_table(name, t, specs, out);
}

long gb_price_age_days(const gb_price *p, const char *today) { return gb_date_age_days(p->date, today); }

double gb_price_age_widening(long age_days, double rate_per_year) {
  if (age_days <= 0 || !(rate_per_year > 0)) return 0;
  double w = rate_per_year * (double)age_days / 365.25;
  return w < GB_PRICE_AGE_WIDEN_MAX ? w : GB_PRICE_AGE_WIDEN_MAX;
}

void gb_prices_free(gb_prices *p) {
  free(p->v);
  memset(p, 0, sizeof *p);
}
