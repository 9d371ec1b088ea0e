/*
 * names_test.c - how the VFS reads the names SQLite gives it: the -journal/-wal
 * suffix SQLite appends after a SAS moves onto the path, the VFS's own parameters are
 * taken out, and only http(s) URLs are blobs; a "file:" URI's parameters, which
 * SQLite keeps beside the name, are read from there.
 */
#include <string.h>

#include "sq_int.h"
#include "test.h"

TEST(names_move_the_suffix_out_of_the_sas) {
  xsq_name n;
  ASSERT_EQ(xsq_name_parse("http://h:1/a/c/db.sqlite?sv=2020&sig=abc%3D-wal", -1, &n), 0);
  ASSERT_EQ(n.role, XSQ_WAL);
  ASSERT_STR_EQ(n.key, "http://h:1/a/c/db.sqlite");
  ASSERT_STR_EQ(n.safe, "http://h:1/a/c/db.sqlite-wal");
  ASSERT_STR_EQ(n.target, "http://h:1/a/c/db.sqlite-wal?sv=2020&sig=abc%3D");
  ASSERT_EQ(xsq_name_parse("https://x.blob.core.windows.net/c/d?sp=rcw-journal", XSQ_JOURNAL, &n),
            0);
  ASSERT_STR_EQ(n.target, "https://x.blob.core.windows.net/c/d-journal?sp=rcw");
  ASSERT_EQ(xsq_name_parse("http://h/a/c/plain-journal", -1, &n), 0);
  ASSERT_STR_EQ(n.key, "http://h/a/c/plain");
  ASSERT_STR_EQ(n.target, "http://h/a/c/plain-journal");
}

TEST(names_take_out_the_vfs_parameters) {
  xsq_name n;
  ASSERT_EQ(xsq_name_parse("http://h/a/c/db?xio_takeover=1&sv=1&xio_cache_mb=7&sig=s", 0, &n), 0);
  ASSERT_EQ(n.takeover, 1);
  ASSERT_EQ(n.cache_mb, 7);
  ASSERT_STR_EQ(n.target, "http://h/a/c/db?sv=1&sig=s");
  ASSERT_EQ(xsq_name_parse("http://h/a/c/db?xio_takeover=1", 0, &n), 0);
  ASSERT_STR_EQ(n.target, "http://h/a/c/db");
  ASSERT_EQ(xsq_name_parse("http://h/a/c/db?snapshot=2026-12-01T08:00:00.1234567Z", 0, &n), 0);
  ASSERT_STR_EQ(n.snapshot, "2026-12-01T08:00:00.1234567Z");
  ASSERT_STR_EQ(n.target, "http://h/a/c/db?snapshot=2026-12-01T08:00:00.1234567Z");
}

TEST(names_of_databases_keep_their_own_suffix) {
  xsq_name n;
  ASSERT_EQ(xsq_name_parse("http://h/a/c/audit-wal", XSQ_DB, &n), 0);
  ASSERT_EQ(n.role, XSQ_DB);
  ASSERT_STR_EQ(n.key, "http://h/a/c/audit-wal");
  ASSERT(xsq_is_url("https://a/b"));
  ASSERT(!xsq_is_url("/tmp/local.db"));
  ASSERT(!xsq_is_url("file:x.db"));
  ASSERT(!xsq_is_url(NULL));
  ASSERT_EQ(xsq_name_parse("/tmp/local.db", -1, &n), -1);
}

/* A name as xOpen receives it for a URI filename: the URL, then SQLite's copy of the
 * query's parameters (sqlite3_create_filename lays it out the same way). */
TEST(names_read_the_vfs_parameters_of_a_uri) {
  const char *params[] = {"vfs",          "xio", "xio_takeover", "yes",
                          "xio_cache_mb", "7",   "snapshot",     "2026-12-01T08:00:00.1234567Z"};
  sqlite3_filename f = sqlite3_create_filename("http://h/a/c/db", "", "", 4, params);
  ASSERT(f != NULL);
  xsq_name n;
  ASSERT_EQ(xsq_name_parse(f, XSQ_DB, &n), 0);
  ASSERT_EQ(n.takeover, 0);
  ASSERT_EQ(n.cache_mb, -1);
  xsq_name_uri(f, &n);
  ASSERT_EQ(n.takeover, 1);
  ASSERT_EQ(n.cache_mb, 7);
  ASSERT_STR_EQ(n.key, "http://h/a/c/db");
  ASSERT_STR_EQ(n.snapshot, "2026-12-01T08:00:00.1234567Z");
  ASSERT_STR_EQ(n.target, "http://h/a/c/db?snapshot=2026-12-01T08:00:00.1234567Z");
  sqlite3_free_filename(f);
  /* Values that are not ones are ignored; a parameter off stays off. */
  const char *odd[] = {"xio_takeover", "off", "xio_cache_mb", "-3"};
  f = sqlite3_create_filename("http://h/a/c/db", "", "", 2, odd);
  ASSERT_EQ(xsq_name_parse(f, XSQ_DB, &n), 0);
  xsq_name_uri(f, &n);
  ASSERT_EQ(n.takeover, 0);
  ASSERT_EQ(n.cache_mb, -1);
  ASSERT_STR_EQ(n.target, "http://h/a/c/db");
  sqlite3_free_filename(f);
}
