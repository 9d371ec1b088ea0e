/*
 * build_test.c - request building without a service: each builder's method, query,
 * headers, retry safety and needed SAS permissions, and the limits it refuses.
 */
#include <string.h>

#include "buildfix.h"
#include "call_int.h"
#include "test.h"

#define MiB     (1024u * 1024u)
#define PERM(x) XIO_AUTH_PERM(x)

TEST(target_paths_for_emulator_and_azure) {
  xio_blob_target *t =
      buildfix_target("http://127.0.0.1:10000/devstoreaccount1/dbs/dir/data file.mdf");
  ASSERT_STR_EQ(xio_blob_target_safe_url(t),
                "http://127.0.0.1:10000/devstoreaccount1/dbs/dir/data%20file.mdf");
  ASSERT_STR_EQ(t->cont_path, "/devstoreaccount1/dbs");
  xio_blob_target *child = NULL;
  xio_error e;
  ASSERT_OK(xio_blob_target_child(t, "log.ldf", &child, &e), &e);
  ASSERT_STR_EQ(xio_blob_target_safe_url(child),
                "http://127.0.0.1:10000/devstoreaccount1/dbs/log.ldf");
  xio_blob_target_free(child);
  xio_blob_target_free(t);
  t = buildfix_target("https://acct.blob.core.windows.net/dbs/"
                      "x.mdf?sv=2020-12-06&sp=r&se=2099-01-01T00%3A00%3A00Z&sr=b&sig=c2VjcmV0");
  ASSERT_STR_EQ(xio_blob_target_safe_url(t), "https://acct.blob.core.windows.net/dbs/x.mdf");
  ASSERT_STR_EQ(t->cont_path, "/dbs");
  ASSERT_EQ(xio_blob_target_cred_kind(t), XIO_AUTH_CRED_SAS);
  ASSERT(t->has_sas);
  xio_blob_target_free(t);
}

TEST(build_put_page) {
  xio_blob_target *t = buildfix_target("http://127.0.0.1:1/devstoreaccount1/cont/b.mdf");
  char data[1024] = {0};
  xio_blob_call *c = NULL;
  xio_error e;
  xio_blob_cond cond = {"lease-1", NULL, NULL};
  ASSERT_OK(xio_blob_call_put_page(t, 4096, data, sizeof data, 0, &cond, &c, &e), &e);
  ASSERT_STR_EQ(c->method, "PUT");
  ASSERT_STR_EQ(c->query, "comp=page");
  ASSERT_STR_EQ(buildfix_hdr(c, "x-ms-page-write"), "update");
  ASSERT_STR_EQ(buildfix_hdr(c, "x-ms-range"), "bytes=4096-5119");
  ASSERT_STR_EQ(buildfix_hdr(c, "x-ms-lease-id"), "lease-1");
  ASSERT(c->body == data && c->body_len == sizeof data);
  ASSERT(c->retryable);
  ASSERT_EQ(c->need_perms, PERM('w'));
  ASSERT_EQ(strlen(c->client_request_id), 36);
  xio_blob_call_free(c);
  xio_blob_target_free(t);
}

TEST(build_clear_create_resize_read) {
  xio_blob_target *t = buildfix_target("http://127.0.0.1:1/devstoreaccount1/cont/b.ldf");
  xio_blob_call *c = NULL;
  xio_error e;
  ASSERT_OK(xio_blob_call_clear(t, 8 * MiB, 1ull << 40, 0, NULL, &c, &e), &e);
  ASSERT_STR_EQ(buildfix_hdr(c, "x-ms-page-write"), "clear");
  ASSERT_STR_EQ(buildfix_hdr(c, "x-ms-range"), "bytes=8388608-1099520016383");
  ASSERT(c->body == NULL && c->body_len == 0);
  xio_blob_call_free(c);
  xio_blob_meta meta[1] = {{"xiokind", "log"}};
  xio_blob_cond only = {NULL, NULL, "*"};
  ASSERT_OK(xio_blob_call_create(t, 8 * MiB, meta, 1, &only, &c, &e), &e);
  ASSERT_STR_EQ(c->method, "PUT");
  ASSERT(c->query == NULL);
  ASSERT_STR_EQ(buildfix_hdr(c, "x-ms-blob-type"), "PageBlob");
  ASSERT_STR_EQ(buildfix_hdr(c, "x-ms-blob-content-length"), "8388608");
  ASSERT_STR_EQ(buildfix_hdr(c, "x-ms-meta-xiokind"), "log");
  ASSERT_STR_EQ(buildfix_hdr(c, "If-None-Match"), "*");
  ASSERT_EQ(c->need_any, PERM('c') | PERM('w'));
  xio_blob_call_free(c);
  ASSERT_OK(xio_blob_call_resize(t, 1ull << 40, NULL, &c, &e), &e);
  ASSERT_STR_EQ(c->query, "comp=properties");
  ASSERT_STR_EQ(buildfix_hdr(c, "x-ms-blob-content-length"), "1099511627776");
  xio_blob_call_free(c);
  char buf[100];
  ASSERT_OK(xio_blob_call_read(t, 7, buf, sizeof buf, NULL, &c, &e), &e);
  ASSERT_STR_EQ(c->method, "GET");
  ASSERT_STR_EQ(buildfix_hdr(c, "x-ms-range"), "bytes=7-106");
  ASSERT(c->rbuf == buf && c->rbuf_len == sizeof buf);
  ASSERT_EQ(c->need_perms, PERM('r'));
  xio_blob_call_free(c);
  xio_blob_target_free(t);
}

TEST(build_container_list_ranges_delete_snapshot_meta) {
  xio_blob_target *t = buildfix_target("http://127.0.0.1:1/devstoreaccount1/cont/b.mdf");
  xio_blob_call *c = NULL;
  xio_error e;
  ASSERT_OK(xio_blob_call_create_container(t, &c, &e), &e);
  ASSERT_STR_EQ(c->query, "restype=container");
  ASSERT(c->container_level);
  xio_blob_call_free(c);
  ASSERT_OK(xio_blob_call_list(t, "db/a b", "m+1", 2, &c, &e), &e);
  ASSERT_STR_EQ(c->query,
                "restype=container&comp=list&prefix=db%2Fa%20b&marker=m%2B1&maxresults=2");
  ASSERT(c->container_level);
  ASSERT_EQ(c->need_perms, PERM('l'));
  xio_blob_call_free(c);
  ASSERT_OK(xio_blob_call_page_ranges(t, 0, 0, NULL, &c, &e), &e);
  ASSERT_STR_EQ(c->query, "comp=pagelist");
  ASSERT(buildfix_hdr(c, "x-ms-range") == NULL);
  xio_blob_call_free(c);
  ASSERT_OK(xio_blob_call_page_ranges(t, 512, 1024, "next", &c, &e), &e);
  ASSERT_STR_EQ(c->query, "comp=pagelist&marker=next");
  ASSERT_STR_EQ(buildfix_hdr(c, "x-ms-range"), "bytes=512-1535");
  xio_blob_call_free(c);
  ASSERT_OK(xio_blob_call_delete(t, 1, NULL, &c, &e), &e);
  ASSERT_STR_EQ(c->method, "DELETE");
  ASSERT_STR_EQ(buildfix_hdr(c, "x-ms-delete-snapshots"), "include");
  ASSERT(c->missing_ok_on_retry);
  xio_blob_call_free(c);
  ASSERT_OK(xio_blob_call_snapshot(t, NULL, &c, &e), &e);
  ASSERT_STR_EQ(c->query, "comp=snapshot");
  xio_blob_call_free(c);
  xio_blob_meta meta[2] = {{"a", "1"}, {"b_2", "two"}};
  ASSERT_OK(xio_blob_call_set_metadata(t, meta, 2, NULL, &c, &e), &e);
  ASSERT_STR_EQ(c->query, "comp=metadata");
  ASSERT_STR_EQ(buildfix_hdr(c, "x-ms-meta-b_2"), "two");
  xio_blob_call_free(c);
  xio_blob_meta bad[1] = {{"not-an-identifier", "x"}};
  ASSERT_ERR(xio_blob_call_set_metadata(t, bad, 1, NULL, &c, &e), XIO_EINVAL, &e);
  xio_blob_target_free(t);
}

TEST(build_lease_actions) {
  xio_blob_target *t = buildfix_target("http://127.0.0.1:1/devstoreaccount1/cont/b.mdf");
  xio_blob_call *c = NULL;
  xio_error e;
  xio_blob_lease_args a = {XIO_BLOB_LEASE_ACQUIRE, NULL, NULL, 30, 0};
  ASSERT_OK(xio_blob_call_lease(t, &a, &c, &e), &e);
  ASSERT_STR_EQ(c->query, "comp=lease");
  ASSERT_STR_EQ(buildfix_hdr(c, "x-ms-lease-action"), "acquire");
  ASSERT_STR_EQ(buildfix_hdr(c, "x-ms-lease-duration"), "30");
  ASSERT(!c->retryable); /* no proposed id: a lost response would strand a lease */
  xio_blob_call_free(c);
  a.proposed_id = "11111111-2222-4333-8444-555555555555";
  ASSERT_OK(xio_blob_call_lease(t, &a, &c, &e), &e);
  ASSERT(c->retryable);
  ASSERT_STR_EQ(buildfix_hdr(c, "x-ms-proposed-lease-id"), a.proposed_id);
  xio_blob_call_free(c);
  xio_blob_lease_args b = {XIO_BLOB_LEASE_BREAK, NULL, NULL, 0, 0};
  ASSERT_OK(xio_blob_call_lease(t, &b, &c, &e), &e);
  ASSERT_STR_EQ(buildfix_hdr(c, "x-ms-lease-action"), "break");
  ASSERT_STR_EQ(buildfix_hdr(c, "x-ms-lease-break-period"), "0");
  xio_blob_call_free(c);
  xio_blob_target_free(t);
}

TEST(limits_are_enforced_by_builders) {
  xio_blob_target *t = buildfix_target("http://127.0.0.1:1/devstoreaccount1/cont/b.mdf");
  xio_blob_target *cont = buildfix_target("http://127.0.0.1:1/devstoreaccount1/cont");
  xio_blob_call *c = NULL;
  xio_error e;
  static char data[4 * MiB + 512];
  ASSERT_ERR(xio_blob_call_put_page(t, 0, data, 4 * MiB + 512, 0, NULL, &c, &e), XIO_ELIMIT, &e);
  ASSERT_OK(xio_blob_call_put_page(t, 0, data, 4 * MiB, 0, NULL, &c, &e), &e);
  xio_blob_call_free(c);
  ASSERT_ERR(xio_blob_call_put_page(t, 1, data, 512, 0, NULL, &c, &e), XIO_EALIGN, &e);
  ASSERT_ERR(xio_blob_call_put_page(t, 0, data, 0, 0, NULL, &c, &e), XIO_EINVAL, &e);
  ASSERT_ERR(xio_blob_call_put_page(t, 0, NULL, 512, 0, NULL, &c, &e), XIO_EINVAL, &e);
  ASSERT_ERR(xio_blob_call_put_page(t, 4096, data, 512, 4096, NULL, &c, &e), XIO_ERANGE, &e);
  ASSERT_ERR(xio_blob_call_clear(t, 0, 1000, 0, NULL, &c, &e), XIO_EALIGN, &e);
  ASSERT_ERR(xio_blob_call_clear(t, 0, (8ull << 40) + 512, 0, NULL, &c, &e), XIO_ELIMIT, &e);
  ASSERT_OK(xio_blob_call_clear(t, 0, 8ull << 40, 0, NULL, &c, &e), &e);
  xio_blob_call_free(c);
  ASSERT_ERR(xio_blob_call_create(t, (8ull << 40) + 512, NULL, 0, NULL, &c, &e), XIO_ELIMIT, &e);
  ASSERT_ERR(xio_blob_call_create(t, 100, NULL, 0, NULL, &c, &e), XIO_EALIGN, &e);
  ASSERT_ERR(xio_blob_call_resize(t, 513, NULL, &c, &e), XIO_EALIGN, &e);
  ASSERT_ERR(xio_blob_call_read(t, 0, data, 0, NULL, &c, &e), XIO_EINVAL, &e);
  ASSERT_ERR(xio_blob_call_list(cont, NULL, NULL, 5001, &c, &e), XIO_EINVAL, &e);
  /* Blob operations need a blob, container operations a container. */
  ASSERT_ERR(xio_blob_call_put_page(cont, 0, data, 512, 0, NULL, &c, &e), XIO_EINVAL, &e);
  ASSERT(c == NULL);
  xio_blob_target_free(cont);
  xio_blob_target_free(t);
}
