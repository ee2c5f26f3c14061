/* gb_merge: one results file from many (a fleet's machines, a job array's
 * nodes). `gpubench merge` (cli/cmd_merge.c).
 *
 * Every input is read and validated as a results file (gb_results_read). A
 * file that does not read -- a node's file torn by a crash, cut short, or
 * not a results file -- is skipped with the reader's message as its
 * reason, and the others are merged.
 *
 * A merge takes exactly one campaign (the `campaign` column, which
 * `gpubench run` fills from GPUBENCH_CAMPAIGN; "" in files without it): the
 * one asked for, else the campaign of the newest row (by timestamp). Rows of
 * other campaigns -- stale files an earlier campaign left in the folder --
 * are left out, and a file with none of its rows in the campaign is skipped,
 * naming the campaign it holds.
 *
 * The files merged must have the same columns (by name; the order may
 * differ), else the merge is refused naming the file and the column. The
 * output has the first merged file's header and column order, then the rows
 * of every merged file in the order given, each file's rows in their order
 * (stable). A row whose run_id, case (benchmark, case, dtype, m, n, k,
 * bytes, gpu_count, rep, settings) and metric equal an earlier row's is the
 * same row seen twice (a file given twice, a node's file copied into two
 * folders) and is dropped; when its other cells differ it is counted as a
 * conflict (the first is kept, and the first conflict is described in the
 * stats). Rows are matched through a hash table of their fields, whatever
 * their length: time and memory are linear in the rows (the tables read, an
 * index per row and one hash slot per row). */
#ifndef GB_MERGE_H
#define GB_MERGE_H

#include <stddef.h>

#include "gb_csv.h"
#include "gb_error.h"

typedef struct gb_merge_stats {
  size_t files, rows_in, rows_out, duplicates, conflicts;
  size_t runs;              /* distinct run ids in the output */
  size_t skipped;           /* files left out, each a line of `skips` */
  size_t unreadable;        /* of those, files that did not read (torn, invalid) */
  size_t rows_other;        /* rows of other campaigns left out */
  gb_buf skips;             /* "FILE: reason\n" per skipped file (raw text from the files: escape to print) */
  char *campaign;           /* the campaign merged (malloc'd; "" for rows without one) */
  char first_conflict[512]; /* "B.csv:7: ... A.csv:3" or "" */
} gb_merge_stats;

/* Merges the results files paths[0..n) (n >= 1) of the campaign `campaign`
 * (NULL: the newest row's) into out (CSV text, appended). GB_E_INPUT when no
 * file is left to merge or two merged files differ in columns; on error out
 * holds nothing new and gb_errmsg() says which file (and line or column).
 * st is filled either way; free it with gb_merge_stats_free. */
gb_err gb_merge_files(const char *const *paths, size_t n, const char *campaign, gb_buf *out, gb_merge_stats *st);

void gb_merge_stats_free(gb_merge_stats *st);

#endif
