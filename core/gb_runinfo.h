/* gb_runinfo: identity of this program and of a campaign run (run id, host,
 * timestamps, git revision). */
#ifndef GB_RUNINFO_H
#define GB_RUNINFO_H

#include <stddef.h>
#include <time.h>

/* gpubench's version ("0.1.0") and git revision ("unknown" outside git). */
const char *gb_version(void);
const char *gb_git_sha(void);

/* Host name (never NULL; "unknown" when it cannot be read). */
const char *gb_hostname(void);

/* ISO 8601 UTC time, e.g. 2026-12-02T13:40:24Z. */
void gb_iso8601_utc(time_t t, char *buf, size_t n);

/* A run id unique across machines: UTC start time, host and 6 random hex
 * digits, e.g. 20261202T134024Z-gpu07-3fa9c1. */
void gb_make_run_id(char *buf, size_t n);

/* Directory of the shipped data (gpu_specs.csv, prices.csv, workloads/,
 * measured/, noise/floors.csv), found relative to the running program
 * (/proc/self/exe), first of:
 *   $GPUBENCH_DATA_DIR if set and not empty (then nothing else);
 *   DIR/data, where DIR is the program's directory, when it is a directory
 *     (a device build, a binary copied to a runner with its data/);
 *   DIR/../share/gpubench when it holds gpu_specs.csv (the installed
 *     layout: PREFIX/bin/gpubench reads PREFIX/share/gpubench);
 *   else the source tree's data/ as configured at build time (a program run
 *     from its build tree, or copied without data). docs/install.md.
 * A data/ beside the program is taken whole: what it lacks is missing, not
 * read from the source tree. */
const char *gb_data_dir(void);

/* The folders gb_data_dir() looked at, in order, up to and including the
 * one it takes, each with suffix appended ("/noise/floors.csv"), joined by
 * ", " into buf (cut to fit n): where a file of the data was looked for. */
void gb_data_dir_tried(const char *suffix, char *buf, size_t n);

/* The running program's directory (/proc/self/exe without its last
 * component) into buf; 0 on success, -1 when it cannot be read or does not
 * fit. */
int gb_exe_dir(char *buf, size_t n);

#endif
