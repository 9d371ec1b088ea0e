/*
 * seed.c - `xio-peers seed LOCAL URL [--depth N]`: makes the blob a download case
 * starts from, the same way whichever client is measured next: a new page blob of
 * LOCAL's size holding every run of LOCAL's non-zero 512-byte pages, each run its
 * own Put Page (split at 4 MiB), N in flight (default 8). A fragmented file so gets
 * one page range per isolated page, as a database file written page by page has.
 */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "peers.h"

#define PAGE    512u
#define MAX_PUT (4u << 20)

typedef struct runs {
  const unsigned char *data;
  uint64_t size, pos; /* the next page to look at */
  uint64_t requests;
} runs;

static int zero_page(const unsigned char *p) {
  static const unsigned char zeros[PAGE];
  return memcmp(p, zeros, PAGE) == 0;
}

/* The next run of non-zero pages from r->pos, at most 4 MiB. */
static int next_run(void *ud, uint64_t i, int slot, xio_io *io) {
  runs *r = ud;
  (void)i, (void)slot;
  while (r->pos < r->size && zero_page(r->data + r->pos))
    r->pos += PAGE;
  if (r->pos >= r->size) return -1;
  uint64_t start = r->pos;
  while (r->pos < r->size && r->pos - start < MAX_PUT && !zero_page(r->data + r->pos))
    r->pos += PAGE;
  io->op = XIO_IO_WRITE;
  io->offset = start;
  io->length = (size_t)(r->pos - start);
  io->buf = (void *)(r->data + start);
  r->requests++;
  return 0;
}

/* How many requests next_run will make (a dry run). */
static uint64_t count_runs(runs *r) {
  xio_io io;
  uint64_t n = 0;
  while (next_run(r, n, 0, &io) == 0)
    n++;
  r->pos = 0, r->requests = 0;
  return n;
}

static int parse(int argc, char **argv, uint64_t *depth) {
  if (argc != 2 && !(argc == 4 && !strcmp(argv[2], "--depth"))) {
    fprintf(stderr, "usage: xio-peers seed LOCAL URL [--depth N]\n");
    return -1;
  }
  if (argc == 4 && peers_size_arg("--depth", argv[3], depth) != 0) return -1;
  if (*depth < 1 || *depth > 256) {
    fprintf(stderr, "xio-peers seed: --depth must be 1..256\n");
    return -1;
  }
  return 0;
}

static int upload(const char *url, int depth, runs *r) {
  xio_ctx *ctx = NULL;
  xio_file *f = NULL;
  xio_error e;
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_CREATE_ONLY;
  o.size = r->size;
  if (peers_ctx(depth, &ctx, &e) != XIO_OK) return peers_fail("context", &e);
  if (xio_file_open(ctx, url, &o, &f, &e) != XIO_OK) {
    xio_ctx_free(ctx);
    return peers_fail("create", &e);
  }
  samples_pump_result pr;
  xio_err rc = samples_pump(f, depth, count_runs(r), 0, next_run, r, &pr);
  free(pr.lat_us);
  if (rc != XIO_OK) e = pr.error;
  if (rc == XIO_OK) rc = xio_file_flush(f, &e);
  xio_err crc = xio_file_close(f, rc == XIO_OK ? &e : NULL);
  if (rc == XIO_OK) rc = crc;
  xio_ctx_free(ctx);
  return rc == XIO_OK ? 0 : peers_fail("upload", &e);
}

int peers_seed(int argc, char **argv) {
  uint64_t depth = 8;
  if (parse(argc, argv, &depth) != 0) return 2;
  int fd = open(argv[0], O_RDONLY);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0 || st.st_size <= 0 || st.st_size % PAGE) {
    fprintf(stderr, "xio-peers seed: %s must be a readable file of a multiple of 512 bytes\n",
            argv[0]);
    if (fd >= 0) close(fd);
    return 1;
  }
  runs r = {NULL, (uint64_t)st.st_size, 0, 0};
  void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (map == MAP_FAILED) {
    fprintf(stderr, "xio-peers seed: cannot map %s\n", argv[0]);
    return 1;
  }
  r.data = map;
  int rc = upload(argv[1], (int)depth, &r);
  munmap(map, (size_t)st.st_size);
  if (rc == 0)
    printf("seeded %llu bytes in %llu writes\n", (unsigned long long)r.size,
           (unsigned long long)r.requests);
  return rc;
}
