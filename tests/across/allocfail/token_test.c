/*
 * token_test.c - allocation failure while a managed identity token is fetched: a
 * page-blob engine started, the token request built and sent on it to a stand-in
 * endpoint on loopback, the answer read and parsed, the engine stopped. Every
 * allocation point is failed in turn (libcurl's included); each run ends with the
 * token or a clean XIO_ENOMEM, with nothing leaked. A run with no failure injected
 * gets a token, asked for as the endpoint's protocol says (libcurl short of memory
 * may send a request without its query; such a run ends in XIO_ENOMEM).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>

#include <xio/alloc.h>
#include <xio/blob.h>
#include <xio/entra_sources.h>

#include "failalloc.h"
#include "standin.h"
#include "test.h"

typedef struct mi_run {
  standin_idserver server;
  char url[128];
  int got_token;  /* the last run's token looked like one */
  int bad_before; /* the endpoint's count of malformed requests before the run */
} mi_run;

static void mi_reset(void *ud) {
  mi_run *m = ud;
  m->bad_before = atomic_load(&m->server.bad);
}

static xio_err mi_op(void *ud, xio_error *err) {
  mi_run *m = ud;
  xio_blob_engine *engine = NULL;
  xio_err rc = xio_blob_engine_new(NULL, &engine, err);
  if (rc != XIO_OK) return rc;
  xio_entra_options o = xio_entra_options_default();
  o.use_environment = 0;
  o.identity_endpoint = m->url;
  o.identity_header = STANDIN_HEADER_SECRET;
  xio_auth_token t;
  rc = xio_entra_fetch(engine, &o, XIO_AUTH_ENTRA_MANAGED_IDENTITY, NULL, XIO_AUTH_STORAGE_SCOPE,
                       &t, NULL, err);
  m->got_token = rc == XIO_OK && standin_has_token(t.value);
  xio_auth_token_clear(&t);
  xio_blob_engine_free(engine);
  return rc;
}

static void mi_check(void *ud, xio_err rc, int injected) {
  mi_run *m = ud;
  if (rc == XIO_OK && !m->got_token) FAIL("the fetch succeeded without a token");
  if (!injected && rc != XIO_OK) FAIL("no token without a failure injected");
  if (!injected && atomic_load(&m->server.bad) != m->bad_before)
    FAIL("the endpoint got a request that breaks its protocol");
}

TEST(managed_identity_token) {
  af_install();
  mi_run m;
  memset(&m, 0, sizeof m);
  standin_idserver_start(&m.server, 0, 3600);
  standin_idserver_url(&m.server, m.url, sizeof m.url);
  af_scenario s = {.name = "managed_identity_token",
                   .op = mi_op,
                   .reset = mi_reset,
                   .check = mi_check,
                   .ud = &m,
                   .budget = 3000,
                   .min_points = 100};
  af_run(&s);
  ASSERT(atomic_load(&m.server.tokens) > 0);
  standin_idserver_stop(&m.server);
}
