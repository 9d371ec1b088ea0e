/*
 * wire_test.c - what reaches the wire is what xio named and signed, checked on the
 * fault proxy, which records each request's path as sent and whether it carried an
 * Authorization header: a request path is sent as it is (libcurl is told not to
 * resolve dot segments, so the path signed is the path sent, even for a path that
 * did not come through the URL parser).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xio/blob.h>

#include "badinput.h"
#include "call_int.h"
#include "faultproxy.h"
#include "test.h"
#include "util.h"

/* The proxy's last record (fails when it saw nothing since `before`). */
static faultproxy_record last_record(faultproxy *p, int before) {
  faultproxy_record rec;
  int n = faultproxy_count(p);
  if (n <= before) FAIL("the proxy saw no request");
  if (faultproxy_record_get(p, n - 1, &rec) != 0) FAIL("no record %d", n - 1);
  return rec;
}

TEST(wire_path_sent_as_signed) {
  faultproxy *p = bi_proxy();
  char url[512];
  snprintf(url, sizeof url, "%s/devstoreaccount1/wire/b.mdf", faultproxy_endpoint(p));
  unsigned char *key;
  size_t key_len;
  xio_error e;
  ASSERT_OK(xio_auth_base64_decode(XIO_AUTH_DEV_KEY, &key, &key_len, &e), &e);
  xio_auth_cred cred = {.kind = XIO_AUTH_CRED_SHARED_KEY,
                        .account = (char *)XIO_AUTH_DEV_ACCOUNT,
                        .key = key,
                        .key_len = key_len};
  xio_blob_target *t;
  ASSERT_OK(xio_blob_target_new(url, &cred, &t, &e), &e);
  xio_auth_secret_free(key, key_len);
  xio_blob_engine *eng;
  ASSERT_OK(xio_blob_engine_new(NULL, &eng, &e), &e);
  /* A call whose path holds dot segments, as no parsed URL can: it must be sent,
   * and signed, exactly so. */
  xio_blob_call *c;
  ASSERT_OK(xio_blob_call_get_properties(t, NULL, &c, &e), &e);
  c->service_level = 1;
  c->owned_path = strdup("/devstoreaccount1/wire/a/../b.mdf");
  int before = faultproxy_count(p);
  xio_blob_send(eng, c, &e); /* the service's answer does not matter here */
  faultproxy_record rec = last_record(p, before);
  ASSERT_STR_EQ(rec.target, "/devstoreaccount1/wire/a/../b.mdf");
  ASSERT(rec.has_auth);
  xio_blob_call_free(c);
  xio_blob_engine_free(eng);
  xio_blob_target_free(t);
}
