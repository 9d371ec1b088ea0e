/*
 * lease_limits_test.c - Lease Blob's limits have one owner (blobio's limits.c): the
 * Lease Blob builder, xio_lease and the context's lease_duration_s option take and
 * refuse the same durations and break periods at the edges of its ranges.
 */
#include <string.h>

#include <xio/blob.h>
#include <xio/xio.h>

#include "test.h"

static const int durations[] = {-2, -1, 0, 14, 15, 16, 59, 60, 61, 3600};
static const int periods[] = {-2, -1, 0, 1, 59, 60, 61};
#define N(a) (sizeof a / sizeof *a)

static xio_blob_target *blob_target(void) {
  xio_blob_target *t = NULL;
  xio_error e;
  ASSERT_OK(xio_blob_target_new("http://127.0.0.1:9/devstoreaccount1/leases/b", NULL, &t, &e), &e);
  return t;
}

TEST(lease_builder_takes_the_owners_ranges) {
  xio_blob_target *t = blob_target();
  for (size_t i = 0; i < N(durations); i++) {
    xio_blob_lease_args a = {XIO_BLOB_LEASE_ACQUIRE, NULL, "id", durations[i], 0};
    xio_blob_call *c = NULL;
    xio_error e;
    xio_err rc = xio_blob_call_lease(t, &a, &c, &e);
    xio_blob_call_free(c);
    int ok = durations[i] == -1 || (durations[i] >= 15 && durations[i] <= 60);
    ASSERT_EQ(xio_blob_lease_duration_ok(durations[i], 1), ok);
    if ((rc == XIO_OK) != ok) FAIL("duration %d: %s", durations[i], xio_err_name(rc));
  }
  for (size_t i = 0; i < N(periods); i++) {
    xio_blob_lease_args a = {XIO_BLOB_LEASE_BREAK, NULL, NULL, 0, periods[i]};
    xio_blob_call *c = NULL;
    xio_error e;
    xio_err rc = xio_blob_call_lease(t, &a, &c, &e);
    xio_blob_call_free(c);
    int ok = periods[i] >= -1 && periods[i] <= 60; /* -1: the service's default */
    ASSERT_EQ(xio_blob_break_period_ok(periods[i], 1), ok);
    if ((rc == XIO_OK) != ok) FAIL("break period %d: %s", periods[i], xio_err_name(rc));
  }
  xio_blob_target_free(t);
}

TEST(xio_lease_and_the_context_take_the_owners_ranges) {
  xio_ctx_options o = xio_ctx_options_default();
  o.use_environment = 0;
  o.lease_renew_s = 1;
  xio_ctx *ctx = NULL;
  xio_error e;
  ASSERT_OK(xio_ctx_new(&o, &ctx, &e), &e);
  /* A local target: a request the checks let through ends as unsupported there. */
  for (size_t i = 0; i < N(durations); i++) {
    xio_lease_request r = {XIO_LEASE_ACQUIRE, NULL, durations[i], 0};
    xio_err rc = xio_lease(ctx, "lease-limits.mdf", &r, NULL, &e);
    xio_err want = xio_blob_lease_duration_ok(durations[i], 1) ? XIO_EUNSUPPORTED : XIO_EINVAL;
    if (rc != want) FAIL("acquire for %d s: %s", durations[i], xio_err_name(rc));
  }
  for (size_t i = 0; i < N(periods); i++) {
    xio_lease_request r = {XIO_LEASE_BREAK, NULL, 0, periods[i]};
    xio_err rc = xio_lease(ctx, "lease-limits.mdf", &r, NULL, &e);
    xio_err want = xio_blob_break_period_ok(periods[i], 0) ? XIO_EUNSUPPORTED : XIO_EINVAL;
    if (rc != want) FAIL("break period %d: %s", periods[i], xio_err_name(rc));
  }
  xio_ctx_free(ctx);
  for (size_t i = 0; i < N(durations); i++) {
    o.lease_duration_s = durations[i];
    ctx = NULL;
    xio_err rc = xio_ctx_new(&o, &ctx, &e);
    xio_ctx_free(ctx);
    int ok = durations[i] >= 15 && durations[i] <= 60; /* a kept lease is never infinite */
    ASSERT_EQ(xio_blob_lease_duration_ok(durations[i], 0), ok);
    if ((rc == XIO_OK) != ok) FAIL("lease_duration_s %d: %s", durations[i], xio_err_name(rc));
  }
}
