/* gb_escape: one escaping function per output format, for every piece of
 * result-derived text (case names, hosts, library versions, details, file
 * names) that goes into an output (docs/reliability.md). Each appends the
 * escaped form of the NUL-terminated s to out. Bytes that are not valid
 * UTF-8 become U+FFFD in every format.
 *
 * Invariants (tests/check_escape.c, fuzz/fuzz_escape.c):
 *  - markdown: the result holds no line end, no control character, no "::"
 *    (so no line it is part of can start a CI workflow command such as
 *    "::error::"), no unescaped '|', '`', '<', '>' or '&';
 *  - HTML: no '<', '>', '"', '\'' or '&' but in an entity, no control
 *    character other than tab, LF and CR;
 *  - XML: well-formed text and attribute value: no '<', '&' but in an
 *    entity, no quote, and only characters XML 1.0 allows (others removed);
 *  - CSV: one RFC 4180 field, and a field that starts with = + - @ tab or
 *    CR (and is not a number) is prefixed with a single quote, as OWASP
 *    recommends against formula injection (gb_csv_put_field);
 *  - JSON: a string's inside: no raw quote, backslash but in an escape,
 *    control character, U+2028 or U+2029;
 *  - gnuplot: the inside of a single-quoted string for a noenhanced
 *    terminal (gpubench's plots are noenhanced, so ^ _ { } @ are text): no
 *    line end or control character, quotes doubled. */
#ifndef GB_ESCAPE_H
#define GB_ESCAPE_H

#include <stdio.h>

#include "gb_csv.h"
#include "gb_error.h"

/* A markdown table cell or inline text (one line). */
gb_err gb_esc_markdown(gb_buf *out, const char *s);

/* A markdown paragraph: the same, but line ends (LF) are kept and CRs
 * dropped; still no "::" anywhere, so no line starts a workflow command. */
gb_err gb_esc_markdown_text(gb_buf *out, const char *s);

/* The inside of a markdown code span (`...`), where backslash escapes and
 * entities do not work: a backtick becomes ', a line end or control
 * character a space, and "::" becomes ": :". */
gb_err gb_esc_markdown_code(gb_buf *out, const char *s);

/* Plain text on one line of a log or terminal (the gate's text output, the
 * lines a CI job prints): line ends, escape sequences and other control
 * characters become spaces and "::" becomes ": :", so a field can neither
 * start a new line nor a workflow command. */
gb_err gb_esc_line(gb_buf *out, const char *s);

/* HTML text or a double- or single-quoted attribute value. */
gb_err gb_esc_html(gb_buf *out, const char *s);

/* XML 1.0 text or attribute value (JUnit). */
gb_err gb_esc_xml(gb_buf *out, const char *s);

/* One CSV field (sep != 0 written first): gb_csv_put_field. */
gb_err gb_esc_csv(gb_buf *out, const char *s, char sep);

/* s as valid UTF-8 and nothing else changed: each byte that is not part of
 * a valid sequence becomes U+FFFD. For text handed to a library that
 * refuses invalid UTF-8 (the JSON writer, jansson) and escapes the rest. */
gb_err gb_esc_utf8(gb_buf *out, const char *s);

/* The inside of a single-quoted gnuplot string (titles, labels; a
 * noenhanced terminal: backslashes and ^ _ are literal there). */
gb_err gb_esc_gnuplot(gb_buf *out, const char *s);

/* The inside of a double-quoted string of a gnuplot data file (.dat labels):
 * `"` becomes `'`, line ends, control and bidi characters spaces, invalid
 * UTF-8 U+FFFD. */
gb_err gb_esc_gnuplot_data(gb_buf *out, const char *s);

/* Text for a terminal or a CI log, as a stream: every message gpubench
 * writes to stderr, and stdout where it is text for a person, passes through
 * this (gb_esc_stream). Line ends are kept: LF, CR LF, and CR ESC [ K (the
 * progress line's redraw), where a CR starts a line as LF does; any other
 * CR is written visibly as \r, so text after it cannot overwrite the line;
 * ESC and every other control character (C0 but tab/LF/CR, DEL, C1) is
 * written visibly as \xHH, so no escape sequence reaches a terminal (the one
 * exception: ESC [ K, erase to the end of the line, which the progress line
 * uses and which can only erase); the bidirectional and line-separator
 * formatting characters (U+200E/F, U+2028/9, U+202A-E, U+2066-9) as \uHHHH;
 * a line whose first non-blank characters are "::" gets a space between
 * the colons, "##[" or "##v" one after the hashes, so no line can start a
 * workflow command (GitHub's "::error::", "##[error]", Azure's "##vso[");
 * a markdown heading stays; invalid UTF-8 becomes U+FFFD.
 * Feed it any pieces: a sequence split across two feeds is held. */
typedef struct gb_esc_log_state {
  unsigned char held[4]; /* the start of a sequence not complete yet */
  unsigned nheld;
  unsigned lead; /* 0: only blanks on this line; 1: then ':'; 2: '#'; 4: "##"; 3: past */
} gb_esc_log_state;

gb_err gb_esc_log_feed(gb_esc_log_state *st, gb_buf *out, const char *p, size_t n);

/* The end of the stream: whatever is held is written (as U+FFFD). */
gb_err gb_esc_log_end(gb_esc_log_state *st, gb_buf *out);

/* One whole text through the same rules. */
gb_err gb_esc_log(gb_buf *out, const char *s);

/* A stream that writes through gb_esc_log_feed to fp (flushed at each
 * write), or NULL when one cannot be made. main() puts stderr, and stdout
 * for text output, behind it. */
FILE *gb_esc_stream(FILE *fp);

#endif
