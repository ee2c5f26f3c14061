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
 * measured/), first found of: $GPUBENCH_DATA_DIR if set and not empty; the
 * installed layout, ../share/gpubench beside the running program's directory
 * when it holds gpu_specs.csv (PREFIX/bin/gpubench reads
 * PREFIX/share/gpubench); else the source tree's data/ as configured at build
 * time (a program run from its build directory). docs/install.md. */
const char *gb_data_dir(void);

/* The running program's directory (/proc/self/exe without its last
 * component) into buf; 0 on success, -1 when it cannot be read or does not
 * fit. */
int gb_exe_dir(char *buf, size_t n);

#endif
