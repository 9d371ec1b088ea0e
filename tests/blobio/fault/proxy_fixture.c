/*
 * proxy_fixture.c - the fault tests' fixture: blobio fixture plus a fault proxy,
 * proxied targets, the engine's try log, and secret checks (see proxy_fixture.h).
 */
#define _GNU_SOURCE
#include "proxy_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "test.h"
#include "util.h"
#include <xio/url_int.h>

/* The engine's on_try hook: copies what it is told (I/O thread). */
static void log_try(const xio_blob_try_info *info, void *ud) {
  pfx *p = ud;
  if (p->ntries >= PFX_MAX_TRIES) return;
  pfx_try *t = &p->tries[p->ntries++];
  t->attempt = info->attempt;
  t->http_status = info->http_status;
  t->will_retry = info->will_retry;
  t->delay_ms = info->delay_ms;
  snprintf(t->transport_error, sizeof t->transport_error, "%s",
           info->transport_error ? info->transport_error : "");
  snprintf(t->safe_url, sizeof t->safe_url, "%s", info->safe_url ? info->safe_url : "");
}

/* The system clock, or with ticking_clock one that moves a second per read, so that
 * every try carries a different x-ms-date without waiting for the wall clock. */
static time_t pfx_now(void *ud) {
  pfx *p = ud;
  time_t t = time(NULL);
  return p->ticking_clock ? t + (time_t)(++p->clock_reads) : t;
}

xio_blob_engine_options pfx_options(pfx *p) {
  memset(p, 0, sizeof *p);
  xio_blob_engine_options o = xio_blob_engine_options_default();
  o.retry.max_retries = 3;
  o.retry.base_delay_ms = 20;
  o.retry.max_delay_ms = 2000;
  o.retry.try_timeout_ms = 10000;
  o.on_try = log_try;
  o.on_try_ud = p;
  o.clock.now = pfx_now;
  o.clock.ud = p;
  return o;
}

void pfx_setup(pfx *p, const xio_blob_engine_options *opts) {
  fixture_setup(&p->fx, opts);
  p->proxy = faultproxy_start(test_endpoint());
  ASSERT(p->proxy != NULL);
  pfx_forget(p);
}

void pfx_teardown(pfx *p) {
  faultproxy_free(p->proxy);
  p->proxy = NULL;
  fixture_teardown(&p->fx);
}

xio_blob_target *pfx_proxied(pfx *p, const char *name, const xio_auth_cred *cred,
                             const char *query) {
  char url[4096];
  xio_error e;
  xio_blob_target *t = NULL;
  const char *container = xio_blob_target_url(p->fx.container)->container;
  snprintf(url, sizeof url, "%s/%s/%s/%s%s%s", faultproxy_endpoint(p->proxy), XIO_AUTH_DEV_ACCOUNT,
           container, name, query ? "?" : "", query ? query : "");
  ASSERT_OK(xio_blob_target_new(url, query ? cred : (cred ? cred : &p->fx.cred), &t, &e), &e);
  return t;
}

xio_blob_target *pfx_direct_blob(pfx *p, const char *name, uint64_t size, uint64_t seed) {
  xio_error e;
  xio_blob_target *t = fixture_page_blob(&p->fx, name, size);
  if (seed) {
    unsigned char *data = malloc(size);
    ASSERT(data != NULL);
    test_fill_random(data, size, seed);
    ASSERT_OK(xio_blob_put_page(p->fx.engine, t, 0, data, size, NULL, &e), &e);
    free(data);
  }
  return t;
}

void pfx_expect_content(pfx *p, const xio_blob_target *direct, uint64_t off, const void *want,
                        size_t len) {
  xio_error e;
  unsigned char *got = malloc(len);
  ASSERT(got != NULL);
  ASSERT_OK(xio_blob_read(p->fx.engine, direct, off, got, len, NULL, &e), &e);
  ASSERT_MEM_EQ(got, want, len);
  free(got);
}

void pfx_fault(pfx *p, faultproxy_fault f) { ASSERT_EQ(faultproxy_add(p->proxy, &f), 0); }

faultproxy_record pfx_record(pfx *p, int i) {
  faultproxy_record r;
  if (faultproxy_record_get(p->proxy, i, &r) != 0)
    FAIL("the proxy has no record %d (it saw %d requests)", i, faultproxy_count(p->proxy));
  return r;
}

void pfx_forget(pfx *p) {
  p->ntries = 0;
  faultproxy_forget(p->proxy);
}

void pfx_assert_no_secret(const char *text) {
  ASSERT_NOT_CONTAINS(text, XIO_AUTH_DEV_KEY);
  ASSERT_NOT_CONTAINS(text, "sig=");
  ASSERT_NOT_CONTAINS(text, "SharedKey");
}

void pfx_assert_detail_clean(pfx *p, const xio_error *e) {
  char line[2048];
  pfx_assert_no_secret(xio_error_format(e, line, sizeof line));
  pfx_assert_no_secret(e->message);
  pfx_assert_no_secret(e->target);
  for (int i = 0; i < p->ntries; i++) {
    pfx_assert_no_secret(p->tries[i].transport_error);
    pfx_assert_no_secret(p->tries[i].safe_url);
    ASSERT(strchr(p->tries[i].safe_url, '?') == NULL);
  }
}
