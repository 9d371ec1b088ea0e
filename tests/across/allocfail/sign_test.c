/*
 * sign_test.c - allocation failure while building and signing every request type
 * (Shared Key and SAS targets; each call prepared for a try on a libcurl handle, the
 * step that makes the full URL, the date and the Authorization header) and while
 * reading the XML bodies the service answers with (page list, blob list). Pure code
 * and libcurl's setup, no sending: every allocation point is failed in turn.
 */
#include <curl/curl.h>
#include <string.h>

#include <xio/alloc.h>
#include <xio/auth.h>
#include <xio/blob.h>

#include "call_int.h"
#include "engine_int.h"
#include "failalloc.h"
#include "test.h"
#include "xml_int.h"

#define BLOB_URL "http://127.0.0.1:10000/devstoreaccount1/dbs/data.mdf"
#define SAS_URL                                                                                    \
  "https://acct.blob.core.windows.net/dbs/"                                                        \
  "x.mdf?sv=2020-12-06&sp=racwdl&se=2099-01-01T00%3A00%3A00Z"                                      \
  "&sr=c&sig=c2VjcmV0"

typedef struct sign_ctx {
  CURL *easy; /* made and cleaned up within each run: it keeps copies of what is set */
  xio_auth_account account;
} sign_ctx;

static char page[4096];

/* Builds one call of kind `k` (0..) on `t`; returns XIO_ENOTFOUND past the last kind. */
static xio_err build(int k, const xio_blob_target *t, xio_blob_call **c, xio_error *err) {
  static const xio_blob_meta meta[2] = {{"xiokind", "log"}, {"xiosize", "1000"}};
  xio_blob_cond cond = {"11111111-2222-4333-8444-555555555555", NULL, NULL};
  xio_blob_lease_args acquire = {XIO_BLOB_LEASE_ACQUIRE, NULL,
                                 "11111111-2222-4333-8444-555555555555", 30, 0};
  xio_blob_lease_args brk = {XIO_BLOB_LEASE_BREAK, NULL, NULL, 0, 0};
  switch (k) {
  case 0: return xio_blob_call_create_container(t, c, err);
  case 1: return xio_blob_call_list(t, "db/a b", "m+1", 10, c, err);
  case 2: return xio_blob_call_create(t, 1 << 20, meta, 2, &cond, c, err);
  case 3: return xio_blob_call_get_properties(t, &cond, c, err);
  case 4: return xio_blob_call_resize(t, 2 << 20, &cond, c, err);
  case 5: return xio_blob_call_put_page(t, 4096, page, sizeof page, 0, &cond, c, err);
  case 6: return xio_blob_call_clear(t, 8192, 1 << 20, 0, &cond, c, err);
  case 7: return xio_blob_call_read(t, 0, page, sizeof page, &cond, c, err);
  case 8: return xio_blob_call_page_ranges(t, 512, 1 << 20, "next", c, err);
  case 9: return xio_blob_call_delete(t, 1, &cond, c, err);
  case 10: return xio_blob_call_lease(t, &acquire, c, err);
  case 11: return xio_blob_call_lease(t, &brk, c, err);
  case 12: return xio_blob_call_snapshot(t, &cond, c, err);
  case 13: return xio_blob_call_set_metadata(t, meta, 2, &cond, c, err);
  case 14:
    return xio_blob_call_list_include(t, "db/", "m+1", 10,
                                      XIO_BLOB_LIST_SNAPSHOTS | XIO_BLOB_LIST_METADATA, c, err);
  case 15: return xio_blob_call_delete_snapshot(t, "2024-01-01T00:00:00.0000000Z", NULL, c, err);
  case 16: return xio_blob_call_copy(t, t, NULL, c, err);
  case 17: return xio_blob_call_abort_copy(t, "11111111-2222-4333-8444-555555555555", NULL, c, err);
  default: return XIO_ENOTFOUND;
  }
}

/* Builds and prepares every request type on `t`. */
static xio_err sign_all(sign_ctx *s, xio_blob_target *t, xio_error *err) {
  xio_blob_engine_options o = xio_blob_engine_options_default();
  for (int k = 0;; k++) {
    xio_blob_call *c = NULL;
    xio_err rc = build(k, t, &c, err);
    if (rc == XIO_ENOTFOUND) return XIO_OK;
    if (rc == XIO_OK) rc = xio__blob_try_prepare(c, s->easy, &o, NULL, NULL, 1700000000, 1000, err);
    xio_blob_call_free(c);
    if (rc != XIO_OK) return rc;
  }
}

static xio_err sign_op(void *ud, xio_error *err) {
  sign_ctx *s = ud;
  xio_auth_cred key = {.kind = XIO_AUTH_CRED_SHARED_KEY,
                       .account = s->account.name,
                       .key = s->account.key,
                       .key_len = s->account.key_len};
  xio_blob_target *t = NULL;
  if (!(s->easy = curl_easy_init())) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  xio_err rc = xio_blob_target_new(BLOB_URL, &key, &t, err);
  if (rc == XIO_OK) rc = sign_all(s, t, err);
  xio_blob_target_free(t);
  t = NULL;
  if (rc == XIO_OK) rc = xio_blob_target_new(SAS_URL, NULL, &t, err);
  if (rc == XIO_OK) rc = sign_all(s, t, err);
  xio_blob_target_free(t);
  curl_easy_cleanup(s->easy);
  return rc;
}

TEST(build_and_sign) {
  af_install();
  sign_ctx s;
  memset(&s, 0, sizeof s);
  xio_error e;
  xio_error_clear(&e);
  ASSERT_OK(xio_auth_connstr_parse("UseDevelopmentStorage=true", &s.account, &e), &e);
  af_scenario sc = {
      .name = "build_and_sign", .op = sign_op, .ud = &s, .budget = 100000, .min_points = 200};
  af_report r = af_run(&sc);
  ASSERT_EQ(r.stride, 1);
  xio_auth_account_clear(&s.account);
}

/* ------------------------------------------------------- response bodies ---- */

#define DECL     "<?xml version=\"1.0\" encoding=\"utf-8\"?>"
#define PR(s, e) "<PageRange><Start>" s "</Start><End>" e "</End></PageRange>"
#define CR(s, e) "<ClearRange><Start>" s "</Start><End>" e "</End></ClearRange>"
#define BLOB(n)                                                                                    \
  "<Blob><Name>" n "</Name><Properties><Last-Modified>Mon, 01 Jan 2024 00:00:00 GMT"               \
  "</Last-Modified><Content-Length>1048576</Content-Length><BlobType>PageBlob</BlobType>"          \
  "<LeaseState>available</LeaseState></Properties></Blob>"

#define SNAPSHOT_WITH_META                                                                         \
  "<Blob><Name>db/a.mdf</Name><Snapshot>2024-01-01T00:00:00.0000000Z</Snapshot><Properties>"       \
  "<Content-Length>512</Content-Length><BlobType>PageBlob</BlobType></Properties>"                 \
  "<Metadata><xiokind>log</xiokind><xiosize>100</xiosize></Metadata></Blob>"

static const char page_list[] = DECL "<PageList>" PR("0", "511") CR("512", "1023")
    PR("4096", "8191") PR("1048576", "2097151") "<NextMarker>m2</NextMarker></PageList>";
static const char blob_list[] =
    DECL "<EnumerationResults><Blobs>" BLOB("db/a.mdf") BLOB("db/b.ldf") BLOB("db/c d.mdf")
        SNAPSHOT_WITH_META "</Blobs><NextMarker>n3</NextMarker></EnumerationResults>";

static xio_err parse_op(void *ud, xio_error *err) {
  (void)ud;
  xio_ranges r, cleared;
  memset(&r, 0, sizeof r);
  memset(&cleared, 0, sizeof cleared);
  char *marker = NULL;
  xio_err rc = xio__blob_xml_page_list(page_list, sizeof page_list - 1, &r, &cleared, &marker, err);
  if (rc == XIO_OK && (r.n != 3 || cleared.n != 1 || !marker || strcmp(marker, "m2") != 0))
    rc = xio_error_set(err, XIO_EIO, "page list read wrong");
  xio_free(marker);
  xio_ranges_clear(&r);
  xio_ranges_clear(&cleared);
  if (rc != XIO_OK) return rc;
  xio_blob_list l;
  memset(&l, 0, sizeof l);
  rc = xio__blob_xml_blob_list(blob_list, sizeof blob_list - 1, &l, err);
  if (rc == XIO_OK && (l.n != 4 || !l.v[3].snapshot || l.v[3].nmeta != 2))
    rc = xio_error_set(
        err, XIO_EIO, "blob list read wrong: %zu blobs, the last %s a snapshot and %d metadata",
        l.n, l.n && l.v[l.n - 1].snapshot ? "is" : "is not", l.n ? l.v[l.n - 1].nmeta : -1);
  xio_blob_list_clear(&l);
  return rc;
}

TEST(response_bodies) {
  af_scenario sc = {.name = "response_bodies", .op = parse_op, .budget = 100000, .min_points = 20};
  af_report r = af_run(&sc);
  ASSERT_EQ(r.stride, 1);
}
