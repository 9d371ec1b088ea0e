/*
 * transfer.c - copying whole files between a local disk and a target: put (upload
 * a local file) and get (download a target into a local file). Both move only what
 * holds data, in as few requests as that takes.
 *
 * put asks the file layer for the local file's data extents and recorded kind
 * (opening it read-only: SEEK_DATA/SEEK_HOLE, so the holes of a sparse file cost
 * nothing), reads each extent, 4 MiB at a time, into a ring of memory (source.c:
 * O_DIRECT where the file system takes it) and scans it for runs of 512-byte pages
 * that are not all zero. The runs go through a merge (merge.c) into Put Page
 * requests of up to 4 MiB that point straight into the ring: no byte is copied by
 * the command, and all-zero pages are never sent
 * (a fresh page blob reads them back as zeros anyway), except inside a small gap
 * the merge bridges (see PUT_GAP). A request never runs past the ring's end (the
 * ring is one mapping of huge pages, not mapped twice): the one being built is
 * sent before a chunk on the ring's next lap is loaded, at most one more request
 * per ring length (32 MiB at the default) than the merge alone would make, and
 * only where a request would have joined across the ring's end. get lists the
 * target's allocated ranges (page ranges, or data extents), sizes a new local file
 * with ftruncate (sparse), merges the ranges into reads of up to 8 MiB (bridging
 * gaps of up to GET_GAP) and writes only the listed ranges of each read where they
 * belong (and the zeros between two of them that no hole could hold), so the local
 * file is as sparse as the source and nothing is read twice.
 *
 * get writes with O_DIRECT where the local file system takes it: the download
 * must be durable before it is renamed into place (fsync), and a buffered write
 * would make that fsync copy every byte through the page cache and write it back,
 * which costs several times the transfer itself. The whole DIRECT_ALIGN blocks of
 * each write go straight from the (aligned) read buffers to the disk; the edges of
 * a range that does not start or end on one, such as a size that is not a whole
 * block, are written through a second, buffered descriptor of the same file. A
 * file system that refuses O_DIRECT (tmpfs), or refuses one write, gets buffered
 * writes from there on; --json says which ("direct").
 *
 * get reads up to GET_CHUNK (8 MiB) per request, twice Put Page's limit: reads
 * carry no transactional checksum, so the service takes any length, and fewer
 * requests cost the service less (the file layer sends a read of that size as
 * one Get Blob; see backend_pageblob.c for what a request costs Azurite).
 *
 * Memory is bounded by design, whatever the file's size. With N requests in flight
 * (--in-flight; default GET_IN_FLIGHT = 4 for get, PUT_IN_FLIGHT = 6 for put):
 *   get: peak RSS <= N x 8 MiB of read buffers + fixed, where fixed (program,
 *        libraries, connections, the library's own buffers) measures about 18 MiB:
 *        about 50 MiB at the default;
 *   put: peak RSS <= (N + 2) x 4 MiB (CHUNK) of ring (the requests in flight, the one being
 *        built and the chunk being scanned) + fixed, about 24 MiB here: at most
 *        56 MiB at the default, 53 to 56 MiB measured.
 * The command allocates nothing per byte of file: its only buffers are get's N
 * and put's ring.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <xio/alloc.h>

#include "cli.h"

#define CHUNK         ((size_t)4 << 20) /* the largest write (Put Page's limit) */
#define GET_CHUNK     ((size_t)8 << 20) /* the largest read */
#define PUT_IN_FLIGHT 6                 /* writes in flight by default */
#define GET_IN_FLIGHT 4                 /* reads in flight by default */
#define MAX_FLIGHT    64                /* --in-flight's ceiling */
#define PAGE          512u
#define DIRECT_ALIGN  ((uint64_t)4096) /* offsets, lengths, addresses of O_DIRECT reads, writes */

/*
 * The gaps a merge bridges. A request costs a round trip and the service's work
 * per request: on a loopback emulator about a millisecond, on Azure several, the
 * time it takes to move a few hundred KiB. Reading zeros costs only that
 * bandwidth (get writes only the listed ranges locally, so the local file stays
 * sparse), hence GET_GAP: gaps of up to 256 KiB are read through.
 *
 * Writing zeros is another matter: a page blob bills the pages that were written,
 * zeros or not, for as long as the blob lives, while a request is paid once (a
 * Put Page transaction is priced like storing about a KiB for a month). So put
 * bridges a gap only when it is no longer than the data already in the request,
 * and never more than PUT_GAP: fragmentation such as isolated pages one page apart
 * collapses into full 4 MiB requests (as a whole-file upload would send, at most
 * doubling the pages billed there), while data that is merely sparse is sent run
 * by run and the billed pages stay those that hold data. Fewer, longer page ranges
 * also keep later Get Page Ranges listings short.
 */
#define GET_GAP ((uint64_t)256 << 10)
#define PUT_GAP ((uint64_t)64 << 10)

static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* End of the 4 MiB-aligned chunk holding `off`, capped at `limit`. */
static uint64_t chunk_end(uint64_t off, uint64_t limit) {
  return min_u64(limit, (off / CHUNK + 1) * CHUNK);
}

/* --in-flight N (1..MAX_FLIGHT) into c->in_flight; NULL leaves `dflt`. */
static int take_in_flight(cli *c, const char *text, int dflt) {
  c->in_flight = dflt;
  if (!text) return CLI_CONTINUE;
  return cli_value_int(c, "--in-flight", text, 1, MAX_FLIGHT, &c->in_flight);
}

/* --------------------------------------------------------- signals ---- */

/* SIGINT or SIGTERM received during a transfer (0: none). The transfer stops issuing
 * requests, waits for those in flight, says what is left and exits 128 + the signal. */
static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig) { stop_signal = sig; }

static void catch_stop_signals(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
}

static const char *stop_name(void) { return stop_signal == SIGINT ? "SIGINT" : "SIGTERM"; }

/* XIO_ECANCELED when a stop signal arrived. */
static xio_err check_stop(xio_error *err) {
  if (!stop_signal) return XIO_OK;
  return xio_error_set(err, XIO_ECANCELED, "interrupted by %s", stop_name());
}

/* The exit status of a transfer stopped by a signal: 130 (SIGINT) or 143 (SIGTERM). */
static int stop_status(void) { return 128 + stop_signal; }

/* A stop signal that came before `cmd` had changed anything, so there is nothing
 * to finish: "xio: CMD interrupted by SIGTERM before " and what it had not done. */
static int stopped_before(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int stopped_before(const char *cmd, const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "xio: %s interrupted by %s before ", cmd, stop_name());
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  return stop_status();
}

/* A stop signal that came once the last request was on its way: the transfer is
 * whole all the same, and the exit status still says it was stopped. */
static int stopped_after(const char *cmd, const char *done) {
  fprintf(stderr, "xio: %s: %s came as the transfer finished; %s is complete\n", cmd, stop_name(),
          done);
  return stop_status();
}

/* ---------------------------------------------------- local files ---- */

/* pwrite of all `n` bytes at `off`: 0, or the errno of the write that failed. */
static int pwrite_errno(int fd, const char *buf, size_t n, uint64_t off) {
  for (size_t put = 0; put < n;) {
    ssize_t k = pwrite(fd, buf + put, n - put, (off_t)(off + put));
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return k < 0 ? errno : EIO;
    put += (size_t)k;
  }
  return 0;
}

static xio_err pwrite_all(int fd, const char *path, const char *buf, size_t n, uint64_t off,
                          xio_error *err) {
  int e = pwrite_errno(fd, buf, n, off);
  return e ? xio_error_from_errno(err, e, "WriteLocalFile", "pwrite", path) : XIO_OK;
}

/* 1 when `a` and `b` name the same local file (both exist). */
static int same_file(const char *a, const char *b) {
  struct stat sa, sb;
  if (cli_is_url(a) || cli_is_url(b) || stat(a, &sa) != 0 || stat(b, &sb) != 0) return 0;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* ------------------------------------------------------------- put ---- */

typedef struct put_job {
  cli *c;
  const char *local;
  int fd;
  uint64_t size;
  xio_kind kind;
  xio_file *f;
  cli_window w;   /* requests only: they point into the source's ring */
  cli_merge m;    /* non-zero runs into Put Page requests */
  cli_source src; /* LOCAL, read a chunk ahead of the requests */
  uint64_t pos;   /* everything below was sent or skipped */
  uint64_t scanned, sent, pages_sent, writes;
  uint64_t throttled; /* the target's tries answered with a throttling answer */
  xio_ranges ext;     /* the local file's data extents */
  cli_progress prog;
  int overwrite; /* the target existed and is being overwritten in place */
  int marked;    /* the target was marked incomplete */
  int touched;   /* a request that changes the target's size or bytes was issued */
  int resume;    /* --resume: compare with what the target holds, send what differs */
  int buffered;  /* --buffered: read LOCAL through the page cache, not with O_DIRECT */
  char *cmp;     /* --resume: the target's bytes of the chunk */
} put_job;

static int page_is_zero(const char *p, size_t n) {
  return p[0] == 0 && memcmp(p, p + 1, n - 1) == 0;
}

/* Length of the run of pages at `p` (n bytes left) that are all zero (`zero` 1) or
 * all not (`zero` 0). */
static size_t run_length(const char *p, size_t n, int zero) {
  size_t i = 0;
  while (i < n) {
    size_t k = min_u64(PAGE, n - i);
    if (page_is_zero(p + i, k) != zero) break;
    i += k;
  }
  return i;
}

/* The merge's request: a Put Page of [start, end) straight from the ring. */
static xio_err send_request(uint64_t start, uint64_t end, void *ud, xio_error *err) {
  put_job *j = ud;
  size_t len = (size_t)(end - start);
  cli_slot *s;
  xio_err rc = cli_window_next(&j->w, &s, err);
  if (rc != XIO_OK) return rc;
  j->touched = 1;
  rc = cli_window_submit(&j->w, s, j->f, XIO_IO_WRITE, start, len,
                         (void *)cli_source_at(&j->src, start), err);
  if (rc != XIO_OK) return rc;
  j->sent += len;
  j->pages_sent += (len + PAGE - 1) / PAGE;
  j->writes++;
  return XIO_OK;
}

/* Makes the ring's room for the chunk [off, end) about to be loaded. The request
 * being built is sent first when nothing from `off` on can join it (it starts a
 * whole request's length below): after a jump over a hole it may lie anywhere
 * below, in the very place the chunk is to take. It is also sent when it started
 * on the ring's lap before the chunk's (the chunk is the first past the ring's
 * end, wherever in it an extent starts): joined by the chunk's bytes, it would run
 * past the ring's end, where its bytes are not. That costs at most one request
 * per ring length (32 MiB at the default), and only for a request that the
 * chunk's bytes would have joined across the ring's end. Then the requests in
 * flight that point a ring's length or more below the end of what the load
 * writes are waited for: `end`, or the end of its 4 KiB block when the load reads
 * the file's last partial block with O_DIRECT, which fills the whole block of
 * the ring, where a write sent a ring's length below may start. What is left (a
 * request being built starts less than 4 MiB below the chunk) is within N + 2
 * chunks, the ring's length, so this always makes room. */
static xio_err make_room(put_job *j, uint64_t off, uint64_t end, xio_error *err) {
  uint64_t lap = j->src.size;
  if (j->m.end > j->m.start && (off >= j->m.start + CHUNK || j->m.start / lap != off / lap)) {
    xio_err rc = cli_merge_flush(&j->m, err);
    if (rc != XIO_OK) return rc;
  }
  uint64_t top = (end + DIRECT_ALIGN - 1) / DIRECT_ALIGN * DIRECT_ALIGN;
  if (top <= lap) return XIO_OK;
  return cli_window_wait_below(&j->w, top - lap, err);
}

/* Feeds the non-zero runs of the chunk of `n` bytes at `off` to the merge. */
static xio_err send_chunk(put_job *j, uint64_t off, size_t n, xio_error *err) {
  const char *p = cli_source_at(&j->src, off);
  size_t i = 0;
  while (i < n) {
    i += run_length(p + i, n - i, 1);
    size_t len = run_length(p + i, n - i, 0);
    if (len == 0) break;
    xio_err rc = cli_merge_span(&j->m, off + i, off + i + len, err);
    if (rc != XIO_OK) return rc;
    i += len;
  }
  return XIO_OK;
}

/* --resume: sends the pages of the chunk of `n` bytes at `off` that the target
 * does not already hold, after reading the target's bytes there. */
static xio_err send_differences(put_job *j, uint64_t off, size_t n, xio_error *err) {
  const char *p = cli_source_at(&j->src, off);
  xio_err rc = cli_merge_flush(&j->m, err);
  if (rc == XIO_OK) rc = cli_window_drain(&j->w, err); /* the chunk before is written */
  if (rc == XIO_OK) rc = xio_file_read(j->f, off, j->cmp, n, NULL, err);
  for (size_t i = 0; rc == XIO_OK && i < n;) {
    size_t len = 0;
    while (i + len < n) {
      size_t k = min_u64(PAGE, n - i - len);
      if (memcmp(p + i + len, j->cmp + i + len, k) == 0) break;
      len += k;
    }
    if (len) rc = cli_merge_span(&j->m, off + i, off + i + len, err);
    i += len ? len : min_u64(PAGE, n - i);
  }
  return rc;
}

/* Uploads the data extent [start, end] widened to whole pages. */
static xio_err send_extent(put_job *j, uint64_t start, uint64_t end, xio_error *err) {
  uint64_t off = start / PAGE * PAGE;
  uint64_t stop = min_u64((end / PAGE + 1) * PAGE, j->size);
  if (off < j->pos) off = j->pos;
  while (off < stop) {
    uint64_t next = chunk_end(off, stop);
    size_t n = (size_t)(next - off);
    xio_err rc = check_stop(err);
    if (rc == XIO_OK) rc = cli_source_check(&j->src, err); /* still the file it was */
    if (rc == XIO_OK) rc = make_room(j, off, next, err);
    if (rc == XIO_OK) rc = cli_source_load(&j->src, off, n, err);
    if (rc == XIO_OK && j->resume)
      rc = send_differences(j, off, n, err);
    else if (rc == XIO_OK)
      rc = send_chunk(j, off, n, err);
    if (rc != XIO_OK) return rc;
    j->scanned += n;
    cli_progress_add(&j->prog, n);
    off = j->pos = next;
  }
  return XIO_OK;
}

static xio_err upload(put_job *j, xio_error *err) {
  const xio_ranges *ext = &j->ext;
  cli_merge_init(&j->m, PUT_GAP, 1, CHUNK, send_request, j);
  xio_err rc = cli_window_init(&j->w, j->c->in_flight, 0, NULL, NULL, err);
  if (rc == XIO_OK && j->resume && !(j->cmp = xio_malloc(CHUNK)))
    rc = xio_error_set(err, XIO_ENOMEM, "out of memory");
  cli_progress_start(&j->prog, j->c, "put", j->resume ? j->size : xio_ranges_bytes(ext));
  if (j->resume && j->size) /* every byte is compared: the target may hold anything */
    rc = rc == XIO_OK ? send_extent(j, 0, j->size - 1, err) : rc;
  for (size_t i = 0; !j->resume && rc == XIO_OK && i < ext->n; i++)
    rc = send_extent(j, ext->v[i].start, ext->v[i].end, err);
  if (rc == XIO_OK) rc = cli_merge_flush(&j->m, err);
  xio_error de;
  xio_err drc = cli_window_drain(&j->w, &de); /* also when stopped: wait for what is in flight */
  if (rc == XIO_OK && drc != XIO_OK) {
    rc = drc;
    *err = de;
  }
  if (rc == XIO_OK) rc = check_stop(err); /* stopped: the target stays marked incomplete */
  if (rc == XIO_OK) rc = cli_source_check(&j->src, err); /* unchanged up to the last write */
  if (rc == XIO_OK) rc = xio_file_flush(j->f, err);
  if (rc == XIO_OK) rc = xio_file_set_incomplete(j->f, 0, err); /* every write acknowledged */
  cli_progress_end(&j->prog);
  cli_window_free(&j->w);
  xio_free(j->cmp);
  return rc;
}

/* Open flags for the target: unaligned writes when the size is not whole pages. */
static xio_open_options target_options(const put_job *j, unsigned flags) {
  xio_open_options o = xio_open_options_default();
  o.flags = flags | (j->size % PAGE ? XIO_OPEN_UNALIGNED : 0);
  o.kind = j->kind;
  o.size = j->size;
  o.init = XIO_INIT_NONE; /* a new file reads as zeros; only data is sent */
  return o;
}

/* Replaces the content of the existing target in place, so that its snapshots stay:
 * records the new kind, sets the new size (growth reads as zeros) and clears what
 * is left of the old content, before any data is written. */
static xio_err overwrite_target(put_job *j, xio_ctx *ctx, const char *target, xio_error *err) {
  xio_open_options o = target_options(j, XIO_OPEN_INCOMPLETE_OK); /* replaced anyway */
  xio_err rc = xio_file_open(ctx, target, &o, &j->f, err);
  if (rc != XIO_OK) return rc;
  uint64_t old = xio_file_size(j->f);
  rc = xio_file_set_incomplete(j->f, 1, err);
  j->marked = rc == XIO_OK;
  if (rc == XIO_OK) rc = xio_file_set_kind(j->f, j->kind, err);
  j->touched = rc == XIO_OK; /* the content changes from here on */
  if (rc == XIO_OK) rc = xio_file_set_size(j->f, j->size, XIO_INIT_NONE, err);
  /* whole pages of the old content (the new size may be whole pages when the old is not) */
  uint64_t keep = min_u64((min_u64(old, j->size) + PAGE - 1) / PAGE * PAGE, j->size);
  if (rc == XIO_OK && keep) rc = xio_file_zero(j->f, 0, keep, XIO_INIT_CLEAR, err);
  if (rc != XIO_OK) {
    xio_file_close(j->f, NULL);
    j->f = NULL;
  }
  return rc;
}

/* --resume: opens the target an interrupted put left (marked incomplete, or not),
 * marks it and gives it LOCAL's size and kind; upload then sends what differs. */
static xio_err resume_target(put_job *j, xio_ctx *ctx, const char *target, xio_error *err) {
  xio_open_options o = target_options(j, XIO_OPEN_INCOMPLETE_OK);
  xio_err rc = xio_file_open(ctx, target, &o, &j->f, err);
  if (rc == XIO_ENOTFOUND && err)
    snprintf(err->message, sizeof err->message, "%.400s does not exist: nothing to resume",
             err->target[0] ? err->target : "TARGET");
  if (rc != XIO_OK) return rc;
  j->overwrite = 1; /* never deleted on failure */
  rc = xio_file_set_incomplete(j->f, 1, err);
  j->marked = rc == XIO_OK;
  if (rc == XIO_OK) rc = xio_file_set_kind(j->f, j->kind, err);
  j->touched = rc == XIO_OK; /* the content changes from here on */
  if (rc == XIO_OK) rc = xio_file_set_size(j->f, j->size, XIO_INIT_NONE, err);
  if (rc != XIO_OK) {
    xio_file_close(j->f, NULL);
    j->f = NULL;
  }
  return rc;
}

/* Creates the target; with --force an existing one is overwritten in place. */
static xio_err create_target(put_job *j, const char *target, int force, xio_error *err) {
  xio_ctx *ctx;
  xio_err rc = cli_context(j->c, &ctx, err);
  if (rc == XIO_OK && j->resume) return resume_target(j, ctx, target, err);
  xio_open_options o = target_options(j, XIO_OPEN_CREATE_ONLY);
  if (rc == XIO_OK) rc = xio_file_open(ctx, target, &o, &j->f, err);
  if (rc == XIO_OK) { /* marked before the first data write */
    rc = xio_file_set_incomplete(j->f, 1, err);
    if (rc != XIO_OK) {
      xio_file_close(j->f, NULL);
      j->f = NULL;
      xio_file_delete(ctx, target, NULL);
    }
    return rc;
  }
  if (rc == XIO_EEXIST && force) {
    xio_error_clear(err);
    j->overwrite = 1;
    return overwrite_target(j, ctx, target, err);
  }
  if (rc == XIO_EEXIST && err) /* say how to replace it, as get does for LOCAL */
    snprintf(err->message, sizeof err->message, "%.400s already exists; --force replaces it",
             err->target[0] ? err->target : "TARGET");
  return rc;
}

/* The line that says the service throttled a transfer's requests (`tries` of them
 * answered 503 ServerBusy or 500 OperationTimedOut, each retried), when it did. */
static void say_throttled(const cli *c, const char *cmd, uint64_t tries) {
  if (tries)
    cli_say(c,
            "%s: the service throttled %" PRIu64 " tr%s (503 ServerBusy or 500 "
            "OperationTimedOut), each retried after a wait; --trace shows each as an "
            "xio_failed_request",
            cmd, tries, tries == 1 ? "y" : "ies");
}

static void put_report(const put_job *j, const char *target, double secs) {
  uint64_t pages = (j->size + PAGE - 1) / PAGE;
  double rate = secs > 0 ? (double)j->sent / secs / (1024.0 * 1024.0) : 0;
  char hs[32], hc[32], hn[32], ht[32];
  if (j->c->json) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "command", "put");
    cJSON_AddStringToObject(o, "source", j->local);
    cJSON_AddStringToObject(o, "target", target);
    cJSON_AddStringToObject(o, "kind", cli_kind_name(j->kind));
    cli_json_u64(o, "size", j->size);
    cli_json_u64(o, "extents", j->ext.n);
    cli_json_u64(o, "bytes_scanned", j->scanned);
    cli_json_u64(o, "bytes_sent", j->sent);
    cli_json_u64(o, "writes", j->writes);
    cli_json_u64(o, "pages_sent", j->pages_sent);
    cli_json_u64(o, "pages_skipped", pages - j->pages_sent);
    cli_json_u64(o, "bytes_bridged", j->m.bridged); /* zeros sent inside merged writes */
    cJSON_AddBoolToObject(o, "direct", j->src.direct);
    cli_json_u64(o, "bytes_direct", j->src.bytes_direct);
    cli_json_u64(o, "throttled", j->throttled); /* tries answered 503/500 throttling */
    cJSON_AddNumberToObject(o, "seconds", secs);
    cJSON_AddNumberToObject(o, "mib_per_s", rate);
    cli_json_print(o);
    return;
  }
  cli_say(j->c,
          "put %s -> %s: %s %s file; scanned %s, sent %s in %" PRIu64 " write%s, skipped %" PRIu64
          " zero page%s, in %s (%.1f MiB/s)",
          j->local, target, samples_fmt_size(j->size, hs, sizeof hs), cli_kind_name(j->kind),
          samples_fmt_size(j->scanned, hc, sizeof hc), samples_fmt_size(j->sent, hn, sizeof hn),
          j->writes, cli_plural(j->writes), pages - j->pages_sent,
          cli_plural(pages - j->pages_sent), samples_fmt_secs(secs, ht, sizeof ht), rate);
  say_throttled(j->c, "put", j->throttled);
}

/* Lists LOCAL's data extents and, unless --kind says, its recorded kind, through the
 * file layer (opened read-only: no lock, nothing written). A LOCAL that looks like a
 * URL is handed over as "./LOCAL", so that it stays a path. */
static xio_err inspect_local(put_job *j, const char *kind_s, xio_error *err) {
  const char *dot = xio_target_scheme_length(j->local) ? "./" : "";
  size_t n = strlen(dot) + strlen(j->local) + 1;
  char *path = xio_malloc(n);
  if (!path) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  snprintf(path, n, "%s%s", dot, j->local);
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_READONLY;
  xio_file *f;
  xio_err rc = cli_open(j->c, path, &o, &f, err);
  xio_free(path);
  if (rc != XIO_OK) return rc;
  if (!kind_s) j->kind = xio_file_kind(f);
  rc = xio_file_ranges(f, &j->ext, err);
  xio_err crc = xio_file_close(f, rc == XIO_OK ? err : NULL);
  return rc != XIO_OK ? rc : crc;
}

/* What a file that is not a regular one is, for a message. */
static const char *file_type(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "of an unknown type";
}

/* Opens LOCAL for reading without waiting on it: a FIFO that no process writes
 * would block open(2) until one does, so the open does not wait (O_NONBLOCK), what
 * is not a regular file is refused, naming what it is, and reads block again. */
static xio_err open_regular(put_job *j, struct stat *st, xio_error *err) {
  j->fd = open(j->local, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (j->fd < 0) return xio_error_from_errno(err, errno, "OpenLocalFile", "open", j->local);
  if (fstat(j->fd, st) != 0)
    return xio_error_from_errno(err, errno, "OpenLocalFile", "fstat", j->local);
  if (!S_ISREG(st->st_mode)) {
    xio_error_set(err, XIO_EINVAL, "%s is not a regular file but %s: put uploads regular files",
                  j->local, file_type(st->st_mode));
    xio_error_set_operation(err, "OpenLocalFile");
    return XIO_EINVAL;
  }
  int flags = fcntl(j->fd, F_GETFL);
  if (flags < 0 || fcntl(j->fd, F_SETFL, flags & ~O_NONBLOCK) != 0)
    return xio_error_from_errno(err, errno, "OpenLocalFile", "fcntl", j->local);
  return XIO_OK;
}

/* Opens LOCAL for reading, learns its size, kind and data extents, and sets up the
 * ring it is read into. */
static xio_err open_local_source(put_job *j, const char *kind_s, xio_error *err) {
  struct stat st;
  xio_err rc = open_regular(j, &st, err);
  if (rc != XIO_OK) return rc;
  size_t ring = (size_t)(j->c->in_flight + 2) * CHUNK;
  rc = cli_source_open(&j->src, j->local, j->fd, ring, !j->buffered, err);
  j->size = j->src.file_size; /* as the source saw it: what later checks compare with */
  return rc == XIO_OK ? inspect_local(j, kind_s, err) : rc;
}

/* A put stopped by a signal: what was sent and what is left; the target stays
 * marked incomplete. Frees `safe`. */
static int put_interrupted(const put_job *j, char *safe) {
  char hs[32], hl[32];
  uint64_t total = j->resume ? j->size : xio_ranges_bytes(&j->ext);
  fprintf(stderr,
          "xio: put interrupted by %s: %s of %s scanned and sent; %s is marked incomplete; "
          "`xio put --resume %s %s` finishes it\n",
          stop_name(), samples_fmt_size(j->scanned, hs, sizeof hs),
          samples_fmt_size(total, hl, sizeof hl), safe ? safe : "the target", j->local,
          safe ? safe : "TARGET");
  xio_free(safe);
  return stop_status();
}

/* LOCAL changed during the upload: the target, marked incomplete before the first
 * write, stays so (a new one is not deleted, as after an interrupted put), and the
 * message says to put again. Frees `safe`. */
static int source_changed(const put_job *j, char *safe, xio_err rc, xio_error *e) {
  const char *name = safe ? safe : "the target";
  size_t n = strlen(e->message);
  snprintf(e->message + n, sizeof e->message - n,
           "; %.160s is marked incomplete; put again once %.100s no longer changes "
           "(`xio put --resume` sends only what differs)",
           name, j->local);
  xio_free(safe);
  return cli_fail(j->c, rc, e);
}

/* A failed overwrite in place: what became of the target, and that its snapshots
 * are kept. Once a request that changes its size or bytes was issued, it may hold
 * part of the new content; before, its content is unchanged (marked incomplete, or
 * not written at all), and when another client's lease refused the first change,
 * the message names the lease and how to end it. */
static int overwrite_failed(const put_job *j, const char *target, xio_err rc, xio_error *e) {
  char *safe = cli_safe_target(target);
  const char *name = safe ? safe : "TARGET";
  size_t n = strlen(e->message);
  if (j->touched)
    snprintf(e->message + n, sizeof e->message - n,
             "; the target may hold part of the new content (its snapshots are kept): "
             "put --force again replaces it");
  else if (rc == XIO_EBUSY && cli_is_url(target))
    snprintf(e->message, sizeof e->message,
             "%.190s is leased by another client; nothing was written (its snapshots are "
             "kept); `xio lease break %.190s` ends the lease",
             name, name);
  else if (j->marked)
    snprintf(e->message + n, sizeof e->message - n,
             "; the target's content was not changed, but it is marked incomplete (its "
             "snapshots are kept): put --force again replaces it");
  else
    snprintf(e->message + n, sizeof e->message - n,
             "; nothing was written (its snapshots are kept)");
  xio_free(safe);
  return cli_fail(j->c, rc, e);
}

/* Uploads, then closes the target; removes a target it created that is left half
 * written (an overwritten one stays: deleting it would delete its snapshots). */
static int put_run(put_job *j, const char *target, int force) {
  xio_error e, ce;
  double t0 = samples_now();
  xio_err rc = create_target(j, target, force, &e);
  if (rc != XIO_OK)
    return j->overwrite ? overwrite_failed(j, target, rc, &e) : cli_fail(j->c, rc, &e);
  char *safe = xio_strdup(xio_file_path(j->f));
  rc = upload(j, &e);
  xio_file_stats st;
  xio_file_get_stats(j->f, &st);
  j->throttled = st.throttled;
  xio_err crc = xio_file_close(j->f, &ce);
  if (rc == XIO_OK && crc != XIO_OK) {
    rc = crc;
    e = ce;
  }
  int status = CLI_OK;
  if (rc == XIO_OK) {
    put_report(j, safe ? safe : "", samples_now() - t0);
    if (stop_signal) status = stopped_after("put", safe ? safe : "the target");
  } else if (rc == XIO_ECANCELED && stop_signal) {
    return put_interrupted(j, safe);
  } else if (j->src.changed) {
    return source_changed(j, safe, rc, &e);
  } else if (!j->overwrite) {
    xio_file_delete(j->c->ctx, target, NULL);
  }
  xio_free(safe);
  if (rc == XIO_OK) return status;
  return j->overwrite ? overwrite_failed(j, target, rc, &e) : cli_fail(j->c, rc, &e);
}

static int run_put(cli *c, int argc, char **argv) {
  const char *kind_s = NULL, *flight_s = NULL, *checksum_s = NULL, *pos[2];
  int force = 0, resume = 0, buffered = 0;
  const cli_opt opts[] = {{"--kind", &kind_s, NULL},
                          {"--force", NULL, &force},
                          {"--resume", NULL, &resume},
                          {"--in-flight", &flight_s, NULL},
                          {"--checksum", &checksum_s, NULL},
                          {"--buffered", NULL, &buffered},
                          {NULL, NULL, NULL}};
  int r = cli_parse(c, argc, argv, opts, "LOCAL TARGET", 2, pos);
  if (r != CLI_CONTINUE) return r;
  put_job j;
  memset(&j, 0, sizeof j);
  j.fd = j.src.dfd = -1;
  j.c = c;
  j.buffered = buffered;
  j.local = pos[0];
  j.resume = resume;
  if ((r = cli_value_kind(c, kind_s, &j.kind)) != CLI_CONTINUE) return r;
  if ((r = take_in_flight(c, flight_s, PUT_IN_FLIGHT)) != CLI_CONTINUE) return r;
  if ((r = cli_value_checksum(c, checksum_s, &c->checksum)) != CLI_CONTINUE) return r;
  xio_error e;
  char *dest = NULL; /* a local TARGET that is a directory: DIR/NAME */
  xio_err rc = cli_is_url(pos[1]) ? XIO_OK : cli_local_dest(pos[1], pos[0], &dest, &e);
  if (rc != XIO_OK) return cli_fail(c, rc, &e);
  if (dest) pos[1] = dest;
  if (same_file(pos[0], pos[1])) {
    xio_free(dest);
    return cli_usage_error(c, "LOCAL and TARGET are the same file");
  }
  catch_stop_signals();
  rc = open_local_source(&j, kind_s, &e);
  if (rc != XIO_OK) {
    r = cli_fail(c, rc, &e);
  } else if (stop_signal) {
    char *safe = cli_safe_target(pos[1]);
    r = stopped_before("put", "it opened %s; nothing was written", safe ? safe : "TARGET");
    xio_free(safe);
  } else {
    r = put_run(&j, pos[1], force);
  }
  cli_source_close(&j.src);
  if (j.fd >= 0) close(j.fd);
  xio_ranges_clear(&j.ext);
  xio_free(dest);
  return r;
}

const cli_command cli_cmd_put = {
    "put",
    "upload a local file, skipping all-zero pages",
    "put LOCAL TARGET [--kind data|log] [--force] [--resume] [--in-flight N] [--checksum SUM] "
    "[--buffered]",
    "Uploads the local file LOCAL to TARGET, a new file of the same size. Only the\n"
    "512-byte pages that hold something other than zeros are sent: holes of a\n"
    "sparse file are never read, and all-zero pages are skipped, except where a\n"
    "gap between data is no longer than the data before it (64 KiB at most): it is\n"
    "sent inside one write of up to 4 MiB, so a fragmented file costs a few\n"
    "requests, not one per page. A local directory as TARGET takes the file under\n"
    "LOCAL's name, as cp(1) does.\n"
    "\n"
    "Options:\n"
    "  --kind data|log   the kind of the new file (default: LOCAL's recorded kind,\n"
    "                    else data)\n"
    "  --force           replace TARGET's content when it exists: it is overwritten\n"
    "                    in place (resized, cleared, rewritten), so its snapshots\n"
    "                    stay\n"
    "  --resume          finish an interrupted put: compare TARGET with LOCAL and\n"
    "                    send only the pages that differ\n"
    "  --in-flight N     writes in flight at once, 1..64 (default 6); memory stays\n"
    "                    under (N + 2) x 4 MiB of ring, plus about 15 MiB\n"
    "  --checksum crc64|md5|none\n"
    "                    the transactional checksum each write carries, which the\n"
    "                    service verifies before storing (default crc64)\n"
    "  --buffered        read LOCAL through the page cache; by default it is read\n"
    "                    with O_DIRECT where the file system allows, which costs\n"
    "                    less CPU and leaves the page cache to others\n"
    "\n"
    "TARGET is marked incomplete until every write is acknowledged; SIGINT or SIGTERM\n"
    "stops issuing, waits for the writes in flight and exits 130 or 143, in whatever\n"
    "phase it comes. LOCAL must be a regular file (a FIFO or a device is refused) that\n"
    "holds still: if it grows, shrinks, is written or its path is renamed over before\n"
    "the last write is acknowledged, put fails and TARGET stays marked incomplete.\n",
    run_put,
};

/* ------------------------------------------------------------- get ---- */

typedef struct get_job {
  cli *c;
  char *local;           /* LOCAL, or DIR/NAME for a directory (owned) */
  char *partial;         /* LOCAL.xio-partial: the download until it is complete */
  int resume;            /* --resume: continue the partial file */
  int buffered;          /* --buffered: write through the page cache, not O_DIRECT */
  uint64_t from;         /* everything below was already fetched (resume) */
  uint64_t issued;       /* everything below was requested */
  char etag[80];         /* the source's ETag: a resume needs the same source */
  char snapshot[64];     /* --snapshot: the snapshot taken for the get and read, or "" */
  char *snapshot_url;    /* TARGET?snapshot=ID (with TARGET's SAS, if any), or NULL */
  int fd;                /* the partial file, buffered: edges, size, attributes, fsync */
  int dfd;               /* the same file opened with O_DIRECT, or -1 */
  int direct;            /* 1 while O_DIRECT writes are in use (none refused) */
  uint64_t block;        /* the local file system's block: the smallest hole */
  uint64_t direct_bytes; /* written with O_DIRECT */
  xio_file *f;
  uint64_t size, fetched, reads;
  xio_ranges ranges;
  size_t unwritten; /* the first range not yet written in full */
  cli_merge m;      /* ranges into reads */
  cli_window w;
  cli_progress prog;
} get_job;

/* Writes the `n` bytes at `p` to the partial file at `off`: the whole DIRECT_ALIGN
 * blocks through the O_DIRECT descriptor when the buffer allows, the rest buffered.
 * A write O_DIRECT refuses (EINVAL) is done buffered, and so is every later one. */
static xio_err write_local(get_job *j, const char *p, size_t n, uint64_t off, xio_error *err) {
  uint64_t head = (off + DIRECT_ALIGN - 1) / DIRECT_ALIGN * DIRECT_ALIGN;
  uint64_t tail = (off + n) / DIRECT_ALIGN * DIRECT_ALIGN;
  if (j->dfd < 0 || tail <= head || (uintptr_t)(p + (head - off)) % DIRECT_ALIGN)
    return pwrite_all(j->fd, j->local, p, n, off, err);
  xio_err rc = pwrite_all(j->fd, j->local, p, (size_t)(head - off), off, err);
  if (rc != XIO_OK) return rc;
  int e = pwrite_errno(j->dfd, p + (head - off), (size_t)(tail - head), head);
  if (e == EINVAL) { /* this file or disk wants another alignment: buffered from here */
    close(j->dfd);
    j->dfd = -1;
    j->direct = 0;
    rc = pwrite_all(j->fd, j->local, p + (head - off), (size_t)(tail - head), head, err);
  } else if (e) {
    rc = xio_error_from_errno(err, e, "WriteLocalFile", "pwrite", j->local);
  } else {
    j->direct_bytes += tail - head;
  }
  if (rc != XIO_OK) return rc;
  return pwrite_all(j->fd, j->local, p + (tail - off), (size_t)(off + n - tail), tail, err);
}

/* Opens the O_DIRECT descriptor of the partial file beside the buffered one; a
 * file system that refuses it (EINVAL: tmpfs) leaves dfd -1 and writes buffered,
 * as --buffered does. */
static void open_direct(get_job *j) {
  j->dfd = j->buffered ? -1 : open(j->partial, O_WRONLY | O_CLOEXEC | O_DIRECT);
  j->direct = j->dfd >= 0;
}

/* 1 when [from, to) holds a whole block of the local file system, which could stay
 * a hole. */
static int holds_a_block(const get_job *j, uint64_t from, uint64_t to) {
  uint64_t first = (from + j->block - 1) / j->block * j->block;
  return first + j->block <= to;
}

/* A read of [a, b) finished: the parts of it that lie in listed ranges go where
 * they belong in the local file. A gap the merge bridged is not written, so it
 * stays a hole, unless it holds no whole block of the file system: such a gap can
 * never be a hole, and its zeros (unlisted pages read as zeros) are written with
 * the ranges around it, in one write that O_DIRECT can take instead of a small
 * buffered write per page. Reads complete in order, so the ranges are walked once. */
static xio_err write_slot(cli_slot *s, void *ud, xio_error *err) {
  get_job *j = ud;
  uint64_t a = s->io.offset, b = a + s->io.transferred, px = 0, py = 0;
  const char *buf = s->io.buf;
  j->fetched += s->io.transferred;
  xio_err rc = XIO_OK;
  while (rc == XIO_OK && j->unwritten < j->ranges.n) {
    const xio_range *r = &j->ranges.v[j->unwritten];
    if (r->start >= b) break;
    uint64_t x = r->start > a ? r->start : a, y = min_u64(r->end + 1, b);
    if (x < y) {
      if (py > px && !holds_a_block(j, py, x)) { /* no hole fits between: write on */
        py = y;
      } else {
        if (py > px) rc = write_local(j, buf + (px - a), (size_t)(py - px), px, err);
        px = x, py = y;
      }
      cli_progress_add(&j->prog, y - x);
    }
    if (r->end + 1 > b) break;
    j->unwritten++;
  }
  if (rc == XIO_OK && py > px) rc = write_local(j, buf + (px - a), (size_t)(py - px), px, err);
  return rc;
}

/* The merge's request: a read of [start, end) into the next slot's buffer, at
 * start % DIRECT_ALIGN into it, so that each byte's address in the buffer is as
 * far into a DIRECT_ALIGN block as its offset in the file: the whole blocks of a
 * read that starts off a block boundary can still be written with O_DIRECT. */
static xio_err fetch_request(uint64_t start, uint64_t end, void *ud, xio_error *err) {
  get_job *j = ud;
  cli_slot *s;
  xio_err rc = check_stop(err);
  if (rc == XIO_OK) rc = cli_window_next(&j->w, &s, err);
  if (rc == XIO_OK)
    rc = cli_window_submit(&j->w, s, j->f, XIO_IO_READ, start, (size_t)(end - start),
                           s->buf + start % DIRECT_ALIGN, err);
  if (rc != XIO_OK) return rc;
  j->reads++;
  j->issued = end;
  return XIO_OK;
}

static xio_err fetch_range(get_job *j, uint64_t start, uint64_t end, xio_error *err) {
  if (start < j->from) start = j->from;
  if (start > end) return XIO_OK;
  return cli_merge_span(&j->m, start, end + 1, err);
}

#define XATTR_DONE "user.xio.get-done" /* on the partial file: "OFFSET ETAG" */

/* An interrupted get: the partial file records how far it got and from which
 * version of the source (its ETag), for --resume. */
static void record_progress(get_job *j) {
  char v[128];
  int n = snprintf(v, sizeof v, "%" PRIu64 " %s", j->issued, j->etag);
  (void)fsetxattr(j->fd, XATTR_DONE, v, (size_t)n, 0);
}

static xio_err download(get_job *j, xio_error *err) {
  xio_err rc = xio_file_ranges(j->f, &j->ranges, err);
  if (rc == XIO_OK && !j->resume && ftruncate(j->fd, (off_t)j->size) != 0)
    rc = xio_error_from_errno(err, errno, "WriteLocalFile", "ftruncate", j->local);
  if (rc == XIO_OK) /* a read lands at its offset's place in a block: see fetch_request */
    rc = cli_window_init(&j->w, j->c->in_flight, GET_CHUNK + DIRECT_ALIGN, write_slot, j, err);
  cli_merge_init(&j->m, GET_GAP, 0, GET_CHUNK, fetch_request, j);
  cli_progress_start(&j->prog, j->c, "get", xio_ranges_bytes(&j->ranges));
  for (size_t i = 0; rc == XIO_OK && i < j->ranges.n; i++)
    rc = fetch_range(j, j->ranges.v[i].start, j->ranges.v[i].end, err);
  if (rc == XIO_OK) rc = cli_merge_flush(&j->m, err);
  xio_error de;
  xio_err drc = cli_window_drain(&j->w, &de); /* also when stopped: wait for what is in flight */
  if (rc == XIO_OK && drc != XIO_OK) {
    rc = drc;
    *err = de;
  }
  if (rc == XIO_ECANCELED && drc == XIO_OK) record_progress(j);
  cli_progress_end(&j->prog);
  cli_window_free(&j->w);
  if (rc == XIO_OK) {
    const char *kind = xio_file_kind(j->f) == XIO_KIND_LOG ? "log" : "data";
    (void)fsetxattr(j->fd, "user.xio.kind", kind, strlen(kind), 0); /* best effort */
  }
  return rc;
}

static void get_report(const get_job *j, double secs) {
  double rate = secs > 0 ? (double)j->fetched / secs / (1024.0 * 1024.0) : 0;
  char hs[32], hf[32], ht[32];
  xio_kind kind = xio_file_kind(j->f);
  xio_file_stats st;
  xio_file_get_stats(j->f, &st);
  if (j->c->json) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "command", "get");
    cJSON_AddStringToObject(o, "source", xio_file_path(j->f));
    cJSON_AddStringToObject(o, "target", j->local);
    cJSON_AddStringToObject(o, "kind", cli_kind_name(kind));
    cli_json_u64(o, "size", j->size);
    cli_json_u64(o, "ranges", j->ranges.n);
    cli_json_u64(o, "bytes_fetched", j->fetched);
    cli_json_u64(o, "reads", j->reads);
    cli_json_u64(o, "bytes_bridged", j->m.bridged);   /* gaps read through, not written */
    cJSON_AddBoolToObject(o, "direct", j->direct);    /* LOCAL's file system took O_DIRECT */
    cli_json_u64(o, "bytes_direct", j->direct_bytes); /* written with it, the rest buffered */
    cli_json_u64(o, "throttled", st.throttled);       /* tries answered 503/500 throttling */
    if (j->snapshot[0]) cJSON_AddStringToObject(o, "snapshot", j->snapshot);
    cJSON_AddNumberToObject(o, "seconds", secs);
    cJSON_AddNumberToObject(o, "mib_per_s", rate);
    cli_json_print(o);
    return;
  }
  cli_say(j->c,
          "got %s -> %s: %s %s file; fetched %s of data in %zu range%s (%" PRIu64
          " read%s), in %s (%.1f MiB/s)",
          xio_file_path(j->f), j->local, samples_fmt_size(j->size, hs, sizeof hs),
          cli_kind_name(kind), samples_fmt_size(j->fetched, hf, sizeof hf), j->ranges.n,
          cli_plural(j->ranges.n), j->reads, cli_plural(j->reads),
          samples_fmt_secs(secs, ht, sizeof ht), rate);
  say_throttled(j->c, "get", st.throttled);
  if (j->snapshot[0])
    cli_say(j->c, "read from snapshot %s, taken for this copy and deleted after it", j->snapshot);
}

/* --resume: opens the partial file and learns where it stopped; refused when the
 * source changed since (another ETag) or the partial file says nothing. */
static xio_err open_partial(get_job *j, xio_error *err) {
  j->fd = open(j->partial, O_WRONLY | O_CLOEXEC);
  if (j->fd < 0) return xio_error_from_errno(err, errno, "CreateLocalFile", "open", j->partial);
  char v[128], etag[96];
  ssize_t n = fgetxattr(j->fd, XATTR_DONE, v, sizeof v - 1);
  unsigned long long from = 0;
  if (n > 0) v[n] = '\0';
  if (n <= 0 || sscanf(v, "%llu %95s", &from, etag) != 2 || from > j->size)
    return xio_error_set(err, XIO_EINVAL,
                         "%s does not say how far the get went: get --force "
                         "starts over",
                         j->partial);
  if (strcmp(etag, j->etag) != 0)
    return xio_error_set(err, XIO_ECONFLICT,
                         "the source changed since %s was written (ETag "
                         "differs): get --force starts over",
                         j->partial);
  j->from = j->issued = from;
  return XIO_OK;
}

/* Creates the partial file beside LOCAL (refusing an existing LOCAL unless --force). */
static xio_err create_local(get_job *j, int force, xio_error *err) {
  if (!force && access(j->local, F_OK) == 0) {
    xio_error_set(err, XIO_EEXIST, "%s already exists; --force overwrites it", j->local);
    xio_error_set_operation(err, "CreateLocalFile");
    return XIO_EEXIST;
  }
  xio_err rc = XIO_OK;
  if (j->resume)
    rc = open_partial(j, err);
  else if ((j->fd = open(j->partial, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666)) < 0)
    rc = xio_error_from_errno(err, errno, "CreateLocalFile", "open", j->partial);
  if (rc == XIO_OK) open_direct(j);
  struct statvfs fs; /* the file system's block, the unit of its holes */
  int known = rc == XIO_OK && fstatvfs(j->fd, &fs) == 0 && fs.f_frsize >= PAGE &&
              fs.f_frsize <= 65536 && !(fs.f_frsize & (fs.f_frsize - 1));
  j->block = known ? (uint64_t)fs.f_frsize : DIRECT_ALIGN;
  return rc;
}

/* Where the download goes: LOCAL, or DIR/NAME when LOCAL is a directory (refusing
 * at once a path it cannot be renamed to), and the partial file beside it. */
static xio_err local_paths(get_job *j, const char *target, const char *local, xio_error *err) {
  xio_err rc = cli_local_dest(local, target, &j->local, err);
  if (rc != XIO_OK) return rc;
  size_t n = strlen(j->local) + sizeof ".xio-partial";
  if (!(j->partial = xio_malloc(n))) {
    xio_free(j->local);
    return xio_error_set(err, XIO_ENOMEM, "out of memory");
  }
  snprintf(j->partial, n, "%s.xio-partial", j->local);
  return XIO_OK;
}

static void free_local_paths(get_job *j) {
  xio_free(j->partial);
  xio_free(j->local);
}

/* A get stopped by a signal: what is left, and how to finish it. */
static int get_interrupted(const get_job *j) {
  char hf[32], ht[32];
  fprintf(stderr,
          "xio: get interrupted by %s: %s of %s fetched into %s; %s was not created; "
          "`xio get --resume %s %s` finishes it\n",
          stop_signal == SIGINT ? "SIGINT" : "SIGTERM", samples_fmt_size(j->fetched, hf, sizeof hf),
          samples_fmt_size(xio_ranges_bytes(&j->ranges), ht, sizeof ht), j->partial, j->local,
          xio_file_path(j->f), j->local);
  return stop_status();
}

static int get_run(get_job *j, int force) {
  xio_error e;
  double t0 = samples_now();
  xio_err rc = create_local(j, force, &e);
  if (rc != XIO_OK) return cli_fail(j->c, rc, &e);
  rc = download(j, &e);
  if (rc == XIO_OK) (void)fremovexattr(j->fd, XATTR_DONE);
  if (j->dfd >= 0 && close(j->dfd) != 0 && rc == XIO_OK)
    rc = xio_error_from_errno(&e, errno, "WriteLocalFile", "close", j->partial);
  j->dfd = -1;
  if (rc == XIO_OK && fsync(j->fd) != 0)
    rc = xio_error_from_errno(&e, errno, "WriteLocalFile", "fsync", j->partial);
  if (close(j->fd) != 0 && rc == XIO_OK)
    rc = xio_error_from_errno(&e, errno, "WriteLocalFile", "close", j->partial);
  j->fd = -1;
  if (rc == XIO_OK && rename(j->partial, j->local) != 0)
    rc = xio_error_from_errno(&e, errno, "WriteLocalFile", "rename", j->local);
  if (rc == XIO_ECANCELED && stop_signal) return get_interrupted(j);
  if (rc != XIO_OK)
    unlink(j->partial);
  else
    get_report(j, samples_now() - t0);
  if (rc == XIO_OK && stop_signal) return stopped_after("get", j->local);
  return rc == XIO_OK ? CLI_OK : cli_fail(j->c, rc, &e);
}

/* --snapshot: takes a snapshot of TARGET for the get to read, and makes the URL that
 * opens it (TARGET's SAS, if any, kept in front of snapshot=ID). */
static xio_err take_snapshot(get_job *j, const char *target, xio_error *err) {
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_READONLY;
  xio_file *f = NULL;
  xio_err rc = cli_open(j->c, target, &o, &f, err);
  if (rc == XIO_OK) rc = xio_file_snapshot(f, j->snapshot, sizeof j->snapshot, err);
  xio_file_close(f, NULL);
  if (rc != XIO_OK) return rc;
  size_t n = strlen(target) + strlen(j->snapshot) + sizeof "?snapshot=";
  if (!(j->snapshot_url = xio_malloc(n))) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  snprintf(j->snapshot_url, n, "%s%ssnapshot=%s", target, strchr(target, '?') ? "&" : "?",
           j->snapshot);
  return XIO_OK;
}

/* Deletes the snapshot --snapshot took, however the get ended. A failure is only
 * reported: the copy does not depend on it, but the snapshot costs storage. */
static void drop_snapshot(get_job *j, const char *target) {
  xio_error e;
  if (!j->snapshot[0] || xio_snapshot_delete(j->c->ctx, target, j->snapshot, &e) == XIO_OK) return;
  char msg[1024], *safe = cli_safe_target(target);
  fprintf(stderr,
          "xio: get: warning: the snapshot %s taken for the copy was not deleted (%s); "
          "`xio snapshot delete %s --id %s` deletes it\n",
          j->snapshot, xio_error_format(&e, msg, sizeof msg), safe ? safe : "TARGET", j->snapshot);
  xio_free(safe);
}

/* Opens the source of the get read-only, pinned to the version it has now: a
 * source written meanwhile fails the get (XIO_ECHANGED) rather than leaving a copy
 * of two versions. With --snapshot the get reads a snapshot taken for it instead,
 * which no writer can change. Learns its ETag (for --resume) and size. */
static xio_err open_source(get_job *j, const char *target, int snapshot, xio_error *err) {
  xio_err rc = XIO_OK;
  if (snapshot && !strstr(target, "snapshot=")) rc = take_snapshot(j, target, err);
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_READONLY | XIO_OPEN_PINNED;
  xio_file_info info;
  if (rc == XIO_OK) rc = cli_open(j->c, j->snapshot_url ? j->snapshot_url : target, &o, &j->f, err);
  if (rc == XIO_OK) rc = xio_file_stat(j->f, &info, err);
  if (rc != XIO_OK) return rc;
  snprintf(j->etag, sizeof j->etag, "%s", info.etag[0] ? info.etag : "-");
  j->size = xio_file_size(j->f);
  return XIO_OK;
}

static int run_get(cli *c, int argc, char **argv) {
  const char *pos[2], *flight_s = NULL;
  int force = 0, resume = 0, buffered = 0, snapshot = 0;
  const cli_opt opts[] = {{"--force", NULL, &force},        {"--resume", NULL, &resume},
                          {"--in-flight", &flight_s, NULL}, {"--buffered", NULL, &buffered},
                          {"--snapshot", NULL, &snapshot},  {NULL, NULL, NULL}};
  int r = cli_parse(c, argc, argv, opts, "TARGET LOCAL", 2, pos);
  if (r != CLI_CONTINUE) return r;
  if ((r = take_in_flight(c, flight_s, GET_IN_FLIGHT)) != CLI_CONTINUE) return r;
  get_job j;
  memset(&j, 0, sizeof j);
  j.c = c;
  j.fd = j.dfd = -1;
  j.resume = resume;
  j.buffered = buffered;
  xio_error e;
  xio_err rc = local_paths(&j, pos[0], pos[1], &e);
  if (rc != XIO_OK) return cli_fail(c, rc, &e);
  if (same_file(pos[0], j.local)) {
    free_local_paths(&j);
    return cli_usage_error(c, "TARGET and LOCAL are the same file");
  }
  catch_stop_signals();
  rc = open_source(&j, pos[0], snapshot, &e);
  if (rc != XIO_OK)
    r = cli_fail(c, rc, &e);
  else if (stop_signal)
    r = stopped_before("get", "it created %s", j.local);
  else
    r = get_run(&j, force || resume);
  free_local_paths(&j);
  xio_ranges_clear(&j.ranges);
  xio_file_close(j.f, NULL);
  drop_snapshot(&j, pos[0]);
  xio_free(j.snapshot_url);
  return r;
}

const cli_command cli_cmd_get = {
    "get",
    "download a file, fetching only allocated ranges",
    "get TARGET LOCAL [--force] [--resume] [--snapshot] [--in-flight N] [--buffered]",
    "Downloads TARGET into the local file LOCAL, which is made sparse: only the\n"
    "allocated ranges (page ranges of a blob) are written; the rest stays a hole that\n"
    "reads as zeros. Ranges less than 256 KiB apart are read in one request of up\n"
    "to 8 MiB (the gap between them is read, not written), so a fragmented file\n"
    "costs a few requests, not one per range. The file kind is recorded in LOCAL's\n"
    "user.xio.kind attribute. A directory as LOCAL (or LOCAL ending in '/') takes the\n"
    "file under the last segment of the blob's name, as cp(1) does; a path that cannot\n"
    "be written (a directory there) is refused before anything is read.\n"
    "\n"
    "LOCAL is one version of TARGET: every read is of the version TARGET had when\n"
    "the get began (If-Match on its ETag). If another client writes TARGET during\n"
    "the get, the get fails and keeps nothing; run it again, or use --snapshot.\n"
    "\n"
    "Options:\n"
    "  --force         overwrite LOCAL when it exists\n"
    "  --resume        finish an interrupted get from where LOCAL.xio-partial\n"
    "                  stopped (refused when TARGET changed since)\n"
    "  --snapshot      copy a snapshot of TARGET taken for the get (and deleted\n"
    "                  after it): a file that is being written all the time, such\n"
    "                  as a database in use, comes down as it was at that moment\n"
    "                  (needs a credential that may take and delete snapshots)\n"
    "  --in-flight N   reads in flight at once, 1..64 (default 4); memory stays\n"
    "                  under N x 8 MiB of buffers, plus about 18 MiB\n"
    "  --buffered      write LOCAL through the page cache; by default whole 4 KiB\n"
    "                  blocks are written with O_DIRECT where the file system\n"
    "                  allows, which spares the final fsync a copy of every byte\n"
    "\n"
    "The download goes to LOCAL.xio-partial, renamed to LOCAL once complete; SIGINT or\n"
    "SIGTERM stops issuing, waits for the reads in flight and exits 130 or 143, in\n"
    "whatever phase it comes.\n",
    run_get,
};
