/*
 * build_ops_test.c - the builders and readers behind listing, copying and snapshot
 * deletion, without a service: List Blobs with include=, Copy Blob's source header
 * (with the source's snapshot and SAS), Abort Copy Blob, Delete Blob of one
 * snapshot, and listings that carry snapshots, lease details and metadata.
 */
#include <stdlib.h>
#include <string.h>

#include "buildfix.h"
#include "call_int.h"
#include "test.h"
#include "xml_int.h"

#define PERM(x) XIO_AUTH_PERM(x)

TEST(build_list_include) {
  xio_blob_target *t = buildfix_target("http://127.0.0.1:1/devstoreaccount1/cont");
  xio_blob_call *c = NULL;
  xio_error e;
  ASSERT_OK(xio_blob_call_list_include(t, "db", "m1", 3,
                                       XIO_BLOB_LIST_SNAPSHOTS | XIO_BLOB_LIST_METADATA, &c, &e),
            &e);
  ASSERT_STR_EQ(c->query, "restype=container&comp=list&include=snapshots,metadata&prefix=db"
                          "&marker=m1&maxresults=3");
  ASSERT(c->container_level);
  ASSERT_EQ(c->need_perms, PERM('l'));
  xio_blob_call_free(c);
  ASSERT_OK(xio_blob_call_list_include(t, NULL, NULL, 0, XIO_BLOB_LIST_SNAPSHOTS, &c, &e), &e);
  ASSERT_STR_EQ(c->query, "restype=container&comp=list&include=snapshots");
  xio_blob_call_free(c);
  ASSERT_ERR(xio_blob_call_list_include(t, NULL, NULL, 0, 0x4, &c, &e), XIO_EINVAL, &e);
  ASSERT(c == NULL);
  xio_blob_target_free(t);
}

TEST(build_copy_names_source_with_snapshot_and_sas) {
  xio_blob_target *dst = buildfix_target("http://127.0.0.1:1/devstoreaccount1/cont/restored.mdf");
  xio_blob_target *snap = buildfix_target(
      "http://127.0.0.1:1/devstoreaccount1/cont/db.mdf?snapshot=2026-01-01T00%3A00%3A00Z");
  xio_blob_call *c = NULL;
  xio_error e;
  xio_blob_cond cond = {"lease-9", NULL, "*"};
  ASSERT_OK(xio_blob_call_copy(dst, snap, &cond, &c, &e), &e);
  ASSERT_STR_EQ(c->method, "PUT");
  ASSERT(c->query == NULL);
  ASSERT_STR_EQ(
      buildfix_hdr(c, "x-ms-copy-source"),
      "http://127.0.0.1:1/devstoreaccount1/cont/db.mdf?snapshot=2026-01-01T00%3A00%3A00Z");
  ASSERT_STR_EQ(buildfix_hdr(c, "x-ms-lease-id"), "lease-9");
  ASSERT_STR_EQ(buildfix_hdr(c, "If-None-Match"), "*");
  ASSERT(!c->retryable); /* a retry of an applied create-only copy would fail */
  ASSERT_EQ(c->need_any, PERM('c') | PERM('w'));
  xio_blob_call_free(c);
  xio_blob_target *sas =
      buildfix_target("https://other.blob.core.windows.net/cc1/db.mdf?sv=2020-12-06&sp=r"
                      "&se=2099-01-01T00%3A00%3A00Z&sr=b&sig=c2VjcmV0");
  ASSERT_OK(xio_blob_call_copy(dst, sas, NULL, &c, &e), &e);
  ASSERT_STR_EQ(buildfix_hdr(c, "x-ms-copy-source"),
                "https://other.blob.core.windows.net/cc1/db.mdf?sv=2020-12-06&sp=r"
                "&se=2099-01-01T00%3A00%3A00Z&sr=b&sig=c2VjcmV0");
  ASSERT(c->retryable);
  ASSERT(buildfix_hdr(c, "If-None-Match") == NULL);
  /* The log-safe URL of the call is the destination's, without any query. */
  ASSERT_STR_EQ(xio_blob_call_safe_url(c), "http://127.0.0.1:1/devstoreaccount1/cont/restored.mdf");
  xio_blob_call_free(c);
  xio_blob_target *cont = buildfix_target("http://127.0.0.1:1/devstoreaccount1/cont");
  ASSERT_ERR(xio_blob_call_copy(dst, cont, NULL, &c, &e), XIO_EINVAL, &e);
  ASSERT(c == NULL);
  xio_blob_target_free(cont);
  xio_blob_target_free(sas);
  xio_blob_target_free(snap);
  xio_blob_target_free(dst);
}

TEST(build_abort_copy_and_delete_snapshot) {
  xio_blob_target *t = buildfix_target("http://127.0.0.1:1/devstoreaccount1/cont/db.mdf");
  xio_blob_call *c = NULL;
  xio_error e;
  ASSERT_OK(xio_blob_call_abort_copy(t, "0f0e-id", NULL, &c, &e), &e);
  ASSERT_STR_EQ(c->method, "PUT");
  ASSERT_STR_EQ(c->query, "comp=copy&copyid=0f0e-id");
  ASSERT_STR_EQ(buildfix_hdr(c, "x-ms-copy-action"), "abort");
  xio_blob_call_free(c);
  ASSERT_ERR(xio_blob_call_abort_copy(t, "", NULL, &c, &e), XIO_EINVAL, &e);
  ASSERT_OK(xio_blob_call_delete_snapshot(t, "2026-01-01T00:00:00.1234567Z", NULL, &c, &e), &e);
  ASSERT_STR_EQ(c->method, "DELETE");
  ASSERT_STR_EQ(c->query, "snapshot=2026-01-01T00%3A00%3A00.1234567Z");
  /* Never x-ms-delete-snapshots: that is for deleting a base blob. */
  ASSERT(buildfix_hdr(c, "x-ms-delete-snapshots") == NULL);
  ASSERT_EQ(c->need_perms, PERM('d'));
  ASSERT(c->missing_ok_on_retry);
  xio_blob_call_free(c);
  ASSERT_ERR(xio_blob_call_delete_snapshot(t, NULL, NULL, &c, &e), XIO_EINVAL, &e);
  xio_blob_target *snap =
      buildfix_target("http://127.0.0.1:1/devstoreaccount1/cont/db.mdf?snapshot=x");
  ASSERT_ERR(xio_blob_call_delete_snapshot(snap, "y", NULL, &c, &e), XIO_EINVAL, &e);
  ASSERT_CONTAINS(e.message, "already names a snapshot");
  ASSERT(c == NULL);
  xio_blob_target_free(snap);
  xio_blob_target_free(t);
}

#define LIST_HEAD                                                                                  \
  "<?xml version=\"1.0\" encoding=\"utf-8\"?><EnumerationResults ContainerName=\"c\"><Blobs>"
#define PROPS(len, lstatus, lstate, ldur)                                                          \
  "<Properties><Content-Length>" len "</Content-Length><BlobType>PageBlob</BlobType>"              \
  "<LeaseStatus>" lstatus "</LeaseStatus><LeaseState>" lstate "</LeaseState>" ldur "</Properties>"

static const char with_snapshots[] =
    LIST_HEAD "<Blob><Name>db.mdf</Name><Snapshot>2026-01-01T00:00:00.1000000Z</Snapshot>" PROPS(
        "1024", "unlocked", "available",
        "") "</Blob>"
            "<Blob><Name>db.mdf</Name>" PROPS(
                "2048", "locked", "leased",
                "<LeaseDuration>infinite</LeaseDuration>") "<Metadata><xiokind>log</"
                                                           "xiokind><xiosize>2000</"
                                                           "xiosize><bad-name>x</bad-name></"
                                                           "Metadata>"
                                                           "</Blob></Blobs><NextMarker/></"
                                                           "EnumerationResults>";

TEST(blob_list_snapshots_leases_metadata) {
  xio_blob_list l = {0};
  xio_error e;
  ASSERT_OK(xio__blob_xml_blob_list(with_snapshots, strlen(with_snapshots), &l, &e), &e);
  ASSERT_EQ(l.n, 2);
  ASSERT_STR_EQ(l.v[0].snapshot, "2026-01-01T00:00:00.1000000Z");
  ASSERT_EQ(l.v[0].nmeta, 0);
  ASSERT(xio_blob_item_meta(&l.v[0], "xiokind") == NULL);
  ASSERT(l.v[1].snapshot == NULL);
  ASSERT_STR_EQ(l.v[1].lease_status, "locked");
  ASSERT_STR_EQ(l.v[1].lease_state, "leased");
  ASSERT_STR_EQ(l.v[1].lease_duration, "infinite");
  ASSERT_EQ(l.v[1].nmeta, 2); /* "bad-name" is no identifier: skipped */
  ASSERT_STR_EQ(xio_blob_item_meta(&l.v[1], "XIOKIND"), "log");
  ASSERT_STR_EQ(xio_blob_item_meta(&l.v[1], "xiosize"), "2000");
  ASSERT(l.next_marker == NULL);
  xio_blob_list_clear(&l);
  ASSERT(l.v == NULL && l.n == 0);
}
