/* gb_merge: one results file from many (a fleet's machines, a job array's
 * nodes). `gpubench merge` (cli/cmd_merge.c).
 *
 * Every input is read and validated as a results file (gb_results_read);
 * all must have the same columns (by name; the order may differ), else the
 * merge is refused naming the file and the column. The output has the first
 * file's header and column order, then the rows of every file in the order
 * given, each file's rows in their order (stable). A row whose run_id, case
 * key (benchmark, case, dtype, m, n, k, bytes, gpu_count, rep, settings:
 * gb_row_case_key) and metric equal an earlier row's is the same row seen
 * twice (a file given twice, a node's file copied into two folders) and is
 * dropped; when its other cells differ it is counted as a conflict (the
 * first is kept, and the first conflict is described in the stats). */
#ifndef GB_MERGE_H
#define GB_MERGE_H

#include <stddef.h>

#include "gb_csv.h"
#include "gb_error.h"

typedef struct gb_merge_stats {
  size_t files, rows_in, rows_out, duplicates, conflicts;
  size_t runs;           /* distinct run ids in the output */
  char first_conflict[512]; /* "B.csv:7: ... A.csv:3" or "" */
} gb_merge_stats;

/* Merges the results files paths[0..n) (n >= 1) into out (CSV text,
 * appended). On error out holds nothing new and gb_errmsg() says which file
 * (and line or column). */
gb_err gb_merge_files(const char *const *paths, size_t n, gb_buf *out, gb_merge_stats *st);

#endif
