/*
 * put.c - the put command: uploads a local file to a target, moving only what
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
 * only where a request would have joined across the ring's end.
 *
 * Memory is bounded by design, whatever the file's size. With N writes in flight
 * (--in-flight, default PUT_IN_FLIGHT = 6): peak RSS <= (N + 2) x 4 MiB (CHUNK) of
 * ring (the requests in flight, the one being built and the chunk being scanned)
 * + a fixed part (program, libraries, connections, the library's own buffers;
 * measured: docs/benchmarks/design.md#transfer-memory).
 * The command allocates nothing per byte of file: its only buffer is the ring.
 * What put and get share (--in-flight, stop signals) is in transfer.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xio/alloc.h>

#include "cli.h"
#include "samples_target.h"

#define CHUNK         ((size_t)XIO_WRITE_MAX_SIZE) /* the largest write */
#define PUT_IN_FLIGHT 6                            /* writes in flight by default */
#define PAGE          XIO_PAGE_SIZE
#define DIRECT_ALIGN  ((uint64_t)4096) /* offsets, lengths, addresses of O_DIRECT reads */

/*
 * The gap a write bridges. A request costs a round trip and the service's work per
 * request, but writing zeros costs more: a page blob bills the pages that were
 * written, zeros or not, for as long as the blob lives, while a request is paid once
 * (a Put Page transaction is priced like storing about a KiB for a month). So put
 * bridges a gap only when it is no longer than the data already in the request,
 * and never more than PUT_GAP: fragmentation such as isolated pages one page apart
 * collapses into full 4 MiB requests (as a whole-file upload would send, at most
 * doubling the pages billed there), while data that is merely sparse is sent run
 * by run and the billed pages stay those that hold data. Fewer, longer page ranges
 * also keep later Get Page Ranges listings short.
 */
#define PUT_GAP ((uint64_t)64 << 10)

static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* End of the 4 MiB-aligned chunk holding `off`, capped at `limit`. */
static uint64_t chunk_end(uint64_t off, uint64_t limit) {
  return min_u64(limit, (off / CHUNK + 1) * CHUNK);
}

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
  uint64_t pages_same; /* --resume: pages not all zero that TARGET already held */
  uint64_t throttled;  /* the target's tries answered with a throttling answer */
  xio_ranges ext;      /* the local file's data extents */
  cli_progress prog;
  int overwrite;             /* the target existed and is being overwritten in place */
  int marked;                /* the target was marked incomplete */
  int touched;               /* a request that changes the target's size or bytes was issued */
  int resume;                /* --resume: compare with what the target holds, send what differs */
  int buffered;              /* --buffered: read LOCAL through the page cache, not with O_DIRECT */
  char *cmp;                 /* --resume: the target's bytes of the chunk */
  int dry;                   /* --dry-run: count the requests into `plan`, send none that changes */
  int dry_blob;              /* the dry run's TARGET is a blob (else a local file) */
  cli_plan plan;             /* --dry-run: what the real run would write to a local TARGET */
  samples_target_plan tplan; /* --dry-run: what it would send to a blob TARGET */
} put_job;

/* Length of the run of pages at `p` (n bytes left) that are all zero (`zero` 1) or
 * all not (`zero` 0). */
static size_t run_length(const char *p, size_t n, int zero) {
  return xio_zero_run(p, n, PAGE, zero);
}

/* --dry-run: what the file layer sends for a write of [start, end) to a blob
 * (samples_target_plan_write), or writes to a local TARGET. */
static void plan_write(put_job *j, uint64_t start, uint64_t end) {
  j->sent += end - start;
  j->pages_sent += (end - start + PAGE - 1) / PAGE;
  j->writes++;
  if (j->dry_blob)
    samples_target_plan_write(&j->tplan, start, end);
  else
    j->plan.local_bytes += end - start;
}

/* The merge's request: a Put Page of [start, end) straight from the ring. */
static xio_err send_request(uint64_t start, uint64_t end, void *ud, xio_error *err) {
  put_job *j = ud;
  size_t len = (size_t)(end - start);
  cli_slot *s;
  if (j->dry) {
    plan_write(j, start, end);
    return XIO_OK;
  }
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
  xio_file_stats before, after;
  xio_file_get_stats(j->f, &before);
  if (rc == XIO_OK) rc = xio_file_read(j->f, off, j->cmp, n, NULL, err);
  xio_file_get_stats(j->f, &after);
  if (j->dry && j->dry_blob) { /* the real run reads the same: count it */
    j->tplan.reads += after.read_requests - before.read_requests;
    j->tplan.bytes_read += n;
  }
  for (size_t i = 0; rc == XIO_OK && i < n;) {
    size_t len = 0;
    while (i + len < n) {
      size_t k = min_u64(PAGE, n - i - len);
      if (memcmp(p + i + len, j->cmp + i + len, k) == 0) break;
      len += k;
    }
    if (len) {
      rc = cli_merge_span(&j->m, off + i, off + i + len, err);
      i += len;
      continue;
    }
    size_t k = min_u64(PAGE, n - i); /* the same on both sides: data, or zeros */
    if (run_length(p + i, k, 1) < k) j->pages_same++;
    i += k;
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
    xio_err rc = cli_check_stop(err);
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
  if (rc == XIO_OK) rc = cli_check_stop(err); /* stopped: the target stays marked incomplete */
  if (rc == XIO_OK) rc = cli_source_check(&j->src, err); /* unchanged up to the last write */
  if (rc == XIO_OK && j->dry && j->dry_blob) j->tplan.set_metadata++; /* the mark taken off */
  if (rc == XIO_OK && !j->dry) rc = xio_file_flush(j->f, err);
  if (rc == XIO_OK && !j->dry) rc = xio_file_set_incomplete(j->f, 0, err); /* all acknowledged */
  cli_progress_end(&j->prog);
  cli_window_free(&j->w);
  xio_free(j->cmp);
  return rc;
}

/* Open flags for the target: unaligned writes when the size is not whole pages. */
static xio_open_options target_options(const put_job *j, unsigned flags) {
  return samples_target_options(j->kind, j->size, flags);
}

/* Replaces the content of the existing target in place, so that its snapshots stay:
 * records the new kind, sets the new size (growth reads as zeros) and clears what
 * is left of the old content, before any data is written. */
static xio_err overwrite_target(put_job *j, xio_ctx *ctx, const char *target, xio_error *err) {
  xio_open_options o = target_options(j, XIO_OPEN_INCOMPLETE_OK); /* replaced anyway */
  xio_err rc = xio_file_open(ctx, target, &o, &j->f, err);
  if (rc != XIO_OK) return rc;
  rc = samples_target_in_place(j->f, j->kind, j->size, 1, &j->marked, &j->touched, err);
  if (rc != XIO_OK) {
    xio_file_close(j->f, NULL);
    j->f = NULL;
  }
  return rc;
}

/* --resume: opens the target an interrupted put left (marked incomplete; with
 * `force`, any), marks it and gives it LOCAL's size and kind; upload then sends
 * what differs. */
static xio_err resume_target(put_job *j, xio_ctx *ctx, const char *target, int force,
                             xio_error *err) {
  xio_open_options o = target_options(j, XIO_OPEN_INCOMPLETE_OK);
  xio_err rc = xio_file_open(ctx, target, &o, &j->f, err);
  samples_target_resume_missing(rc, "TARGET", err);
  if (rc != XIO_OK) return rc;
  if (!force && !xio_file_incomplete(j->f))
    return samples_target_nothing_to_resume(&j->f, "TARGET", err);
  j->overwrite = 1; /* never deleted on failure */
  rc = samples_target_in_place(j->f, j->kind, j->size, 0, &j->marked, &j->touched, err);
  if (rc != XIO_OK) {
    xio_file_close(j->f, NULL);
    j->f = NULL;
  }
  return rc;
}

/* TARGET exists and put was not told to replace it: says how to go on. Left marked
 * incomplete by an interrupted put (or restore), it is to be finished with --resume,
 * which sends only what differs: XIO_ECONFLICT, as opening it says; otherwise
 * XIO_EEXIST, naming --force, as get does for LOCAL. */
static xio_err exists_how(put_job *j, xio_ctx *ctx, const char *target, xio_error *err) {
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_READONLY | XIO_OPEN_INCOMPLETE_OK;
  xio_file *f = NULL;
  int incomplete = xio_file_open(ctx, target, &o, &f, NULL) == XIO_OK && xio_file_incomplete(f);
  if (f) xio_file_close(f, NULL);
  if (!err) return incomplete ? XIO_ECONFLICT : XIO_EEXIST;
  const char *name = err->target[0] ? err->target : "TARGET";
  if (!incomplete) {
    snprintf(err->message, sizeof err->message, "%.400s already exists; --force replaces it", name);
    return XIO_EEXIST;
  }
  snprintf(err->message, sizeof err->message,
           "%.120s is marked incomplete: a transfer into it was interrupted; `xio put --resume "
           "%.100s %.120s` finishes it, sending only the pages that differ",
           name, j->local, name);
  err->code = XIO_ECONFLICT;
  return XIO_ECONFLICT;
}

/* Creates the target; with --force an existing one is overwritten in place. */
static xio_err create_target(put_job *j, const char *target, int force, xio_error *err) {
  xio_ctx *ctx;
  xio_err rc = cli_context(j->c, &ctx, err);
  if (rc == XIO_OK && j->resume) return resume_target(j, ctx, target, force, err);
  /* Created marked incomplete, by the create itself: however the put stops, the
   * target never exists unmarked before its last write is acknowledged. */
  xio_open_options o = target_options(j, XIO_OPEN_CREATE_ONLY | XIO_OPEN_MARK_INCOMPLETE);
  if (rc == XIO_OK) rc = xio_file_open(ctx, target, &o, &j->f, err);
  if (rc == XIO_OK) {
    j->marked = 1;
    return XIO_OK;
  }
  if (rc == XIO_EEXIST && force) {
    xio_error_clear(err);
    j->overwrite = 1;
    return overwrite_target(j, ctx, target, err);
  }
  if (rc == XIO_EEXIST) return exists_how(j, ctx, target, err);
  return rc;
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
    cli_json_u64(o, "pages_already_uploaded", j->pages_same); /* --resume: held already */
    cli_json_u64(o, "pages_zero", pages - j->pages_sent - j->pages_same);
    cli_json_u64(o, "bytes_bridged", j->m.bridged); /* zeros sent inside merged writes */
    cJSON_AddBoolToObject(o, "direct", j->src.direct);
    cli_json_u64(o, "bytes_direct", j->src.bytes_direct);
    cli_json_u64(o, "throttled", j->throttled); /* tries answered 503/500 throttling */
    cJSON_AddNumberToObject(o, "seconds", secs);
    cJSON_AddNumberToObject(o, "mib_per_s", rate);
    cli_json_print(o);
    return;
  }
  char skipped[160]; /* --resume: what TARGET held apart from the zero pages */
  uint64_t zero = pages - j->pages_sent - j->pages_same;
  if (j->resume)
    snprintf(skipped, sizeof skipped,
             "%" PRIu64 " page%s already uploaded, %" PRIu64 " zero page%s skipped", j->pages_same,
             cli_plural(j->pages_same), zero, cli_plural(zero));
  else
    snprintf(skipped, sizeof skipped, "skipped %" PRIu64 " zero page%s", zero, cli_plural(zero));
  cli_say(j->c,
          "put %s -> %s: %s %s file; scanned %s, sent %s in %" PRIu64 " write%s, %s, in %s "
          "(%.1f MiB/s)",
          j->local, target, samples_fmt_size(j->size, hs, sizeof hs), cli_kind_name(j->kind),
          samples_fmt_size(j->scanned, hc, sizeof hc), samples_fmt_size(j->sent, hn, sizeof hn),
          j->writes, cli_plural(j->writes), skipped, samples_fmt_secs(secs, ht, sizeof ht), rate);
  cli_say_throttled(j->c, "put", j->throttled);
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

/* The command that finishes an interrupted put of `target` (log-safe). */
static void resume_command(const put_job *j, const char *target, char *out, size_t size) {
  snprintf(out, size, "xio put --resume %s %s", j->local, target);
}

/* A put stopped by a signal: what was sent and what is left; the target stays
 * marked incomplete. Frees `safe`. */
static int put_interrupted(const put_job *j, char *safe) {
  char hs[32], hl[32], again[2048];
  uint64_t total = j->resume ? j->size : xio_ranges_bytes(&j->ext);
  resume_command(j, safe ? safe : "TARGET", again, sizeof again);
  fprintf(stderr,
          "xio: put interrupted by %s: %s of %s scanned and sent; %s is marked incomplete; "
          "`%s` finishes it\n",
          cli_stop_name(), samples_fmt_size(j->scanned, hs, sizeof hs),
          samples_fmt_size(total, hl, sizeof hl), safe ? safe : "the target", again);
  xio_free(safe);
  return cli_stop_status();
}

/* A put stopped by a signal while it created or prepared the target, before any
 * data was sent. A new target was created marked incomplete, if at all (a create
 * cut on the wire may or may not have been applied); an existing one whose mark
 * was acknowledged stays marked; otherwise its content was not changed. */
static int put_stopped_early(const put_job *j, const char *target) {
  char *safe = xio_target_safe(target), again[2048];
  const char *name = safe ? safe : "TARGET";
  resume_command(j, name, again, sizeof again);
  int status;
  if (j->marked)
    status = put_interrupted(j, safe); /* frees it */
  else if (j->overwrite || j->resume)
    status = cli_stopped_before("put", "it changed the content of %s", name);
  else
    status = cli_stopped_before("put",
                                "it wrote data to %s, as it created it (if it exists, "
                                "it is marked incomplete: `%s` finishes it)",
                                name, again);
  if (!j->marked) xio_free(safe);
  return status;
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
  char *safe = xio_target_safe(target);
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

/* ---------------------------------------------------------- dry run ---- */

/* --dry-run: the requests with which the file layer readies the existing blob
 * j->f for content in place (samples_target_in_place). */
static void plan_in_place(put_job *j, int clear_old) {
  samples_target_plan_in_place(&j->tplan, j->f, j->kind, j->size, clear_old);
}

/* --dry-run: learns what put would do with TARGET, opening it read-only (one Get
 * Blob Properties, a read), and refuses what a real put refuses, with the same
 * error. Leaves TARGET open read-only when it exists, for --resume's comparison. */
static xio_err plan_target(put_job *j, const char *target, int force, xio_error *err) {
  xio_ctx *ctx;
  j->dry_blob = cli_is_url(target);
  xio_open_options o = target_options(j, XIO_OPEN_READONLY | XIO_OPEN_INCOMPLETE_OK);
  xio_err rc = cli_context(j->c, &ctx, err);
  if (rc == XIO_OK) rc = xio_file_open(ctx, target, &o, &j->f, err);
  if (j->resume) {
    samples_target_resume_missing(rc, "TARGET", err);
    if (rc == XIO_OK && !force && !xio_file_incomplete(j->f))
      rc = samples_target_nothing_to_resume(&j->f, "TARGET", err);
    if (rc == XIO_OK && j->dry_blob) j->tplan.properties++;
    if (rc == XIO_OK && j->dry_blob) plan_in_place(j, 0);
    return rc;
  }
  /* what the create that a real put starts with would meet: TARGET missing, or in a
   * missing container */
  if (rc == XIO_ENOTFOUND) {
    samples_target_plan tp = {0};
    rc = samples_target_plan_create(&tp, rc, err);
    if (j->dry_blob) j->tplan = tp;
    return rc;
  }
  if (rc != XIO_OK) return rc;
  if (!force) {
    char *safe = xio_strdup(xio_file_path(j->f));
    xio_error_set(err, XIO_EEXIST, "%.400s already exists; --force replaces it",
                  safe ? safe : "TARGET");
    xio_error_set_operation(err, "CreatePageBlob");
    xio_free(safe);
    return XIO_EEXIST;
  }
  if (!j->dry_blob) return XIO_OK;
  j->tplan.put_blobs++; /* refused: it exists */
  j->tplan.properties++;
  plan_in_place(j, 1);
  return XIO_OK;
}

/* --dry-run: plans the put with its real scan and merge of LOCAL, and prints what
 * it would send; TARGET is only read. */
static int put_dry_run(put_job *j, const char *target, int force) {
  xio_error e;
  j->dry = 1;
  xio_err rc = plan_target(j, target, force, &e);
  if (rc == XIO_OK) rc = upload(j, &e);
  if (j->f) xio_file_close(j->f, NULL);
  j->f = NULL;
  if (rc == XIO_ECANCELED && cli_stop_signal())
    return cli_stopped_before("put", "it planned the upload; nothing was written");
  if (rc != XIO_OK) return cli_fail(j->c, rc, &e);
  char *safe = xio_target_safe(target);
  if (!j->dry_blob) j->plan.local = target;
  cli_plan_add_target(&j->plan, &j->tplan);
  cli_plan_print(j->c, j->local, safe ? safe : "TARGET", &j->plan);
  xio_free(safe);
  return CLI_OK;
}

/* Uploads, then closes the target; removes a target it created that is left half
 * written (an overwritten one stays: deleting it would delete its snapshots). */
static int put_run(put_job *j, const char *target, int force) {
  xio_error e, ce;
  double t0 = samples_now();
  xio_err rc = create_target(j, target, force, &e);
  if (rc == XIO_ECANCELED && cli_stop_signal()) return put_stopped_early(j, target);
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
    if (cli_stop_signal()) status = cli_stopped_after("put", safe ? safe : "the target");
  } else if (rc == XIO_ECANCELED && cli_stop_signal()) {
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

/* A TARGET naming a container (.../CONTAINER or .../CONTAINER/, with its SAS): the
 * blob there named after LOCAL's last segment, as cp(1) and AzCopy name it, in *out
 * (malloc'd, xio_free; it keeps TARGET's query, a SAS too). Any other TARGET leaves
 * *out NULL (one that does not parse fails where it is opened, saying why). Errors:
 * XIO_ENOMEM. */
static xio_err blob_in_container(const char *local, const char *target, char **out,
                                 xio_error *err) {
  xio_target_parts parts;
  if (xio_target_parse(target, &parts, NULL) != XIO_OK) return XIO_OK;
  int container = parts.container && (!parts.blob || !parts.blob[0]);
  xio_target_parts_clear(&parts);
  const char *slash = strrchr(local, '/');
  const char *name = slash ? slash + 1 : local;
  if (!container || !name[0]) return XIO_OK;
  return xio_target_blob_url(target, name, out, err);
}

static int run_put(cli *c, int argc, char **argv) {
  const char *kind_s = NULL, *flight_s = NULL, *checksum_s = NULL, *pos[2];
  int force = 0, resume = 0, buffered = 0, dry = 0;
  const cli_opt opts[] = {{"--kind", &kind_s, NULL},        {"--force", NULL, &force},
                          {"--dry-run", NULL, &dry},        {"--resume", NULL, &resume},
                          {"--in-flight", &flight_s, NULL}, {"--checksum", &checksum_s, NULL},
                          {"--buffered", NULL, &buffered},  {NULL, NULL, NULL}};
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
  if ((r = cli_take_in_flight(c, flight_s, PUT_IN_FLIGHT)) != CLI_CONTINUE) return r;
  if ((r = cli_value_checksum(c, checksum_s, &c->checksum)) != CLI_CONTINUE) return r;
  xio_error e;
  char *dest = NULL; /* a local TARGET that is a directory, or a container: DIR/NAME */
  xio_err rc = cli_is_url(pos[1]) ? blob_in_container(pos[0], pos[1], &dest, &e)
                                  : cli_local_dest(pos[1], pos[0], &dest, &e);
  if (rc != XIO_OK) return cli_fail(c, rc, &e);
  if (dest) pos[1] = dest;
  if (cli_same_file(pos[0], pos[1])) {
    xio_free(dest);
    return cli_usage_error(c, "LOCAL and TARGET are the same file");
  }
  if ((r = cli_catch_stop_signals(c)) != CLI_CONTINUE) {
    xio_free(dest);
    return r;
  }
  rc = open_local_source(&j, kind_s, &e);
  if (rc != XIO_OK) {
    r = cli_fail(c, rc, &e);
  } else if (cli_stop_signal()) {
    char *safe = xio_target_safe(pos[1]);
    r = cli_stopped_before("put", "it opened %s; nothing was written", safe ? safe : "TARGET");
    xio_free(safe);
  } else {
    r = dry ? put_dry_run(&j, pos[1], force) : put_run(&j, pos[1], force);
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
    "[--buffered] [--dry-run]",
    "Uploads the local file LOCAL to TARGET, a new file of the same size. Only the\n"
    "512-byte pages that hold something other than zeros are sent: holes of a\n"
    "sparse file are never read, and all-zero pages are skipped, except where a\n"
    "gap between data is no longer than the data before it (64 KiB at most): it is\n"
    "sent inside one write of up to 4 MiB, so a fragmented file costs a few\n"
    "requests, not one per page. A local directory as TARGET takes the file under\n"
    "LOCAL's name, as cp(1) does, and so does a container URL (.../CONTAINER or\n"
    ".../CONTAINER/), as AzCopy does.\n"
    "\n"
    "Options:\n"
    "  --kind data|log   the kind of the new file (default: LOCAL's recorded kind,\n"
    "                    else data)\n"
    "  --force           replace TARGET's content when it exists: it is overwritten\n"
    "                    in place (resized, cleared, rewritten), so its snapshots\n"
    "                    stay\n"
    "  --resume          finish an interrupted put (TARGET marked incomplete):\n"
    "                    compare TARGET with LOCAL and send only the pages that\n"
    "                    differ; with --force, any TARGET\n"
    "  --in-flight N     writes in flight at once, 1..64 (default 6); memory stays\n"
    "                    under (N + 2) x 4 MiB of ring, plus about 15 MiB\n"
    "  --checksum crc64|md5|none\n"
    "                    the transactional checksum each write carries, which the\n"
    "                    service verifies before storing (default crc64)\n"
    "  --buffered        read LOCAL through the page cache; by default it is read\n"
    "                    with O_DIRECT where the file system allows, which costs\n"
    "                    less CPU and leaves the page cache to others\n"
    "  --dry-run         say what the put would send (requests by operation, bytes)\n"
    "                    and send nothing that changes TARGET: LOCAL is scanned and\n"
    "                    TARGET read as a real put would, and refused the same way\n"
    "\n"
    "TARGET is created marked incomplete and stays so until every write is\n"
    "acknowledged. SIGINT or SIGTERM stops issuing, gives the writes on their way 2 s\n"
    "to end before it cuts them (XIO_STOP_GRACE_SECONDS; a second signal cuts them at\n"
    "once) and exits 130 or 143, in whatever phase it comes; --resume finishes the\n"
    "put. LOCAL must be a regular file (a FIFO or a device is refused) that\n"
    "holds still: if it grows, shrinks, is written or its path is renamed over before\n"
    "the last write is acknowledged, put fails and TARGET stays marked incomplete.\n",
    run_put,
};
