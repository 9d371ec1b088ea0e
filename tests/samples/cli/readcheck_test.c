/*
 * readcheck_test.c - a damaged read body never reaches a file. A fault proxy between
 * xio and the emulator flips one byte in the middle of one Get Blob's body on its
 * way back, headers untouched, as a body damaged between the service and the client
 * would be. `xio get` reads in requests the service checksums (at most 4 MiB each),
 * so the damaged body fails its check, is read again, and the file is the blob byte
 * for byte, the damaged try in the trace.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cliproxy.h"
#include "clirun.h"
#include "test.h"
#include "util.h"

#define MiB (1024ull * 1024)

/* A 16 MiB file of random bytes, put as blob `name` of a fresh container; its URL
 * through the proxy into `url`, the local file's path into `src`. */
static void blob_through_proxy(const char *name, char *src, size_t ssize, char *url, size_t usize) {
  char container[64], direct[512];
  clirun_container(container, sizeof container);
  clirun_url(container, name, direct, sizeof direct);
  clirun_path(name, src, ssize);
  char *buf = malloc(16 * MiB);
  ASSERT(buf != NULL);
  test_fill_random(buf, 16 * MiB, 38);
  FILE *f = fopen(src, "wb");
  ASSERT(f != NULL);
  ASSERT(fwrite(buf, 1, 16 * MiB, f) == 16 * MiB);
  fclose(f);
  free(buf);
  clirun r = {0};
  XIO(&r, "put", src, direct);
  EXPECT_EXIT(&r, 0);
  clirun_free(&r);
  cliproxy_url(container, name, url, usize);
}

TEST(get_reads_a_damaged_body_again) {
  char src[512], url[512], dst[512];
  blob_through_proxy("damaged.bin", src, sizeof src, url, sizeof url);
  clirun_path("damaged.got", dst, sizeof dst);
  /* The open and the size are HEADs; after the range listing, the first data read. */
  cliproxy_corrupt("GET", "damaged.bin", 1);
  clirun r = {0};
  XIO_PROXIED(&r, "get", url, dst);
  EXPECT_EXIT(&r, 0);
  clirun_expect_same_files(src, dst);
  /* The damaged try is in the trace, refused for its checksum, and read again. */
  ASSERT_CONTAINS(r.trace, "xio_failed_request");
  ASSERT_CONTAINS(r.trace, "XIO_ECHECKSUM");
  clirun_free(&r);
}
