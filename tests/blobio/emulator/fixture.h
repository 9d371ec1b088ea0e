/*
 * fixture.h - what the blobio integration tests share: an engine, the emulator's
 * dev-account credential, and a fresh container per test.
 */
#ifndef XIO_TEST_BLOBIO_FIXTURE_H
#define XIO_TEST_BLOBIO_FIXTURE_H

#include <xio/blob.h>

#include "blob_sync_test_util.h"

typedef struct fixture {
  xio_blob_engine *engine;
  xio_auth_cred cred;         /* dev account shared key */
  xio_blob_target *container; /* a fresh container, created */
  char container_url[512];
} fixture;

/** Starts an engine with `opts` (NULL: defaults), creates a unique container. */
void fixture_setup(fixture *fx, const xio_blob_engine_options *opts);

/** Deletes nothing (Azurite runs in memory); frees everything. */
void fixture_teardown(fixture *fx);

/** A target for blob `name` in the fixture's container (free it). */
xio_blob_target *fixture_blob(fixture *fx, const char *name);

/** Creates a page blob `name` of `size` bytes and returns its target. */
xio_blob_target *fixture_page_blob(fixture *fx, const char *name, uint64_t size);

#endif
