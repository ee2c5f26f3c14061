/* gb_results_int: what core/gb_results.c (the column table, the reader) and
 * core/gb_results_writer.c (the writer) share; not for other modules. */
#ifndef GB_RESULTS_INT_H
#define GB_RESULTS_INT_H

#include <stddef.h>

#include "gb_csv.h"
#include "gb_results.h"

/* One row in the columns of an existing file (cols[i] indexes the column
 * table, or is -1 for a column this writer does not know), or with cols
 * NULL in the table's own gb_results_ncols() columns. */
gb_err gb_results_put_row_in(gb_buf *b, const gb_row *r, const int *cols, size_t ncols);

#endif
