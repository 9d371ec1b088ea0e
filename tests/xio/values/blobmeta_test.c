/*
 * blobmeta_test.c - what the file layer records with a page blob (blobmeta.c): the
 * entries written for each kind, size and mark, read back the same from a blob's
 * properties and from a listed blob, and recorded sizes that do not fit the blob
 * ignored in favour of the blob's own size.
 */
#include <stdio.h>
#include <string.h>

#include "blobmeta_int.h"
#include "test.h"

/* The properties and the listing entry of a blob of `stored` bytes with `meta`. */
static void blob_of(const xio_blob_meta *meta, int n, uint64_t stored, xio_blob_props *p,
                    xio_blob_item *item) {
  static xio_blob_meta copy[XIO_BLOB_MAX_META];
  memset(p, 0, sizeof *p);
  memset(item, 0, sizeof *item);
  p->size = item->size = stored;
  p->nmeta = item->nmeta = n;
  if (n) {
    memcpy(p->meta, meta, (size_t)n * sizeof *meta);
    memcpy(copy, meta, (size_t)n * sizeof *meta);
  }
  item->meta = copy;
}

/* Both readers agree and give `want`. */
static void expect(const xio_blob_meta *meta, int n, uint64_t stored, xio__blobmeta want) {
  xio_blob_props p;
  xio_blob_item item;
  blob_of(meta, n, stored, &p, &item);
  xio__blobmeta a, b;
  xio__blobmeta_from_props(&p, &a);
  xio__blobmeta_from_item(&item, &b);
  const xio__blobmeta *got[2] = {&a, &b};
  for (int i = 0; i < 2; i++) {
    ASSERT_EQ(got[i]->kind, want.kind);
    ASSERT_U64_EQ(got[i]->size, want.size);
    ASSERT_EQ(got[i]->has_size, want.has_size);
    ASSERT_EQ(got[i]->incomplete, want.incomplete);
  }
}

TEST(blobmeta_records_kind_unaligned_size_and_mark) {
  xio_blob_meta m[XIO__BLOBMETA_MAX];
  ASSERT_EQ(xio__blobmeta_make(XIO_KIND_DATA, 4096, 0, m), 1);
  ASSERT_STR_EQ(m[0].name, "xiokind");
  ASSERT_STR_EQ(m[0].value, "data");
  expect(m, 1, 4096, (xio__blobmeta){XIO_KIND_DATA, 4096, 0, 0});

  ASSERT_EQ(xio__blobmeta_make(XIO_KIND_LOG, 1000, 0, m), 2);
  ASSERT_STR_EQ(m[0].value, "log");
  ASSERT_STR_EQ(m[1].name, "xiosize");
  ASSERT_STR_EQ(m[1].value, "1000");
  expect(m, 2, 1024, (xio__blobmeta){XIO_KIND_LOG, 1000, 1, 0});

  ASSERT_EQ(xio__blobmeta_make(XIO_KIND_DATA, 513, 1, m), 3);
  ASSERT_STR_EQ(m[2].name, "xioincomplete");
  ASSERT_STR_EQ(m[2].value, "1");
  expect(m, 3, 1024, (xio__blobmeta){XIO_KIND_DATA, 513, 1, 1});

  ASSERT_EQ(xio__blobmeta_make(XIO_KIND_LOG, 0, 1, m), 2); /* 0 is a whole number of pages */
  ASSERT_STR_EQ(m[1].name, "xioincomplete");
  expect(m, 2, 0, (xio__blobmeta){XIO_KIND_LOG, 0, 0, 1});
}

TEST(blobmeta_ignores_a_recorded_size_that_does_not_fit) {
  static const char *const bad[] = {"1023x", "", "-1", "511", "1025", "99999999999999999999"};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    xio_blob_meta m[2] = {{"xiokind", "log"}, {"xiosize", ""}};
    snprintf(m[1].value, sizeof m[1].value, "%s", bad[i]);
    expect(m, 2, 1024, (xio__blobmeta){XIO_KIND_LOG, 1024, 0, 0});
  }
}

TEST(blobmeta_of_a_blob_without_it_is_a_whole_data_file) {
  xio_blob_meta m[2] = {{"xiokind", "journal"}, {"xioincomplete", "yes"}};
  expect(NULL, 0, 8192, (xio__blobmeta){XIO_KIND_DATA, 8192, 0, 0});
  expect(m, 2, 8192, (xio__blobmeta){XIO_KIND_DATA, 8192, 0, 0});
}
