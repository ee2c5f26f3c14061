/* gb_prices: offerings and prices from data/prices.csv.
 *
 * One row per (provider, offering, gpu_type, gpus_per_node): a rental rate in
 * USD per GPU-hour (offering on-demand, spot or reserved) or a purchase price
 * in USD per GPU (offering purchase; the GPU's share of a whole server), each
 * with the date it was read, its source and a confidence tag (V read in a
 * primary source or dated catalog, S secondary, M from memory). */
#ifndef GB_PRICES_H
#define GB_PRICES_H

#include <stdbool.h>
#include <stddef.h>

#include "gb_error.h"
#include "gb_specs.h"

typedef enum gb_offering { GB_OFFER_ON_DEMAND, GB_OFFER_SPOT, GB_OFFER_RESERVED, GB_OFFER_PURCHASE } gb_offering;

typedef struct gb_price {
  char provider[64];
  gb_offering offering;
  char gpu_type[64];
  int gpus_per_node;
  double price_usd_per_gpu_hour; /* NaN for purchase rows */
  double purchase_usd_per_gpu;   /* NaN for rental rows */
  char date[16];
  char source[512];
  char confidence[4];
  double node_nic_gbit; /* optional column: the offering's cross-node line rate a node, Gb/s (NaN: not given) */
  long line;
} gb_price;

typedef struct gb_prices {
  size_t n;
  gb_price *v;
  char path[512];
} gb_prices;

/* Largest accepted values: above them a number is a typo or a unit slip. */
#define GB_PRICE_MAX_USD_PER_GPU_HOUR 1000.0
#define GB_PRICE_MIN_USD_PER_GPU_HOUR 0.01
/* the cheapest GPU anyone sells is far above this: below it the unit is wrong
 * (thousands of dollars, or cents) */
#define GB_PURCHASE_MIN_USD_PER_GPU 50.0
#define GB_PURCHASE_MAX_USD_PER_GPU 5e6
#define GB_GPUS_PER_NODE_MAX 1024

/* A price's uncertainty grows with its age: the planner widens each row's
 * cost band by this share of the price per year of age, on both ends (the
 * price may have moved either way since it was read). Fitted by
 * scripts/fit-price-age.sh from data/prices.csv and data/price-history.csv:
 * the median of |ln(p2 / p1)| / years over consecutive readings of the same
 * offering (6 pairs: 0.029-0.760, median 0.082). docs/planner.md, "Prices";
 * tests/check_price_age.sh keeps it equal to the fit. */
#define GB_PRICE_AGE_RATE_PER_YEAR 0.08
/* the widening is capped so the band's low end stays above zero */
#define GB_PRICE_AGE_WIDEN_MAX 0.9

/* Reads a prices CSV. Every row needs provider, offering (on-demand, spot,
 * reserved or purchase), gpu_type, gpus_per_node (1..1024), exactly the price
 * column of its offering (a rate from 0.01 to 1000 USD per GPU-hour; a
 * purchase price > 0 and below its maximum), date YYYY-MM-DD not after today
 * (gb_date_today),
 * source and confidence (V, S or M). With specs non-NULL, a gpu_type missing
 * from it is an error. A duplicate (provider, offering, gpu_type,
 * gpus_per_node) is an error naming both lines. Errors are GB_E_INPUT with
 * path:line:column. On error *out is empty. */
gb_err gb_prices_read(const char *path, const gb_specs *specs, gb_prices *out);

/* Same from memory (tests and fuzzing); name is used in messages. */
gb_err gb_prices_read_mem(const char *name, const char *data, size_t len, const gb_specs *specs, gb_prices *out);

void gb_prices_free(gb_prices *p);

/* Days from the row's date to today (YYYY-MM-DD). */
long gb_price_age_days(const gb_price *p, const char *today);

/* The share by which a price of that age widens its cost band: rate per
 * year x age in years, from 0 (age <= 0) to GB_PRICE_AGE_WIDEN_MAX. */
double gb_price_age_widening(long age_days, double rate_per_year);

/* "on-demand", "spot", "reserved", "purchase". */
const char *gb_offering_name(gb_offering o);
bool gb_offering_parse(const char *s, gb_offering *out);

#endif
