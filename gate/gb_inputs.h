/* gb_inputs: expands the operands of compare, history and noise into the
 * results files they name. */
#ifndef GB_INPUTS_H
#define GB_INPUTS_H

#include <stddef.h>

#include "gb_error.h"

/* Expands the command line's inputs: a directory contributes its *.csv files
 * (sorted by name, not recursive), a file itself. *paths (malloc'd strings in
 * a malloc'd array) is freed with gb_inputs_free. Errors: GB_E_IO (an
 * input cannot be read), GB_E_INPUT (a directory with no .csv file). */
gb_err gb_inputs_collect(char *const *inputs, size_t ninputs, char ***paths, size_t *npaths);

void gb_inputs_free(char **paths, size_t npaths);

#endif
