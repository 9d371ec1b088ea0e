/*
 * rw.c - the generic half of every read, write and zero, and of a change of size:
 * here requests are checked (read-only, bounds, alignment), files grow before a write
 * past their end, unaligned writes become read-modify-writes of whole sectors (from
 * the write queue's knowledge on a file held alone, fenced by version otherwise),
 * zeroing follows the init policy, and requests are cut into the pieces a backend
 * takes (plan.c). Backends (backend_*.c) only move bytes. Called by the file API
 * (file.c); calls only below itself (queue.c for a file held alone).
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <xio/alloc.h>

#include "xio_int.h"

static uint64_t round_up(uint64_t v, uint64_t a) { return a > 1 ? (v + a - 1) / a * a : v; }
static uint64_t round_down(uint64_t v, uint64_t a) { return a > 1 ? v / a * a : v; }

const char *xio_init_name(xio_init init) {
  switch (init) {
  case XIO_INIT_DEFAULT: return "default";
  case XIO_INIT_NONE: return "none";
  case XIO_INIT_ZERO: return "zero";
  case XIO_INIT_CLEAR: return "clear";
  default: return "?";
  }
}

/* ------------------------------------------------------------- checks ---- */

int xio__in_callback(const xio_file *f) { return xio__ctx_on_io_thread(f->ctx); }

xio_err xio__refuse_in_callback(xio_file *f, const char *what, xio_error *err) {
  return xio_error_set(err, XIO_EINVAL,
                       "%s would block: not allowed from a completion callback on %s", what,
                       f->path);
}

/* ------------------------------------------------------------ growth ---- */

/* Sends the queued writes and waits until nothing is in flight on `f`. */
void xio__wait_idle(xio_file *f) {
  xio__pending_kick(f);
  pthread_mutex_lock(&f->io_mu);
  while (f->inflight > 0)
    pthread_cond_wait(&f->io_cv, &f->io_mu);
  pthread_mutex_unlock(&f->io_mu);
}

/* ------------------------------------------------------------ writes ---- */

xio_err xio__check_writable(xio_file *f, const char *what, xio_error *err) {
  if (f->flags & XIO_OPEN_READONLY)
    return xio_error_set(err, XIO_EREADONLY, "cannot %s %s: opened read-only", what, f->path);
  return XIO_OK;
}

xio_err xio__check_aligned(xio_file *f, uint64_t off, uint64_t len, const char *what,
                           xio_error *err) {
  size_t a = f->backend->alignment;
  if (a <= 1 || (off % a == 0 && len % a == 0) || (f->flags & XIO_OPEN_UNALIGNED)) return XIO_OK;
  return xio_error_set(err, XIO_EALIGN,
                       "%s at offset %" PRIu64 " of %" PRIu64 " bytes is not aligned to %zu "
                       "bytes; open the file with XIO_OPEN_UNALIGNED for read-modify-write",
                       what, off, len, a);
}

/* ------------------------------------------------- fenced read-modify-write ---- */

/* How often an edge sector is read and written again when another writer changed
 * the file in between, and the pause before each new try: a random part of 1 ms
 * doubling to 16 ms ("full jitter", at most about 1.5 s of waiting in all). The
 * version is the whole file's, so while others keep writing anywhere in it each
 * try wins with about the chance of one writer among those racing: many tries,
 * short pauses that break up lockstep, rather than long waits, which would not make
 * the others pause. */
#define RMW_MAX_TRIES      100
#define RMW_BACKOFF_MIN_US 1000
#define RMW_BACKOFF_MAX_US 16000

/* Runs one internal sub of `n` bytes at `off` with `flags` on `version`. A failure is
 * returned, not recorded as the file's sticky error: the caller decides. */
static xio_err run_versioned(xio_file *f, xio__sub_op op, uint64_t off, void *buf, size_t n,
                             unsigned flags, xio__version *version, xio_error *err) {
  xio_io io;
  memset(&io, 0, sizeof io);
  io.op = op == XIO__SUB_READ ? XIO_IO_READ : XIO_IO_WRITE;
  xio__io_state *st;
  xio_err rc = xio__io_begin(f, &io, 1, &st, err);
  if (rc != XIO_OK) return rc;
  st->no_sticky = 1;
  xio__sub *s = xio__io_add(st, op, off, n, buf);
  s->flags = flags;
  s->version = version;
  return xio__wait_internal(st, &io, err);
}

static void rmw_backoff(int try, unsigned *seed) {
  long us = (long)RMW_BACKOFF_MIN_US << (try < 5 ? try : 5);
  if (us > RMW_BACKOFF_MAX_US) us = RMW_BACKOFF_MAX_US;
  us = (long)(rand_r(seed) % (unsigned)(us + 1));
  struct timespec ts = {us / 1000000, us % 1000000 * 1000};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

static xio_err rmw_gave_up(xio_file *f, uint64_t sector, xio_error *err) {
  return xio_error_set(err, XIO_ECONFLICT,
                       "unaligned write to %s: sector at offset %" PRIu64
                       " changed under other writers on each of %d read-modify-writes; "
                       "nothing of this write was applied to that sector (write whole %zu-byte "
                       "sectors, or open the file with XIO_OPEN_LEASE)",
                       f->path, sector, RMW_MAX_TRIES, f->backend->alignment);
}

static xio_err no_version(xio_file *f, uint64_t sector, xio_error *err) {
  return xio_error_set(err, XIO_EHTTP,
                       "unaligned write to %s: reading the sector at offset %" PRIu64
                       " did not say which version of the file it read (no ETag), so it "
                       "cannot be written back safely",
                       f->path, sector);
}

/* Writes `n` bytes of `src` at byte `at` of the sector at `sector`, fenced against
 * every other writer of the file: the sector is read with the file's version and
 * written back only if that is still the version; when another write came in
 * between (in any process, to any part of the file, as the version is the whole
 * file's) it is read and patched again after a jittered backoff. */
static xio_err fenced_sector(xio_file *f, uint64_t sector, size_t at, const void *src, size_t n,
                             unsigned *seed, xio_error *err) {
  size_t a = f->backend->alignment;
  char *buf = xio_malloc(a);
  if (!buf) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  xio_err rc = XIO_OK;
  for (int try = 0;; try++) {
    xio__version v;
    memset(&v, 0, sizeof v);
    rc = run_versioned(f, XIO__SUB_READ, sector, buf, a, XIO__SUB_VERSION_OUT, &v, err);
    if (rc == XIO_OK && !v.tag[0]) rc = no_version(f, sector, err);
    if (rc != XIO_OK) break;
    memcpy(buf + at, src, n);
    rc = run_versioned(f, XIO__SUB_WRITE, sector, buf, a, XIO__SUB_IF_VERSION, &v, err);
    if (rc != XIO_ECONFLICT || !v.changed) break;
    atomic_fetch_add(&f->stats.rmw_conflicts, 1);
    if (try + 1 == RMW_MAX_TRIES) {
      rc = rmw_gave_up(f, sector, err);
      break;
    }
    rmw_backoff(try, seed);
  }
  xio_free(buf);
  return rc;
}

/* The edge sectors of [off, end) one after the other (each write changes the file's
 * version, so two edges in flight at once would fence each other out). */
static xio_err fenced_edges(xio_file *f, uint64_t off, uint64_t end, const char *src,
                            xio_error *err) {
  size_t a = f->backend->alignment;
  uint64_t head = round_down(off, a), tail = round_down(end, a);
  unsigned seed = (unsigned)(uintptr_t)&seed ^ (unsigned)getpid() ^ (unsigned)off;
  xio_err rc = XIO_OK;
  if (off != head) {
    uint64_t stop = end < head + a ? end : head + a;
    rc = fenced_sector(f, head, (size_t)(off - head), src, (size_t)(stop - off), &seed, err);
  }
  if (rc == XIO_OK && end != tail && !(tail == head && off != head))
    rc = fenced_sector(f, tail, 0, src + (tail - off), (size_t)(end - tail), &seed, err);
  return rc;
}

/* Read-modify-write when other clients may write the file too (not opened
 * exclusively, so no lease keeps them out). The range lock keeps this process's own
 * read-modify-writes of a sector apart, as in write_rmw, but another process reads
 * and writes the same sector unseen; so each edge sector is read with the file's
 * version and written back on condition that it is unchanged, retried on conflict.
 * The version (a page blob's ETag) is the whole file's: the conditional write is
 * the one sector read under it, and the aligned middle, which replaces whole
 * sectors and depends on nothing read, goes after the edges unconditionally.
 * Refusing unaligned writes to shared files was the alternative; fencing keeps them
 * working, at the price of a retry whenever any other write lands between the read
 * and the write of an edge, and an XIO_ECONFLICT when that keeps happening. */
static xio_err write_rmw_fenced(xio_file *f, xio_io *io, const void *src, int internal,
                                xio_error *err) {
  size_t a = f->backend->alignment, piece = f->backend->max_request;
  uint64_t off = io->offset, end = off + io->length;
  uint64_t mid = round_up(off, a), mid_end = round_down(end, a);
  int nmid = mid_end > mid ? xio__count_pieces(mid_end - mid, piece) : 0;
  xio__io_state *st;
  xio_err rc = xio__io_begin(f, io, nmid, &st, err);
  if (rc != XIO_OK) return rc;
  st->internal = internal;
  st->report_len = io->length;
  st->lock = (xio__rlock){round_down(off, a), round_up(end, a), NULL};
  xio__rlock_acquire(f, &st->lock);
  st->lock_held = 1;
  xio_error e;
  xio_error_clear(&e);
  rc = fenced_edges(f, off, end, src, &e);
  if (rc != XIO_OK || nmid == 0) {
    xio__io_finish_elsewhere(st, rc, &e);
    return XIO_OK;
  }
  xio__add_pieces(st, XIO__SUB_WRITE, mid, mid_end - mid, (char *)src + (mid - off), piece, 0);
  xio__io_launch(st);
  return XIO_OK;
}

/* A write of a file opened exclusively joins its queued writes (queue.c), which
 * combines it with the writes around it and fills its edge sectors from what the
 * handle knows. A failure to queue completes the io with it. */
static xio_err write_queued(xio_file *f, xio_io *io, const void *src, int internal,
                            xio_error *err) {
  xio__io_state *st;
  xio_err rc = xio__io_begin(f, io, 0, &st, err);
  if (rc != XIO_OK) return rc;
  st->internal = internal;
  xio_error e;
  xio_error_clear(&e);
  rc = xio__pending_write(f, st, src, &e);
  if (rc != XIO_OK) xio__io_fail(st, rc, &e);
  return XIO_OK;
}

/* Read-modify-write of an unaligned write: through the write queue on a file opened
 * exclusively (the lease keeps other clients out, so what the handle knows of its
 * sectors holds), else fenced (write_rmw_fenced). */
static xio_err write_rmw(xio_file *f, xio_io *io, const void *src, int internal, xio_error *err) {
  if (f->pend.enabled) return write_queued(f, io, src, internal, err);
  return write_rmw_fenced(f, io, src, internal, err);
}

static xio_err submit_write(xio_file *f, xio_io *io, xio_error *err) {
  uint64_t off = io->offset, len = io->length;
  xio_err rc = xio__check_writable(f, "write", err);
  if (rc == XIO_OK) rc = xio__check_aligned(f, off, len, "write", err);
  if (rc != XIO_OK) return rc;
  if (len && off > UINT64_MAX - len)
    return xio_error_set(err, XIO_ERANGE,
                         "write at offset %" PRIu64 " of %" PRIu64
                         " bytes overflows: it would end past 2^64 - 1",
                         off, len);
  size_t a = f->backend->alignment;
  int unaligned = a > 1 && (off % a || len % a);
  if (len && (unaligned || off + len > atomic_load(&f->size)) && xio__in_callback(f))
    return xio__refuse_in_callback(f, "a write past the end or unaligned", err);
  if (len && off + len > atomic_load(&f->size)) {
    rc = xio__grow_to(f, off + len, err);
    if (rc != XIO_OK) return rc;
  }
  if (len && unaligned) return write_rmw(f, io, io->buf, 0, err);
  if (len && f->pend.enabled) return write_queued(f, io, io->buf, 0, err);
  xio__io_state *st;
  rc = xio__io_begin(f, io, xio__count_pieces(len, f->backend->max_request), &st, err);
  if (rc != XIO_OK) return rc;
  xio__add_pieces(st, XIO__SUB_WRITE, off, len, io->buf, f->backend->max_request, 0);
  xio__io_launch(st);
  return XIO_OK;
}

static xio_err submit_read(xio_file *f, xio_io *io, xio_error *err) {
  uint64_t size = atomic_load(&f->size), n = 0;
  if (io->offset < size) n = size - io->offset < io->length ? size - io->offset : io->length;
  xio__io_state *st;
  xio_err rc = xio__io_begin(f, io, xio__count_pieces(n, xio__read_piece(f)), &st, err);
  if (rc != XIO_OK) return rc;
  xio__add_pieces(st, XIO__SUB_READ, io->offset, n, io->buf, xio__read_piece(f), 0);
  xio__io_launch(st);
  return XIO_OK;
}

/* Zeroes a partial sector [off, off+n) by read-modify-write, synchronously. */
static xio_err zero_edge(xio_file *f, uint64_t off, uint64_t n, xio_error *err) {
  if (n == 0) return XIO_OK;
  xio_io io;
  memset(&io, 0, sizeof io);
  io.op = XIO_IO_WRITE;
  io.offset = off;
  io.length = (size_t)n;
  xio_err rc = write_rmw(f, &io, xio__ctx_zeros(f->ctx), 1, err);
  if (rc == XIO_OK) rc = xio__io_wait(&io);
  if (rc != XIO_OK && err) *err = io.error;
  if (rc == XIO_OK) atomic_fetch_add(&f->stats.bytes_zero_written, n);
  return rc;
}

static xio_err submit_zero(xio_file *f, xio_io *io, xio_error *err) {
  uint64_t off = io->offset, len = io->length, end = off + len;
  xio_init how = io->init == XIO_INIT_DEFAULT ? XIO_INIT_CLEAR : io->init;
  xio_err rc = xio__check_writable(f, "zero", err);
  if (rc == XIO_OK && how != XIO_INIT_CLEAR && how != XIO_INIT_ZERO)
    rc = xio_error_set(err, XIO_EINVAL, "zeroing takes init clear or zero, not %s",
                       xio_init_name(how));
  if (rc == XIO_OK && end < off)
    rc = xio_error_set(err, XIO_ERANGE,
                       "zero range at offset %" PRIu64 " of %" PRIu64
                       " bytes overflows: it would end past 2^64 - 1, beyond the file's %" PRIu64
                       " bytes (and a page blob's 8 TiB)",
                       off, len, atomic_load(&f->size));
  if (rc == XIO_OK && end > atomic_load(&f->size))
    rc = xio_error_set(err, XIO_ERANGE,
                       "zero range [%" PRIu64 ", %" PRIu64 ") ends past the file's %" PRIu64
                       " bytes",
                       off, end, atomic_load(&f->size));
  if (rc == XIO_OK) rc = xio__check_aligned(f, off, len, "zero", err);
  if (rc != XIO_OK) return rc;
  size_t a = f->backend->alignment;
  uint64_t ms = round_up(off, a), me = round_down(end, a);
  if (ms > me) ms = me = off; /* inside one sector: all edge */
  if ((ms != off || me != end) && xio__in_callback(f))
    return xio__refuse_in_callback(f, "an unaligned zero", err);
  if (f->pend.enabled && !xio__pending_idle(f)) {
    /* Writes still queued or in flight might land after the zeroing. */
    if (xio__in_callback(f)) return xio__refuse_in_callback(f, "zeroing behind queued writes", err);
    xio__wait_idle(f);
  }
  xio__pending_forget(f, ms, me, 1);
  rc = zero_edge(f, off, ms - off, err);
  if (rc == XIO_OK) rc = zero_edge(f, me > ms ? me : ms, end - (me > ms ? me : ms), err);
  if (rc != XIO_OK) return rc;
  size_t piece = f->backend->max_request;
  if (piece > xio__ctx_zeros_len(f->ctx)) piece = xio__ctx_zeros_len(f->ctx);
  int n = me <= ms ? 0 : how == XIO_INIT_CLEAR ? 1 : xio__count_pieces(me - ms, piece);
  xio__io_state *st;
  rc = xio__io_begin(f, io, n, &st, err);
  if (rc != XIO_OK) return rc;
  if (n && how == XIO_INIT_CLEAR)
    xio__io_add(st, XIO__SUB_CLEAR, ms, 0, NULL)->clear_length = me - ms;
  else if (n)
    xio__add_pieces(st, XIO__SUB_WRITE, ms, me - ms, (char *)xio__ctx_zeros(f->ctx), piece, 1);
  xio__io_launch(st);
  return XIO_OK;
}

xio_err xio__rw_submit(xio_file *f, xio_io *io, xio_error *err) {
  switch (io->op) {
  case XIO_IO_READ: return submit_read(f, io, err);
  case XIO_IO_WRITE: return submit_write(f, io, err);
  case XIO_IO_ZERO: return submit_zero(f, io, err);
  case XIO_IO_FLUSH: {
    xio__io_state *st;
    xio_err rc = xio__io_begin(f, io, 0, &st, err);
    if (rc == XIO_OK) xio__io_flush(f, st);
    return rc;
  }
  default: return xio_error_set(err, XIO_EINVAL, "unknown request op %d", (int)io->op);
  }
}

/* Shrinking to a size inside a sector: zero the sector's tail first, so that bytes
 * past the logical end always read as zero when the file grows again. */
static xio_err shrink_locked(xio_file *f, uint64_t size, xio_error *err) {
  size_t a = f->backend->alignment;
  xio_err rc = XIO_OK;
  xio__wait_idle(f); /* no queued write may land past the new end */
  if (a > 1 && size % a) {
    uint64_t tail_end = round_up(size, a), old = atomic_load(&f->size);
    rc = zero_edge(f, size, (tail_end < old ? tail_end : old) - size, err);
  }
  if (rc == XIO_OK) rc = f->backend->resize(f, size, err);
  if (rc == XIO_OK) atomic_store(&f->size, size);
  if (rc == XIO_OK) xio__pending_shrunk(f, size);
  return rc;
}

static xio_err grow_locked(xio_file *f, uint64_t size, xio_init init, xio_error *err) {
  size_t a = f->backend->alignment;
  uint64_t old = atomic_load(&f->size);
  xio_err rc = f->backend->resize(f, size, err);
  if (rc != XIO_OK) return rc;
  atomic_store(&f->size, size);
  if (init == XIO_INIT_NONE) return XIO_OK;
  return xio__zero_internal(f, round_up(old, a), round_up(size, a), init, err);
}

xio_err xio__rw_resize(xio_file *f, uint64_t size, xio_init init, xio_error *err) {
  xio_err rc = XIO_OK;
  pthread_mutex_lock(&f->size_mu);
  uint64_t old = atomic_load(&f->size);
  if (size > old)
    rc = grow_locked(f, size, init, err);
  else if (size < old)
    rc = shrink_locked(f, size, err);
  pthread_mutex_unlock(&f->size_mu);
  return rc;
}
