/*
 * findings_test.c - the defects the fuzz targets found, each pinned by the input
 * that showed it (also in the corpus) and the answer the parser must give now.
 */
#include <string.h>

#include <xio/auth.h>
#include <xio/blob.h>

#include "call_int.h"
#include "test.h"

/* Parses a connection string that must be refused with `phrase` in the message. */
static void connstr_refused(const char *text, const char *phrase) {
  xio_auth_account a;
  xio_error e;
  xio_error_clear(&e);
  ASSERT_ERR(xio_auth_connstr_parse(text, &a, &e), XIO_EPARSE, &e);
  ASSERT_CONTAINS(e.message, phrase);
  ASSERT(a.blob_endpoint == NULL);
}

TEST(connstr_blob_endpoint_needs_a_host) {
  /* Was taken, and the endpoint became "http:" once its '/'s were trimmed. */
  connstr_refused("AccountName=A;AccountKey=Zm9vYmFy;BlobEndpoint=http://", "BlobEndpoint");
  connstr_refused("AccountName=a;AccountKey=Zm9vYmFy;BlobEndpoint=https:///", "BlobEndpoint");
}

TEST(connstr_derived_endpoint_needs_host_names) {
  /* Were pasted into the derived URL: "https://acct.blob.example.com/" (a trailing
   * '/' the endpoint must not have) and "https://a/b.blob.core.windows.net". */
  connstr_refused("AccountName=acct;AccountKey=Zm9vYmFy;EndpointSuffix=example.com/",
                  "EndpointSuffix");
  connstr_refused("AccountName=a/b;AccountKey=Zm9vYmFy", "AccountName");
  xio_auth_account a;
  xio_error e;
  ASSERT_OK(xio_auth_connstr_parse("AccountName=Acct1;AccountKey=Zm9vYmFy;"
                                   "EndpointSuffix=.core.usgovcloudapi.net",
                                   &a, &e),
            &e);
  ASSERT_STR_EQ(a.blob_endpoint, "https://acct1.blob.core.usgovcloudapi.net");
  xio_auth_account_clear(&a);
}

TEST(iso8601_offset_out_of_range) {
  /* Was taken as a time in the year 10000 (or 1969), which formats as "0000-..."
   * and cannot be parsed back. */
  time_t t = 1;
  xio_error e;
  ASSERT_ERR(xio_auth_parse_iso8601("9999-12-31T23:59:59-23:59", &t, &e), XIO_EPARSE, &e);
  ASSERT_CONTAINS(e.message, "out of range");
  ASSERT_ERR(xio_auth_parse_iso8601("1970-01-01T00:00:00+00:01", &t, &e), XIO_EPARSE, &e);
  ASSERT_OK(xio_auth_parse_iso8601("9999-12-31T23:59:59Z", &t, &e), &e);
  ASSERT_EQ(t, 253402300799LL);
  ASSERT_OK(xio_auth_parse_iso8601("1970-01-01T01:00:00+01:00", &t, &e), &e);
  ASSERT_EQ(t, 0);
}

TEST(redact_sharedkey_account_is_a_name) {
  /* "SharedKey X:Y" copied everything before the ':' as the account, secrets too. */
  char *r = xio_auth_redact("Authorization: SharedKey host/c?sig=c2lnMTIz;AccountKey=a2V5MTIz"
                            ":c2lnbmF0dXJl");
  ASSERT(r != NULL);
  ASSERT_NOT_CONTAINS(r, "c2lnMTIz");
  ASSERT_NOT_CONTAINS(r, "a2V5MTIz");
  free(r);
  r = xio_auth_redact("Authorization: SharedKey devstoreaccount1:c2lnbmF0dXJl");
  ASSERT_STR_EQ(r, "Authorization: SharedKey devstoreaccount1:REDACTED");
  free(r);
}

TEST(url_error_target_redacted) {
  /* A SAS after '&' instead of '?' is no query, so the target kept it. */
  xio_auth_url u;
  xio_error e;
  xio_error_clear(&e);
  ASSERT_ERR(xio_auth_url_parse("http://127.0.0.1:10000/devstoreaccount1/Bad_Container/b"
                                "&sig=Zm9vYmFyYmF6MTIzNDU2",
                                &u, &e),
             XIO_EPARSE, &e);
  ASSERT_NOT_CONTAINS(e.target, "Zm9vYmFyYmF6MTIzNDU2");
  ASSERT_NOT_CONTAINS(e.message, "Zm9vYmFyYmF6MTIzNDU2");
  ASSERT_STR_EQ(e.target, "http://127.0.0.1:10000/devstoreaccount1/Bad_Container/b");
  /* A SAS token given where the URL belongs. */
  ASSERT_ERR(xio_auth_url_parse("sig=Zm9vYmFyYmF6MTIzNDU2&sv=2020-12-06", &u, &e), XIO_EPARSE, &e);
  ASSERT_NOT_CONTAINS(e.target, "Zm9vYmFyYmF6MTIzNDU2");
}

/* The size xio_blob_call_props reads from a HEAD answering `length`. */
static xio_err head_size(const char *length, uint64_t *size, xio_error *e) {
  xio_blob_target *t;
  xio_blob_call *c;
  xio_blob_props p;
  ASSERT_OK(xio_blob_target_new("http://127.0.0.1:10000/devstoreaccount1/cont/blob", NULL, &t, e),
            e);
  ASSERT_OK(xio__blob_call_new(t, "GetBlobProperties", "HEAD", NULL, &c, e), e);
  c->finished = 1;
  c->result = XIO_OK;
  ASSERT_OK(xio__blob_hdrs_add(&c->resp_headers, "Content-Length", length), NULL);
  xio_err rc = xio_blob_call_props(c, &p, e);
  *size = p.size;
  xio_blob_call_free(c);
  xio_blob_target_free(t);
  return rc;
}

TEST(props_content_length_must_be_a_number) {
  /* "-1" was read by strtoull as 2^64-1, junk after digits ignored. */
  uint64_t size = 7;
  xio_error e;
  xio_error_clear(&e);
  ASSERT_ERR(head_size("-1", &size, &e), XIO_EHTTP, &e);
  ASSERT_CONTAINS(e.message, "Content-Length");
  ASSERT_ERR(head_size("12abc", &size, &e), XIO_EHTTP, &e);
  ASSERT_ERR(head_size("99999999999999999999", &size, &e), XIO_EHTTP, &e);
  ASSERT_ERR(head_size("", &size, &e), XIO_EHTTP, &e);
  ASSERT_OK(head_size("1048576", &size, &e), &e);
  ASSERT_U64_EQ(size, 1048576);
}
