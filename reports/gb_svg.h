/* gb_svg: makes gnuplot's SVG small enough to inline in a report.
 *
 * gnuplot's svg terminal writes every grid line, tick and key entry in a
 * group of its own, many of them empty, coordinates with two decimals and
 * the same font on every text. gb_svg_slim keeps what is drawn and drops
 * the rest:
 *   - empty groups (<g ...></g>, nested ones too) and empty texts;
 *   - <title> and <desc> (gnuplot's: "Gnuplot", "gnuplot_plot_1", its version);
 *   - whitespace between tags (a line end kept), runs of blanks in tags;
 *   - in tags (not <?...?> or <!...>): numbers rounded to 0.1 from 10 up,
 *     to 0.01 below (trailing zeros dropped: 547.20 -> 547.2, 11.00 -> 11),
 *     rgb(R, G, B) as #rrggbb, and stroke-linecap="butt" and
 *     stroke-linejoin="miter" (SVG's defaults) left out;
 *   - the font gpubench asks gnuplot for (font-family="Sans"
 *     font-size="11.00") said once, on the <svg> element, instead of on
 *     every text.
 * Text content is copied as it is. The picture drawn is the same to a
 * tenth of a pixel. */
#ifndef GB_SVG_H
#define GB_SVG_H

#include <stddef.h>

#include "gb_csv.h"
#include "gb_error.h"

/* Appends the slim form of the n bytes of svg to out. GB_E_INPUT when the
 * text has no <svg element or a tag does not end. */
gb_err gb_svg_slim(const char *svg, size_t n, gb_buf *out);

/* Rewrites the SVG file at path in its slim form (written whole, then
 * synced). */
gb_err gb_svg_slim_file(const char *path);

#endif
