/* gb_input: input files opened safely (docs/reliability.md).
 *
 * An input is opened non-blocking (a FIFO with no writer never hangs the
 * open) and must be a regular file, or "-" for standard input where the
 * command reads one; anything else -- a FIFO, a directory, a device, a
 * socket -- is an error (GB_E_IO, exit 2) naming the path and what it is. */
#ifndef GB_INPUT_H
#define GB_INPUT_H

#include <stdbool.h>
#include <stddef.h>

#include "gb_error.h"

/* Opens path for reading (blocking reads again once it is known to be a
 * regular file). With allow_stdin, "-" is standard input (duplicated, so
 * the caller always closes *fd). On error errno is kept from the failure. */
gb_err gb_input_open(const char *path, bool allow_stdin, int *fd);

/* Reads all of path (gb_input_open) into a malloc'd, NUL-terminated buffer. */
gb_err gb_input_read(const char *path, bool allow_stdin, char **data, size_t *len);

#endif
