/*
 * randwrite.c - `xio-peers randwrite URL --size SIZE --io SIZE --depth N --ops N`:
 * xio's side of the small-I/O case. Creates a page blob of SIZE, then writes OPS
 * requests of IO bytes (random data) at random IO-aligned offsets with DEPTH in
 * flight through the asynchronous file API, as an engine writes its pages. Prints
 * one JSON line measured over the writes alone:
 *   {"ops":..,"seconds":..,"iops":..,"p50_us":..,"p99_us":..,"cpu_s":..}
 * cpu_s is this process's user+system CPU during the writes (getrusage).
 */
#define _DEFAULT_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "peers.h"

typedef struct job {
  uint64_t nblocks, io, rng;
  unsigned char *buf;
} job;

static uint64_t xorshift(uint64_t *s) {
  uint64_t x = *s;
  x ^= x << 13, x ^= x >> 7, x ^= x << 17;
  return *s = x;
}

static int next_write(void *ud, uint64_t i, int slot, xio_io *io) {
  job *j = ud;
  (void)i, (void)slot;
  io->op = XIO_IO_WRITE;
  io->offset = xorshift(&j->rng) % j->nblocks * j->io;
  io->length = (size_t)j->io;
  io->buf = j->buf;
  return 0;
}

static double cpu_now(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
         (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

typedef struct opts {
  const char *url;
  uint64_t size, io, depth, ops, seed;
} opts;

static int parse(int argc, char **argv, opts *o) {
  if (argc < 1 || argv[0][0] == '-') goto usage;
  o->url = argv[0];
  for (int i = 1; i < argc; i += 2) {
    uint64_t *v = !strcmp(argv[i], "--size")    ? &o->size
                  : !strcmp(argv[i], "--io")    ? &o->io
                  : !strcmp(argv[i], "--depth") ? &o->depth
                  : !strcmp(argv[i], "--ops")   ? &o->ops
                  : !strcmp(argv[i], "--seed")  ? &o->seed
                                                : NULL;
    if (!v) goto usage;
    if (peers_size_arg(argv[i], i + 1 < argc ? argv[i + 1] : NULL, v) != 0) return -1;
  }
  if (o->io == 0 || o->io % XIO_PAGE_SIZE || o->io > XIO_WRITE_MAX_SIZE || o->size < o->io ||
      o->depth < 1 || o->depth > 256 || o->ops < 1 || o->seed == 0) {
    fprintf(stderr, "xio-peers randwrite: --io must be a multiple of 512 up to 4M and at most "
                    "--size, --depth 1..256, --ops and --seed at least 1\n");
    return -1;
  }
  return 0;
usage:
  fprintf(stderr, "usage: xio-peers randwrite URL --size SIZE --io SIZE --depth N --ops N "
                  "[--seed N]\n");
  return -1;
}

static int measure(xio_file *f, const opts *o) {
  job j = {o->size / o->io, o->io, o->seed * 0x9e3779b97f4a7c15ull | 1, malloc((size_t)o->io)};
  if (!j.buf) {
    fprintf(stderr, "xio-peers randwrite: out of memory\n");
    return 1;
  }
  uint64_t s = o->seed;
  for (uint64_t i = 0; i < o->io; i++)
    j.buf[i] = (unsigned char)(xorshift(&s) >> 24 | 1);
  samples_pump_result pr;
  double c0 = cpu_now();
  xio_err rc = samples_pump(f, (int)o->depth, o->ops, 0, next_write, &j, &pr);
  double cpu = cpu_now() - c0;
  free(j.buf);
  if (rc != XIO_OK) {
    free(pr.lat_us);
    return peers_fail("write", &pr.error);
  }
  double iops = pr.seconds > 0 ? (double)pr.ops / pr.seconds : 0;
  double p50 = peers_quantile(pr.lat_us, pr.ops, 0.5),
         p99 = peers_quantile(pr.lat_us, pr.ops, 0.99);
  printf("{\"ops\":%llu,\"seconds\":%.6f,\"iops\":%.1f,\"p50_us\":%.1f,\"p99_us\":%.1f,"
         "\"cpu_s\":%.6f}\n",
         (unsigned long long)pr.ops, pr.seconds, iops, p50, p99, cpu);
  free(pr.lat_us);
  return 0;
}

int peers_randwrite(int argc, char **argv) {
  opts o = {NULL, 256u << 20, 8192, 1, 1000, 1};
  if (parse(argc, argv, &o) != 0) return 2;
  xio_ctx *ctx = NULL;
  xio_file *f = NULL;
  xio_error e;
  xio_open_options oo = xio_open_options_default();
  oo.flags = XIO_OPEN_CREATE_ONLY;
  oo.size = o.size;
  if (peers_ctx((int)o.depth, &ctx, &e) != XIO_OK) return peers_fail("context", &e);
  if (xio_file_open(ctx, o.url, &oo, &f, &e) != XIO_OK) {
    xio_ctx_free(ctx);
    return peers_fail("create", &e);
  }
  int rc = measure(f, &o);
  if (xio_file_close(f, &e) != XIO_OK && rc == 0) rc = peers_fail("close", &e);
  xio_ctx_free(ctx);
  return rc;
}
