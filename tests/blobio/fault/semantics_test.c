/*
 * semantics_test.c - what a retry means for each kind of operation, seen through the
 * proxy: one client request id on every try with a fresh date and signature each
 * time; a create-only blob whose response was lost; a delete whose response was
 * lost (also on a reused connection, where libcurl re-sends by itself); a lease
 * acquire that must not be sent twice; an answer that must not be retried; and a
 * SAS target, whose signature the proxy sees on the wire but no output of the
 * library shows.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "proxy_fixture.h"
#include "test.h"
#include "util.h"
#include <xio/url_int.h>

#define BLOB_SIZE 65536u

TEST(client_request_id_is_kept_and_signature_renewed) {
  pfx p;
  xio_blob_engine_options o = pfx_options(&p);
  pfx_setup(&p, &o);
  p.ticking_clock = 1; /* every try reads the clock: each gets a later x-ms-date */
  xio_error e;
  xio_blob_target *direct = pfx_direct_blob(&p, "ids.mdf", BLOB_SIZE, 0);
  xio_blob_target *b = pfx_proxied(&p, "ids.mdf", NULL, NULL);
  pfx_forget(&p);
  pfx_fault(&p, (faultproxy_fault){.kind = FAULTPROXY_RESET});
  pfx_fault(&p, (faultproxy_fault){.kind = FAULTPROXY_STATUS, .status = 503, .retry_after_ms = 1});
  unsigned char page[4096];
  test_fill_random(page, sizeof page, 31);
  xio_blob_call *c = NULL;
  ASSERT_OK(xio_blob_call_put_page(b, 0, page, sizeof page, 0, NULL, &c, &e), &e);
  ASSERT_OK(xio_blob_send(p.fx.engine, c, &e), &e);
  ASSERT_EQ(xio_blob_call_retries(c), 2);
  ASSERT_EQ(faultproxy_count(p.proxy), 3);
  for (int i = 0; i < 3; i++) {
    faultproxy_record r = pfx_record(&p, i);
    ASSERT_STR_EQ(r.client_request_id, xio_blob_call_client_request_id(c));
    ASSERT(r.has_auth);
    ASSERT(r.date[0] != '\0');
    ASSERT_STR_EQ(r.range, "bytes=0-4095");
    for (int j = 0; j < i; j++) {
      faultproxy_record q = pfx_record(&p, j);
      if (strcmp(q.date, r.date) == 0) FAIL("tries %d and %d both dated %s", j, i, r.date);
      ASSERT(q.auth_fingerprint != r.auth_fingerprint); /* signed again, over the new date */
    }
  }
  ASSERT_EQ(pfx_record(&p, 2).upstream_status, 201); /* Azurite accepted the new signature */
  xio_blob_call_free(c);
  pfx_expect_content(&p, direct, 0, page, sizeof page);
  xio_blob_target_free(b);
  xio_blob_target_free(direct);
  pfx_teardown(&p);
}

/* Each call gets its own client request id. */
TEST(client_request_ids_differ_between_calls) {
  pfx p;
  xio_blob_engine_options o = pfx_options(&p);
  pfx_setup(&p, &o);
  xio_error e;
  xio_blob_target *direct = pfx_direct_blob(&p, "ids2.mdf", BLOB_SIZE, 0);
  xio_blob_target *b = pfx_proxied(&p, "ids2.mdf", NULL, NULL);
  pfx_forget(&p);
  xio_blob_props props;
  ASSERT_OK(xio_blob_get_properties(p.fx.engine, b, NULL, &props, &e), &e);
  ASSERT_OK(xio_blob_get_properties(p.fx.engine, b, NULL, &props, &e), &e);
  ASSERT_EQ(faultproxy_count(p.proxy), 2);
  ASSERT(strcmp(pfx_record(&p, 0).client_request_id, pfx_record(&p, 1).client_request_id) != 0);
  xio_blob_target_free(b);
  xio_blob_target_free(direct);
  pfx_teardown(&p);
}

/*
 * Create-only (If-None-Match: *) whose response is lost: the first try created the
 * blob, so the retry meets it and the service answers 409 BlobAlreadyExists. The
 * library reports that as XIO_EEXIST: it cannot tell "created by my lost try" from
 * "created by someone else" (the official SDKs cannot either). A caller that needs
 * to know must check afterwards, e.g. by metadata it wrote with the create.
 */
TEST(create_only_with_lost_response_reports_eexist) {
  pfx p;
  xio_blob_engine_options o = pfx_options(&p);
  pfx_setup(&p, &o);
  xio_error e;
  xio_blob_target *b = pfx_proxied(&p, "create-only.mdf", NULL, NULL);
  pfx_fault(&p, (faultproxy_fault){.kind = FAULTPROXY_LOST_RESPONSE, .method = "PUT"});
  xio_blob_meta meta = {"owner", "fault-test"};
  xio_blob_cond only_if_absent = {NULL, NULL, "*"};
  ASSERT_ERR(xio_blob_create(p.fx.engine, b, BLOB_SIZE, &meta, 1, &only_if_absent, &e), XIO_EEXIST,
             &e);
  ASSERT_EQ(e.http_status, 409);
  ASSERT_STR_EQ(e.service_code, "BlobAlreadyExists");
  ASSERT_EQ(e.retries, 1);
  ASSERT_EQ(faultproxy_count(p.proxy), 2);
  ASSERT_EQ(pfx_record(&p, 0).upstream_status, 201); /* the lost try did create it */
  ASSERT_EQ(pfx_record(&p, 1).upstream_status, 409);
  /* The blob is there, made by our own first try. */
  xio_blob_target *direct = fixture_blob(&p.fx, "create-only.mdf");
  xio_blob_props props;
  ASSERT_OK(xio_blob_get_properties(p.fx.engine, direct, NULL, &props, &e), &e);
  ASSERT_U64_EQ(props.size, BLOB_SIZE);
  ASSERT_STR_EQ(xio_blob_props_meta(&props, "owner"), "fault-test");
  xio_blob_target_free(direct);
  xio_blob_target_free(b);
  pfx_teardown(&p);
}

/* Delete whose response is lost: the retry finds the blob gone (404), which on a
 * retry means an earlier try did the work. */
TEST(delete_with_lost_response_succeeds) {
  pfx p;
  xio_blob_engine_options o = pfx_options(&p);
  pfx_setup(&p, &o);
  xio_error e;
  xio_blob_target *direct = pfx_direct_blob(&p, "del.mdf", BLOB_SIZE, 0);
  xio_blob_target *b = pfx_proxied(&p, "del.mdf", NULL, NULL);
  pfx_forget(&p);
  pfx_fault(&p, (faultproxy_fault){.kind = FAULTPROXY_LOST_RESPONSE, .method = "DELETE"});
  ASSERT_OK(xio_blob_delete(p.fx.engine, b, 0, NULL, &e), &e);
  ASSERT_EQ(e.retries, 1);
  ASSERT_EQ(faultproxy_count(p.proxy), 2);
  ASSERT_EQ(pfx_record(&p, 0).upstream_status, 202);
  ASSERT_EQ(pfx_record(&p, 1).upstream_status, 404);
  ASSERT_STR_EQ(pfx_record(&p, 1).upstream_error, "BlobNotFound");
  xio_blob_props props;
  ASSERT_ERR(xio_blob_get_properties(p.fx.engine, direct, NULL, &props, &e), XIO_ENOTFOUND, &e);
  xio_blob_target_free(b);
  xio_blob_target_free(direct);
  pfx_teardown(&p);
}

/* The same on a reused keep-alive connection, where libcurl itself sends the
 * request again on a new connection: the 404 it then gets is an answer to a
 * retry too, not "the blob never existed". */
TEST(delete_with_lost_response_on_reused_connection_succeeds) {
  pfx p;
  xio_blob_engine_options o = pfx_options(&p);
  pfx_setup(&p, &o);
  xio_error e;
  xio_blob_target *direct = pfx_direct_blob(&p, "del2.mdf", BLOB_SIZE, 0);
  xio_blob_target *b = pfx_proxied(&p, "del2.mdf", NULL, NULL);
  xio_blob_props props;
  ASSERT_OK(xio_blob_get_properties(p.fx.engine, b, NULL, &props, &e), &e); /* warm a connection */
  pfx_forget(&p);
  pfx_fault(&p, (faultproxy_fault){.kind = FAULTPROXY_LOST_RESPONSE, .method = "DELETE"});
  ASSERT_OK(xio_blob_delete(p.fx.engine, b, 0, NULL, &e), &e);
  ASSERT_EQ(faultproxy_count(p.proxy), 2);
  ASSERT_EQ(pfx_record(&p, 0).upstream_status, 202);
  ASSERT_EQ(pfx_record(&p, 1).upstream_status, 404);
  ASSERT_NE(pfx_record(&p, 0).conn, pfx_record(&p, 1).conn);
  ASSERT_ERR(xio_blob_get_properties(p.fx.engine, direct, NULL, &props, &e), XIO_ENOTFOUND, &e);
  xio_blob_target_free(b);
  xio_blob_target_free(direct);
  pfx_teardown(&p);
}

/* A 404 is forgiven only on a retry: on the first try it is a plain "not found".
 * On a retry it counts as success even when the earlier try never reached the
 * service (a reset before forwarding): the library cannot tell, and either way the
 * blob is gone, which is what the caller asked for. */
TEST(delete_of_missing_blob_is_not_found_unless_retried) {
  pfx p;
  xio_blob_engine_options o = pfx_options(&p);
  pfx_setup(&p, &o);
  xio_error e;
  xio_blob_target *b = pfx_proxied(&p, "never.mdf", NULL, NULL);
  ASSERT_ERR(xio_blob_delete(p.fx.engine, b, 0, NULL, &e), XIO_ENOTFOUND, &e);
  ASSERT_EQ(e.retries, 0);
  ASSERT_EQ(e.http_status, 404);
  ASSERT_EQ(faultproxy_count(p.proxy), 1);
  pfx_forget(&p);
  pfx_fault(&p, (faultproxy_fault){.kind = FAULTPROXY_RESET, .method = "DELETE"});
  ASSERT_OK(xio_blob_delete(p.fx.engine, b, 0, NULL, &e), &e);
  ASSERT_EQ(faultproxy_count(p.proxy), 2);
  ASSERT_EQ(pfx_record(&p, 1).upstream_status, 404);
  xio_blob_target_free(b);
  pfx_teardown(&p);
}

/* A lease acquire without a proposed id cannot be repeated safely (a second acquire
 * meets the first one's lease, whose id was lost with the response), so it is sent
 * exactly once, also on a reused keep-alive connection where libcurl would re-send a
 * request by itself, and the caller hears the transport error. */
TEST(lease_acquire_without_proposed_id_is_sent_once) {
  pfx p;
  xio_blob_engine_options o = pfx_options(&p);
  pfx_setup(&p, &o);
  xio_error e;
  xio_blob_target *direct = pfx_direct_blob(&p, "lease.mdf", BLOB_SIZE, 0);
  xio_blob_target *b = pfx_proxied(&p, "lease.mdf", NULL, NULL);
  xio_blob_props props;
  ASSERT_OK(xio_blob_get_properties(p.fx.engine, b, NULL, &props, &e), &e); /* warm a connection */
  pfx_forget(&p);
  pfx_fault(&p, (faultproxy_fault){.kind = FAULTPROXY_LOST_RESPONSE, .match = "comp=lease"});
  xio_blob_lease_args a = {XIO_BLOB_LEASE_ACQUIRE, NULL, NULL, -1, 0};
  char id[64];
  ASSERT_ERR(xio_blob_lease(p.fx.engine, b, &a, id, &e), XIO_ETRANSPORT, &e);
  ASSERT_EQ(e.retries, 0);
  ASSERT_EQ(faultproxy_count(p.proxy), 1);
  ASSERT_EQ(pfx_record(&p, 0).upstream_status, 201);
  ASSERT_OK(xio_blob_get_properties(p.fx.engine, direct, NULL, &props, &e), &e);
  ASSERT_STR_EQ(props.lease_state, "leased"); /* by the lost try */
  xio_blob_target_free(b);
  xio_blob_target_free(direct);
  pfx_teardown(&p);
}

/* With a proposed id the acquire is repeatable: the retry meets our own lease. */
TEST(lease_acquire_with_proposed_id_survives_lost_response) {
  pfx p;
  xio_blob_engine_options o = pfx_options(&p);
  pfx_setup(&p, &o);
  xio_error e;
  xio_blob_target *direct = pfx_direct_blob(&p, "lease2.mdf", BLOB_SIZE, 0);
  xio_blob_target *b = pfx_proxied(&p, "lease2.mdf", NULL, NULL);
  pfx_forget(&p);
  pfx_fault(&p, (faultproxy_fault){.kind = FAULTPROXY_LOST_RESPONSE, .match = "comp=lease"});
  char proposed[37], id[64];
  ASSERT_OK(xio_blob_new_uuid(proposed, &e), &e);
  xio_blob_lease_args a = {XIO_BLOB_LEASE_ACQUIRE, NULL, proposed, -1, 0};
  ASSERT_OK(xio_blob_lease(p.fx.engine, b, &a, id, &e), &e);
  ASSERT_STR_EQ(id, proposed);
  ASSERT_EQ(faultproxy_count(p.proxy), 2);
  ASSERT_EQ(pfx_record(&p, 0).upstream_status, 201);
  xio_blob_target_free(b);
  xio_blob_target_free(direct);
  pfx_teardown(&p);
}

/* Release whose response is lost: the retry finds no lease of ours (Azurite says
 * LeaseIdMismatchWithLeaseOperation, Azure LeaseNotPresentWithLeaseOperation),
 * which on a retry means the first try released it: success, not "lease lost". */
TEST(lease_release_with_lost_response_succeeds) {
  pfx p;
  xio_blob_engine_options o = pfx_options(&p);
  pfx_setup(&p, &o);
  xio_error e;
  xio_blob_target *direct = pfx_direct_blob(&p, "release.mdf", BLOB_SIZE, 0);
  xio_blob_target *b = pfx_proxied(&p, "release.mdf", NULL, NULL);
  char id[37], got[64];
  ASSERT_OK(xio_blob_new_uuid(id, &e), &e);
  xio_blob_lease_args acquire = {XIO_BLOB_LEASE_ACQUIRE, NULL, id, 30, 0};
  ASSERT_OK(xio_blob_lease(p.fx.engine, direct, &acquire, got, &e), &e);
  pfx_forget(&p);
  pfx_fault(&p, (faultproxy_fault){.kind = FAULTPROXY_LOST_RESPONSE, .match = "comp=lease"});
  xio_blob_lease_args release = {XIO_BLOB_LEASE_RELEASE, id, NULL, -1, 0};
  ASSERT_OK(xio_blob_lease(p.fx.engine, b, &release, NULL, &e), &e);
  ASSERT_EQ(faultproxy_count(p.proxy), 2);
  ASSERT_EQ(pfx_record(&p, 0).upstream_status, 200);
  ASSERT_EQ(pfx_record(&p, 1).upstream_status, 409);
  xio_blob_props props;
  ASSERT_OK(xio_blob_get_properties(p.fx.engine, direct, NULL, &props, &e), &e);
  ASSERT_STR_EQ(props.lease_state, "available");
  xio_blob_target_free(b);
  xio_blob_target_free(direct);
  pfx_teardown(&p);
}

/* A final answer (412 lease missing) is not retried, whoever sent it. */
TEST(final_service_error_is_not_retried) {
  pfx p;
  xio_blob_engine_options o = pfx_options(&p);
  pfx_setup(&p, &o);
  xio_error e;
  xio_blob_target *direct = pfx_direct_blob(&p, "final.mdf", BLOB_SIZE, 0);
  xio_blob_target *b = pfx_proxied(&p, "final.mdf", NULL, NULL);
  pfx_forget(&p);
  pfx_fault(&p, (faultproxy_fault){
                    .kind = FAULTPROXY_STATUS, .status = 412, .error_code = "LeaseIdMissing"});
  unsigned char page[512] = {0};
  ASSERT_ERR(xio_blob_put_page(p.fx.engine, b, 0, page, sizeof page, NULL, &e), XIO_EBUSY, &e);
  ASSERT_EQ(e.retries, 0);
  ASSERT_EQ(e.http_status, 412);
  ASSERT_STR_EQ(e.service_code, "LeaseIdMissing");
  ASSERT_EQ(p.ntries, 1);
  ASSERT_EQ(faultproxy_count(p.proxy), 1);
  xio_blob_target_free(b);
  xio_blob_target_free(direct);
  pfx_teardown(&p);
}

/* ------------------------------------------------------------- SAS ---- */

/* A service SAS for one blob of the fixture's container (free it). */
static char *blob_sas(pfx *p, const char *blob) {
  xio_error e;
  xio_auth_sas_options so = xio_auth_sas_options_default();
  so.permissions = "rcw";
  so.start = time(NULL) - 3600;
  so.expiry = time(NULL) + 3600;
  char *tok = NULL;
  const char *container = xio_blob_target_url(p->fx.container)->container;
  ASSERT_OK(xio_auth_sas_generate_service(XIO_AUTH_DEV_ACCOUNT, p->fx.cred.key, p->fx.cred.key_len,
                                          container, blob, &so, &tok, &e),
            &e);
  return tok;
}

/* The URL-encoded signature of a token (the value after "sig=", to '&'). Not inlined:
 * gcc 12 at -O2 reports a false -Wdangling-pointer once it is inlined into a test. */
__attribute__((noinline)) static void sig_of(const char *tok, char *out, size_t size) {
  const char *at = strstr(tok, "sig=");
  ASSERT(at != NULL);
  size_t start = (size_t)(at - tok) + 4, n = strcspn(tok + start, "&");
  ASSERT(n > 10 && n < size);
  memcpy(out, tok + start, n);
  out[n] = '\0';
}

static void assert_sig_absent(pfx *p, const xio_error *e, const char *sig) {
  char line[2048];
  pfx_assert_detail_clean(p, e);
  ASSERT_NOT_CONTAINS(xio_error_format(e, line, sizeof line), sig);
  for (int i = 0; i < p->ntries; i++)
    ASSERT_NOT_CONTAINS(p->tries[i].transport_error, sig);
}

TEST(sas_target_through_proxy_keeps_the_signature_on_the_wire_only) {
  pfx p;
  xio_blob_engine_options o = pfx_options(&p);
  o.retry.max_retries = 2;
  o.retry.throttle_ms = 0; /* throttling counted among max_retries, as other faults */
  pfx_setup(&p, &o);
  xio_error e;
  char *tok = blob_sas(&p, "sas.mdf");
  char sig[256];
  sig_of(tok, sig, sizeof sig);
  xio_blob_target *b = pfx_proxied(&p, "sas.mdf", NULL, tok);
  ASSERT_EQ(xio_blob_target_cred_kind(b), XIO_AUTH_CRED_SAS);
  ASSERT_NOT_CONTAINS(xio_blob_target_safe_url(b), "sig=");
  /* Faults on create, write and read: each retried, all succeed. */
  pfx_fault(&p, (faultproxy_fault){.kind = FAULTPROXY_RESET, .request_no = 1});
  pfx_fault(&p, (faultproxy_fault){.kind = FAULTPROXY_LOST_RESPONSE, .match = "comp=page"});
  pfx_fault(&p, (faultproxy_fault){.kind = FAULTPROXY_TORN, .method = "GET"});
  ASSERT_OK(xio_blob_create(p.fx.engine, b, BLOB_SIZE, NULL, 0, NULL, &e), &e);
  unsigned char page[8192], got[8192];
  test_fill_random(page, sizeof page, 41);
  ASSERT_OK(xio_blob_put_page(p.fx.engine, b, 0, page, sizeof page, NULL, &e), &e);
  ASSERT_OK(xio_blob_read(p.fx.engine, b, 0, got, sizeof got, NULL, &e), &e);
  ASSERT_MEM_EQ(got, page, sizeof page);
  ASSERT_EQ(faultproxy_pending(p.proxy), 0);
  ASSERT_EQ(faultproxy_count(p.proxy), 6);
  for (int i = 0; i < 6; i++) {
    faultproxy_record r = pfx_record(&p, i);
    ASSERT_CONTAINS(r.target, sig); /* the signature does go on the wire */
    ASSERT(!r.has_auth);            /* and no Shared Key beside it */
  }
  /* Budgets spent, through the transport and through the service: no output of the
   * library shows the signature. */
  pfx_forget(&p);
  /* More resets than tries: libcurl may spend some on its own re-sends. */
  pfx_fault(&p, (faultproxy_fault){.kind = FAULTPROXY_RESET, .times = 20});
  ASSERT_ERR(xio_blob_read(p.fx.engine, b, 0, got, sizeof got, NULL, &e), XIO_ETRANSPORT, &e);
  ASSERT_EQ(e.retries, 2);
  ASSERT(faultproxy_count(p.proxy) >= 3);
  assert_sig_absent(&p, &e, sig);
  pfx_forget(&p);
  faultproxy_clear_faults(p.proxy);
  pfx_fault(&p, (faultproxy_fault){
                    .kind = FAULTPROXY_STATUS, .status = 503, .times = 3, .retry_after_ms = 1});
  ASSERT_ERR(xio_blob_put_page(p.fx.engine, b, 0, page, sizeof page, NULL, &e), XIO_ETHROTTLED, &e);
  ASSERT_EQ(e.retries, 2);
  assert_sig_absent(&p, &e, sig);
  xio_blob_target_free(b);
  free(tok);
  pfx_teardown(&p);
}
