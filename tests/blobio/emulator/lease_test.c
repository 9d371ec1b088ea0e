/*
 * lease_test.c - blob leases against Azurite: acquire, a second acquire refused,
 * writes without the lease id refused, renew, change, release, break.
 */
#include <string.h>

#include "fixture.h"
#include "test.h"
#include "util.h"

TEST(lease_acquire_twice_fails) {
  fixture fx;
  xio_error e;
  fixture_setup(&fx, NULL);
  xio_blob_target *b = fixture_page_blob(&fx, "leased.mdf", 4096);
  char id[64], proposed[37];
  ASSERT_OK(xio_blob_new_uuid(proposed, &e), &e);
  xio_blob_lease_args acquire = {XIO_BLOB_LEASE_ACQUIRE, NULL, proposed, 15, 0};
  ASSERT_OK(xio_blob_lease(fx.engine, b, &acquire, id, &e), &e);
  ASSERT_STR_EQ(id, proposed);
  xio_blob_lease_args other = {XIO_BLOB_LEASE_ACQUIRE, NULL, NULL, -1, 0};
  ASSERT_ERR(xio_blob_lease(fx.engine, b, &other, id, &e), XIO_EBUSY, &e);
  ASSERT_STR_EQ(e.service_code, "LeaseAlreadyPresent");
  ASSERT_EQ(e.http_status, 409);
  /* Acquiring again with the active id succeeds: that is what makes retries safe. */
  ASSERT_OK(xio_blob_lease(fx.engine, b, &acquire, id, &e), &e);
  xio_blob_props p;
  ASSERT_OK(xio_blob_get_properties(fx.engine, b, NULL, &p, &e), &e);
  ASSERT_STR_EQ(p.lease_state, "leased");
  ASSERT_STR_EQ(p.lease_duration, "fixed");
  xio_blob_target_free(b);
  fixture_teardown(&fx);
}

TEST(write_without_lease_id_fails) {
  fixture fx;
  xio_error e;
  fixture_setup(&fx, NULL);
  xio_blob_target *b = fixture_page_blob(&fx, "leased.ldf", 4096);
  char id[64], page[512];
  memset(page, 1, sizeof page);
  xio_blob_lease_args acquire = {XIO_BLOB_LEASE_ACQUIRE, NULL, NULL, -1, 0};
  ASSERT_OK(xio_blob_lease(fx.engine, b, &acquire, id, &e), &e);
  ASSERT_ERR(xio_blob_put_page(fx.engine, b, 0, page, 512, NULL, &e), XIO_EBUSY, &e);
  ASSERT_STR_EQ(e.service_code, "LeaseIdMissing");
  ASSERT_EQ(e.http_status, 412);
  ASSERT_ERR(xio_blob_resize(fx.engine, b, 8192, NULL, &e), XIO_EBUSY, &e);
  xio_blob_cond wrong = {"d8d0b4bf-0000-4000-8000-000000000000", NULL, NULL};
  ASSERT_ERR(xio_blob_put_page(fx.engine, b, 0, page, 512, &wrong, &e), XIO_ELEASELOST, &e);
  ASSERT_EQ(e.http_status, 412);
  xio_blob_cond right = {id, NULL, NULL};
  ASSERT_OK(xio_blob_put_page(fx.engine, b, 0, page, 512, &right, &e), &e);
  xio_blob_target_free(b);
  fixture_teardown(&fx);
}

TEST(lease_renew_change_release_break) {
  fixture fx;
  xio_error e;
  fixture_setup(&fx, NULL);
  xio_blob_target *b = fixture_page_blob(&fx, "cycle.mdf", 4096);
  char id[64], newid[37], got[64];
  xio_blob_lease_args acquire = {XIO_BLOB_LEASE_ACQUIRE, NULL, NULL, 60, 0};
  ASSERT_OK(xio_blob_lease(fx.engine, b, &acquire, id, &e), &e);
  xio_blob_lease_args renew = {XIO_BLOB_LEASE_RENEW, id, NULL, 0, 0};
  ASSERT_OK(xio_blob_lease(fx.engine, b, &renew, NULL, &e), &e);
  ASSERT_OK(xio_blob_new_uuid(newid, &e), &e);
  xio_blob_lease_args change = {XIO_BLOB_LEASE_CHANGE, id, newid, 0, 0};
  ASSERT_OK(xio_blob_lease(fx.engine, b, &change, got, &e), &e);
  ASSERT_STR_EQ(got, newid);
  /* The old id no longer renews. */
  ASSERT_ERR(xio_blob_lease(fx.engine, b, &renew, NULL, &e), XIO_ELEASELOST, &e);
  xio_blob_lease_args release = {XIO_BLOB_LEASE_RELEASE, newid, NULL, 0, 0};
  ASSERT_OK(xio_blob_lease(fx.engine, b, &release, NULL, &e), &e);
  ASSERT_OK(xio_blob_lease(fx.engine, b, &acquire, id, &e), &e);
  xio_blob_lease_args brk = {XIO_BLOB_LEASE_BREAK, NULL, NULL, 0, 0};
  ASSERT_OK(xio_blob_lease(fx.engine, b, &brk, NULL, &e), &e);
  xio_blob_props p;
  ASSERT_OK(xio_blob_get_properties(fx.engine, b, NULL, &p, &e), &e);
  ASSERT_STR_EQ(p.lease_state, "broken");
  /* The breaker may now acquire; the old holder's writes fail. */
  char page[512] = {0};
  xio_blob_cond old = {id, NULL, NULL};
  ASSERT_OK(xio_blob_lease(fx.engine, b, &acquire, got, &e), &e);
  ASSERT_ERR(xio_blob_put_page(fx.engine, b, 0, page, 512, &old, &e), XIO_ELEASELOST, &e);
  xio_blob_target_free(b);
  fixture_teardown(&fx);
}

TEST(lease_argument_checks) {
  fixture fx;
  xio_error e;
  fixture_setup(&fx, NULL);
  xio_blob_target *b = fixture_blob(&fx, "args.mdf");
  xio_blob_call *c = NULL;
  xio_blob_lease_args bad_duration = {XIO_BLOB_LEASE_ACQUIRE, NULL, NULL, 10, 0};
  ASSERT_ERR(xio_blob_call_lease(b, &bad_duration, &c, &e), XIO_EINVAL, &e);
  xio_blob_lease_args renew_no_id = {XIO_BLOB_LEASE_RENEW, NULL, NULL, 0, 0};
  ASSERT_ERR(xio_blob_call_lease(b, &renew_no_id, &c, &e), XIO_EINVAL, &e);
  xio_blob_lease_args change_no_new = {XIO_BLOB_LEASE_CHANGE, "x", NULL, 0, 0};
  ASSERT_ERR(xio_blob_call_lease(b, &change_no_new, &c, &e), XIO_EINVAL, &e);
  xio_blob_lease_args bad_break = {XIO_BLOB_LEASE_BREAK, NULL, NULL, 0, 61};
  ASSERT_ERR(xio_blob_call_lease(b, &bad_break, &c, &e), XIO_EINVAL, &e);
  ASSERT(c == NULL);
  xio_blob_target_free(b);
  fixture_teardown(&fx);
}
