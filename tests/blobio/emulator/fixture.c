/*
 * fixture.c - engine, credential and container for the blobio integration tests.
 */
#include "fixture.h"

#include <stdio.h>
#include <string.h>

#include "test.h"
#include "util.h"
#include <xio/url_int.h>

void fixture_setup(fixture *fx, const xio_blob_engine_options *opts) {
  xio_error e;
  memset(fx, 0, sizeof *fx);
  ASSERT_OK(xio_blob_engine_new(opts, &fx->engine, &e), &e);
  fx->cred.kind = XIO_AUTH_CRED_SHARED_KEY;
  fx->cred.account = XIO_AUTH_DEV_ACCOUNT;
  ASSERT_OK(xio_auth_base64_decode(XIO_AUTH_DEV_KEY, &fx->cred.key, &fx->cred.key_len, &e), &e);
  char name[64];
  test_unique_name(name, sizeof name, "blobio");
  snprintf(fx->container_url, sizeof fx->container_url, "%s/%s", test_account_url(), name);
  ASSERT_OK(xio_blob_target_new(fx->container_url, &fx->cred, &fx->container, &e), &e);
  /* if_missing: the name is this process's own, so an existing container can only be
   * an earlier try of this create whose answer came after the test's short per-try
   * timeout (a retried create answers 409 ContainerAlreadyExists). */
  ASSERT_OK(xio_blob_create_container(fx->engine, fx->container, 1, &e), &e);
}

void fixture_teardown(fixture *fx) {
  xio_blob_target_free(fx->container);
  xio_blob_engine_free(fx->engine);
  xio_auth_secret_free(fx->cred.key, fx->cred.key_len);
  memset(fx, 0, sizeof *fx);
}

xio_blob_target *fixture_blob(fixture *fx, const char *name) {
  xio_error e;
  xio_blob_target *t = NULL;
  ASSERT_OK(xio_blob_target_child(fx->container, name, &t, &e), &e);
  return t;
}

xio_blob_target *fixture_page_blob(fixture *fx, const char *name, uint64_t size) {
  xio_error e;
  xio_blob_target *t = fixture_blob(fx, name);
  ASSERT_OK(xio_blob_create(fx->engine, t, size, NULL, 0, NULL, &e), &e);
  return t;
}
