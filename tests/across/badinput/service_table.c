/*
 * service_table.c - bad bodies and headers from the service (or from whatever
 * stands between it and us), fed to the client's own readers without a network:
 * page lists and blob listings (XML), failed responses judged with their status,
 * error code and body, and the headers a finished call's results are read from
 * (blob size, lease id, snapshot name). Each row gives the xio_err and a phrase of
 * the message. The final test checks the tables' total size.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xio/blob.h>

#include "badinput.h"
#include "engine_int.h"
#include "test.h"
#include "xml_int.h"

/* ------------------------------------------------------------ bodies ---- */

static xio_err page_list(const char *in, xio_error *e) {
  xio_ranges r = {0}, c = {0};
  char *marker = NULL;
  xio_err rc = xio__blob_xml_page_list(in, strlen(in), &r, &c, &marker, e);
  xio_ranges_clear(&r);
  xio_ranges_clear(&c);
  free(marker);
  return rc;
}

static xio_err blob_list(const char *in, xio_error *e) {
  xio_blob_list l;
  memset(&l, 0, sizeof l);
  xio_err rc = xio__blob_xml_blob_list(in, strlen(in), &l, e);
  xio_blob_list_clear(&l);
  return rc;
}

/* ------------------------------------------------- finished responses ---- */

static xio_blob_target *the_target(void) {
  static xio_blob_target *t;
  xio_error e;
  if (!t)
    ASSERT_OK(xio_blob_target_new("http://127.0.0.1:1/devstoreaccount1/ccc/b.mdf", NULL, &t, &e),
              &e);
  return t;
}

/* Gives `c` the response "STATUS\nName: value\n...\n\nBODY" and marks it done. */
static void respond(xio_blob_call *c, const char *in) {
  char *end;
  c->status = (int)strtol(in, &end, 10);
  const char *p = end + (*end == '\n');
  while (*p && *p != '\n') {
    size_t n = strcspn(p, "\n");
    char line[1200];
    snprintf(line, sizeof line, "%.*s", (int)n, p);
    char *colon = strchr(line, ':');
    if (!colon) FAIL("bad header line in a row: %s", line);
    *colon = '\0';
    xio__blob_hdrs_add(&c->resp_headers, line, colon + 1 + (colon[1] == ' '));
    p += n + (p[n] == '\n');
  }
  if (*p == '\n') p++;
  if (*p) {
    c->resp_body = strdup(p);
    c->resp_len = c->resp_cap = strlen(p);
  }
  c->finished = 1;
}

/* A failed Put Page: the verdict's code and detail. */
static xio_err judged(const char *in, xio_error *e) {
  static char data[512];
  xio_blob_call *c = NULL;
  ASSERT_OK(xio_blob_call_put_page(the_target(), 0, data, 512, 0, NULL, &c, e), e);
  respond(c, in);
  xio__blob_verdict v = xio__blob_classify(c);
  *e = c->err;
  xio_blob_call_free(c);
  return v.code;
}

/* A successful call of `make`'s kind whose result is read with `read`. */
static xio_err result_of(const char *in, xio_error *e, int lease) {
  xio_blob_call *c = NULL;
  xio_blob_lease_args la;
  memset(&la, 0, sizeof la);
  la.action = XIO_BLOB_LEASE_ACQUIRE;
  la.duration_s = 60;
  if (lease)
    ASSERT_OK(xio_blob_call_lease(the_target(), &la, &c, e), e);
  else
    ASSERT_OK(xio_blob_call_snapshot(the_target(), NULL, &c, e), e);
  respond(c, in);
  c->result = XIO_OK;
  char out[64];
  xio_err rc = lease ? xio_blob_call_lease_id(c, out, e) : xio_blob_call_snapshot_id(c, out, e);
  xio_blob_call_free(c);
  return rc;
}

static xio_err lease_id(const char *in, xio_error *e) { return result_of(in, e, 1); }
static xio_err snapshot_id(const char *in, xio_error *e) { return result_of(in, e, 0); }

/* Blob properties read from a HEAD response. */
static xio_err props(const char *in, xio_error *e) {
  xio_blob_call *c = NULL;
  ASSERT_OK(xio_blob_call_get_properties(the_target(), NULL, &c, e), e);
  respond(c, in);
  c->result = XIO_OK;
  xio_blob_props p;
  xio_err rc = xio_blob_call_props(c, &p, e);
  xio_blob_call_free(c);
  return rc;
}

/* ------------------------------------------------------------- table ---- */

#define DECL               "<?xml version=\"1.0\" encoding=\"utf-8\"?>"
#define PR(s, e)           "<PageRange><Start>" s "</Start><End>" e "</End></PageRange>"
#define BLOB(x)            "<EnumerationResults><Blobs><Blob>" x "</Blob></Blobs></EnumerationResults>"
#define ERRBODY(code, msg) DECL "<Error><Code>" code "</Code><Message>" msg "</Message></Error>"

static const bi_api_row rows[] = {
    {page_list, "", XIO_EPARSE, "empty body, wanted <PageList>"},
    {page_list, "not xml", XIO_EPARSE, "not well-formed XML"},
    {page_list, DECL "<PageList>", XIO_EPARSE, "not well-formed XML"},
    {page_list, DECL "<Error><Code>x</Code></Error>", XIO_EPARSE,
     "root element is <Error>, wanted <PageList>"},
    {page_list, DECL "<PageList>" PR("512", "0") "</PageList>", XIO_EPARSE, "Start 512 > End 0"},
    {page_list, DECL "<PageList>" PR("-1", "511") "</PageList>", XIO_EPARSE,
     "is not a non-negative integer"},
    {page_list, DECL "<PageList>" PR("0", "18446744073709551616") "</PageList>", XIO_EPARSE,
     "is not a non-negative integer"},
    {page_list, DECL "<PageList>" PR("0x0", "511") "</PageList>", XIO_EPARSE,
     "is not a non-negative integer"},
    {page_list, DECL "<PageList>" PR("", "511") "</PageList>", XIO_EPARSE, "Start"},
    {page_list, DECL "<PageList><PageRange><Start>0</Start></PageRange></PageList>", XIO_EPARSE,
     "has no <End>"},
    {page_list,
     DECL "<PageList><PageRange><Start>0</Start><Start>1</Start><End>2</End></PageRange>"
          "</PageList>",
     XIO_EPARSE, "more than one <Start>"},
    {page_list, DECL "<PageList><PageRange>junk<Start>0</Start><End>1</End></PageRange></PageList>",
     XIO_EPARSE, "stray text"},
    {page_list,
     DECL "<!DOCTYPE PageList [<!ENTITY x SYSTEM \"file:///etc/passwd\">]><PageList>&x;"
          "</PageList>",
     XIO_EPARSE, "DTD"},
    {page_list,
     DECL "<!DOCTYPE l [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;\">]>"
          "<PageList>&b;</PageList>",
     XIO_EPARSE, "DTD"},
    {page_list, "\xef\xbb\xbf", XIO_EPARSE, "PageList"},
    {page_list, DECL "<PageList>\xff\xfe</PageList>", XIO_EPARSE, "not well-formed XML"},
    {blob_list, "", XIO_EPARSE, "empty body"},
    {blob_list, DECL "<PageList/>", XIO_EPARSE, "root element is <PageList>"},
    {blob_list, DECL BLOB("<Name></Name><Properties/>"), XIO_EPARSE, "has no <Content-Length>"},
    {blob_list, DECL BLOB("<Properties/>"), XIO_EPARSE, "Name"},
    {blob_list,
     DECL BLOB("<Name>a</Name><Properties><Content-Length>ten</Content-Length></Properties>"),
     XIO_EPARSE, "\"ten\" is not a non-negative integer"},
    {blob_list,
     DECL BLOB("<Name>a</Name><Properties><Content-Length>-5</Content-Length></Properties>"),
     XIO_EPARSE, "is not a non-negative integer"},
    {blob_list, DECL "<EnumerationResults><Blobs><Blob><Name>a</Name></Blobs>", XIO_EPARSE,
     "not well-formed XML"},
    {judged, "500\nx-ms-error-code: InternalError\n\nnot xml at all", XIO_EHTTP,
     "the service answered HTTP 500 InternalError"},
    {judged, "503\n\n" ERRBODY("ServerBusy", "slow down\nRequestId:1\nTime:2"), XIO_ETHROTTLED,
     "slow down"},
    {judged, "412\nx-ms-error-code: LeaseIdMissing\n\n<Error><Code>", XIO_EBUSY,
     "the service answered HTTP 412 LeaseIdMissing"},
    /* The fixture's target sends no credential: a refusal says there was none. */
    {judged, "403\n\n" ERRBODY("AuthenticationFailed", ""), XIO_ENOCRED,
     "so the request went without one and the service refused it"},
    {judged, "404\nx-ms-error-code: BlobNotFound\n\n" ERRBODY("ContainerNotFound", "gone"),
     XIO_ENOTFOUND, "gone"},
    {judged, "400\n\n", XIO_EINVAL, "the service answered HTTP 400"},
    {judged, "302\nLocation: http://127.0.0.1:1/elsewhere\n\n", XIO_EHTTP,
     "the service answered HTTP 302"},
    {judged, "999\n\n", XIO_EHTTP, "the service answered HTTP 999"},
    {judged, "0\n\n", XIO_EHTTP, "HTTP 0"},
    {judged,
     "409\n\n" ERRBODY(
         "LeaseAlreadyPresent",
         "a very long message "
         "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
         "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
         "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
         "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
         "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
         "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
         "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
     XIO_EBUSY, "a very long message xxxx"},
    {lease_id, "201\n\n", XIO_EHTTP, "no usable x-ms-lease-id"},
    {lease_id, "201\nx-ms-lease-id: \n\n", XIO_EHTTP, "no usable x-ms-lease-id"},
    {lease_id,
     "201\nx-ms-lease-id: "
     "0123456789012345678901234567890123456789012345678901234567890123456789\n\n",
     XIO_EHTTP, "no usable x-ms-lease-id"},
    {snapshot_id, "201\n\n", XIO_EHTTP, "no usable x-ms-snapshot"},
    {props, "200\nContent-Length: lots\n\n", XIO_EHTTP, "Content-Length \"lots\" is not a size"},
    {props, "200\nContent-Length: -512\n\n", XIO_EHTTP, "Content-Length \"-512\" is not a size"},
    {props, "200\nContent-Length: 18446744073709551616\n\n", XIO_EHTTP,
     "Content-Length \"18446744073709551616\" is not a size"},
    {props, "200\nContent-Length: 512 bytes\n\n", XIO_EHTTP, "is not a size"},
};

#define NROWS(t) (sizeof(t) / sizeof *(t))

size_t bi_service_rows(void) { return NROWS(rows); }

TEST(service_bodies_and_headers) {
  bi_run_api_rows("service", rows, NROWS(rows));
  xio_blob_target_free(the_target());
}

/* The promise of the suite: more than 200 bad inputs, each with its answer. */
TEST(at_least_200_cases) {
  size_t cli = bi_cli_rows(), api = bi_api_rows(), service = bi_service_rows();
  printf("bad inputs: %zu through the program, %zu through the library, %zu from the service: "
         "%zu\n",
         cli, api, service, cli + api + service);
  ASSERT(cli + api + service >= 200);
}
