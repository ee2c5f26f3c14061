/* gb_plan_opts: the planner's options, described once as a gb_opt table
 * (core/gb_optable.h) that the CLI turns into flags, help, man page and
 * completion, and that gb_plan_opt_set reads to check and store a value. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gb_num.h"
#include "gb_plan.h"

void gb_plan_opts_default(gb_plan_opts *o) {
  o->max_hours = NAN;
  o->budget_usd = NAN;
  o->objective = GB_OBJ_COST;
  o->rank_by = GB_RANK_LOW;
  o->budget_basis = GB_BUDGET_CASH;
  o->mfu = NAN;
  o->overlap = 0.7;
  o->utilization = 0.6;
  o->pue = 1.3;
  o->electricity_usd_per_kwh = 0.10;
  o->amortization_years = 4.0;
  o->ops_fraction_per_year = 0.10;
  o->network_overhead = 1.15;
  o->host_power_fraction = 0.3;
  o->nic_gbps = NAN;
  o->nics_per_node = NAN;
  o->nic_gbit = NAN;
  o->max_gpus = 1024;
  o->spot_preemptions_per_node_hour = 0.02;
  o->spot_checkpoint_hours = 0.05;
  o->spot_restart_hours = 0.25;
  o->price_scale = 1.0;
  o->efficiency_scale = 1.0;
  o->jobs_per_year = 4;
  o->ngpu_types = o->ngpu_counts = o->nproviders = 0;
  for (int i = 0; i < 4; i++) o->offerings[i] = false;
  o->only_measured = false;
  o->today = NULL;
  o->max_price_age_days = NAN;
  o->price_age_rate = GB_PRICE_AGE_RATE_PER_YEAR;
}

/* A list option's value, split at commas into the option's own store. */
static int split_list(const gb_opt *d, const char *value, char *store, size_t cap, const char **out, size_t *n,
                      size_t max, char *err, size_t errlen) {
  if (strlen(value) >= cap) return snprintf(err, errlen, "--%s: list too long", d->name), -1;
  memcpy(store, value, strlen(value) + 1);
  *n = 0;
  for (char *p = store, *next; p; p = next) {
    next = strchr(p, ',');
    if (next) *next++ = '\0';
    if (!*p) return snprintf(err, errlen, "--%s: empty item in \"%s\"", d->name, value), -1;
    if (*n == max) return snprintf(err, errlen, "--%s: more than %zu items", d->name, max), -1;
    out[(*n)++] = p;
  }
  return 0;
}

static int set_types(void *args, const gb_opt *d, const char *val, char *err, size_t errlen) {
  static char store[4096];
  gb_plan_opts *o = args;
  return split_list(d, val, store, sizeof store, o->gpu_types, &o->ngpu_types, GB_PLAN_MAX_FILTER, err, errlen);
}

static int set_providers(void *args, const gb_opt *d, const char *val, char *err, size_t errlen) {
  static char store[4096];
  gb_plan_opts *o = args;
  return split_list(d, val, store, sizeof store, o->providers, &o->nproviders, GB_PLAN_MAX_FILTER, err, errlen);
}

static int set_offerings(void *args, const gb_opt *d, const char *val, char *err, size_t errlen) {
  char store[4096];
  const char *items[GB_PLAN_MAX_FILTER];
  size_t n;
  gb_plan_opts *o = args;
  if (split_list(d, val, store, sizeof store, items, &n, GB_PLAN_MAX_FILTER, err, errlen)) return -1;
  for (int i = 0; i < 4; i++) o->offerings[i] = false;
  for (size_t i = 0; i < n; i++) {
    gb_offering off;
    if (!gb_offering_parse(items[i], &off))
      return snprintf(err, errlen, "--offering: \"%s\" is not on-demand, spot, reserved or purchase", items[i]), -1;
    o->offerings[off] = true;
  }
  return 0;
}

static int set_counts(void *args, const gb_opt *d, const char *val, char *err, size_t errlen) {
  char store[4096];
  const char *items[GB_PLAN_MAX_FILTER];
  size_t n;
  gb_plan_opts *o = args;
  if (split_list(d, val, store, sizeof store, items, &n, GB_PLAN_MAX_FILTER, err, errlen)) return -1;
  o->ngpu_counts = 0;
  for (size_t i = 0; i < n; i++) {
    double v;
    if (!gb_parse_double(items[i], &v) || v < 1 || v > 100000 || v != floor(v))
      return snprintf(err, errlen, "--gpus: \"%s\" is not a GPU count from 1 to 100000", items[i]), -1;
    o->gpu_counts[o->ngpu_counts++] = (int)v;
  }
  return 0;
}

/* A number that must be whole (checked after the range). */
static int whole(void *args, const gb_opt *d, const char *val, char *err, size_t errlen) {
  (void)args;
  double v;
  if (gb_parse_double(val, &v) && v == floor(v)) return 0;
  return snprintf(err, errlen, "--%s: must be a whole number: %s", d->name, val), -1;
}

static const char *const k_objectives[] = {"cost", "time", "efficiency", NULL};
static const char *const k_rank_by[] = {"low", "median", "high", NULL};
static const char *const k_basis[] = {"cash", "amortized", NULL};

/* Every option: flag name, placeholder, meaning with its default, kind and
 * where it goes. Numbers are doubles (NaN: not given); .lo/.hi bound them
 * (GB_OPT_LO_OPEN: strictly above .lo); lists and filters go through .set. */
#define A(m) GB_OPT_AT(gb_plan_opts, m)
#define NUM(name, m, lo_, hi_, open, help) \
  {name, 0, "VALUE", help, GB_OPT_DOUBLE, A(m), .lo = lo_, .hi = hi_, .bounds = (open) ? GB_OPT_LO_OPEN : 0u}
static const gb_opt k_table[] = {
    {"objective", 0, "cost|time|efficiency", "rank by cost, time or efficiency (work per dollar) [default cost]",
     GB_OPT_CHOICE, A(objective), .choices = k_objectives, .group = "Planner options"},
    {"rank-by", 0, "low|median|high",
     "which end of each band ranks and meets the constraints (low = pessimistic) [default low]", GB_OPT_CHOICE,
     A(rank_by), .choices = k_rank_by},
    {"budget-basis", 0, "cash|amortized",
     "budget against the cash a job needs (capex when buying) or its share [default cash]", GB_OPT_CHOICE,
     A(budget_basis), .choices = k_basis},
    {"gpu-type", 0, "LIST", "only these GPU types (comma-separated) [default all]", GB_OPT_CALL, .set = set_types},
    {"gpus", 0, "N|LIST", "only these GPU counts (comma-separated) [default all]", GB_OPT_CALL, .set = set_counts},
    {"provider", 0, "LIST", "only these providers (comma-separated) [default all]", GB_OPT_CALL,
     .set = set_providers},
    {"offering", 0, "LIST", "only these offerings: on-demand, spot, reserved, purchase [default all]", GB_OPT_CALL,
     .set = set_offerings},
    NUM("max-hours", max_hours, 0, 1e6, true, "deadline in hours [default workload's or none]"),
    NUM("budget", budget_usd, 0, 1e12, true, "budget in USD [default workload's or none]"),
    NUM("mfu", mfu, 0, 1, true,
        "efficiency factor: share of the GEMM rate a whole model sustains (overrides the table) [default from the "
        "efficiency table]"),
    NUM("overlap", overlap, 0, 1, false,
        "share of data-parallel and expert communication hidden behind compute (0 = upper bound on time) [default "
        "0.7]"),
    NUM("utilization", utilization, 0, 1, true, "owned GPUs: share of the year doing useful work [default 0.6]"),
    NUM("pue", pue, 1, 5, false, "power usage effectiveness of the data centre [default 1.3]"),
    NUM("electricity", electricity_usd_per_kwh, 0, 10, true, "electricity price, USD per kWh [default 0.10]"),
    NUM("years", amortization_years, 0, 20, true, "depreciation period of bought GPUs, years [default 4]"),
    NUM("ops-fraction", ops_fraction_per_year, 0, 1, false,
        "operations (staff, colocation, spares) per year, share of capex [default 0.10]"),
    NUM("network-overhead", network_overhead, 1, 3, false, "cluster network factor on the server price [default 1.15]"),
    NUM("host-power", host_power_fraction, 0, 3, false, "host power on top of GPU TDP, share of TDP [default 0.3]"),
    NUM("nic-gbps", nic_gbps, 0, 1e4, true,
        "inter-node bandwidth per GPU, GB/s (400 Gb/s = 50); overrides the node's NICs [default the specs' NICs]"),
    {"nics-per-node", 0, "VALUE", "NICs per node for cross-node collectives [default the specs']", GB_OPT_DOUBLE,
     A(nics_per_node), .lo = 1, .hi = 64, .set = whole},
    NUM("nic-gbit", nic_gbit, 0, 1e5, true, "line rate of one NIC, Gb/s [default the specs']"),
    {"max-gpus", 0, "VALUE", "largest GPU count enumerated [default 1024]", GB_OPT_DOUBLE, A(max_gpus), .lo = 1,
     .hi = 100000, .set = whole},
    NUM("spot-preemptions", spot_preemptions_per_node_hour, 0, 100, false,
        "spot preemptions per node-hour [default 0.02]"),
    NUM("spot-checkpoint-hours", spot_checkpoint_hours, 0, 100, true, "time to write a checkpoint [default 0.05]"),
    NUM("spot-restart-hours", spot_restart_hours, 0, 100, false, "time to replace a node and reload [default 0.25]"),
    NUM("price-scale", price_scale, 0, 100, true, "multiply every price (what-if) [default 1]"),
    {"max-price-age", 0, "DAYS", "leave out price rows older than DAYS days [default none]", GB_OPT_DOUBLE,
     A(max_price_age_days), .lo = 0, .hi = 36500, .set = whole},
    NUM("price-age-rate", price_age_rate, 0, 10, false,
        "widen each cost band by this share of the price per year of the price's age [default "
        GB_STR(GB_PRICE_AGE_RATE_PER_YEAR) "]"),
    NUM("jobs-per-year", jobs_per_year, 0, 1e5, true, "hybrid: runs of the workload per year [default 4]"),
    {"only-measured", 0, NULL, "only configurations whose GEMM and HBM figures are measured", GB_OPT_FLAG,
     A(only_measured)},
    {0}};
#undef NUM
#undef A

const gb_opt *gb_plan_opt_table(void) { return k_table; }

static const gb_opt *find(const char *name) {
  for (const gb_opt *d = k_table; d->name; d++)
    if (strcmp(name, d->name) == 0) return d;
  return NULL;
}

bool gb_plan_is_opt(const char *name) { return find(name) != NULL; }

/* "a, b or c" of a choice list. */
static void choice_words(const char *const *c, char *buf, size_t n) {
  size_t k = 0;
  while (c[k]) k++;
  buf[0] = '\0';
  for (size_t i = 0; i < k; i++) {
    size_t l = strlen(buf);
    snprintf(buf + l, n - l, "%s%s", i == 0 ? "" : i + 1 == k ? " or " : ", ", c[i]);
  }
}

static gb_err set_number(gb_plan_opts *o, const gb_opt *d, const char *value) {
  double v;
  if (!gb_parse_double(value, &v)) return gb_fail(GB_E_INPUT, "--%s: not a number: \"%s\"", d->name, value);
  bool open = d->bounds & GB_OPT_LO_OPEN;
  if (open ? v <= d->lo : v < d->lo)
    return gb_fail(GB_E_INPUT, "--%s: must be %s %g: %s", d->name, open ? ">" : ">=", d->lo, value);
  if (v > d->hi) return gb_fail(GB_E_INPUT, "--%s: absurd value %s (above %g)", d->name, value, d->hi);
  char err[256];
  if (d->set && d->set(o, d, value, err, sizeof err)) return gb_fail(GB_E_INPUT, "%s", err);
  *(double *)((char *)o + d->off) = v;
  return GB_OK;
}

gb_err gb_plan_opt_set(gb_plan_opts *o, const char *name, const char *value) {
  const gb_opt *d = find(name);
  if (!d) return gb_fail(GB_E_USAGE, "--%s: unknown option", name);
  char err[256];
  switch (d->kind) {
  case GB_OPT_CHOICE:
    for (int i = 0; d->choices[i]; i++)
      if (strcmp(value, d->choices[i]) == 0) return *(int *)((char *)o + d->off) = i, GB_OK;
    choice_words(d->choices, err, sizeof err);
    return gb_fail(GB_E_INPUT, "--%s: \"%s\" is not %s", name, value, err);
  case GB_OPT_FLAG:
    if (!*value || strcmp(value, "true") == 0 || strcmp(value, "yes") == 0 || strcmp(value, "1") == 0)
      return *(bool *)((char *)o + d->off) = true, GB_OK;
    if (strcmp(value, "false") == 0 || strcmp(value, "no") == 0 || strcmp(value, "0") == 0)
      return *(bool *)((char *)o + d->off) = false, GB_OK;
    return gb_fail(GB_E_INPUT, "--%s: \"%s\" is not true or false", name, value);
  case GB_OPT_CALL:
    if (d->set(o, d, value, err, sizeof err)) return gb_fail(GB_E_INPUT, "%s", err);
    return GB_OK;
  default: return set_number(o, d, value);
  }
}
