/*
 * xml_page_list_test.c - reading Get Page Ranges bodies: ranges merged into the
 * list, clear ranges, NextMarker, numbers up to and past 8 TiB, and every way a
 * body can be malformed (which must leave the outputs untouched).
 */
#include <stdlib.h>
#include <string.h>

#include <xio/blob.h>

#include "test.h"
#include "xml_int.h"

#define DECL     "<?xml version=\"1.0\" encoding=\"utf-8\"?>"
#define PR(s, e) "<PageRange><Start>" s "</Start><End>" e "</End></PageRange>"
#define CR(s, e) "<ClearRange><Start>" s "</Start><End>" e "</End></ClearRange>"

static const char azure_shape[] =
    DECL "<PageList>" PR("0", "511") CR("512", "1023") "<NextMarker/></PageList>";

/* Parses `body` (strlen) with `err` and a marker that must be reset. */
static xio_err parse(const char *body, xio_ranges *r, xio_ranges *c, char **marker,
                     xio_error *err) {
  xio_error_clear(err);
  *marker = (char *)"stale";
  return xio__blob_xml_page_list(body, strlen(body), r, c, marker, err);
}

TEST(page_list_azure_shape) {
  xio_ranges r = {0}, c = {0};
  char *marker;
  xio_error err;
  ASSERT_OK(parse(azure_shape, &r, &c, &marker, &err), &err);
  ASSERT_EQ(r.n, 1);
  ASSERT_U64_EQ(r.v[0].start, 0);
  ASSERT_U64_EQ(r.v[0].end, 511);
  ASSERT_EQ(c.n, 1);
  ASSERT_U64_EQ(c.v[0].start, 512);
  ASSERT_U64_EQ(c.v[0].end, 1023);
  ASSERT(marker == NULL); /* <NextMarker/>: last page */
  xio_ranges_clear(&r);
  xio_ranges_clear(&c);
}

TEST(page_list_several_ranges_merged) {
  xio_ranges r = {0};
  char *marker;
  xio_error err;
  /* Azurite lists adjacent writes separately and need not sort: the list merges. */
  ASSERT_OK(parse(DECL "<PageList>" PR("0", "511") PR("512", "1023") PR("4096", "8191")
                      PR("1024", "1535") PR("16384", "16895") "</PageList>",
                  &r, NULL, &marker, &err),
            &err);
  ASSERT_EQ(r.n, 3);
  ASSERT_U64_EQ(r.v[0].start, 0);
  ASSERT_U64_EQ(r.v[0].end, 1535);
  ASSERT_U64_EQ(r.v[1].start, 4096);
  ASSERT_U64_EQ(r.v[1].end, 8191);
  ASSERT_U64_EQ(r.v[2].start, 16384);
  ASSERT_U64_EQ(r.v[2].end, 16895);
  ASSERT_U64_EQ(xio_ranges_bytes(&r), 1536 + 4096 + 512);
  ASSERT(marker == NULL); /* absent */
  xio_ranges_clear(&r);
}

/* With `cleared` NULL, clear ranges are checked but go nowhere, and never mix into
 * the page ranges. */
TEST(page_list_clear_ranges_dropped_or_kept) {
  xio_ranges r = {0}, c = {0};
  char *marker;
  xio_error err;
  const char *body = "<PageList>" CR("0", "511") PR("1024", "2047") CR("2048", "4095")
      CR("4096", "8191") "</PageList>";
  ASSERT_OK(parse(body, &r, NULL, &marker, &err), &err);
  ASSERT_EQ(r.n, 1);
  ASSERT_U64_EQ(r.v[0].start, 1024);
  ASSERT_U64_EQ(r.v[0].end, 2047);
  xio_ranges_clear(&r);
  ASSERT_OK(parse(body, &r, &c, &marker, &err), &err);
  ASSERT_EQ(r.n, 1);
  ASSERT_U64_EQ(r.v[0].start, 1024);
  ASSERT_EQ(c.n, 2); /* the two adjacent clear ranges merged */
  ASSERT_U64_EQ(c.v[0].start, 0);
  ASSERT_U64_EQ(c.v[0].end, 511);
  ASSERT_U64_EQ(c.v[1].start, 2048);
  ASSERT_U64_EQ(c.v[1].end, 8191);
  ASSERT_ERR(parse("<PageList>" CR("9", "8") "</PageList>", &r, NULL, &marker, &err), XIO_EPARSE,
             &err);
  xio_ranges_clear(&r);
  xio_ranges_clear(&c);
}

TEST(page_list_next_marker) {
  xio_ranges r = {0};
  char *marker;
  xio_error err;
  ASSERT_OK(parse("<PageList>" PR("0", "511") "<NextMarker>2!88!MDAwMDE0IXBhZ2Uh</NextMarker>"
                                              "</PageList>",
                  &r, NULL, &marker, &err),
            &err);
  ASSERT_STR_EQ(marker, "2!88!MDAwMDE0IXBhZ2Uh");
  free(marker);
  ASSERT_OK(parse("<PageList><NextMarker></NextMarker></PageList>", &r, NULL, &marker, &err), &err);
  ASSERT(marker == NULL);
  ASSERT_OK(parse("<PageList></PageList>", &r, NULL, &marker, &err), &err);
  ASSERT(marker == NULL);
  /* The caller may not want the marker at all. */
  ASSERT_OK(xio__blob_xml_page_list(azure_shape, strlen(azure_shape), &r, NULL, NULL, &err), &err);
  ASSERT_EQ(r.n, 1);
  xio_ranges_clear(&r);
}

TEST(page_list_empty) {
  xio_ranges r = {0};
  char *marker;
  xio_error err;
  ASSERT_OK(parse(DECL "<PageList />", &r, NULL, &marker, &err), &err);
  ASSERT_EQ(r.n, 0);
  ASSERT(marker == NULL);
  xio_ranges_clear(&r);
}

/* Ranges add to what the list already holds (paging with NextMarker). */
TEST(page_list_appends_to_existing) {
  xio_ranges r = {0};
  char *marker;
  xio_error err;
  ASSERT_OK(xio_ranges_add(&r, 0, 511), NULL);
  ASSERT_OK(xio_ranges_add(&r, 8192, 8703), NULL);
  ASSERT_OK(parse("<PageList>" PR("512", "1023") PR("65536", "66047") "</PageList>", &r, NULL,
                  &marker, &err),
            &err);
  ASSERT_EQ(r.n, 3);
  ASSERT_U64_EQ(r.v[0].end, 1023);
  ASSERT_U64_EQ(r.v[1].start, 8192);
  ASSERT_U64_EQ(r.v[2].start, 65536);
  xio_ranges_clear(&r);
}

/* Offsets near and beyond 8 TiB are plain uint64, up to its maximum. */
TEST(page_list_huge_numbers) {
  xio_ranges r = {0};
  char *marker;
  xio_error err;
  ASSERT_OK(parse("<PageList>" PR("8796093021696", "8796093022207")
                      PR("17592186044416", "18446744073709551615") "</PageList>",
                  &r, NULL, &marker, &err),
            &err);
  ASSERT_EQ(r.n, 2);
  ASSERT_U64_EQ(r.v[0].start, XIO_BLOB_MAX_SIZE - 512);
  ASSERT_U64_EQ(r.v[0].end, XIO_BLOB_MAX_SIZE - 1);
  ASSERT_U64_EQ(r.v[1].start, 2 * XIO_BLOB_MAX_SIZE);
  ASSERT_U64_EQ(r.v[1].end, UINT64_MAX);
  ASSERT_ERR(
      parse("<PageList>" PR("0", "18446744073709551616") "</PageList>", &r, NULL, &marker, &err),
      XIO_EPARSE, &err); /* 2^64 */
  ASSERT_CONTAINS(err.message, "End");
  ASSERT_ERR(
      parse("<PageList>" PR("0", "99999999999999999999999") "</PageList>", &r, NULL, &marker, &err),
      XIO_EPARSE, &err);
  ASSERT_EQ(r.n, 2);
  xio_ranges_clear(&r);
}

/* Asserts that `body` is refused with a message containing `what`, leaving the
 * prefilled list, the cleared list and the marker as they were. */
static void check_refused(int line, const char *body, const char *what) {
  xio_ranges r = {0}, c = {0};
  char *marker;
  xio_error err;
  ASSERT_OK(xio_ranges_add(&r, 0, 511), NULL);
  ASSERT_OK(xio_ranges_add(&c, 0, 511), NULL);
  xio_err rc = parse(body, &r, &c, &marker, &err);
  if (rc != XIO_EPARSE) FAIL("line %d: got %s, wanted XIO_EPARSE", line, xio_err_name(rc));
  ASSERT_EQ(err.code, XIO_EPARSE);
  if (!strstr(err.message, what))
    FAIL("line %d: message \"%s\" does not name \"%s\"", line, err.message, what);
  ASSERT(marker == NULL);
  ASSERT_EQ(r.n, 1);
  ASSERT_U64_EQ(r.v[0].end, 511);
  ASSERT_EQ(c.n, 1);
  ASSERT_U64_EQ(c.v[0].end, 511);
  xio_ranges_clear(&r);
  xio_ranges_clear(&c);
}

#define REFUSED(body, what) check_refused(__LINE__, body, what)

TEST(page_list_missing_start_or_end) {
  /* Valid ranges first: nothing of them may be applied when a later one is bad. */
  REFUSED("<PageList>" PR("1024", "2047") "<PageRange><Start>0</Start></PageRange></PageList>",
          "PageRange 2 has no <End>");
  REFUSED("<PageList><PageRange><End>511</End></PageRange></PageList>",
          "PageRange 1 has no <Start>");
  REFUSED("<PageList>" PR("0", "511") "<ClearRange><Start>0</Start></ClearRange></PageList>",
          "ClearRange 2 has no <End>");
  REFUSED("<PageList><PageRange/></PageList>", "PageRange 1 has no <Start>");
  REFUSED("<PageList><PageRange><Start>0</Start><Start>1</Start><End>511</End></PageRange>"
          "</PageList>",
          "more than one <Start>");
}

TEST(page_list_start_after_end) {
  REFUSED("<PageList>" PR("0", "511") PR("1024", "1023") "</PageList>",
          "PageRange 2: Start 1024 > End 1023");
  REFUSED("<PageList><NextMarker>m</NextMarker>" CR("512", "0") "</PageList>",
          "ClearRange 1: Start 512 > End 0"); /* the marker is not handed out either */
}

TEST(page_list_bad_numbers) {
  REFUSED("<PageList>" PR("-512", "511") "</PageList>", "<Start> \"-512\"");
  REFUSED("<PageList>" PR("0", "-1") "</PageList>", "<End> \"-1\"");
  REFUSED("<PageList>" PR("abc", "511") "</PageList>", "<Start>");
  REFUSED("<PageList>" PR("12abc", "511") "</PageList>", "<Start>");
  REFUSED("<PageList>" PR("", "511") "</PageList>", "<Start>");
  REFUSED("<PageList>" PR(" 0", "511") "</PageList>", "<Start>");
  REFUSED("<PageList>" PR("+0", "511") "</PageList>", "<Start>");
  REFUSED("<PageList>" PR("0x0", "511") "</PageList>", "<Start>");
  REFUSED("<PageList>" PR("0", "5.11e2") "</PageList>", "<End>");
  REFUSED("<PageList>" PR("0", "511 ") "</PageList>", "<End>");
}

TEST(page_list_garbage) {
  REFUSED("garbage", "not well-formed XML");
  REFUSED("", "empty body");
  REFUSED("<PageList>garbage" PR("0", "511") "</PageList>", "PageList holds stray text");
  REFUSED("<PageList><PageRange>x<Start>0</Start><End>511</End></PageRange></PageList>",
          "stray text");
  REFUSED("<Error><Code>X</Code></Error>", "root element is <Error>, wanted <PageList>");
  REFUSED("<!DOCTYPE PageList [<!ENTITY s \"0\">]><PageList>" PR("&s;", "511") "</PageList>",
          "DTD");
}

/* Every proper prefix of a valid body is refused. */
TEST(page_list_truncated) {
  size_t n = strlen(azure_shape);
  for (size_t cut = 0; cut < n; cut++) {
    xio_ranges r = {0};
    char *marker = NULL;
    xio_error err;
    xio_err rc = xio__blob_xml_page_list(azure_shape, cut, &r, NULL, &marker, &err);
    if (rc != XIO_EPARSE) FAIL("prefix of %zu bytes: %s", cut, xio_err_name(rc));
    ASSERT_EQ(r.n, 0);
    ASSERT(marker == NULL);
    xio_ranges_clear(&r);
  }
}

TEST(page_list_bom_and_whitespace) {
  xio_ranges r = {0};
  char *marker;
  xio_error err;
  ASSERT_OK(parse("\xEF\xBB\xBF" DECL "<PageList>\n  <PageRange>\n    <Start>0</Start>\n"
                  "    <End>511</End>\n  </PageRange>\n  <NextMarker>m</NextMarker>\n"
                  "  <Unknown>ignored</Unknown>\n</PageList>\n",
                  &r, NULL, &marker, &err),
            &err);
  ASSERT_EQ(r.n, 1);
  ASSERT_U64_EQ(r.v[0].end, 511);
  ASSERT_STR_EQ(marker, "m");
  free(marker);
  xio_ranges_clear(&r);
}

TEST(page_list_invalid_arguments) {
  xio_error err;
  char *marker = (char *)"stale";
  ASSERT_ERR(xio__blob_xml_page_list(azure_shape, strlen(azure_shape), NULL, NULL, &marker, &err),
             XIO_EINVAL, &err);
  ASSERT(marker == NULL);
}
