/*
 * test_sharedkey.c - Shared Key signing: the reference vectors exactly (three requests
 * signed with Azurite's dev key at x-ms-date Mon, 01 Jan 2024 00:00:00 GMT, each
 * accepted by Azurite), and each canonicalization rule that could break a signature.
 */
#include <stdlib.h>

#include "auth_test.h"

#define ACCT      "devstoreaccount1"
#define SIZEOF(a) (sizeof(a) / sizeof((a)[0]))

/* The Authorization value for a request; the test fails on error. */
static char *authorize(const char *method, const char *path, const char *query,
                       const xio_auth_header *h, size_t n) {
  size_t key_len = 0;
  unsigned char *key = dev_key(&key_len);
  xio_auth_request r = {method, path, query, h, n};
  char *out = NULL;
  xio_error e;
  xio_error_clear(&e);
  ASSERT_OK(xio_auth_sharedkey_authorization(ACCT, key, key_len, &r, &out, &e), &e);
  xio_auth_secret_free(key, key_len);
  return out;
}

static char *string_to_sign(const char *method, const char *path, const char *query,
                            const xio_auth_header *h, size_t n) {
  xio_auth_request r = {method, path, query, h, n};
  char *out = NULL;
  xio_error e;
  xio_error_clear(&e);
  ASSERT_OK(xio_auth_sharedkey_string_to_sign(ACCT, &r, &out, &e), &e);
  return out;
}

TEST(sharedkey_vector1_create_container) {
  xio_auth_header h[] = {
      {"x-ms-date", VECTOR_DATE}, {"x-ms-version", "2021-10-04"}, {"Content-Length", "0"}};
  char *a = authorize("PUT", "/devstoreaccount1/vectors", "restype=container", h, 3);
  ASSERT_STR_EQ(a, "SharedKey devstoreaccount1:kfVZ23XkzfybCTpsp1ipS1/rWZR9BnA2Feb7iIBc0aQ=");
  free(a);
  char *s = string_to_sign("PUT", "/devstoreaccount1/vectors", "restype=container", h, 3);
  ASSERT_STR_EQ(s, "PUT\n\n\n\n\n\n\n\n\n\n\n\n"
                   "x-ms-date:" VECTOR_DATE "\nx-ms-version:2021-10-04\n"
                   "/devstoreaccount1/devstoreaccount1/vectors\nrestype:container");
  free(s);
}

TEST(sharedkey_vector2_create_page_blob) {
  xio_auth_header h[] = {{"x-ms-blob-type", "PageBlob"},
                         {"x-ms-version", "2021-10-04"},
                         {"Content-Length", "0"},
                         {"x-ms-blob-content-length", "1073741824"},
                         {"x-ms-date", VECTOR_DATE}};
  char *a = authorize("PUT", "/devstoreaccount1/vectors/disk.mdf", NULL, h, SIZEOF(h));
  ASSERT_STR_EQ(a, "SharedKey devstoreaccount1:1SylS1v4olSAxF2jVPBI+mFVtYq4Lr3AZC8SMgcIXIY=");
  free(a);
  /* no Content-Length at all signs the same as "0" */
  xio_auth_header h2[] = {h[0], h[1], h[3], h[4]};
  a = authorize("PUT", "/devstoreaccount1/vectors/disk.mdf", "", h2, 4);
  ASSERT_STR_EQ(a, "SharedKey devstoreaccount1:1SylS1v4olSAxF2jVPBI+mFVtYq4Lr3AZC8SMgcIXIY=");
  free(a);
}

TEST(sharedkey_vector3_put_page) {
  xio_auth_header h[] = {{"x-ms-date", VECTOR_DATE},
                         {"x-ms-version", "2021-10-04"},
                         {"x-ms-page-write", "update"},
                         {"x-ms-range", "bytes=0-511"},
                         {"Content-Length", "512"}};
  char *a = authorize("PUT", "/devstoreaccount1/vectors/disk.mdf", "comp=page", h, 5);
  ASSERT_STR_EQ(a, "SharedKey devstoreaccount1:43g+Bdpo8FmlWRgTJWZdM0Ibi7qgkWeiw/fMX3C5fQE=");
  free(a);
  char *s = string_to_sign("PUT", "/devstoreaccount1/vectors/disk.mdf", "comp=page", h, 5);
  ASSERT_STR_EQ(s, "PUT\n\n\n512\n\n\n\n\n\n\n\n\n"
                   "x-ms-date:" VECTOR_DATE "\nx-ms-page-write:update\n"
                   "x-ms-range:bytes=0-511\nx-ms-version:2021-10-04\n"
                   "/devstoreaccount1/devstoreaccount1/vectors/disk.mdf\ncomp:page");
  free(s);
}

TEST(sharedkey_header_names_any_case) {
  xio_auth_header h[] = {{"X-MS-Date", VECTOR_DATE},
                         {"X-Ms-Version", "2021-10-04"},
                         {"x-ms-PAGE-write", "update"},
                         {"X-MS-RANGE", "bytes=0-511"},
                         {"content-LENGTH", "512"}};
  char *a = authorize("PUT", "/devstoreaccount1/vectors/disk.mdf", "COMP=page", h, 5);
  ASSERT_STR_EQ(a, "SharedKey devstoreaccount1:43g+Bdpo8FmlWRgTJWZdM0Ibi7qgkWeiw/fMX3C5fQE=");
  free(a);
}

TEST(sharedkey_standard_headers_order) {
  xio_auth_header h[] = {
      {"Range", "bytes=0-1"},         {"If-Unmodified-Since", "U"}, {"If-None-Match", "*"},
      {"If-Match", "\"etag\""},       {"If-Modified-Since", "M"},   {"Date", "D"},
      {"Content-Type", "text/plain"}, {"Content-MD5", "md5=="},     {"Content-Length", " 10 "},
      {"Content-Language", "en"},     {"Content-Encoding", "gzip"}, {"User-Agent", "ignored"}};
  char *s = string_to_sign("GET", "/c/b", NULL, h, SIZEOF(h));
  ASSERT_STR_EQ(s, "GET\ngzip\nen\n10\nmd5==\ntext/plain\nD\nM\n\"etag\"\n*\nU\nbytes=0-1\n"
                   "/devstoreaccount1/c/b");
  free(s);
  /* Date is left empty when x-ms-date is sent */
  xio_auth_header h2[] = {{"Date", "D"}, {"x-ms-date", VECTOR_DATE}};
  s = string_to_sign("GET", "/c/b", NULL, h2, 2);
  ASSERT_STR_EQ(s, "GET\n\n\n\n\n\n\n\n\n\n\n\nx-ms-date:" VECTOR_DATE "\n/devstoreaccount1/c/b");
  free(s);
}

TEST(sharedkey_canonical_headers) {
  xio_auth_header h[] = {{"x-ms-meta-b", "  two   words\there  "},
                         {"x-ms-version", "2025-11-05"},
                         {"X-Ms-Meta-A", "1"},
                         {"x-ms-meta-a", "2"},
                         {"x-ms-client-request-id", "id"},
                         {"x-msnot", "skipped"}};
  char *s = string_to_sign("HEAD", "/c/b", NULL, h, SIZEOF(h));
  ASSERT_STR_EQ(s, "HEAD\n\n\n\n\n\n\n\n\n\n\n\n"
                   "x-ms-client-request-id:id\nx-ms-meta-a:1,2\n"
                   "x-ms-meta-b:two words here\nx-ms-version:2025-11-05\n"
                   "/devstoreaccount1/c/b");
  free(s);
}

TEST(sharedkey_canonical_resource_query) {
  char *s = string_to_sign("GET", "/devstoreaccount1/c",
                           "restype=container&comp=list&Prefix=a%2Fb%20c&include=snapshots"
                           "&include=metadata&&marker=",
                           NULL, 0);
  ASSERT_STR_EQ(s, "GET\n\n\n\n\n\n\n\n\n\n\n\n"
                   "/devstoreaccount1/devstoreaccount1/c\ncomp:list\n"
                   "include:metadata,snapshots\nmarker:\nprefix:a/b c\nrestype:container");
  free(s);
  /* the path is signed as encoded on the wire */
  s = string_to_sign("GET", "/c/dir%20a/b", NULL, NULL, 0);
  ASSERT_CONTAINS(s, "\n/devstoreaccount1/c/dir%20a/b");
  free(s);
}

TEST(sharedkey_errors) {
  xio_auth_header h[] = {{"x-ms-date", VECTOR_DATE}};
  xio_auth_request ok = {"GET", "/c", "a=1", h, 1};
  xio_auth_request no_method = {NULL, "/c", NULL, h, 1};
  xio_auth_request bad_path = {"GET", "c", NULL, h, 1};
  xio_auth_request bad_query = {"GET", "/c", "a=%zz", h, 1};
  xio_auth_header noname[] = {{NULL, "v"}};
  xio_auth_request bad_header = {"GET", "/c", NULL, noname, 1};
  size_t key_len = 0;
  unsigned char *key = dev_key(&key_len);
  char *out = (char *)"unchanged";
  xio_error e;
  xio_error_clear(&e);
  ASSERT_ERR(xio_auth_sharedkey_string_to_sign(ACCT, &no_method, &out, &e), XIO_EINVAL, &e);
  ASSERT(out == NULL);
  ASSERT_CONTAINS(e.message, "method");
  ASSERT_ERR(xio_auth_sharedkey_string_to_sign(ACCT, &bad_path, &out, &e), XIO_EINVAL, &e);
  ASSERT_CONTAINS(e.message, "path");
  ASSERT_ERR(xio_auth_sharedkey_string_to_sign(ACCT, &bad_query, &out, &e), XIO_EINVAL, &e);
  ASSERT_CONTAINS(e.message, "'a'");
  ASSERT_ERR(xio_auth_sharedkey_string_to_sign(ACCT, &bad_header, &out, &e), XIO_EINVAL, &e);
  ASSERT_ERR(xio_auth_sharedkey_string_to_sign("", &ok, &out, &e), XIO_EINVAL, &e);
  ASSERT_ERR(xio_auth_sharedkey_authorization(ACCT, key, 0, &ok, &out, &e), XIO_EINVAL, &e);
  ASSERT_CONTAINS(e.message, "key");
  ASSERT_ERR(xio_auth_sharedkey_authorization(ACCT, key, key_len, &bad_query, &out, &e), XIO_EINVAL,
             &e);
  ASSERT(out == NULL);
  xio_auth_secret_free(key, key_len);
}
