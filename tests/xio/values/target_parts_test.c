/*
 * target_parts_test.c - xio_target_parse and xio_target_snapshot_url, the public
 * words programs use instead of taking URLs apart by hand: the parts of virtual-host
 * and path-style URLs and of local targets, a snapshot named by its parameter only (a blob whose
 * name contains "snapshot=" names none), the SAS kept out of every part, and a snapshot URL that
 * keeps the SAS and replaces the snapshot named before, and the log-safe form of a target.
 */
#include <string.h>

#include <xio/xio.h>

#include "test.h"

TEST(target_parse_takes_a_path_style_url_apart) {
  xio_target_parts p;
  xio_error e;
  ASSERT_OK(xio_target_parse("http://127.0.0.1:10000/devstoreaccount1/logs/db%20one/x.ldf"
                             "?snapshot=2026-12-01T08:00:00.1234567Z&sv=2022&sig=c2VjcmV0",
                             &p, &e),
            &e);
  ASSERT_EQ(p.kind, XIO_TARGET_BLOB);
  ASSERT(p.path == NULL);
  ASSERT_STR_EQ(p.endpoint, "http://127.0.0.1:10000/devstoreaccount1");
  ASSERT_STR_EQ(p.account, "devstoreaccount1");
  ASSERT_STR_EQ(p.container, "logs");
  ASSERT_STR_EQ(p.blob, "db one/x.ldf");
  ASSERT_STR_EQ(p.snapshot, "2026-12-01T08:00:00.1234567Z");
  ASSERT_STR_EQ(p.base, "http://127.0.0.1:10000/devstoreaccount1/logs/db%20one/x.ldf");
  ASSERT_EQ(p.has_sas, 1);
  xio_target_parts_clear(&p);
  ASSERT(p.account == NULL && p.base == NULL);
}

TEST(target_parse_names_no_snapshot_for_a_blob_called_so) {
  xio_target_parts p;
  xio_error e;
  ASSERT_OK(xio_target_parse("https://acct.blob.core.windows.net/ccc/a-snapshot=1", &p, &e), &e);
  ASSERT_STR_EQ(p.account, "acct");
  ASSERT_STR_EQ(p.blob, "a-snapshot=1");
  ASSERT(p.snapshot == NULL);
  ASSERT_EQ(p.has_sas, 0);
  xio_target_parts_clear(&p);
  ASSERT_OK(xio_target_parse("https://acct.blob.core.windows.net/ccc", &p, &e), &e);
  ASSERT_STR_EQ(p.container, "ccc");
  ASSERT(p.blob == NULL);
  xio_target_parts_clear(&p);
}

TEST(target_parse_refuses_what_open_refuses) {
  xio_target_parts p;
  xio_error e;
  ASSERT_ERR(xio_target_parse("ftp://h/c/b", &p, &e), XIO_EUNSUPPORTED, &e);
  ASSERT(p.account == NULL);
  ASSERT_ERR(xio_target_parse("file://h/db", &p, &e), XIO_EPARSE, &e);
  ASSERT(p.path == NULL);
  ASSERT_ERR(xio_target_parse("https://acct.blob.core.windows.net/ccc/b?foo=1", &p, &e), XIO_EPARSE,
             &e);
  ASSERT_CONTAINS(e.message, "foo");
  ASSERT_ERR(xio_target_parse("https://acct.blob.core.windows.net/Upper/b", &p, &e), XIO_EPARSE,
             &e);
  xio_target_parts_clear(NULL);
}

TEST(target_parse_gives_a_local_targets_path) {
  xio_target_parts p;
  xio_error e;
  ASSERT_OK(xio_target_parse("file://localhost/var/lib/my%20db.mdf", &p, &e), &e);
  ASSERT_EQ(p.kind, XIO_TARGET_LOCAL);
  ASSERT_STR_EQ(p.path, "/var/lib/my db.mdf");
  ASSERT(p.account == NULL && p.blob == NULL && p.snapshot == NULL);
  xio_target_parts_clear(&p);
  ASSERT_OK(xio_target_parse("rel/a-snapshot=1", &p, &e), &e);
  ASSERT_STR_EQ(p.path, "rel/a-snapshot=1");
  ASSERT(p.snapshot == NULL);
  xio_target_parts_clear(&p);
}

TEST(target_safe_drops_the_sas_and_keeps_the_snapshot) {
  char *s = xio_target_safe("http://u:pw@h:1/a/c/b?sv=1&snapshot=2026-01-02T03:04:05Z&sig=c2Vj");
  ASSERT_STR_EQ(s, "http://h:1/a/c/b?snapshot=2026-01-02T03:04:05Z");
  xio_free(s);
  s = xio_target_safe("https://acct.blob.core.windows.net/ccc/b?sig=c2Vj#frag");
  ASSERT_STR_EQ(s, "https://acct.blob.core.windows.net/ccc/b");
  xio_free(s);
  s = xio_target_safe("local/a?b");
  ASSERT_STR_EQ(s, "local/a?b");
  xio_free(s);
  ASSERT(xio_target_safe(NULL) == NULL);
}

TEST(target_snapshot_url_keeps_the_sas_and_replaces_the_snapshot) {
  char *u = NULL;
  xio_error e;
  ASSERT_OK(xio_target_snapshot_url("http://h:1/a/c/b?sv=1&sig=s", "2026-01-02T03:04:05.0000001Z",
                                    &u, &e),
            &e);
  ASSERT_STR_EQ(u, "http://h:1/a/c/b?sv=1&sig=s&snapshot=2026-01-02T03:04:05.0000001Z");
  xio_free(u);
  ASSERT_OK(xio_target_snapshot_url("http://h:1/a/c/b?snapshot=old&sig=s", "new", &u, &e), &e);
  ASSERT_STR_EQ(u, "http://h:1/a/c/b?sig=s&snapshot=new");
  xio_free(u);
  ASSERT_OK(xio_target_snapshot_url("http://h:1/a/c/b?snapshot=old", NULL, &u, &e), &e);
  ASSERT_STR_EQ(u, "http://h:1/a/c/b");
  xio_free(u);
  ASSERT_OK(xio_target_snapshot_url("http://h:1/a/c/b", "a b", &u, &e), &e);
  ASSERT_STR_EQ(u, "http://h:1/a/c/b?snapshot=a%20b");
  xio_free(u);
  ASSERT_ERR(xio_target_snapshot_url("http://h:1/a/c/b?snapshot=x&snapshot=y", "z", &u, &e),
             XIO_EINVAL, &e);
  ASSERT(u == NULL);
  ASSERT_ERR(xio_target_snapshot_url("local.db", "z", &u, &e), XIO_EINVAL, &e);
}

TEST(service_limits_are_the_page_blobs) {
  ASSERT_EQ(XIO_PAGE_SIZE, 512u);
  ASSERT_EQ(XIO_WRITE_MAX_SIZE, 4u * 1024u * 1024u);
  /* CRC-64/NVME's check value over "123456789", continued in two pieces. */
  uint64_t c = xio_crc64(xio_crc64(0, "1234", 4), "56789", 5);
  ASSERT_U64_EQ(c, 0xAE8B14860A799888ull);
}
