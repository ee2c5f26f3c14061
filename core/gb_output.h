/* gb_output: output files written whole and safely (docs/reliability.md).
 *
 * Every output goes to a temporary file created exclusively
 * (O_CREAT|O_EXCL|O_NOFOLLOW, a random name) in the destination directory,
 * is written, synced and renamed over the destination; a link planted at any
 * name is never followed, because the temporary name is new and unguessable
 * and an existing name makes the creation fail (it is then retried with
 * another random name). Live temporary files are kept in a small registry:
 * every error path removes them, and so does a SIGINT or SIGTERM that arrives
 * while one exists (a handler installed on first use when the signal's
 * disposition is the default; it unlinks them with the async-signal-safe
 * unlink() and re-raises the signal).
 *
 * gb_output_check refuses an output that names one of the command's inputs
 * before anything is written. */
#ifndef GB_OUTPUT_H
#define GB_OUTPUT_H

#include <stddef.h>

#include "gb_error.h"

/* Installs now the handler that removes live temporary outputs on SIGINT,
 * SIGTERM and SIGHUP (where the disposition is still the default; it is
 * otherwise installed with the first temporary file). A module that puts its
 * own handler in front and hands the signal on (reports/gb_plot.c) calls it
 * first, so that the handler it hands on to is this one. */
void gb_output_guard_signals(void);

/* One output in the making. */
typedef struct gb_output {
  char *path;   /* as given (messages) */
  char *target; /* what is renamed over: path, or the file a symbolic link at path names */
  char *tmp;    /* the temporary file; NULL when writing in place or when done */
  int fd;       /* -1 when closed */
  int slot;     /* registry slot of tmp, -1 when none */
} gb_output;

/* Creates the temporary file of path (or, for a device or FIFO such as
 * /dev/stdout, opens it to be written in place). A directory is an error.
 * On error nothing is left behind and o owns nothing. */
gb_err gb_output_open(gb_output *o, const char *path);

/* Appends len bytes. */
gb_err gb_output_write(gb_output *o, const char *data, size_t len);

/* Syncs, closes and renames the temporary file over the destination. On
 * error the temporary file is removed and the destination is as it was. o
 * owns nothing afterwards, either way. */
gb_err gb_output_commit(gb_output *o);

/* Removes the temporary file; the destination is as it was. Safe on an
 * output that is already committed or aborted. */
void gb_output_abort(gb_output *o);

/* Test hook: the number of registered temporary files. */
size_t gb_output_live(void);

/* Test hook: fail the next write to a temporary file with errno err after
 * `after` more bytes (err 0 turns it off). */
void gb_output_inject_write_error(size_t after, int err);

/* The output-path guard every command that writes calls before it reads
 * or writes anything. Refuses (GB_E_USAGE, exit 2, the message naming both
 * paths) an output file outs[o] that
 *  - is one of the inputs ins[] (the same device and inode after links are
 *    resolved; an output that does not exist yet is compared by its
 *    resolved directory's device and inode and its name);
 *  - lies directly in an input that is a directory and ends in .csv (it
 *    would be read as an input the next time);
 *  - is another output (two outputs, one file);
 *  - lies in the data folder (gb_data_dir(): datasheets, prices, workloads,
 *    noise floors, measured/), which every later plan and compare reads;
 *    with GB_OUT_MEASURED_OK a results file in its measured/ is allowed
 *    (gpubench run writes measurements there on purpose).
 * NULL and "-" entries are skipped; so is an output that is an existing
 * device or FIFO (/dev/stdout). */
#define GB_OUT_MEASURED_OK 1u
gb_err gb_output_guard(const char *const outs[], size_t nout, const char *const ins[], size_t nin, unsigned flags);

/* gb_output_guard of one output. */
gb_err gb_output_check(const char *out, const char *const inputs[], size_t n);

/* The same for an output directory (report --out, history --plot): refuses
 * an input that lies directly in dir and whose name ends in one of the
 * suffixes the commands write there (.md, .html, .png, .svg, .csv when
 * that is what they write: the caller lists them, NULL-terminated), and a
 * directory in (or equal to) the data folder. */
gb_err gb_output_check_dir(const char *dir, const char *const suffixes[], const char *const inputs[],
                           size_t n);

/* File names made from data (a figure's key as a plot's file name): every
 * name a set gives out is portable (letters, digits, '-', '.', '_' only),
 * bounded (at most GB_STEM_MAX - 1 bytes) and distinct from every other of
 * the set compared without case (so two series never share a file, on a
 * case-insensitive file system either). A short key made only of those
 * characters keeps its form; others have the rest as '_'; a name that is
 * too long, or taken, is cut to 64 bytes and gets "-" and 16 hex digits of
 * a hash of the key, then "-2", "-3"... while still taken. */
#define GB_STEM_MAX 112

typedef struct gb_stem_set {
  char **slot; /* open addressing, lower-cased names */
  size_t cap, n;
} gb_stem_set;

/* Writes key's name into buf (GB_STEM_MAX bytes) and adds it to set. */
gb_err gb_stem_unique(gb_stem_set *set, const char *key, char buf[GB_STEM_MAX]);

void gb_stem_set_free(gb_stem_set *set);

#endif
