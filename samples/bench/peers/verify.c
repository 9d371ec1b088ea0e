/*
 * verify.c - `xio-peers verify LOCAL URL`: checks, after an upload, that the blob
 * holds exactly LOCAL's bytes (zeros where LOCAL has holes or zero pages) and has
 * its size; prints where they first differ otherwise. Reads 32 MiB at a time.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "peers.h"

#define STEP (32u << 20)

static int compare(FILE *in, xio_file *f, uint64_t size, unsigned char *a, unsigned char *b) {
  xio_error e;
  for (uint64_t off = 0; off < size; off += STEP) {
    size_t n = size - off < STEP ? (size_t)(size - off) : STEP, got = 0;
    if (fread(a, 1, n, in) != n) {
      fprintf(stderr, "xio-peers verify: short read of the local file at %llu\n",
              (unsigned long long)off);
      return 1;
    }
    if (xio_file_read(f, off, b, n, &got, &e) != XIO_OK) return peers_fail("read", &e);
    if (got != n || memcmp(a, b, n) != 0) {
      size_t i = 0;
      while (i < got && a[i] == b[i])
        i++;
      fprintf(stderr, "xio-peers verify: the blob differs from the local file at byte %llu\n",
              (unsigned long long)off + i);
      return 1;
    }
  }
  return 0;
}

static int check(const char *local, xio_file *f) {
  FILE *in = fopen(local, "rb");
  if (!in) {
    fprintf(stderr, "xio-peers verify: cannot open %s: %s\n", local, strerror(errno));
    return 1;
  }
  fseek(in, 0, SEEK_END);
  long size = ftell(in);
  rewind(in);
  int rc = 1;
  unsigned char *a = malloc(STEP), *b = malloc(STEP);
  if (!a || !b)
    fprintf(stderr, "xio-peers verify: out of memory\n");
  else if (size < 0 || (uint64_t)size != xio_file_size(f))
    fprintf(stderr, "xio-peers verify: the blob holds %llu bytes, the local file %ld\n",
            (unsigned long long)xio_file_size(f), size);
  else
    rc = compare(in, f, (uint64_t)size, a, b);
  free(a);
  free(b);
  fclose(in);
  return rc;
}

int peers_verify(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: xio-peers verify LOCAL URL\n");
    return 2;
  }
  xio_ctx *ctx = NULL;
  xio_file *f = NULL;
  xio_error e;
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_READONLY;
  if (peers_ctx(8, &ctx, &e) != XIO_OK) return peers_fail("context", &e);
  if (xio_file_open(ctx, argv[1], &o, &f, &e) != XIO_OK) {
    xio_ctx_free(ctx);
    return peers_fail("open", &e);
  }
  int rc = check(argv[0], f);
  xio_file_close(f, NULL);
  xio_ctx_free(ctx);
  if (rc == 0) printf("verified: the blob holds the local file's bytes\n");
  return rc;
}
