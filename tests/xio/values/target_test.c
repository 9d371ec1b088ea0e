/*
 * target_test.c - xio_target_classify and xio_target_scheme_length: blob URLs in
 * any case, paths that merely contain a colon, file:// URLs, and other schemes
 * refused; and xio_file_open / xio_file_delete on an unsupported scheme fail with
 * XIO_EUNSUPPORTED naming it, creating nothing on the local disk.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xio/xio.h>

#include "scratch.h"
#include "test.h"

TEST(target_classify_names_each_kind) {
  static const struct {
    const char *target;
    xio_target_kind kind;
  } cases[] = {
      {"https://acct.blob.core.windows.net/mssql01/db.mdf", XIO_TARGET_BLOB},
      {"http://127.0.0.1:10000/devstoreaccount1/mssql01/db.mdf", XIO_TARGET_BLOB},
      {"HTTPS://acct.blob.core.windows.net/c/b", XIO_TARGET_BLOB},
      {"HttP://127.0.0.1/a/c/b", XIO_TARGET_BLOB},
      {"/var/lib/db/data.mdf", XIO_TARGET_LOCAL},
      {"data.mdf", XIO_TARGET_LOCAL},
      {"./http://not-a-url", XIO_TARGET_LOCAL},
      {"c:data.mdf", XIO_TARGET_LOCAL},
      {"dir/x://y", XIO_TARGET_LOCAL},
      {"1ftp://x/y", XIO_TARGET_LOCAL}, /* a scheme starts with a letter */
      {"file:///tmp/data.mdf", XIO_TARGET_LOCAL},
      {"FILE://localhost/tmp/data.mdf", XIO_TARGET_LOCAL},
      {"ftp://x/y/z", XIO_TARGET_UNSUPPORTED},
      {"s3://bucket/key", XIO_TARGET_UNSUPPORTED},
      {"httpx://host/c/b", XIO_TARGET_UNSUPPORTED},
      {"git+ssh://host/repo", XIO_TARGET_UNSUPPORTED},
      {"", XIO_TARGET_UNSUPPORTED},
      {NULL, XIO_TARGET_UNSUPPORTED},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    xio_target_kind k = xio_target_classify(cases[i].target);
    if (k != cases[i].kind)
      FAIL("'%s': kind %d, wanted %d", cases[i].target ? cases[i].target : "(null)", (int)k,
           (int)cases[i].kind);
  }
}

TEST(target_scheme_length_counts_the_scheme) {
  ASSERT_EQ(xio_target_scheme_length("ftp://x/y/z"), 3);
  ASSERT_EQ(xio_target_scheme_length("git+ssh://h/r"), 7);
  ASSERT_EQ(xio_target_scheme_length("https://a/c/b"), 5);
  ASSERT_EQ(xio_target_scheme_length("/tmp/ftp://x"), 0);
  ASSERT_EQ(xio_target_scheme_length("ftp:/x"), 0);
  ASSERT_EQ(xio_target_scheme_length(NULL), 0);
}

TEST(file_open_refuses_an_unsupported_scheme) {
  char dir[512];
  test_scratch_dir(dir, sizeof dir, "xio-values");
  ASSERT_EQ(chdir(dir), 0); /* were ftp://x/y/z taken as a path, it would land here */
  xio_ctx_options o = xio_ctx_options_default();
  xio_ctx *ctx;
  xio_error e;
  ASSERT_OK(xio_ctx_new(&o, &ctx, &e), &e);
  xio_open_options oo = xio_open_options_default();
  oo.flags = XIO_OPEN_CREATE;
  oo.size = 4096;
  xio_file *f = (xio_file *)&f;
  ASSERT_ERR(xio_file_open(ctx, "ftp://x/y/z", &oo, &f, &e), XIO_EUNSUPPORTED, &e);
  ASSERT(f == NULL);
  ASSERT_CONTAINS(e.message, "'ftp'");
  ASSERT_ERR(xio_file_delete(ctx, "ftp://x/y/z", &e), XIO_EUNSUPPORTED, &e);
  ASSERT_CONTAINS(e.message, "'ftp'");
  struct stat st;
  ASSERT(stat("ftp:", &st) != 0);
  xio_ctx_free(ctx);
  ASSERT_EQ(chdir("/"), 0);
  ASSERT_EQ(rmdir(dir), 0);
}
