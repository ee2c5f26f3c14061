/* gb_spread: what a store's own history says of how much each figure moves
 * between runs: the floors a fleet that runs every night learns by itself
 * (docs/ci.md, "Floors learned from the store").
 *
 * From the runs of one GPU type (gb_spread_measure: the history, read from
 * the store, less the runs being judged), per figure (gb_noise_figure and
 * its settings): each run's value is the median of its ok rows; sd is the
 * standard deviation of ln(value) over the runs, df = runs - 1 ("type"
 * scope: the offsets between cards are in it), and over the runs of one
 * card, the current run's ("card" scope). The gate pools it with the
 * shipped floor as a prior worth GB_NOISE_NU0 runs (gb_gate.h):
 *   sigma^2 = (NU0 floor^2 + df sd^2) / (NU0 + df)
 * so that each night's run narrows the MDC of a figure steadier than its
 * floor, and a figure that moves more than it widens it. */
#ifndef GB_SPREAD_H
#define GB_SPREAD_H

#include <stdbool.h>
#include <stddef.h>

#include "gb_error.h"
#include "gb_results.h"

/* The fewest runs of the current run's card for its "card" spread; with
 * fewer the "type" spread (every card's runs) is taken. */
#define GB_SPREAD_CARD_MIN_RUNS 5

/* compare --store learns from the last this many campaigns of the current
 * run's host and type (a month of nightly runs: 63,000 rows of a quick
 * campaign of 4 repetitions, read beside the baseline's). */
#define GB_SPREAD_HISTORY_CAMPAIGNS 30

typedef struct gb_spread_entry {
  char *key;   /* scope ('c' card, 't' type), the figure, its settings */
  double sd;   /* of ln(per-run value) over the runs */
  size_t runs; /* df = runs - 1 */
} gb_spread_entry;

typedef struct gb_spread_table {
  size_t n;
  gb_spread_entry *v; /* sorted by key */
  char gpu_type[128]; /* the type measured */
  char gpu[128];      /* the card of the "card" entries ("" none) */
  size_t runs;        /* runs of the type in the history */
} gb_spread_table;

/* Measures spreads from hist (rows of one GPU type: others are skipped),
 * leaving out the runs whose run_id is one of skip's rows' (the current
 * run: it must not judge itself) and, for the "card" scope, keeping the
 * runs of card gpu (NULL or "": no card entries). A figure of fewer than 2
 * runs has no entry. Errors: GB_E_NOMEM. */
gb_err gb_spread_measure(const gb_results *hist, const char *gpu_type, const char *gpu, const gb_results *skip,
                         gb_spread_table *t);

/* The spread of r's figure: the card's with card (where it has at least
 * GB_SPREAD_CARD_MIN_RUNS runs), else the type's; NULL when the history
 * has no entry. *is_card says which. */
const gb_spread_entry *gb_spread_lookup(const gb_spread_table *t, const gb_row *r, bool card, bool *is_card);

void gb_spread_free(gb_spread_table *t);

#endif
