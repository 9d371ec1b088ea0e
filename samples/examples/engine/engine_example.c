/*
 * engine_example.c - a small database engine's storage, written as docs/engines.md
 * ("Writing an engine on xio") says: a data file and a log file, each opened
 * exclusively (a lease each, lease loss told through a callback); data pages written
 * asynchronously with many in flight; log records appended asynchronously as they
 * come (any length: the file layer combines them and fills edge sectors from memory),
 * committed in groups with one flush each; the log grown ahead of need with metadata
 * zeroing; a checkpoint that waits for both files at once; everything read back and
 * checked; the request counts printed, and held to what the guide promises (no
 * read-back of a sector, one write request per commit: the combining window is set
 * longer than a commit's appends take, so each commit's flush, not the clock, decides
 * what is combined, on a busy machine too). Runs on page blobs or local files:
 *
 *   xio-engine-example https://ACCOUNT.blob.core.windows.net/mssql01    (credentials
 *                                                                     from the environment)
 *   xio-engine-example http://127.0.0.1:10000/devstoreaccount1/mssql01  (Azurite)
 *   xio-engine-example /var/tmp/mssql01                                 (local directory)
 *
 * A container name is 3 to 63 lowercase letters, digits and single dashes. Exits 0
 * when every check holds, 1 on a failure (the message names the operation and the
 * service's answer), 2 on bad usage.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xio/xio.h>

#define PAGE         8192 /* the engine's page size */
#define PAGES        256  /* data pages written in one burst */
#define RECORDS      2000 /* log records */
#define GROUP        100  /* records per commit (one flush each) */
#define LOG_STEP     (8u << 20)
#define LOG_HEADROOM (1u << 20)         /* grow the log when less than this is left */
#define WINDOW_US    (60 * 1000 * 1000) /* combining window: each commit flushes first */

/* The engine's state: its files and what their callbacks tell it. */
typedef struct engine {
  xio_file *data, *log;
  atomic_int lease_lost; /* set by the lease callback, read before each commit */
  atomic_int io_failed;  /* first failure of an asynchronous write, as an xio_err */
  uint64_t log_end;      /* where the next record goes */
} engine;

static int fail(const char *what, const xio_error *e) {
  char line[1600];
  fprintf(stderr, "%s: %s\n", what, xio_error_format(e, line, sizeof line));
  return 1;
}

/* Lease news, on whatever thread learnt it: only note it (no blocking, no sync calls). */
static void on_lease(xio_file *f, xio_lease_news news, void *ud) {
  engine *en = ud;
  if (news == XIO_LEASE_LOST) atomic_store(&en->lease_lost, 1);
  (void)f;
}

/* Completion of an asynchronous write: remember the first failure. */
static void on_written(xio_io *io, void *ud) {
  engine *en = ud;
  int none = XIO_OK;
  if (io->result != XIO_OK) atomic_compare_exchange_strong(&en->io_failed, &none, io->result);
}

static xio_file *open_file(xio_ctx *ctx, const char *dir, const char *name, xio_kind kind,
                           unsigned extra, uint64_t size, xio_error *e) {
  char target[1024];
  snprintf(target, sizeof target, "%s/%s", dir, name);
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_CREATE | XIO_OPEN_LEASE | extra; /* a lease while open */
  o.kind = kind; /* data: instant initialization; log: cleared, reads as zeros */
  o.size = size;
  xio_file *f = NULL;
  return xio_file_open(ctx, target, &o, &f, e) == XIO_OK ? f : NULL;
}

/* Submits one asynchronous write of `len` bytes of `buf` at `off`. */
static xio_err submit_write(engine *en, xio_file *f, xio_io *io, uint64_t off, void *buf,
                            size_t len, xio_error *e) {
  memset(io, 0, sizeof *io);
  io->op = XIO_IO_WRITE;
  io->offset = off;
  io->length = len;
  io->buf = buf;
  io->done = on_written;
  io->ud = en;
  return xio_file_submit(f, io, e);
}

/* Writes PAGES data pages, all in flight at once. Whatever happens, returns only
 * when none of them is in flight any more: the caller frees the pages after. */
static xio_err write_pages(engine *en, xio_io *io, char *pages, xio_error *e) {
  xio_err rc = XIO_OK;
  for (int i = 0; rc == XIO_OK && i < PAGES; i++)
    rc = submit_write(en, en->data, &io[i], (uint64_t)i * PAGE, pages + (size_t)i * PAGE, PAGE, e);
  xio_error ignored;
  xio_file_wait(en->data, &ignored); /* those submitted before a refusal finish first */
  return rc;
}

/* Grows the log ahead of the next record: one resize and one clear, whatever the
 * step, and the new bytes read as zeros (so recovery finds the end of the log). */
static xio_err grow_log_ahead(engine *en, size_t len, xio_error *e) {
  uint64_t size = xio_file_size(en->log);
  if (en->log_end + len + LOG_HEADROOM <= size) return XIO_OK;
  return xio_file_set_size(en->log, size + LOG_STEP, XIO_INIT_CLEAR, e);
}

/* A record of `len` bytes whose content depends on its number. */
static void make_record(char *rec, size_t len, int n) {
  int k = snprintf(rec, len, "rec %d:", n);
  for (size_t i = (size_t)k; i < len; i++)
    rec[i] = (char)('a' + (n + (int)i) % 26);
}

/* Appends RECORDS records of 40..1040 bytes, each its own asynchronous write at the
 * end of the log, and commits every GROUP of them with one flush. The record bytes
 * live in `arena` until their write completes (the flush waits for them). */
static xio_err append_log(engine *en, xio_io *io, char *arena, xio_error *e) {
  for (int i = 0; i < RECORDS; i++) {
    size_t len = 40 + (size_t)(i * 37) % 1001;
    xio_err rc = grow_log_ahead(en, len, e);
    if (rc != XIO_OK) return rc;
    char *rec = arena + en->log_end;
    make_record(rec, len, i);
    if ((rc = submit_write(en, en->log, &io[i], en->log_end, rec, len, e)) != XIO_OK) {
      xio_error ignored;
      xio_file_wait(en->log, &ignored); /* the arena must outlive what is in flight */
      return rc;
    }
    en->log_end += len;
    if ((i + 1) % GROUP != 0 && i + 1 != RECORDS) continue;
    if (atomic_load(&en->lease_lost)) { /* told at once: stop before writing more */
      xio_error_clear(e);
      e->code = XIO_ELEASELOST;
      snprintf(e->message, sizeof e->message,
               "the lease was lost: another process may own "
               "the database now");
      return XIO_ELEASELOST;
    }
    if ((rc = xio_file_flush(en->log, e)) != XIO_OK) return rc; /* the commit */
  }
  return XIO_OK;
}

/* Reads [0, len) of `f` and compares it with `want`. */
static int check_file(xio_file *f, const char *name, const char *want, size_t len) {
  xio_error e;
  char *got = malloc(len);
  size_t n = 0;
  if (!got) return fprintf(stderr, "out of memory\n"), 1;
  int bad = xio_file_read(f, 0, got, len, &n, &e) != XIO_OK ? fail(name, &e)
            : n != len || memcmp(got, want, len) != 0
                ? (fprintf(stderr, "%s: read back differs\n", name), 1)
                : 0;
  free(got);
  return bad;
}

static void print_stats(const char *name, const xio_file_stats *s) {
  printf("%-5s api writes %" PRIu64 " (%" PRIu64 " B), requests %" PRIu64 ": writes %" PRIu64
         ", reads %" PRIu64 " (read-backs %" PRIu64 "), zeroing %" PRIu64 "; retries %" PRIu64
         ", failures %" PRIu64 "\n",
         name, s->writes, s->bytes_written, s->requests, s->write_requests, s->read_requests,
         s->readback_requests, s->zero_requests, s->retries, s->failures);
}

/* What the guide promises for this workload: no sector read back (the log was created
 * here, so the layer knows every byte), and one write request per commit (a commit's
 * records are contiguous and far below 4 MiB, and only its flush sends them). */
static int check_costs(const xio_file_stats *log) {
  uint64_t commits = (RECORDS + GROUP - 1) / GROUP;
  if (log->readback_requests != 0)
    return fprintf(stderr, "log: %" PRIu64 " read-backs, expected none\n", log->readback_requests),
           1;
  if (log->write_requests != commits)
    return fprintf(stderr,
                   "log: %" PRIu64 " write requests for %" PRIu64 " commits, expected one each\n",
                   log->write_requests, commits),
           1;
  return 0;
}

static int work(xio_ctx *ctx, engine *en, char *pages, char *arena, xio_io *io) {
  xio_error e;
  for (size_t i = 0; i < (size_t)PAGES * PAGE; i++)
    pages[i] = (char)(i / PAGE + i);
  if (write_pages(en, io, pages, &e) != XIO_OK) return fail("write data pages", &e);
  if (append_log(en, io, arena, &e) != XIO_OK) return fail("append to the log", &e);
  if (xio_ctx_wait(ctx, &e) != XIO_OK) return fail("checkpoint", &e); /* both files */
  if (atomic_load(&en->io_failed) != XIO_OK) {
    xio_file_flush(en->data, &e); /* returns the first failure with its detail */
    return fail("an asynchronous write", &e);
  }
  int bad = check_file(en->data, "data", pages, (size_t)PAGES * PAGE);
  bad |= check_file(en->log, "log", arena, (size_t)en->log_end);
  xio_file_stats ds, ls;
  xio_file_get_stats(en->data, &ds);
  xio_file_get_stats(en->log, &ls);
  print_stats("data", &ds);
  print_stats("log", &ls);
  bad |= check_costs(&ls);
  if (!bad)
    printf("ok: %d pages, %d records (%" PRIu64 " B) in %d commits, log file %" PRIu64 " B\n",
           PAGES, RECORDS, en->log_end, (RECORDS + GROUP - 1) / GROUP, xio_file_size(en->log));
  return bad;
}

static int run(xio_ctx *ctx, engine *en, const char *dir) {
  xio_error e;
  en->data = open_file(ctx, dir, "example.mdf", XIO_KIND_DATA, 0, (uint64_t)PAGES * PAGE, &e);
  if (!en->data) return fail("open data file", &e);
  en->log = open_file(ctx, dir, "example.ldf", XIO_KIND_LOG, XIO_OPEN_UNALIGNED, LOG_STEP, &e);
  if (!en->log) return xio_file_close(en->data, NULL), fail("open log file", &e);
  char *pages = malloc((size_t)PAGES * PAGE), *arena = malloc((size_t)RECORDS * 1040);
  xio_io *io = calloc(RECORDS > PAGES ? RECORDS : PAGES, sizeof *io);
  int status = pages && arena && io ? work(ctx, en, pages, arena, io)
                                    : (fprintf(stderr, "out of memory\n"), 1);
  /* Closing waits for anything still in flight, so the buffers go after. */
  if (xio_file_close(en->log, &e) != XIO_OK) status = fail("close log", &e);
  if (xio_file_close(en->data, &e) != XIO_OK) status = fail("close data", &e);
  free(io);
  free(arena);
  free(pages);
  return status;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s CONTAINER_URL|DIRECTORY\n", argv[0]);
    return 2;
  }
  engine en = {0};
  xio_ctx_options o = xio_ctx_options_default(); /* credentials, XIO_TRACE from env */
  o.max_in_flight = 64;
  o.combine_window_us = WINDOW_US; /* the commits' flushes send the log's records */
  o.lease_news = on_lease;
  o.lease_news_ud = &en;
  xio_ctx *ctx = NULL;
  xio_error e;
  if (xio_ctx_new(&o, &ctx, &e) != XIO_OK) return fail("context", &e);
  int status = run(ctx, &en, argv[1]);
  xio_ctx_free(ctx);
  return status;
}
