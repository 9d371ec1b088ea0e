/*
 * scheme_test.c - https:// to a port that speaks plain http, as the emulator's does:
 * the proxy (the emulator's front) answers the TLS hello at once with 400, as
 * Azurite's own server does, and counts no request; the engine ends the call after
 * that one try, its reason and message saying the endpoint speaks http. The same
 * blob over http:// through the same proxy then works.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include <xio/auth.h>
#include <xio/url_int.h>

#include "proxy_fixture.h"
#include "test.h"

TEST(tls_to_the_plain_http_proxy_fails_at_once) {
  pfx p;
  xio_blob_engine_options o = pfx_options(&p);
  pfx_setup(&p, &o);
  xio_blob_target *direct = pfx_direct_blob(&p, "scheme.mdf", 4096, 0);
  xio_blob_target *plain = pfx_proxied(&p, "scheme.mdf", NULL, NULL);
  pfx_forget(&p);
  char url[1024];
  const char *http = xio_blob_target_url(plain)->endpoint; /* http://127.0.0.1:PORT/ACCOUNT */
  ASSERT_EQ(strncmp(http, "http://", 7), 0);
  snprintf(url, sizeof url, "https://%s/%s/scheme.mdf", http + 7,
           xio_blob_target_url(p.fx.container)->container);
  xio_blob_target *tls = NULL;
  xio_error e;
  ASSERT_OK(xio_blob_target_new(url, &p.fx.cred, &tls, &e), &e);
  xio_blob_props props;
  ASSERT_EQ(xio_blob_get_properties(p.fx.engine, tls, NULL, &props, &e), XIO_ETRANSPORT);
  ASSERT_EQ(e.reason, XIO_REASON_SPEAKS_HTTP);
  ASSERT_CONTAINS(e.message, "this endpoint speaks http, not https");
  ASSERT_EQ(e.retries, 0);
  ASSERT_EQ(p.ntries, 1);
  ASSERT(!p.tries[0].will_retry);
  ASSERT_EQ(faultproxy_count(p.proxy), 0); /* a TLS hello is no request */
  pfx_assert_detail_clean(&p, &e);
  ASSERT_OK(xio_blob_get_properties(p.fx.engine, plain, NULL, &props, &e), &e);
  ASSERT_EQ(props.size, 4096);
  ASSERT_EQ(faultproxy_count(p.proxy), 1);
  xio_blob_target_free(tls);
  xio_blob_target_free(plain);
  xio_blob_target_free(direct);
  pfx_teardown(&p);
}
