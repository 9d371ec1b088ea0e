/*
 * blob_ops_test.c - every page-blob operation against Azurite: containers,
 * listing, create, properties, writes and reads, clears, resize, page ranges,
 * snapshots, metadata, delete; and the client-side limits that Azurite would not
 * enforce itself.
 */
#define _DEFAULT_SOURCE
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "fixture.h"
#include "test.h"
#include "util.h"

#define MiB (1024u * 1024u)
#define TiB (1024ull * 1024 * 1024 * 1024)

TEST(create_container_twice) {
  fixture fx;
  xio_error e;
  fixture_setup(&fx, NULL);
  ASSERT_ERR(xio_blob_create_container(fx.engine, fx.container, 0, &e), XIO_EEXIST, &e);
  ASSERT_STR_EQ(e.service_code, "ContainerAlreadyExists");
  ASSERT_EQ(e.http_status, 409);
  ASSERT_OK(xio_blob_create_container(fx.engine, fx.container, 1, &e), &e);
  fixture_teardown(&fx);
}

TEST(create_and_properties) {
  fixture fx;
  xio_error e;
  fixture_setup(&fx, NULL);
  xio_blob_target *b = fixture_blob(&fx, "db/data.mdf");
  xio_blob_meta meta[1] = {{"xiokind", "log"}};
  ASSERT_OK(xio_blob_create(fx.engine, b, 8 * MiB, meta, 1, NULL, &e), &e);
  xio_blob_props p;
  ASSERT_OK(xio_blob_get_properties(fx.engine, b, NULL, &p, &e), &e);
  ASSERT_U64_EQ(p.size, 8 * MiB);
  ASSERT_STR_EQ(p.blob_type, "PageBlob");
  ASSERT_STR_EQ(p.lease_state, "available");
  ASSERT_STR_EQ(xio_blob_props_meta(&p, "xiokind"), "log");
  ASSERT(p.etag[0] != '\0');
  xio_blob_target_free(b);
  fixture_teardown(&fx);
}

TEST(create_only_refuses_existing) {
  fixture fx;
  xio_error e;
  fixture_setup(&fx, NULL);
  xio_blob_target *b = fixture_page_blob(&fx, "a.ldf", 4096);
  xio_blob_cond only = {NULL, NULL, "*"};
  ASSERT_ERR(xio_blob_create(fx.engine, b, 4096, NULL, 0, &only, &e), XIO_EEXIST, &e);
  ASSERT_STR_EQ(e.service_code, "BlobAlreadyExists");
  xio_blob_target_free(b);
  fixture_teardown(&fx);
}

TEST(missing_blob_is_not_found) {
  fixture fx;
  xio_error e;
  fixture_setup(&fx, NULL);
  xio_blob_target *b = fixture_blob(&fx, "missing.mdf");
  xio_blob_props p;
  ASSERT_ERR(xio_blob_get_properties(fx.engine, b, NULL, &p, &e), XIO_ENOTFOUND, &e);
  ASSERT_EQ(e.http_status, 404);
  ASSERT_STR_EQ(e.service_code, "BlobNotFound"); /* HEAD: from x-ms-error-code */
  ASSERT(e.request_id[0] != '\0');
  ASSERT_STR_EQ(e.operation, "GetBlobProperties");
  char buf[512];
  ASSERT_ERR(xio_blob_read(fx.engine, b, 0, buf, sizeof buf, NULL, &e), XIO_ENOTFOUND, &e);
  ASSERT_STR_EQ(e.service_code, "BlobNotFound"); /* GET: from the XML body */
  xio_blob_target_free(b);
  fixture_teardown(&fx);
}

TEST(write_4mib_at_offset_reads_back) {
  fixture fx;
  xio_error e;
  fixture_setup(&fx, NULL);
  xio_blob_target *b = fixture_page_blob(&fx, "data.mdf", 64 * MiB);
  char *src = malloc(4 * MiB), *dst = malloc(4 * MiB);
  test_fill_random(src, 4 * MiB, 42);
  ASSERT_OK(xio_blob_put_page(fx.engine, b, 12 * MiB + 512, src, 4 * MiB, NULL, &e), &e);
  memset(dst, 0x5a, 4 * MiB);
  ASSERT_OK(xio_blob_read(fx.engine, b, 12 * MiB + 512, dst, 4 * MiB, NULL, &e), &e);
  ASSERT_MEM_EQ(src, dst, 4 * MiB);
  /* Unaligned reads are fine: a read is any byte range. */
  ASSERT_OK(xio_blob_read(fx.engine, b, 12 * MiB + 513, dst, 1000, NULL, &e), &e);
  ASSERT_MEM_EQ(src + 1, dst, 1000);
  free(src);
  free(dst);
  xio_blob_target_free(b);
  fixture_teardown(&fx);
}

TEST(md5_checksum_mode_writes) {
  fixture fx;
  xio_error e;
  xio_blob_engine_options o = xio_blob_engine_options_default();
  o.checksum = XIO_BLOB_CHECKSUM_MD5;
  fixture_setup(&fx, &o);
  xio_blob_target *b = fixture_page_blob(&fx, "md5.mdf", MiB);
  char src[8192], dst[8192];
  test_fill_random(src, sizeof src, 7);
  ASSERT_OK(xio_blob_put_page(fx.engine, b, 4096, src, sizeof src, NULL, &e), &e);
  ASSERT_OK(xio_blob_read(fx.engine, b, 4096, dst, sizeof dst, NULL, &e), &e);
  ASSERT_MEM_EQ(src, dst, sizeof src);
  xio_blob_target_free(b);
  fixture_teardown(&fx);
}

TEST(clear_reads_zero) {
  fixture fx;
  xio_error e;
  fixture_setup(&fx, NULL);
  xio_blob_target *b = fixture_page_blob(&fx, "log.ldf", 8 * MiB);
  char *src = malloc(4 * MiB), *dst = malloc(4 * MiB);
  test_fill_random(src, 4 * MiB, 1);
  ASSERT_OK(xio_blob_put_page(fx.engine, b, 0, src, 4 * MiB, NULL, &e), &e);
  ASSERT_OK(xio_blob_clear(fx.engine, b, MiB, 2 * MiB, NULL, &e), &e);
  ASSERT_OK(xio_blob_read(fx.engine, b, 0, dst, 4 * MiB, NULL, &e), &e);
  ASSERT_MEM_EQ(src, dst, MiB);
  ASSERT(test_all_zero(dst + MiB, 2 * MiB));
  ASSERT_MEM_EQ(src + 3 * MiB, dst + 3 * MiB, MiB);
  free(src);
  free(dst);
  xio_blob_target_free(b);
  fixture_teardown(&fx);
}

TEST(resize_to_1tib_reads_zero_at_end) {
  fixture fx;
  xio_error e;
  fixture_setup(&fx, NULL);
  xio_blob_target *b = fixture_page_blob(&fx, "big.ldf", 8 * MiB);
  ASSERT_OK(xio_blob_resize(fx.engine, b, TiB, NULL, &e), &e);
  xio_blob_props p;
  ASSERT_OK(xio_blob_get_properties(fx.engine, b, NULL, &p, &e), &e);
  ASSERT_U64_EQ(p.size, TiB);
  char buf[4096];
  memset(buf, 0x77, sizeof buf);
  ASSERT_OK(xio_blob_read(fx.engine, b, TiB - sizeof buf, buf, sizeof buf, NULL, &e), &e);
  ASSERT(test_all_zero(buf, sizeof buf));
  /* One clear covers the whole terabyte. */
  ASSERT_OK(xio_blob_clear(fx.engine, b, 8 * MiB, TiB - 8 * MiB, NULL, &e), &e);
  xio_blob_target_free(b);
  fixture_teardown(&fx);
}

TEST(page_ranges_after_writes_and_clears) {
  fixture fx;
  xio_error e;
  fixture_setup(&fx, NULL);
  xio_blob_target *b = fixture_page_blob(&fx, "ranges.mdf", 16 * MiB);
  char page[4096];
  test_fill_random(page, sizeof page, 3);
  ASSERT_OK(xio_blob_put_page(fx.engine, b, 0, page, 4096, NULL, &e), &e);
  ASSERT_OK(xio_blob_put_page(fx.engine, b, 4096, page, 4096, NULL, &e), &e); /* adjacent */
  ASSERT_OK(xio_blob_put_page(fx.engine, b, MiB, page, 4096, NULL, &e), &e);
  ASSERT_OK(xio_blob_put_page(fx.engine, b, 8 * MiB, page, 4096, NULL, &e), &e);
  ASSERT_OK(xio_blob_clear(fx.engine, b, MiB, 4096, NULL, &e), &e);
  xio_ranges r = {0};
  ASSERT_OK(xio_blob_get_ranges(fx.engine, b, 0, 0, 0, &r, &e), &e);
  ASSERT_EQ(r.n, 2);
  ASSERT_U64_EQ(r.v[0].start, 0);
  ASSERT_U64_EQ(r.v[0].end, 8191); /* merged by the client */
  ASSERT_U64_EQ(r.v[1].start, 8 * MiB);
  ASSERT_U64_EQ(r.v[1].end, 8 * MiB + 4095);
  ASSERT_U64_EQ(xio_ranges_bytes(&r), 3 * 4096);
  xio_ranges_clear(&r);
  /* Segmented queries give the same answer. */
  ASSERT_OK(xio_blob_get_ranges(fx.engine, b, 0, 16 * MiB, MiB, &r, &e), &e);
  ASSERT_EQ(r.n, 2);
  ASSERT_U64_EQ(r.v[1].start, 8 * MiB);
  xio_ranges_clear(&r);
  /* A sub-range. */
  ASSERT_OK(xio_blob_get_ranges(fx.engine, b, 4 * MiB, 8 * MiB, 0, &r, &e), &e);
  ASSERT_EQ(r.n, 1);
  ASSERT_U64_EQ(r.v[0].start, 8 * MiB);
  xio_ranges_clear(&r);
  xio_blob_target_free(b);
  fixture_teardown(&fx);
}

TEST(list_blobs_paged) {
  fixture fx;
  xio_error e;
  fixture_setup(&fx, NULL);
  const char *names[] = {"a.mdf", "b.ldf", "c.ndf", "d.mdf", "e.ldf"};
  for (int i = 0; i < 5; i++)
    xio_blob_target_free(fixture_page_blob(&fx, names[i], 512 * (i + 1)));
  int seen = 0, pages = 0;
  char *marker = NULL;
  do {
    xio_blob_list l = {0};
    ASSERT_OK(xio_blob_list_page(fx.engine, fx.container, NULL, marker, 2, &l, &e), &e);
    ASSERT(l.n <= 2);
    for (size_t i = 0; i < l.n; i++, seen++) {
      ASSERT_STR_EQ(l.v[i].name, names[seen]);
      ASSERT_U64_EQ(l.v[i].size, 512u * (seen + 1));
      ASSERT_STR_EQ(l.v[i].blob_type, "PageBlob");
    }
    free(marker);
    marker = l.next_marker ? strdup(l.next_marker) : NULL;
    xio_blob_list_clear(&l);
    pages++;
  } while (marker && pages < 10);
  ASSERT_EQ(seen, 5);
  ASSERT_EQ(pages, 3);
  xio_blob_list l = {0};
  ASSERT_OK(xio_blob_list_page(fx.engine, fx.container, "b", NULL, 0, &l, &e), &e);
  ASSERT_EQ(l.n, 1);
  ASSERT_STR_EQ(l.v[0].name, "b.ldf");
  xio_blob_list_clear(&l);
  fixture_teardown(&fx);
}

TEST(snapshot_metadata_and_delete) {
  fixture fx;
  xio_error e;
  fixture_setup(&fx, NULL);
  xio_blob_target *b = fixture_page_blob(&fx, "snap.mdf", MiB);
  xio_blob_meta meta[2] = {{"xiokind", "data"}, {"xiosize", "1000"}};
  ASSERT_OK(xio_blob_set_metadata(fx.engine, b, meta, 2, NULL, &e), &e);
  xio_blob_props p;
  ASSERT_OK(xio_blob_get_properties(fx.engine, b, NULL, &p, &e), &e);
  ASSERT_STR_EQ(xio_blob_props_meta(&p, "XIOSIZE"), "1000");
  char snap[64];
  ASSERT_OK(xio_blob_snapshot(fx.engine, b, snap, &e), &e);
  ASSERT(strlen(snap) > 10);
  ASSERT_ERR(xio_blob_delete(fx.engine, b, 0, NULL, &e), XIO_ECONFLICT, &e);
  ASSERT_STR_EQ(e.service_code, "SnapshotsPresent");
  ASSERT_OK(xio_blob_delete(fx.engine, b, 1, NULL, &e), &e);
  ASSERT_ERR(xio_blob_get_properties(fx.engine, b, NULL, &p, &e), XIO_ENOTFOUND, &e);
  xio_blob_target_free(b);
  fixture_teardown(&fx);
}

TEST(client_limits_refuse_before_sending) {
  fixture fx;
  xio_error e;
  fixture_setup(&fx, NULL);
  xio_blob_target *b = fixture_page_blob(&fx, "limits.mdf", 16 * MiB);
  char *big = calloc(1, 8 * MiB);
  xio_blob_call *c = NULL;
  /* Azurite would take an 8 MiB Put Page; Azure answers 413. */
  ASSERT_ERR(xio_blob_call_put_page(b, 0, big, 8 * MiB, 0, NULL, &c, &e), XIO_ELIMIT, &e);
  ASSERT(c == NULL);
  ASSERT_CONTAINS(e.message, "4194304");
  ASSERT_ERR(xio_blob_put_page(fx.engine, b, 100, big, 512, NULL, &e), XIO_EALIGN, &e);
  ASSERT_ERR(xio_blob_put_page(fx.engine, b, 0, big, 500, NULL, &e), XIO_EALIGN, &e);
  ASSERT_ERR(xio_blob_call_put_page(b, 16 * MiB - 512, big, 1024, 16 * MiB, NULL, &c, &e),
             XIO_ERANGE, &e);
  ASSERT_ERR(xio_blob_create(fx.engine, b, 9 * TiB, NULL, 0, NULL, &e), XIO_ELIMIT, &e);
  ASSERT_ERR(xio_blob_resize(fx.engine, b, 1000, NULL, &e), XIO_EALIGN, &e);
  ASSERT_ERR(xio_blob_clear(fx.engine, b, 8 * TiB - 512, 1024, NULL, &e), XIO_ELIMIT, &e);
  /* Nothing above reached the service: the blob is still untouched. */
  xio_ranges r = {0};
  ASSERT_OK(xio_blob_get_ranges(fx.engine, b, 0, 0, 0, &r, &e), &e);
  ASSERT_EQ(r.n, 0);
  xio_ranges_clear(&r);
  free(big);
  xio_blob_target_free(b);
  fixture_teardown(&fx);
}

TEST(read_past_end_is_a_range_error) {
  fixture fx;
  xio_error e;
  fixture_setup(&fx, NULL);
  xio_blob_target *b = fixture_page_blob(&fx, "short.mdf", 4096);
  char buf[8192];
  ASSERT_ERR(xio_blob_read(fx.engine, b, 0, buf, sizeof buf, NULL, &e), XIO_ERANGE, &e);
  ASSERT_ERR(xio_blob_read(fx.engine, b, 8192, buf, 512, NULL, &e), XIO_ERANGE, &e);
  ASSERT_EQ(e.http_status, 416);
  xio_blob_target_free(b);
  fixture_teardown(&fx);
}

/* The same call object can be sent asynchronously; completion comes once. */
static void count_done(xio_blob_call *c, void *ud) {
  (void)c;
  __atomic_add_fetch((int *)ud, 1, __ATOMIC_SEQ_CST);
}

TEST(async_calls_complete_once) {
  fixture fx;
  xio_error e;
  fixture_setup(&fx, NULL);
  xio_blob_target *b = fixture_page_blob(&fx, "async.mdf", 64 * MiB);
  enum { N = 64 };
  char *src = malloc((size_t)N * 65536);
  test_fill_random(src, (size_t)N * 65536, 9);
  xio_blob_call *calls[N];
  int done = 0;
  for (int i = 0; i < N; i++) {
    ASSERT_OK(xio_blob_call_put_page(b, (uint64_t)i * 65536, src + (size_t)i * 65536, 65536,
                                     64 * MiB, NULL, &calls[i], &e),
              &e);
    xio_blob_submit(fx.engine, calls[i], count_done, &done);
  }
  for (int spin = 0; __atomic_load_n(&done, __ATOMIC_SEQ_CST) < N && spin < 3000; spin++)
    usleep(10000);
  ASSERT_EQ(__atomic_load_n(&done, __ATOMIC_SEQ_CST), N);
  for (int i = 0; i < N; i++) {
    ASSERT_OK(xio_blob_call_result(calls[i], &e), &e);
    ASSERT_EQ(xio_blob_call_status(calls[i]), 201);
    xio_blob_call_free(calls[i]);
  }
  char *dst = malloc((size_t)N * 65536);
  ASSERT_OK(xio_blob_read(fx.engine, b, 0, dst, (size_t)N * 65536, NULL, &e), &e);
  ASSERT_MEM_EQ(src, dst, (size_t)N * 65536);
  free(src);
  free(dst);
  xio_blob_target_free(b);
  fixture_teardown(&fx);
}
