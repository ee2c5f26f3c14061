/* Tests for gb_svg: gnuplot's SVG made small -- empty groups and texts,
 * titles and descriptions cut; numbers rounded in tags only; colours as
 * #rrggbb; the default font said once; text content untouched; a
 * document that is not SVG refused. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gb_svg.h"
#include "reportutil.h"
#include "testutil.h"

static char *slim(const char *in) {
  gb_buf out = {0};
  ck_assert_int_eq(gb_svg_slim(in, strlen(in), &out), GB_OK);
  char *s = strndup(out.data ? out.data : "", out.len);
  gb_buf_free(&out);
  return s;
}

START_TEST(test_empty_groups_cut) {
  char *s = slim("<svg width=\"10\">\n<title>Gnuplot</title>\n<desc>Produced by GNUPLOT 5.4</desc>\n"
                 "<g fill=\"none\" color=\"black\">\n\t<g transform=\"translate(1.00,2.00)\">\n\t\t<text></text>\n"
                 "\t</g>\n</g>\n<g id=\"a\"><path d='M1,2'/></g>\n</svg>\n");
  ck_assert_msg(strstr(s, "<title>") == NULL && strstr(s, "<desc>") == NULL, "%s", s);
  ck_assert_msg(strstr(s, "translate") == NULL, "an empty group (its text empty) stays: %s", s);
  ck_assert_msg(strstr(s, "<g id=\"a\"><path d='M1,2'/></g>") != NULL, "%s", s);
  ck_assert_msg(strstr(s, "fill=\"none\"") == NULL, "%s", s);
  char err[256];
  ck_assert_msg(gb_xml_wellformed(s, err, sizeof err), "%s: %s", err, s);
  free(s);
}
END_TEST

START_TEST(test_numbers_and_colours) {
  char *s = slim("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<svg viewBox=\"0 0 1000 600\">\n"
                 "<path id='gpPt6' stroke='rgb(148, 0, 211)' stroke-width='0.242' d='M74.17,547.20 L745.66,-3.05  '/>\n"
                 "<g transform=\"translate(66.48,495.48)\" stroke-linecap=\"butt\" stroke-linejoin=\"miter\" "
                 "font-family=\"Sans\" font-size=\"11.00\"><text> 12.345 rgb(1, 2, 3)</text></g>\n</svg>\n");
  ck_assert_msg(strstr(s, "version=\"1.0\"") != NULL, "the XML declaration is not a tag to round: %s", s);
  ck_assert_msg(strstr(s, "d='M74.2,547.2 L745.7,-3.05 '") != NULL, "%s", s);
  ck_assert_msg(strstr(s, "stroke='#9400d3'") != NULL, "%s", s);
  ck_assert_msg(strstr(s, "stroke-width='0.24'") != NULL, "%s", s);
  ck_assert_msg(strstr(s, "id='gpPt6'") != NULL, "%s", s);
  ck_assert_msg(strstr(s, "<g transform=\"translate(66.5,495.5)\">") != NULL, "%s", s);
  ck_assert_msg(strstr(s, "<text> 12.345 rgb(1, 2, 3)</text>") != NULL, "text content is copied: %s", s);
  ck_assert_msg(strstr(s, "<svg viewBox=\"0 0 1000 600\" font-family=\"Sans\" font-size=\"11\">") != NULL, "%s", s);
  ck_assert_msg(strstr(s, "linecap") == NULL, "%s", s);
  free(s);
}
END_TEST

START_TEST(test_refused) {
  gb_buf out = {0};
  ck_assert_int_eq(gb_svg_slim("<html></html>", 13, &out), GB_E_INPUT);
  ck_assert_int_eq(gb_svg_slim("<svg><g", 7, &out), GB_E_INPUT);
  ck_assert_msg(strstr(gb_errmsg(), "does not end") != NULL, "%s", gb_errmsg());
  gb_buf_free(&out);
}
END_TEST

START_TEST(test_file_rewritten) {
  char dir[] = "/tmp/check_report_svg.XXXXXX";
  ck_assert_ptr_nonnull(mkdtemp(dir));
  char path[256];
  snprintf(path, sizeof path, "%s/a.svg", dir);
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs("<svg>\n<g fill=\"none\">\n</g>\n<text x=\"1.50\">a</text>\n</svg>\n", f);
  fclose(f);
  ck_assert_int_eq(gb_svg_slim_file(path), GB_OK);
  char *s = gb_test_slurp(path, NULL);
  ck_assert_str_eq(s, "<svg font-family=\"Sans\" font-size=\"11\">\n\n<text x=\"1.5\">a</text>\n</svg>\n");
  free(s);
  unlink(path);
  rmdir(dir);
}
END_TEST

int main(void) {
  Suite *s = suite_create("report_svg");
  TCase *tc = tcase_create("slim");
  tcase_add_test(tc, test_empty_groups_cut);
  tcase_add_test(tc, test_numbers_and_colours);
  tcase_add_test(tc, test_refused);
  tcase_add_test(tc, test_file_rewritten);
  suite_add_tcase(s, tc);
  return gb_test_run_suite(s);
}
