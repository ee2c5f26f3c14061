/* reportutil: helpers for the plot and report tests. A small
 * well-formedness checker for the SVG and XHTML-style HTML the reports write: tags balanced and properly nested,
 * attributes quoted, '&' only as an entity, no stray '<' in text. Comments,
 * <?...?>, <!DOCTYPE ...> and CDATA sections are skipped. */
#ifndef GB_REPORTUTIL_H
#define GB_REPORTUTIL_H

#include <stdbool.h>
#include <stddef.h>

/* True when text is well formed with exactly one root element; otherwise
 * false with a message naming the byte offset in err. */
bool gb_xml_wellformed(const char *text, char *err, size_t errn);

/* True when the PNG file at path starts with the PNG signature followed by
 * an IHDR chunk of width and height > 0 (written to *w, *h). */
bool gb_png_valid(const char *path, unsigned *w, unsigned *h);

/* Switches the whole process (LC_ALL) to a locale whose decimal point is a
 * comma: de_DE.UTF-8 or fr_FR.UTF-8 when installed, otherwise one compiled
 * with localedef into a temporary directory named by LOCPATH. Returns the
 * locale name, or NULL when none can be had (the caller then skips). */
const char *gb_test_comma_locale(void);

/* Counts the occurrences of needle in hay. */
size_t gb_test_count(const char *hay, const char *needle);

/* The series of a gb_plot script: the entries of its legend, the clauses of
 * its first `plot` command with a title (a series drawn in a second style,
 * such as its point labels or lone points, has none). */
size_t gb_test_gp_series(const char *gp);

/* True when a clause of a gb_plot script draws error bars. */
bool gb_test_gp_has_errorbars(const char *gp);

/* True when path exists and is a non-empty regular file. */
bool gb_test_file_nonempty(const char *path);

#endif
