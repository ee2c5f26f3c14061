/* gb_ini: a small, strict INI reader (replaces libinih, whose Debian build
 * splits lines longer than 200 bytes, so that the tail of a long comment
 * became a key).
 *
 * Lines of up to GB_INI_MAX_LINE bytes (line end excluded) are read whole; a
 * longer one is an error naming file:line. Syntax: an optional UTF-8
 * byte-order mark; blank lines; comments, a line whose first non-blank
 * character is ';' or '#'; "[section]" (an optional comment after it);
 * "name = value" or "name : value", name and value trimmed of blanks, and a
 * ';' preceded by a blank starting a comment after the value (as libinih's
 * default inline comments). LF and CRLF line ends. Indented lines are
 * ordinary lines (libinih's multi-line continuation is not supported). A NUL
 * byte is an error. Reading stops at the first error. */
#ifndef GB_INI_H
#define GB_INI_H

#include <stddef.h>

#include "gb_error.h"

#define GB_INI_MAX_LINE 65536

/* libinih's handler plus the line: returns nonzero to go on, 0 to stop (an
 * error the handler records for itself). */
typedef int (*gb_ini_handler)(void *user, const char *section, const char *name, const char *value, long line);

/* Return values: libinih's (0 success; > 0 the line of the first line that
 * is neither a section nor a name = value line, or that the handler
 * refused; -1 the file could not be opened, errno set; -2 out of memory),
 * plus GB_INI_REPORTED: a failure gb_ini described itself in gb_errmsg(),
 * naming file:line (a line longer than GB_INI_MAX_LINE, a NUL byte, a path
 * that is not a regular file, a read error). */
#define GB_INI_REPORTED (-3)

/* Reads a file: opened non-blocking, and it must be a regular file. */
int gb_ini_parse(const char *path, gb_ini_handler handler, void *user);

/* Reads text[0..len); name is used in messages. */
int gb_ini_parse_mem(const char *name, const char *text, size_t len, gb_ini_handler handler, void *user);

#endif
