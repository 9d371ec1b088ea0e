/*
 * xio-readcheck-bench: what verifying reads costs. One page blob of --size bytes on
 * the emulator (behind its fidelity front, which answers the CRC-64 as Azure does) is
 * read whole, --depth requests in flight, in each of these ways, round after round
 * (--runs), the ways interleaved so that drift of the machine hits them alike:
 *   crc64-4M  4 MiB requests, each checked against its x-ms-content-crc64 (default)
 *   md5-4M    4 MiB requests, each checked against its Content-MD5
 *   none-4M   4 MiB requests, unchecked (checksum none)
 *   none-8M   8 MiB requests, unchecked: the service checksums at most 4 MiB
 *   crc64-4Mx2 4 MiB requests checked by CRC-64, twice as many in flight: the same
 *             bytes in flight as none-8M (what `xio get` does, 8 x 4 MiB, against the
 *             4 x 8 MiB it read before)
 * and prints, per way, the median wall time, MiB/s, the client's CPU seconds per GiB
 * (getrusage of this process: the engine's I/O thread and its checksums included, the
 * emulator's not) and each median's ratio to crc64-4M.
 *
 *   xio-readcheck-bench --endpoint http://127.0.0.1:PORT [--size MIB] [--runs N]
 *                       [--depth N]
 * The endpoint defaults to $XIO_TEST_BLOB_ENDPOINT. The blob is deleted at the end.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <xio/auth.h>
#include <xio/xio.h>

#include "samples_common.h"
#include "samples_pump.h"

#define MiB     (1024.0 * 1024.0)
#define MAXRUNS 31

typedef struct way {
  const char *name;
  xio_checksum checksum;
  size_t request;
  int depth_x; /* times --depth in flight */
  xio_ctx *ctx;
  double wall[MAXRUNS], cpu[MAXRUNS];
} way;

typedef struct job {
  uint64_t size;
  size_t request;
  xio_io_op op;
  char *buf; /* one slot of `request` bytes per request in flight */
} job;

static double cpu_seconds(void) {
  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru) != 0) return 0;
  return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
         (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static int next_io(void *ud, uint64_t i, int slot, xio_io *io) {
  job *j = ud;
  io->op = j->op;
  io->offset = i * j->request;
  io->length = j->request;
  io->buf = j->buf + (size_t)slot * j->request;
  return 0;
}

static xio_err pass(xio_file *f, job *j, int depth, double *wall, double *cpu) {
  samples_pump_result pr;
  double c0 = cpu_seconds(), t0 = samples_now();
  xio_err rc = samples_pump(f, depth, j->size / j->request, 0, next_io, j, &pr);
  *wall = samples_now() - t0;
  *cpu = cpu_seconds() - c0;
  if (rc != XIO_OK) fprintf(stderr, "xio-readcheck-bench: %s\n", pr.error.message);
  free(pr.lat_us);
  return rc;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(const double *v, int n) {
  double s[MAXRUNS];
  memcpy(s, v, sizeof *v * (size_t)n);
  qsort(s, (size_t)n, sizeof *s, cmp);
  return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

static xio_err new_ctx(const char *endpoint, xio_checksum checksum, int depth, xio_ctx **out,
                       xio_error *e) {
  char connstr[1024];
  snprintf(connstr, sizeof connstr,
           "DefaultEndpointsProtocol=%s;AccountName=" XIO_AUTH_DEV_ACCOUNT
           ";AccountKey=%s;BlobEndpoint=%s/" XIO_AUTH_DEV_ACCOUNT ";",
           strncmp(endpoint, "https:", 6) == 0 ? "https" : "http", XIO_AUTH_DEV_KEY, endpoint);
  xio_ctx_options o = xio_ctx_options_default();
  o.connection_string = connstr;
  o.checksum = checksum;
  o.max_in_flight = depth;
  return xio_ctx_new(&o, out, e);
}

static void report(way *w, int nways, int runs, uint64_t size) {
  double base_wall = median(w[0].wall, runs), base_cpu = median(w[0].cpu, runs);
  printf("| way | median s | MiB/s | client CPU s/GiB | wall vs crc64-4M | CPU vs crc64-4M |\n"
         "|---|---|---|---|---|---|\n");
  for (int i = 0; i < nways; i++) {
    double wall = median(w[i].wall, runs), cpu = median(w[i].cpu, runs);
    printf("| %s | %.3f | %.1f | %.3f | %.2f | %.2f |\n", w[i].name, wall,
           (double)size / MiB / wall, cpu / ((double)size / (1024.0 * MiB)), wall / base_wall,
           cpu / base_cpu);
  }
}

int main(int argc, char **argv) {
  const char *endpoint = getenv("XIO_TEST_BLOB_ENDPOINT");
  long size_mib = 256, runs = 5, depth = 4;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--endpoint") == 0)
      endpoint = argv[i + 1];
    else if (strcmp(argv[i], "--size") == 0)
      size_mib = strtol(argv[i + 1], NULL, 10);
    else if (strcmp(argv[i], "--runs") == 0)
      runs = strtol(argv[i + 1], NULL, 10);
    else if (strcmp(argv[i], "--depth") == 0)
      depth = strtol(argv[i + 1], NULL, 10);
    else
      return fprintf(stderr, "xio-readcheck-bench: unknown option %s\n", argv[i]), 2;
  }
  if (!endpoint || size_mib < 8 || size_mib % 8 || runs < 1 || runs > MAXRUNS || depth < 1 ||
      depth > 64)
    return fprintf(stderr, "xio-readcheck-bench: needs --endpoint, --size a multiple of 8 "
                           "(MiB), --runs 1..31, --depth 1..64\n"),
           2;
  way w[] = {{"crc64-4M", XIO_CHECKSUM_CRC64, 4 << 20, 1, NULL, {0}, {0}},
             {"md5-4M", XIO_CHECKSUM_MD5, 4 << 20, 1, NULL, {0}, {0}},
             {"none-4M", XIO_CHECKSUM_NONE, 4 << 20, 1, NULL, {0}, {0}},
             {"none-8M", XIO_CHECKSUM_NONE, 8 << 20, 1, NULL, {0}, {0}},
             {"crc64-4Mx2", XIO_CHECKSUM_CRC64, 4 << 20, 2, NULL, {0}, {0}}};
  int nways = (int)(sizeof w / sizeof *w);
  uint64_t size = (uint64_t)size_mib << 20;
  job j = {size, 4 << 20, XIO_IO_WRITE, malloc((size_t)depth * (8 << 20))};
  xio_error e;
  xio_err rc = j.buf ? XIO_OK : XIO_ENOMEM;
  for (int i = 0; rc == XIO_OK && i < nways; i++)
    rc = new_ctx(endpoint, w[i].checksum, (int)depth * w[i].depth_x, &w[i].ctx, &e);
  char url[512];
  snprintf(url, sizeof url, "%s/" XIO_AUTH_DEV_ACCOUNT "/readcheck-bench-%ld/data.bin", endpoint,
           (long)getpid());
  xio_open_options oo = xio_open_options_default();
  oo.flags = XIO_OPEN_CREATE_ONLY;
  oo.size = size;
  xio_file *f = NULL;
  if (rc == XIO_OK) rc = xio_file_open(w[0].ctx, url, &oo, &f, &e);
  double wall, cpu;
  for (size_t i = 0; j.buf && i < (size_t)depth * (8 << 20); i++)
    j.buf[i] = (char)(i * 2654435761u >> 13);
  if (rc == XIO_OK) rc = pass(f, &j, (int)depth, &wall, &cpu);
  xio_file_close(f, NULL);
  j.op = XIO_IO_READ;
  for (int r = 0; rc == XIO_OK && r < runs; r++)
    for (int i = 0; rc == XIO_OK && i < nways; i++) {
      xio_open_options ro = xio_open_options_default();
      xio_file *g = NULL;
      j.request = w[i].request;
      rc = xio_file_open(w[i].ctx, url, &ro, &g, &e);
      if (rc == XIO_OK) rc = pass(g, &j, (int)depth * w[i].depth_x, &w[i].wall[r], &w[i].cpu[r]);
      xio_file_close(g, NULL);
    }
  if (rc == XIO_OK) {
    printf("%ld MiB read whole, %ld in flight, median of %ld runs\n\n", size_mib, depth, runs);
    report(w, nways, (int)runs, size);
  } else {
    fprintf(stderr, "xio-readcheck-bench: %s: %s\n", xio_err_name(rc), e.message);
  }
  if (w[0].ctx) xio_file_delete(w[0].ctx, url, NULL);
  for (int i = 0; i < nways; i++)
    xio_ctx_free(w[i].ctx);
  free(j.buf);
  return rc == XIO_OK ? 0 : 1;
}
