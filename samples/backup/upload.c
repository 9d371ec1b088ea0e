/*
 * upload.c - a point of a backup chain restored into a target through the file
 * layer alone (xio_backup_restore_to in xio_backup.h): rebuilt in a scratch file
 * first (rebuild.c, every piece checked before the target is touched), then
 * uploaded, moving only what holds data in as few requests as that takes.
 *
 * The target is created at the point's size, marked incomplete by the create itself
 * (XIO_OPEN_MARK_INCOMPLETE), so it never exists unmarked before its last write is
 * acknowledged. The rebuilt file's data extents (SEEK_DATA/SEEK_HOLE: the holes of a
 * sparse point cost nothing) are read 4 MiB at a time and scanned for runs of
 * 512-byte pages that are not all zero (xio_zero_run); the runs are merged into
 * writes of up to XIO_WRITE_MAX_SIZE, and a gap of zeros joins a write only when it
 * is at most UP_GAP and no longer than the data already in the write: a fragmented
 * point costs a few requests, while the zeros of a merely sparse one are never
 * sent (a new blob reads them back as zeros anyway). A page blob bills the pages
 * written, zeros or not, for as long as it lives; a request is paid once.
 *
 * Up to `in_flight` writes are on their way at once, each from a buffer of its own
 * that is read again from the rebuilt file when the write is sent, so memory is
 * (in_flight + 2) x 4 MiB whatever the size of the point: the buffers, the chunk
 * being scanned and, with resume, the target's bytes of that chunk.
 *
 * A target that exists is replaced in place with force (resized, what is left of
 * its old content cleared before any data is written, so that its snapshots stay),
 * or finished with resume (compared with the point chunk by chunk, only the pages
 * that differ sent). Every way out says what became of the target in the result, so
 * that a caller can tell a person what is left to do.
 *
 * A dry run (xio_backup_restore_options.dry_run) takes the same path with a
 * counting sink: the point is rebuilt, the target only opened read-only, and each
 * request the readying of the target, the writes and the mark's end would send is
 * counted (samples_target_plan_*) instead of sent.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <xio/alloc.h>

#include "backup_int.h"
#include "samples_target.h"

#define CHUNK         ((uint64_t)XIO_WRITE_MAX_SIZE) /* a scan step, and the largest write */
#define PAGE          ((uint64_t)XIO_PAGE_SIZE)
#define UP_GAP        ((uint64_t)64 << 10) /* the longest gap of zeros a write bridges */
#define IN_FLIGHT     6                    /* writes on their way by default */
#define IN_FLIGHT_MAX 64

/* One write on its way and the buffer it is sent from. */
typedef struct up_slot {
  char *buf; /* CHUNK bytes, allocated when first used */
  xio_io io;
  int busy;
} up_slot;

typedef struct up_job {
  xio_ctx *ctx;
  const xio_backup_restore_options *o;
  xio_backup_restore_result *r;
  const char *target;
  xio_kind kind;
  int fd;      /* the rebuilt point */
  xio_file *f; /* the target */
  int created; /* this restore created the target */
  up_slot *slots;
  int n, next;
  char *scan;                /* CHUNK bytes of the rebuilt point */
  char *cmp;                 /* resume: the target's bytes of the same chunk */
  uint64_t start, end, data; /* the write being built, [start, end): `data` of it is data */
  uint64_t pos;              /* every byte below is sent or skipped */
  int dry;                   /* a dry run: `plan` counts what would be sent */
  samples_target_plan plan;
} up_job;

static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* Reads `len` bytes of the rebuilt point at `off` into `buf`. */
static xio_err read_point(const up_job *j, char *buf, uint64_t len, uint64_t off, xio_error *err) {
  for (uint64_t got = 0; got < len;) {
    ssize_t k = pread(j->fd, buf + got, (size_t)(len - got), (off_t)(off + got));
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) return xio_error_from_errno(err, errno, "Restore", "pread", "the rebuilt point");
    if (k == 0) {
      xio_error_set(err, XIO_EIO, "the rebuilt point ends at byte %" PRIu64 ", before its size",
                    off + got);
      xio_error_set_operation(err, "Restore");
      return XIO_EIO;
    }
    got += (uint64_t)k;
  }
  return XIO_OK;
}

/* ---------------------------------------------------------- writes ---- */

/* Waits for the slot's write; its failure into `err` (may be NULL). */
static xio_err settle(up_slot *s, xio_error *err) {
  if (!s->busy) return XIO_OK;
  xio_err rc = xio_io_wait(&s->io);
  s->busy = 0;
  if (rc != XIO_OK && err) *err = s->io.error;
  return rc;
}

/* Waits for every write on its way, oldest first; the first failure wins. */
static xio_err drain(up_job *j, xio_error *err) {
  xio_err first = XIO_OK;
  for (int k = 0; j->slots && k < j->n; k++) {
    xio_err rc = settle(&j->slots[(j->next + k) % j->n], first == XIO_OK ? err : NULL);
    if (first == XIO_OK) first = rc;
  }
  return first;
}

/* Sends [start, end) of the rebuilt point as one write, from the next slot once its
 * previous write is acknowledged. */
static xio_err send_write(up_job *j, uint64_t start, uint64_t end, xio_error *err) {
  if (j->dry) {
    samples_target_plan_write(&j->plan, start, end);
    j->r->bytes_sent += end - start;
    j->r->writes++;
    return XIO_OK;
  }
  up_slot *s = &j->slots[j->next];
  xio_err rc = settle(s, err);
  if (rc != XIO_OK) return rc;
  if (!s->buf && !(s->buf = xio_malloc(CHUNK)))
    return xio_error_set(err, XIO_ENOMEM, "out of memory for a write's buffer");
  uint64_t len = end - start;
  rc = read_point(j, s->buf, len, start, err);
  if (rc != XIO_OK) return rc;
  memset(&s->io, 0, sizeof s->io);
  s->io.op = XIO_IO_WRITE;
  s->io.offset = start;
  s->io.length = (size_t)len;
  s->io.buf = s->buf;
  j->r->changed = 1;
  rc = xio_file_submit(j->f, &s->io, err);
  if (rc != XIO_OK) return rc;
  s->busy = 1;
  j->next = (j->next + 1) % j->n;
  j->r->bytes_sent += len;
  j->r->writes++;
  return XIO_OK;
}

/* Sends the write being built, if any. */
static xio_err flush_write(up_job *j, xio_error *err) {
  if (j->end == j->start) return XIO_OK;
  uint64_t start = j->start, end = j->end;
  j->start = j->end = j->data = 0;
  return send_write(j, start, end, err);
}

/* 1 when data starting at `s` may join the write being built: the gap before it is
 * at most UP_GAP and no longer than the data already in the write, which stays
 * within CHUNK bytes. */
static int joins(const up_job *j, uint64_t s) {
  if (j->end == j->start || s < j->end || s >= j->start + CHUNK) return 0;
  uint64_t gap = s - j->end;
  return gap <= UP_GAP && gap <= j->data;
}

/* Adds the data [s, e), past everything added before; sends the writes it completes. */
static xio_err add_data(up_job *j, uint64_t s, uint64_t e, xio_error *err) {
  while (s < e) {
    xio_err rc = j->end > j->start && !joins(j, s) ? flush_write(j, err) : XIO_OK;
    if (rc != XIO_OK) return rc;
    if (j->end == j->start) j->start = j->end = s;
    uint64_t take = e - j->start <= CHUNK ? e : j->start + CHUNK;
    j->data += take - s;
    j->end = take;
    s = take;
    if (j->end - j->start == CHUNK && (rc = flush_write(j, err)) != XIO_OK) return rc;
  }
  return XIO_OK;
}

/* ---------------------------------------------------------- the scan ---- */

/* Adds the runs of pages that are not all zero of the chunk of `n` bytes at `off`. */
static xio_err send_chunk(up_job *j, uint64_t off, size_t n, xio_error *err) {
  size_t i = 0;
  while (i < n) {
    i += xio_zero_run(j->scan + i, n - i, PAGE, 1);
    size_t len = xio_zero_run(j->scan + i, n - i, PAGE, 0);
    if (len == 0) break;
    xio_err rc = add_data(j, off + i, off + i + len, err);
    if (rc != XIO_OK) return rc;
    i += len;
  }
  return XIO_OK;
}

/* resume: adds the pages of the chunk of `n` bytes at `off` that the target does
 * not already hold, after reading the target's bytes there once the writes before
 * are acknowledged. */
static xio_err send_differences(up_job *j, uint64_t off, size_t n, xio_error *err) {
  xio_err rc = flush_write(j, err);
  if (rc == XIO_OK) rc = drain(j, err);
  xio_file_stats before, after;
  xio_file_get_stats(j->f, &before);
  if (rc == XIO_OK) rc = xio_file_read(j->f, off, j->cmp, n, NULL, err);
  xio_file_get_stats(j->f, &after);
  if (j->dry) { /* a real run reads the same */
    j->plan.reads += after.read_requests - before.read_requests;
    j->plan.bytes_read += n;
  }
  for (size_t i = 0; rc == XIO_OK && i < n;) {
    size_t len = 0;
    while (i + len < n) {
      size_t k = (size_t)min_u64(PAGE, n - i - len);
      if (memcmp(j->scan + i + len, j->cmp + i + len, k) == 0) break;
      len += k;
    }
    if (len) rc = add_data(j, off + i, off + i + len, err);
    i += len ? len : (size_t)min_u64(PAGE, n - i);
  }
  return rc;
}

/* Goes through the extent [start, end] (inclusive) widened to whole pages, a 4 MiB
 * aligned chunk at a time. */
static xio_err send_extent(up_job *j, uint64_t start, uint64_t end, xio_error *err) {
  uint64_t size = j->r->size;
  uint64_t off = start / PAGE * PAGE, stop = min_u64((end / PAGE + 1) * PAGE, size);
  if (off < j->pos) off = j->pos;
  while (off < stop) {
    uint64_t next = min_u64(stop, (off / CHUNK + 1) * CHUNK);
    size_t n = (size_t)(next - off);
    xio_err rc = bk_check_stop(j->o->stop, j->o->ud, err);
    if (rc == XIO_OK) rc = read_point(j, j->scan, n, off, err);
    if (rc == XIO_OK)
      rc = j->o->resume ? send_differences(j, off, n, err) : send_chunk(j, off, n, err);
    if (rc != XIO_OK) return rc;
    j->r->bytes_scanned += n;
    if (j->o->progress) j->o->progress(j->o->ud, j->r->bytes_scanned, j->r->bytes_total);
    off = j->pos = next;
  }
  return XIO_OK;
}

/* The rebuilt point's data extents (inclusive ranges) into `out`; the whole point
 * where the file system cannot tell (no SEEK_DATA). */
static xio_err data_extents(const up_job *j, xio_ranges *out, xio_error *err) {
  uint64_t size = j->r->size;
  for (uint64_t pos = 0; pos < size;) {
    off_t d = lseek(j->fd, (off_t)pos, SEEK_DATA);
    if (d < 0 && errno == ENXIO) break; /* only a hole from pos on */
    off_t h = d < 0 ? -1 : lseek(j->fd, d, SEEK_HOLE);
    if (d < 0 && errno == EINVAL) { /* not told: all of it */
      d = (off_t)pos;
      h = (off_t)size;
    } else if (d < 0 || h < 0) {
      return xio_error_from_errno(err, errno, "Restore", "lseek", "the rebuilt point");
    }
    uint64_t e = min_u64((uint64_t)h, size);
    if (e > (uint64_t)d && xio_ranges_add(out, (uint64_t)d, e - 1) != XIO_OK)
      return xio_error_set(err, XIO_ENOMEM, "out of memory");
    pos = e > pos ? e : size; /* a hole reported before pos cannot loop */
  }
  return XIO_OK;
}

/* Uploads the rebuilt point into the target made ready for it, then clears the
 * target's incomplete mark once every write is acknowledged. */
static xio_err upload(up_job *j, xio_error *err) {
  xio_ranges ext = {NULL, 0, 0};
  xio_err rc = XIO_OK;
  if (j->o->resume && j->r->size) /* every byte is compared: the target may hold anything */
    rc = xio_ranges_add(&ext, 0, j->r->size - 1) == XIO_OK
             ? XIO_OK
             : xio_error_set(err, XIO_ENOMEM, "out of memory");
  else if (!j->o->resume)
    rc = data_extents(j, &ext, err);
  j->r->bytes_total = xio_ranges_bytes(&ext);
  j->slots = rc == XIO_OK ? xio_calloc((size_t)j->n, sizeof *j->slots) : NULL;
  j->scan = j->slots ? xio_malloc(CHUNK) : NULL;
  j->cmp = j->scan && j->o->resume ? xio_malloc(CHUNK) : NULL;
  if (rc == XIO_OK && (!j->scan || (j->o->resume && !j->cmp)))
    rc = xio_error_set(err, XIO_ENOMEM, "out of memory for the upload's buffers");
  for (size_t i = 0; rc == XIO_OK && i < ext.n; i++)
    rc = send_extent(j, ext.v[i].start, ext.v[i].end, err);
  if (rc == XIO_OK) rc = flush_write(j, err);
  xio_error de;
  xio_err drc = drain(j, &de); /* also after a failure: nothing may be left on its way */
  if (rc == XIO_OK && drc != XIO_OK) {
    rc = drc;
    *err = de;
  }
  if (rc == XIO_OK) rc = bk_check_stop(j->o->stop, j->o->ud, err); /* stays marked */
  if (rc == XIO_OK && j->dry) j->plan.set_metadata++;              /* the mark taken off */
  if (rc == XIO_OK && !j->dry) rc = xio_file_flush(j->f, err);
  if (rc == XIO_OK && !j->dry) rc = xio_file_set_incomplete(j->f, 0, err); /* all acknowledged */
  for (int k = 0; j->slots && k < j->n; k++)
    xio_free(j->slots[k].buf);
  xio_free(j->slots);
  xio_free(j->scan);
  xio_free(j->cmp);
  j->slots = NULL;
  j->scan = j->cmp = NULL;
  xio_ranges_clear(&ext);
  return rc;
}

/* -------------------------------------------------------- the target ---- */

/* Open options for the target: unaligned writes when the size is not whole pages. */
static xio_open_options target_options(const up_job *j, unsigned flags) {
  return samples_target_options(j->kind, j->r->size, flags);
}

/* Readies the target opened in place (marked incomplete, the point's kind and size;
 * with `clear_old`, what is left of the old content cleared); on failure closes it. */
static xio_err prepare_in_place(up_job *j, int clear_old, xio_error *err) {
  j->r->in_place = 1; /* never deleted on failure */
  xio_err rc = samples_target_in_place(j->f, j->kind, j->r->size, clear_old, &j->r->marked,
                                       &j->r->changed, err);
  if (rc != XIO_OK) {
    xio_file_close(j->f, NULL);
    j->f = NULL;
  }
  return rc;
}

/* force: replaces the content of the existing target in place, so that its snapshots
 * stay, before any data is written. */
static xio_err overwrite_target(up_job *j, xio_error *err) {
  xio_open_options o = target_options(j, XIO_OPEN_INCOMPLETE_OK); /* replaced anyway */
  xio_err rc = xio_file_open(j->ctx, j->target, &o, &j->f, err);
  return rc == XIO_OK ? prepare_in_place(j, 1, err) : rc;
}

/* resume: opens the target an interrupted restore left (marked incomplete; with
 * force, any) and makes it ready; the upload then sends what differs. */
static xio_err resume_target(up_job *j, xio_error *err) {
  xio_open_options o = target_options(j, XIO_OPEN_INCOMPLETE_OK);
  xio_err rc = xio_file_open(j->ctx, j->target, &o, &j->f, err);
  samples_target_resume_missing(rc, "the target", err);
  if (rc != XIO_OK) return rc;
  if (!j->o->force && !xio_file_incomplete(j->f))
    return samples_target_nothing_to_resume(&j->f, "the target", err);
  return prepare_in_place(j, 0, err);
}

/* A dry run: opens the target read-only (its properties: a read), refuses what
 * open_target refuses, and counts what open_target would send to ready it: the
 * create, or the refused create, the open and the readying in place (force), or the
 * open and the readying in place (resume). */
static xio_err plan_target(up_job *j, xio_error *err) {
  xio_open_options o = target_options(j, XIO_OPEN_READONLY | XIO_OPEN_INCOMPLETE_OK);
  xio_err rc = xio_file_open(j->ctx, j->target, &o, &j->f, err);
  if (j->o->resume) {
    samples_target_resume_missing(rc, "the target", err);
    if (rc == XIO_OK && !j->o->force && !xio_file_incomplete(j->f))
      return samples_target_nothing_to_resume(&j->f, "the target", err);
    if (rc != XIO_OK) return rc;
    j->plan.properties++;
    samples_target_plan_in_place(&j->plan, j->f, j->kind, j->r->size, 0);
    return XIO_OK;
  }
  if (rc != XIO_OK) return samples_target_plan_create(&j->plan, rc, err);
  if (!j->o->force) {
    xio_error_set(err, XIO_EEXIST, "%.400s already exists; --force replaces it",
                  xio_file_path(j->f));
    xio_error_set_operation(err, "CreatePageBlob");
    xio_file_close(j->f, NULL);
    j->f = NULL;
    return XIO_EEXIST;
  }
  j->plan.put_blobs++; /* refused: it exists */
  j->plan.properties++;
  samples_target_plan_in_place(&j->plan, j->f, j->kind, j->r->size, 1);
  return XIO_OK;
}

/* Creates the target marked incomplete, by the create itself: however the restore
 * stops, the target never exists unmarked before its last write is acknowledged.
 * One that exists is refused, replaced (force) or finished (resume). */
static xio_err open_target(up_job *j, xio_error *err) {
  if (j->dry) return plan_target(j, err);
  j->r->reached = 1;
  if (j->o->resume) return resume_target(j, err);
  xio_open_options o = target_options(j, XIO_OPEN_CREATE_ONLY | XIO_OPEN_MARK_INCOMPLETE);
  xio_err rc = xio_file_open(j->ctx, j->target, &o, &j->f, err);
  if (rc == XIO_OK) {
    j->created = j->r->marked = 1;
    return XIO_OK;
  }
  if (rc == XIO_EEXIST && j->o->force) {
    xio_error_clear(err);
    return overwrite_target(j, err);
  }
  if (rc == XIO_EEXIST)
    snprintf(err->message, sizeof err->message, "%.400s already exists; --force replaces it",
             err->target[0] ? err->target : "the target");
  return rc;
}

/* ----------------------------------------------------------------- ---- */

/* A dry run's counts into the result (zeros after a real run). */
static void report_plan(const samples_target_plan *p, xio_backup_restore_result *out) {
  out->plan.put_blobs = p->put_blobs;
  out->plan.create_containers = p->create_containers;
  out->plan.properties = p->properties;
  out->plan.set_metadata = p->set_metadata;
  out->plan.resizes = p->resizes;
  out->plan.clears = p->clears;
  out->plan.bytes_cleared = p->bytes_cleared;
  out->plan.put_pages = p->put_pages;
  out->plan.page_bytes = p->bytes_sent;
  out->plan.reads = p->reads;
  out->plan.bytes_read = p->bytes_read;
}

/* The arguments a restore refuses before it starts. */
static xio_err check_args(xio_ctx *ctx, const xio_backup_chain *ch, size_t index,
                          const char *target, const xio_backup_restore_options *o, xio_error *err) {
  xio_err rc = XIO_OK;
  if (!ctx || !ch || !target || !*target)
    rc = xio_error_set(err, XIO_EINVAL,
                       "a restore into a target needs a context, a chain and "
                       "a target");
  else if (o->in_flight < 0 || o->in_flight > IN_FLIGHT_MAX)
    rc = xio_error_set(err, XIO_EINVAL, "in_flight is %d: give 1 to %d writes (0: %d)",
                       o->in_flight, IN_FLIGHT_MAX, IN_FLIGHT);
  else if (index >= ch->n)
    return xio_error_set(err, XIO_ERANGE, "the chain in %.400s has no link %zu", ch->dir, index);
  if (rc != XIO_OK) xio_error_set_operation(err, "Restore");
  return rc;
}

xio_err xio_backup_restore_to(xio_ctx *ctx, const xio_backup_chain *ch, size_t index,
                              const char *target, const xio_backup_restore_options *opts,
                              xio_backup_restore_result *out, xio_error *err) {
  xio_error local;
  xio_backup_restore_result mine;
  xio_backup_restore_options dflt = xio_backup_restore_options_default();
  if (!err) err = &local;
  if (!out) out = &mine;
  if (!opts) opts = &dflt;
  memset(out, 0, sizeof *out);
  xio_err rc = check_args(ctx, ch, index, target, opts, err);
  if (rc != XIO_OK) return rc;
  up_job j;
  memset(&j, 0, sizeof j);
  j.ctx = ctx;
  j.o = opts;
  j.r = out;
  j.target = target;
  j.kind = ch->kind;
  j.n = opts->in_flight ? opts->in_flight : IN_FLIGHT;
  j.dry = opts->dry_run;
  out->size = ch->links[index].size;
  rc = bk_restore_scratch(ch, index, &j.fd, &out->bytes_read, opts->stop, opts->ud, err);
  if (rc == XIO_OK) rc = bk_check_stop(opts->stop, opts->ud, err);
  if (rc == XIO_OK) rc = open_target(&j, err);
  if (rc == XIO_OK) rc = upload(&j, err);
  report_plan(&j.plan, out);
  if (j.f) {
    xio_file_stats st;
    xio_file_get_stats(j.f, &st);
    out->throttled = st.throttled;
    xio_error ce;
    xio_err crc = xio_file_close(j.f, &ce);
    if (rc == XIO_OK && crc != XIO_OK) {
      rc = crc;
      *err = ce;
    }
  }
  /* A target this restore created and left half written goes; one written in place
   * stays (deleting it would delete its snapshots), and so does one of a restore that
   * was stopped, marked incomplete, for resume. */
  if (rc != XIO_OK && rc != XIO_ECANCELED && j.created) xio_file_delete(ctx, target, NULL);
  if (j.fd >= 0) close(j.fd);
  return rc;
}
