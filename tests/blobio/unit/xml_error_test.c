/*
 * xml_error_test.c - reading the service's <Error> bodies: code, first line of the
 * message, BOM, truncation, and refusal of what is not an error body.
 */
#include <string.h>

#include <xio/blob.h>

#include "test.h"
#include "xml_int.h"

#define DECL "<?xml version=\"1.0\" encoding=\"utf-8\"?>"

static const char lease_missing[] =
    DECL "<Error><Code>LeaseIdMissing</Code><Message>There is currently a lease on the blob "
         "and no lease ID was specified in the request.\nRequestId:5c1b1f2e-601e-0079-1a2b-"
         "3c4d5e000000\nTime:2024-01-01T00:00:00.0000000Z</Message></Error>";

static const char lease_missing_text[] =
    "There is currently a lease on the blob and no lease ID was specified in the request.";

/* Parses `body` (strlen) into fresh buffers prefilled with junk. */
static xio_err parse(const char *body, char code[64], char msg[512]) {
  memset(code, 'x', 64);
  memset(msg, 'x', 512);
  return xio__blob_xml_error(body, strlen(body), code, 64, msg, 512);
}

TEST(xml_error_lease_id_missing) {
  char code[64], msg[512];
  ASSERT_OK(parse(lease_missing, code, msg), NULL);
  ASSERT_STR_EQ(code, "LeaseIdMissing");
  ASSERT_STR_EQ(msg, lease_missing_text); /* RequestId and Time lines dropped */
}

TEST(xml_error_with_bom) {
  char body[sizeof lease_missing + 3] = "\xEF\xBB\xBF";
  memcpy(body + 3, lease_missing, sizeof lease_missing);
  char code[64], msg[512];
  ASSERT_OK(parse(body, code, msg), NULL);
  ASSERT_STR_EQ(code, "LeaseIdMissing");
  ASSERT_STR_EQ(msg, lease_missing_text);
}

TEST(xml_error_crlf_and_detail_elements) {
  char code[64], msg[512];
  ASSERT_OK(parse(DECL
                  "<Error>\r\n  <Code> InvalidPageRange </Code>\r\n"
                  "  <Message>The page range specified is invalid.\r\nRequestId:1</Message>\r\n"
                  "  <QueryParameterName>x</QueryParameterName></Error>",
                  code, msg),
            NULL);
  ASSERT_STR_EQ(code, "InvalidPageRange"); /* whitespace around the code trimmed */
  ASSERT_STR_EQ(msg, "The page range specified is invalid.");
}

TEST(xml_error_missing_code_or_message) {
  char code[64], msg[512];
  ASSERT_OK(parse("<Error><Message>only a message</Message></Error>", code, msg), NULL);
  ASSERT_STR_EQ(code, "");
  ASSERT_STR_EQ(msg, "only a message");
  ASSERT_OK(parse("<Error><Code>ServerBusy</Code></Error>", code, msg), NULL);
  ASSERT_STR_EQ(code, "ServerBusy");
  ASSERT_STR_EQ(msg, "");
  ASSERT_OK(parse("<Error/>", code, msg), NULL);
  ASSERT_STR_EQ(code, "");
  ASSERT_STR_EQ(msg, "");
}

TEST(xml_error_entities_and_cdata) {
  char code[64], msg[512];
  ASSERT_OK(parse("<Error><Code>A&amp;B</Code>"
                  "<Message><![CDATA[x < y]]> &lt;z&gt;</Message></Error>",
                  code, msg),
            NULL);
  ASSERT_STR_EQ(code, "A&B");
  ASSERT_STR_EQ(msg, "x < y <z>");
}

/* Small buffers truncate, never overrun, and never split a UTF-8 character. */
TEST(xml_error_truncates) {
  char code[6], msg[8];
  memset(code, 'x', sizeof code);
  memset(msg, 'x', sizeof msg);
  const char *body =
      "<Error><Code>LeaseIdMissing</Code><Message>abcd\xC3\xA9\xC3\xA9z</Message></Error>";
  ASSERT_OK(xio__blob_xml_error(body, strlen(body), code, sizeof code, msg, sizeof msg), NULL);
  ASSERT_STR_EQ(code, "Lease");
  ASSERT_STR_EQ(msg, "abcd\xC3\xA9"); /* 7 bytes would cut the second e-acute in half */
  ASSERT_OK(xio__blob_xml_error(body, strlen(body), NULL, 0, NULL, 0), NULL);
}

/* The body need not be NUL-terminated: only `len` bytes are read. */
TEST(xml_error_reads_only_len) {
  char buf[128];
  const char *body = "<Error><Code>ContainerNotFound</Code></Error>";
  size_t n = strlen(body);
  memcpy(buf, body, n);
  memcpy(buf + n, "<junk", 5); /* no NUL anywhere after the body */
  char code[64], msg[64];
  ASSERT_OK(xio__blob_xml_error(buf, n, code, sizeof code, msg, sizeof msg), NULL);
  ASSERT_STR_EQ(code, "ContainerNotFound");
  ASSERT_ERR(xio__blob_xml_error(buf, n + 5, code, sizeof code, msg, sizeof msg), XIO_EPARSE, NULL);
}

TEST(xml_error_malformed) {
  static const char *bad[] = {
      "",
      "Not Found",
      "{\"error\":\"json\"}",
      "<Error><Code>LeaseIdMissing</Code>",  /* truncated */
      "<Error><Code>LeaseIdMissing</Error>", /* mismatched tags */
      "<Error></Error><Error></Error>",      /* two roots */
      "\xEF\xBB\xBF",                        /* a BOM alone */
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char code[64], msg[512];
    if (parse(bad[i], code, msg) != XIO_EPARSE) FAIL("body %zu accepted", i);
    ASSERT_STR_EQ(code, ""); /* outputs are cleared even on failure */
    ASSERT_STR_EQ(msg, "");
  }
  char code[64], msg[512];
  ASSERT_ERR(xio__blob_xml_error(NULL, 0, code, 64, msg, 512), XIO_EPARSE, NULL);
}

TEST(xml_error_wrong_root) {
  char code[64], msg[512];
  ASSERT_ERR(parse(DECL "<PageList><Code>X</Code></PageList>", code, msg), XIO_EPARSE, NULL);
  ASSERT_STR_EQ(code, "");
  ASSERT_ERR(parse("<error><Code>X</Code></error>", code, msg), XIO_EPARSE, NULL); /* case */
}

/* A DTD is refused outright: no entity of any kind gets declared or expanded, and
 * nothing is fetched. */
TEST(xml_error_refuses_dtd) {
  char code[64], msg[512];
  ASSERT_ERR(parse("<!DOCTYPE Error [<!ENTITY x \"EXPANDED\">]><Error><Code>&x;</Code></Error>",
                   code, msg),
             XIO_EPARSE, NULL);
  ASSERT_STR_EQ(code, "");
  ASSERT_ERR(parse("<!DOCTYPE Error [<!ENTITY x SYSTEM \"file:///etc/hostname\">]>"
                   "<Error><Code>&x;</Code></Error>",
                   code, msg),
             XIO_EPARSE, NULL);
  ASSERT_ERR(parse("<!DOCTYPE Error SYSTEM \"http://127.0.0.1:9/x.dtd\"><Error/>", code, msg),
             XIO_EPARSE, NULL);
}
