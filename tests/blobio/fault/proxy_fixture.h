/*
 * proxy_fixture.h - what the fault tests share: the blobio fixture (engine, dev
 * credential, fresh container on Azurite), a fault proxy in front of Azurite,
 * targets addressed through the proxy, a log of the engine's tries, and checks on
 * what the proxy saw.
 */
#ifndef XIO_TEST_PROXY_FIXTURE_H
#define XIO_TEST_PROXY_FIXTURE_H

#include <xio/blob.h>

#include "faultproxy.h"
#include "fixture.h"

#define PFX_MAX_TRIES 32

/** One try as the engine's on_try hook reported it (strings copied). */
typedef struct pfx_try {
  int attempt;
  int http_status;
  int will_retry;
  int delay_ms;
  char transport_error[256]; /* "" when none */
  char safe_url[512];
} pfx_try;

typedef struct pfx {
  fixture fx;        /* engine and container; its calls go straight to Azurite */
  faultproxy *proxy; /* in front of the same Azurite */
  pfx_try tries[PFX_MAX_TRIES];
  int ntries;        /* written on the I/O thread, read after a call completes */
  int ticking_clock; /* x-ms-date advances a second on every read of the clock */
  long clock_reads;
} pfx;

/** Engine options for fault tests: 3 retries, 20 ms base delay, try hook on. */
xio_blob_engine_options pfx_options(pfx *p);

/** Sets up the fixture with `opts` (from pfx_options, adjusted) and starts a proxy.
 *  `p` must be the same pfx given to pfx_options (the hook writes into it). */
void pfx_setup(pfx *p, const xio_blob_engine_options *opts);

/** Stops the proxy and tears the fixture down. */
void pfx_teardown(pfx *p);

/** A target for blob `name` of the fixture's container addressed through the proxy,
 *  with credential `cred` (NULL: the dev Shared Key); `query` (may be NULL) is
 *  appended after '?', e.g. a SAS. Free it. */
xio_blob_target *pfx_proxied(pfx *p, const char *name, const xio_auth_cred *cred,
                             const char *query);

/** Creates page blob `name` of `size` bytes directly on Azurite (not through the
 *  proxy) and, when `seed` is non-zero, fills it with test_fill_random(seed). Returns
 *  the direct target. */
xio_blob_target *pfx_direct_blob(pfx *p, const char *name, uint64_t size, uint64_t seed);

/** Reads `len` bytes at `off` of `direct` straight from Azurite and checks that they
 *  equal `want`. */
void pfx_expect_content(pfx *p, const xio_blob_target *direct, uint64_t off, const void *want,
                        size_t len);

/** Scripts a fault on the proxy (fails the test if it cannot). */
void pfx_fault(pfx *p, faultproxy_fault f);

/** Record `i` of the proxy (fails the test if there is none). */
faultproxy_record pfx_record(pfx *p, int i);

/** Forgets the engine tries and proxy records so far (after setup traffic). */
void pfx_forget(pfx *p);

/** Checks that `text` holds no secret: no account key, no "sig=", no SharedKey
 *  signature prefix. */
void pfx_assert_no_secret(const char *text);

/** Checks every text of a detail record and of the logged tries for secrets. */
void pfx_assert_detail_clean(pfx *p, const xio_error *e);

#endif
