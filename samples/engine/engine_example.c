/*
 * engine_example.c - how a database engine uses xio: open its data file and its
 * log file exclusively (a lease each), write data pages asynchronously with many in
 * flight, append to the log and grow it ahead of need with metadata zeroing, read
 * back, and print the per-file statistics. Runs on page blobs or local files:
 *
 *   xio-engine-example https://ACCOUNT.blob.core.windows.net/mssql01    (credentials
 *                                                                     from the environment)
 *   xio-engine-example http://127.0.0.1:10000/devstoreaccount1/mssql01  (Azurite)
 *   xio-engine-example /var/tmp/mssql01                                 (local directory)
 *
 * A container name is 3 to 63 lowercase letters, digits and single dashes.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xio/xio.h>

#define PAGE  8192 /* the engine's page size */
#define PAGES 512  /* written in one burst */
#define MiB   (1024u * 1024u)

static int fail(const char *what, const xio_error *e) {
  char line[1600];
  fprintf(stderr, "%s: %s\n", what, xio_error_format(e, line, sizeof line));
  return 1;
}

static xio_file *open_file(xio_ctx *ctx, const char *dir, const char *name, xio_kind kind,
                           uint64_t size, xio_error *e) {
  char target[1024];
  snprintf(target, sizeof target, "%s/%s", dir, name);
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_CREATE | XIO_OPEN_EXCLUSIVE; /* hold a lease while open */
  o.kind = kind;                                  /* data: no zeroing; log: clear */
  o.size = size;
  xio_file *f = NULL;
  return xio_file_open(ctx, target, &o, &f, e) == XIO_OK ? f : NULL;
}

/* Writes PAGES data pages at once, asynchronously, then waits for all of them. */
static xio_err write_pages(xio_file *data, char *pages, xio_error *e) {
  static xio_io io[PAGES];
  for (int i = 0; i < PAGES; i++) {
    memset(&io[i], 0, sizeof io[i]);
    io[i].op = XIO_IO_WRITE;
    io[i].offset = (uint64_t)i * PAGE;
    io[i].length = PAGE;
    io[i].buf = pages + (size_t)i * PAGE;
    xio_err rc = xio_file_submit(data, &io[i], e);
    if (rc != XIO_OK) return rc;
  }
  xio_err first = XIO_OK;
  for (int i = 0; i < PAGES; i++)
    if (xio_io_wait(&io[i]) != XIO_OK && first == XIO_OK) first = io[i].result, *e = io[i].error;
  return first;
}

/* Appends a log record; grows the log by 64 MiB (one metadata zeroing) when full. A
 * real engine would keep many appends in flight and grow the log well ahead. */
static xio_err log_append(xio_file *log, uint64_t *end, const void *rec, size_t len, xio_error *e) {
  if (*end + len > xio_file_size(log)) {
    xio_err rc = xio_file_set_size(log, xio_file_size(log) + 64 * MiB, XIO_INIT_DEFAULT, e);
    if (rc != XIO_OK) return rc;
  }
  xio_err rc = xio_file_write(log, *end, rec, len, e);
  if (rc == XIO_OK) *end += len;
  return rc;
}

static void print_stats(const char *name, const xio_file *f) {
  xio_file_stats s;
  xio_file_get_stats(f, &s);
  printf("%-8s reads %" PRIu64 " (%" PRIu64 " B), writes %" PRIu64 " (%" PRIu64
         " B), cleared %" PRIu64 " B, requests %" PRIu64 ", retries %" PRIu64 ", failures %" PRIu64
         "\n",
         name, s.reads, s.bytes_read, s.writes, s.bytes_written, s.bytes_cleared, s.requests,
         s.retries, s.failures);
}

static int run(xio_ctx *ctx, const char *dir) {
  xio_error e;
  xio_file *data = open_file(ctx, dir, "example.mdf", XIO_KIND_DATA, 64 * MiB, &e);
  if (!data) return fail("open data file", &e);
  xio_file *log = open_file(ctx, dir, "example.ldf", XIO_KIND_LOG, 8 * MiB, &e);
  if (!log) return xio_file_close(data, NULL), fail("open log file", &e);
  char *pages = malloc((size_t)PAGES * PAGE), *back = malloc(PAGE);
  for (size_t i = 0; i < (size_t)PAGES * PAGE; i++)
    pages[i] = (char)(i / PAGE + i);
  uint64_t log_end = 0;
  int status = 0;
  char rec[512] = "BEGIN TRAN; UPDATE ...; COMMIT";
  xio_err rc = write_pages(data, pages, &e);
  for (int i = 0; rc == XIO_OK && i < 2000; i++)
    rc = log_append(log, &log_end, rec, sizeof rec, &e);
  if (rc == XIO_OK) rc = xio_file_flush(log, &e);
  size_t got = 0;
  if (rc == XIO_OK) rc = xio_file_read(data, 100 * PAGE, back, PAGE, &got, &e);
  if (rc != XIO_OK)
    status = fail("database work", &e);
  else if (got != PAGE || memcmp(back, pages + 100 * PAGE, PAGE) != 0)
    status = 1, puts("mismatch");
  else
    printf("ok: %d pages written, log at %" PRIu64 " of %" PRIu64 " bytes\n", PAGES, log_end,
           xio_file_size(log));
  print_stats("data", data);
  print_stats("log", log);
  free(pages);
  free(back);
  if (xio_file_close(log, &e) != XIO_OK) status = fail("close log", &e);
  if (xio_file_close(data, &e) != XIO_OK) status = fail("close data", &e);
  return status;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s CONTAINER_URL|DIRECTORY\n", argv[0]);
    return 2;
  }
  xio_ctx_options o = xio_ctx_options_default(); /* credentials, XIO_TRACE from env */
  o.max_in_flight = 64;
  xio_ctx *ctx = NULL;
  xio_error e;
  if (xio_ctx_new(&o, &ctx, &e) != XIO_OK) return fail("context", &e);
  int status = run(ctx, argv[1]);
  xio_ctx_free(ctx);
  return status;
}
