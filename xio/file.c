/*
 * file.c - the file API: open and close, and the generic half of every request.
 * Here requests are checked (read-only, bounds, alignment), files grow before a
 * write past their end, unaligned writes become read-modify-writes of whole
 * sectors, zeroing follows the init policy, and requests are cut into the pieces
 * a backend takes. Backends (backend_*.c) only move bytes.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
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

xio_open_options xio_open_options_default(void) {
  xio_open_options o = {0, XIO_KIND_DATA, 0, XIO_INIT_DEFAULT};
  return o;
}

static xio_init resolve_init(xio_kind kind, xio_init init) {
  if (init != XIO_INIT_DEFAULT) return init;
  return kind == XIO_KIND_LOG ? XIO_INIT_CLEAR : XIO_INIT_NONE;
}

const xio_backend *xio__backend_for(const char *target) {
  switch (xio_target_classify(target)) {
  case XIO_TARGET_BLOB: return &xio__pageblob_backend;
  case XIO_TARGET_LOCAL: return &xio__local_backend;
  default: return NULL;
  }
}

/* The error for a target no backend opens: a URL of a scheme other than http(s) or
 * file. */
static xio_err unsupported_target(const char *target, xio_error *err) {
  int n = (int)xio_target_scheme_length(target);
  return xio_error_set(err, XIO_EUNSUPPORTED,
                       "unsupported URL scheme '%.*s': xio opens http:// and https:// page-blob "
                       "URLs, local paths and file:// URLs",
                       n, target);
}

xio_err xio__file_init(xio_file *f, const xio_backend *b, xio_ctx *ctx, const char *path,
                       xio_kind kind, unsigned flags, uint64_t size) {
  f->backend = b;
  f->ctx = ctx;
  f->kind = kind;
  f->flags = flags;
  atomic_store(&f->size, size);
  if (!(f->path = xio_strdup(path))) return XIO_ENOMEM;
  pthread_mutex_init(&f->size_mu, NULL);
  pthread_mutex_init(&f->io_mu, NULL);
  pthread_cond_init(&f->io_cv, NULL);
  pthread_mutex_init(&f->rmw_mu, NULL);
  pthread_cond_init(&f->rmw_cv, NULL);
  xio__wq_init(f);
  xio__held_init(f);
  return XIO_OK;
}

void xio__file_release(xio_file *f) {
  if (!f->path) return;
  pthread_mutex_destroy(&f->size_mu);
  pthread_mutex_destroy(&f->io_mu);
  pthread_cond_destroy(&f->io_cv);
  pthread_mutex_destroy(&f->rmw_mu);
  pthread_cond_destroy(&f->rmw_cv);
  xio__wq_release(f);
  xio__held_release(f);
  xio_free(f->path);
  f->path = NULL;
}

/* ---------------------------------------------------------- planning ---- */

static int count_pieces(uint64_t len, size_t piece) { return (int)((len + piece - 1) / piece); }

/* Cuts [off, off+len) of `buf` into subs of at most `piece` bytes. */
static void add_pieces(xio__io_state *st, xio__sub_op op, uint64_t off, uint64_t len, char *buf,
                       size_t piece, int zeroing) {
  for (uint64_t done = 0; done < len;) {
    size_t n = (size_t)(len - done < piece ? len - done : piece);
    xio__sub *s = xio__io_add(st, op, off + done, n, zeroing ? buf : buf + done);
    s->zeroing = zeroing;
    done += n;
  }
}

static int in_callback(xio_file *f) { return xio__ctx_on_io_thread(f->ctx); }

/* XIO_EINVAL in a child forked from the process that opened `f` (ctx.c). */
static xio_err check_process(const xio_file *f, xio_error *err) {
  return xio__ctx_check_process(f->ctx, err);
}

static xio_err refuse_in_callback(xio_file *f, const char *what, xio_error *err) {
  return xio_error_set(err, XIO_EINVAL,
                       "%s would block: not allowed from a completion callback on %s", what,
                       f->path);
}

/* The entry check of a public call that may block, written once: XIO_EINVAL in a
 * child forked from the process that opened `f`, or on the engine's I/O thread (a
 * completion callback), where `what` would wait for that very thread. Returns
 * XIO_OK or XIO_EINVAL. */
static xio_err enter(xio_file *f, const char *what, xio_error *err) {
  if (check_process(f, err) != XIO_OK) return XIO_EINVAL;
  return in_callback(f) ? refuse_in_callback(f, what, err) : XIO_OK;
}

/* Runs an internal request to completion on this thread. */
static xio_err wait_internal(xio__io_state *st, xio_io *io, xio_error *err) {
  st->internal = 1;
  xio__io_launch(st);
  xio_err rc = xio_io_wait(io);
  if (rc != XIO_OK && err) *err = io->error;
  return rc;
}

/* The largest read request of `f`: a checked range at most, while reads are checked. */
static size_t read_piece(const xio_file *f) {
  size_t checked = f->backend->max_checked_read;
  if (!checked || xio__ctx_options(f->ctx)->checksum == XIO_CHECKSUM_NONE)
    return f->backend->max_read;
  return checked < f->backend->max_read ? checked : f->backend->max_read;
}

/* Reads [off, off+n) into buf, clamped to the logical size (the rest is left alone). */
xio_err xio__read_internal(xio_file *f, uint64_t off, void *buf, size_t n, xio_error *err) {
  uint64_t size = atomic_load(&f->size);
  if (off >= size) return XIO_OK;
  if (n > size - off) n = (size_t)(size - off);
  xio_io io;
  memset(&io, 0, sizeof io);
  io.op = XIO_IO_READ;
  xio__io_state *st;
  xio_err rc = xio__io_begin(f, &io, count_pieces(n, read_piece(f)), &st, err);
  if (rc != XIO_OK) return rc;
  add_pieces(st, XIO__SUB_READ, off, n, buf, read_piece(f), 0);
  return wait_internal(st, &io, err);
}

/* Makes [off, end) (aligned for the backend) read as zero with CLEAR or ZERO. */
static xio_err zero_internal(xio_file *f, uint64_t off, uint64_t end, xio_init how,
                             xio_error *err) {
  if (end <= off) return XIO_OK;
  size_t piece = f->backend->max_request;
  if (piece > xio__ctx_zeros_len(f->ctx)) piece = xio__ctx_zeros_len(f->ctx);
  xio_io io;
  memset(&io, 0, sizeof io);
  io.op = XIO_IO_ZERO;
  xio__io_state *st;
  int n = how == XIO_INIT_CLEAR ? 1 : count_pieces(end - off, piece);
  xio_err rc = xio__io_begin(f, &io, n, &st, err);
  if (rc != XIO_OK) return rc;
  if (how == XIO_INIT_CLEAR)
    xio__io_add(st, XIO__SUB_CLEAR, off, 0, NULL)->clear_length = end - off;
  else
    add_pieces(st, XIO__SUB_WRITE, off, end - off, (char *)xio__ctx_zeros(f->ctx), piece, 1);
  return wait_internal(st, &io, err);
}

/* ------------------------------------------------------------ growth ---- */

/* Grows the file to at least `end` bytes (new bytes read as zero). */
/* Refuses a size past XIO_FILE_MAX_SIZE on every backend, before any request. */
static xio_err check_max_size(const char *what, uint64_t size, xio_error *err) {
  if (size <= XIO_FILE_MAX_SIZE) return XIO_OK;
  return xio_error_set(err, XIO_ELIMIT,
                       "%s to %" PRIu64 " bytes exceeds the 8 TiB limit of a file (%" PRIu64
                       " bytes)",
                       what, size, (uint64_t)XIO_FILE_MAX_SIZE);
}

static xio_err grow_to(xio_file *f, uint64_t end, xio_error *err) {
  xio_err rc = check_max_size("growing", end, err);
  if (rc != XIO_OK) return rc;
  pthread_mutex_lock(&f->size_mu);
  if (end > atomic_load(&f->size)) {
    rc = f->backend->resize(f, end, err);
    if (rc == XIO_OK) atomic_store(&f->size, end);
  }
  pthread_mutex_unlock(&f->size_mu);
  return rc;
}

/* Sends what the write queue holds and waits until nothing is in flight on `f`. */
static void wait_idle(xio_file *f) {
  xio__wq_kick(f);
  pthread_mutex_lock(&f->io_mu);
  while (f->inflight > 0)
    pthread_cond_wait(&f->io_cv, &f->io_mu);
  pthread_mutex_unlock(&f->io_mu);
}

/* ------------------------------------------------------------ writes ---- */

static xio_err check_writable(xio_file *f, const char *what, xio_error *err) {
  if (f->flags & XIO_OPEN_READONLY)
    return xio_error_set(err, XIO_EREADONLY, "cannot %s %s: opened read-only", what, f->path);
  return XIO_OK;
}

static xio_err check_aligned(xio_file *f, uint64_t off, uint64_t len, const char *what,
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
  return wait_internal(st, &io, err);
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
                       "sectors, or open the file with XIO_OPEN_EXCLUSIVE)",
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
  int nmid = mid_end > mid ? count_pieces(mid_end - mid, piece) : 0;
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
  add_pieces(st, XIO__SUB_WRITE, mid, mid_end - mid, (char *)src + (mid - off), piece, 0);
  xio__io_launch(st);
  return XIO_OK;
}

/* A write of a file opened exclusively joins its write queue (combine.c), which
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
  rc = xio__wq_submit(f, st, src, &e);
  if (rc != XIO_OK) xio__io_fail(st, rc, &e);
  return XIO_OK;
}

/* Read-modify-write of an unaligned write: through the write queue on a file opened
 * exclusively (the lease keeps other clients out, so what the handle knows of its
 * sectors holds), else fenced (write_rmw_fenced). */
static xio_err write_rmw(xio_file *f, xio_io *io, const void *src, int internal, xio_error *err) {
  if (f->wq.enabled) return write_queued(f, io, src, internal, err);
  return write_rmw_fenced(f, io, src, internal, err);
}

static xio_err submit_write(xio_file *f, xio_io *io, xio_error *err) {
  uint64_t off = io->offset, len = io->length;
  xio_err rc = check_writable(f, "write", err);
  if (rc == XIO_OK) rc = check_aligned(f, off, len, "write", err);
  if (rc != XIO_OK) return rc;
  if (len && off > UINT64_MAX - len)
    return xio_error_set(err, XIO_ERANGE,
                         "write at offset %" PRIu64 " of %" PRIu64
                         " bytes overflows: it would end past 2^64 - 1",
                         off, len);
  size_t a = f->backend->alignment;
  int unaligned = a > 1 && (off % a || len % a);
  if (len && (unaligned || off + len > atomic_load(&f->size)) && in_callback(f))
    return refuse_in_callback(f, "a write past the end or unaligned", err);
  if (len && off + len > atomic_load(&f->size)) {
    rc = grow_to(f, off + len, err);
    if (rc != XIO_OK) return rc;
  }
  if (len && unaligned) return write_rmw(f, io, io->buf, 0, err);
  if (len && f->wq.enabled) return write_queued(f, io, io->buf, 0, err);
  xio__io_state *st;
  rc = xio__io_begin(f, io, count_pieces(len, f->backend->max_request), &st, err);
  if (rc != XIO_OK) return rc;
  add_pieces(st, XIO__SUB_WRITE, off, len, io->buf, f->backend->max_request, 0);
  xio__io_launch(st);
  return XIO_OK;
}

static xio_err submit_read(xio_file *f, xio_io *io, xio_error *err) {
  uint64_t size = atomic_load(&f->size), n = 0;
  if (io->offset < size) n = size - io->offset < io->length ? size - io->offset : io->length;
  xio__io_state *st;
  xio_err rc = xio__io_begin(f, io, count_pieces(n, read_piece(f)), &st, err);
  if (rc != XIO_OK) return rc;
  add_pieces(st, XIO__SUB_READ, io->offset, n, io->buf, read_piece(f), 0);
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
  if (rc == XIO_OK) rc = xio_io_wait(&io);
  if (rc != XIO_OK && err) *err = io.error;
  if (rc == XIO_OK) atomic_fetch_add(&f->stats.bytes_zero_written, n);
  return rc;
}

static xio_err submit_zero(xio_file *f, xio_io *io, xio_error *err) {
  uint64_t off = io->offset, len = io->length, end = off + len;
  xio_init how = io->init == XIO_INIT_DEFAULT ? XIO_INIT_CLEAR : io->init;
  xio_err rc = check_writable(f, "zero", err);
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
  if (rc == XIO_OK) rc = check_aligned(f, off, len, "zero", err);
  if (rc != XIO_OK) return rc;
  size_t a = f->backend->alignment;
  uint64_t ms = round_up(off, a), me = round_down(end, a);
  if (ms > me) ms = me = off; /* inside one sector: all edge */
  if ((ms != off || me != end) && in_callback(f))
    return refuse_in_callback(f, "an unaligned zero", err);
  if (f->wq.enabled && !xio__wq_idle(f)) {
    /* Writes still queued or in flight might land after the zeroing. */
    if (in_callback(f)) return refuse_in_callback(f, "zeroing behind queued writes", err);
    wait_idle(f);
  }
  xio__wq_forget(f, ms, me, 1);
  rc = zero_edge(f, off, ms - off, err);
  if (rc == XIO_OK) rc = zero_edge(f, me > ms ? me : ms, end - (me > ms ? me : ms), err);
  if (rc != XIO_OK) return rc;
  size_t piece = f->backend->max_request;
  if (piece > xio__ctx_zeros_len(f->ctx)) piece = xio__ctx_zeros_len(f->ctx);
  int n = me <= ms ? 0 : how == XIO_INIT_CLEAR ? 1 : count_pieces(me - ms, piece);
  xio__io_state *st;
  rc = xio__io_begin(f, io, n, &st, err);
  if (rc != XIO_OK) return rc;
  if (n && how == XIO_INIT_CLEAR)
    xio__io_add(st, XIO__SUB_CLEAR, ms, 0, NULL)->clear_length = me - ms;
  else if (n)
    add_pieces(st, XIO__SUB_WRITE, ms, me - ms, (char *)xio__ctx_zeros(f->ctx), piece, 1);
  xio__io_launch(st);
  return XIO_OK;
}

xio_err xio_file_submit(xio_file *f, xio_io *io, xio_error *err) {
  if (!f || !io) return xio_error_set(err, XIO_EINVAL, "no file or request");
  if (check_process(f, err) != XIO_OK) return XIO_EINVAL;
  if ((io->op == XIO_IO_READ || io->op == XIO_IO_WRITE) && io->length && !io->buf)
    return xio_error_set(err, XIO_EINVAL, "no buffer");
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

/* ------------------------------------------------------------ sync API ---- */

static xio_err run_sync(xio_file *f, xio_io *io, xio_error *err) {
  xio_err rc = xio_file_submit(f, io, err);
  if (rc != XIO_OK) return rc;
  rc = xio_io_wait(io);
  if (rc != XIO_OK && err) *err = io->error;
  return rc;
}

xio_err xio_file_read(xio_file *f, uint64_t offset, void *buf, size_t len, size_t *nread,
                      xio_error *err) {
  xio_io io;
  memset(&io, 0, sizeof io);
  io.op = XIO_IO_READ;
  io.offset = offset;
  io.length = len;
  io.buf = buf;
  xio_err rc = run_sync(f, &io, err);
  if (nread) *nread = rc == XIO_OK ? io.transferred : 0;
  return rc;
}

xio_err xio_file_write(xio_file *f, uint64_t offset, const void *buf, size_t len, xio_error *err) {
  xio_io io;
  memset(&io, 0, sizeof io);
  io.op = XIO_IO_WRITE;
  io.offset = offset;
  io.length = len;
  io.buf = (void *)buf;
  return run_sync(f, &io, err);
}

xio_err xio_file_zero(xio_file *f, uint64_t offset, uint64_t len, xio_init how, xio_error *err) {
  xio_io io;
  memset(&io, 0, sizeof io);
  io.op = XIO_IO_ZERO;
  io.offset = offset;
  io.length = (size_t)len;
  io.init = how;
  return run_sync(f, &io, err);
}

/* Shrinking to a size inside a sector: zero the sector's tail first, so that bytes
 * past the logical end always read as zero when the file grows again. */
static xio_err shrink_locked(xio_file *f, uint64_t size, xio_error *err) {
  size_t a = f->backend->alignment;
  xio_err rc = XIO_OK;
  wait_idle(f); /* no queued write may land past the new end */
  if (a > 1 && size % a) {
    uint64_t tail_end = round_up(size, a), old = atomic_load(&f->size);
    rc = zero_edge(f, size, (tail_end < old ? tail_end : old) - size, err);
  }
  if (rc == XIO_OK) rc = f->backend->resize(f, size, err);
  if (rc == XIO_OK) atomic_store(&f->size, size);
  if (rc == XIO_OK) xio__wq_shrunk(f, size);
  return rc;
}

static xio_err grow_locked(xio_file *f, uint64_t size, xio_init init, xio_error *err) {
  size_t a = f->backend->alignment;
  uint64_t old = atomic_load(&f->size);
  xio_err rc = f->backend->resize(f, size, err);
  if (rc != XIO_OK) return rc;
  atomic_store(&f->size, size);
  if (init == XIO_INIT_NONE) return XIO_OK;
  return zero_internal(f, round_up(old, a), round_up(size, a), init, err);
}

xio_err xio_file_set_size(xio_file *f, uint64_t size, xio_init init, xio_error *err) {
  if (check_process(f, err) != XIO_OK) return XIO_EINVAL;
  xio_err rc = check_writable(f, "resize", err);
  if (rc != XIO_OK) return rc;
  if (in_callback(f)) return refuse_in_callback(f, "set_size", err);
  init = resolve_init(f->kind, init);
  if (init < XIO_INIT_NONE || init > XIO_INIT_CLEAR)
    return xio_error_set(err, XIO_EINVAL, "unknown init policy %d", (int)init);
  if ((rc = check_max_size("resizing", size, err)) != XIO_OK) return rc;
  pthread_mutex_lock(&f->size_mu);
  uint64_t old = atomic_load(&f->size);
  if (size > old)
    rc = grow_locked(f, size, init, err);
  else if (size < old)
    rc = shrink_locked(f, size, err);
  pthread_mutex_unlock(&f->size_mu);
  return rc;
}

uint64_t xio_file_size(const xio_file *f) { return atomic_load(&f->size); }

/* ------------------------------------------------------- held writes ---- */

xio_err xio_file_hold(xio_file *f, uint64_t offset, const void *buf, size_t len, xio_error *err) {
  if (!f || (!buf && len)) return xio_error_set(err, XIO_EINVAL, "no file or no buffer");
  xio_err rc = check_writable(f, "hold a write to", err);
  if (rc != XIO_OK) return rc;
  if (!(f->flags & XIO_OPEN_EXCLUSIVE))
    return xio_error_set(err, XIO_EINVAL,
                         "cannot hold a write to %s: held writes need a file opened "
                         "XIO_OPEN_EXCLUSIVE (its only writer)",
                         f->path);
  if ((rc = check_aligned(f, offset, len, "held write", err)) != XIO_OK) return rc;
  if (len && offset > UINT64_MAX - len)
    return xio_error_set(err, XIO_ERANGE,
                         "held write at offset %" PRIu64 " of %" PRIu64
                         " bytes overflows: it would end past 2^64 - 1",
                         offset, (uint64_t)len);
  if ((rc = check_max_size("holding a write", offset + len, err)) != XIO_OK) return rc;
  return xio__held_put(f, offset, buf, len, err);
}

xio_err xio_file_send_held(xio_file *f, xio_error *err) {
  if (!f) return xio_error_set(err, XIO_EINVAL, "no file");
  if (enter(f, "sending held writes", err) != XIO_OK) return XIO_EINVAL;
  return xio__held_send(f, err);
}

xio_err xio_file_flush(xio_file *f, xio_error *err) {
  if (enter(f, "flush", err) != XIO_OK) return XIO_EINVAL;
  xio_err rc = xio__held_flush(f, err);
  wait_idle(f);
  if (rc == XIO_OK) rc = f->backend->sync(f, err);
  pthread_mutex_lock(&f->io_mu);
  if (rc == XIO_OK && f->sticky != XIO_OK) {
    rc = f->sticky;
    if (err) *err = f->sticky_detail;
  }
  f->sticky = XIO_OK;
  pthread_mutex_unlock(&f->io_mu);
  return rc;
}

xio_err xio_file_wait(xio_file *f, xio_error *err) {
  if (!f) return xio_error_set(err, XIO_EINVAL, "no file");
  if (enter(f, "waiting", err) != XIO_OK) return XIO_EINVAL;
  wait_idle(f);
  return XIO_OK;
}

static void kick_one(xio__tracked_node *n, void *ud) {
  (void)ud;
  xio__wq_kick((xio_file *)((char *)n - offsetof(xio_file, open_node)));
}

static void wait_one(xio__tracked_node *n, void *ud) {
  (void)ud;
  wait_idle((xio_file *)((char *)n - offsetof(xio_file, open_node)));
}

xio_err xio_ctx_wait(xio_ctx *ctx, xio_error *err) {
  if (!ctx) return xio_error_set(err, XIO_EINVAL, "no context");
  if (xio__ctx_check_process(ctx, err) != XIO_OK) return XIO_EINVAL;
  if (xio__ctx_on_io_thread(ctx))
    return xio_error_set(err, XIO_EINVAL,
                         "waiting would block: not allowed from a completion callback");
  xio__tracked_each(xio__ctx_open_files(ctx), kick_one, NULL);
  xio__tracked_each(xio__ctx_open_files(ctx), wait_one, NULL);
  return XIO_OK;
}

xio_err xio_file_ranges(xio_file *f, xio_ranges *out, xio_error *err) {
  if (enter(f, "listing ranges", err) != XIO_OK) return XIO_EINVAL;
  return f->backend->ranges(f, out, err);
}

xio_err xio_file_ranges_diff(xio_file *f, const char *since, xio_ranges *written,
                             xio_ranges *cleared, xio_error *err) {
  if (check_process(f, err) != XIO_OK) return XIO_EINVAL;
  if (!written) return xio_error_set(err, XIO_EINVAL, "no list for the written ranges");
  if (!since || !since[0])
    return xio_error_set(err, XIO_EINVAL, "no snapshot to diff against: give its id (--since)");
  if (in_callback(f)) return refuse_in_callback(f, "listing ranges", err);
  return f->backend->ranges_diff(f, since, written, cleared, err);
}

xio_err xio_file_snapshot(xio_file *f, char *id, size_t size, xio_error *err) {
  if (enter(f, "a snapshot", err) != XIO_OK) return XIO_EINVAL;
  wait_idle(f);
  return f->backend->snapshot(f, id, size, err);
}

xio_err xio_file_stat(xio_file *f, xio_file_info *out, xio_error *err) {
  if (enter(f, "stat", err) != XIO_OK) return XIO_EINVAL;
  memset(out, 0, sizeof *out);
  out->backend = f->backend->name;
  out->kind = f->kind;
  out->size = atomic_load(&f->size);
  return f->backend->stat(f, out, err);
}

xio_err xio_stat(xio_ctx *ctx, const char *target, xio_file_info *out, xio_error *err) {
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_READONLY;
  xio_file *f = NULL;
  xio_err rc = xio_file_open(ctx, target, &o, &f, err);
  if (rc == XIO_OK) rc = xio_file_stat(f, out, err);
  xio_file_close(f, NULL);
  return rc;
}

static xio_err check_lease(const xio_lease_request *r, xio_error *err) {
  if (r->action < XIO_LEASE_ACQUIRE || r->action > XIO_LEASE_BREAK)
    return xio_error_set(err, XIO_EINVAL, "unknown lease action %d", (int)r->action);
  if ((r->action == XIO_LEASE_RENEW || r->action == XIO_LEASE_RELEASE) &&
      (!r->lease_id || !*r->lease_id))
    return xio_error_set(err, XIO_EINVAL, "renewing or releasing a lease needs its id");
  if (r->action == XIO_LEASE_ACQUIRE && !xio_blob_lease_duration_ok(r->duration_s, 1))
    return xio_error_set(err, XIO_EINVAL, "lease duration %d: use -1 (infinite) or %d..%d",
                         r->duration_s, XIO_BLOB_LEASE_MIN_S, XIO_BLOB_LEASE_MAX_S);
  if (r->action == XIO_LEASE_BREAK && !xio_blob_break_period_ok(r->break_period_s, 0))
    return xio_error_set(err, XIO_EINVAL, "break period %d outside 0..%d", r->break_period_s,
                         XIO_BLOB_BREAK_MAX_S);
  return XIO_OK;
}

xio_err xio_lease(xio_ctx *ctx, const char *target, const xio_lease_request *req,
                  xio_lease_result *out, xio_error *err) {
  xio_lease_result ignored;
  if (!out) out = &ignored;
  memset(out, 0, sizeof *out);
  out->remaining_s = -1;
  if (!ctx || !target || !*target || !req)
    return xio_error_set(err, XIO_EINVAL, "no context, target or lease request");
  if (xio__ctx_check_process(ctx, err) != XIO_OK) return XIO_EINVAL;
  if (xio__ctx_on_io_thread(ctx))
    return xio_error_set(err, XIO_EINVAL,
                         "a lease request would block: not allowed from a completion callback");
  xio_err rc = check_lease(req, err);
  if (rc != XIO_OK) return rc;
  const xio_backend *b = xio__backend_for(target);
  return b ? b->lease(ctx, target, req, out, err) : unsupported_target(target, err);
}

xio_kind xio_file_kind(const xio_file *f) { return f->kind; }

int xio_file_incomplete(const xio_file *f) { return f->incomplete; }

xio_err xio_file_set_incomplete(xio_file *f, int incomplete, xio_error *err) {
  if (check_process(f, err) != XIO_OK) return XIO_EINVAL;
  xio_err rc = check_writable(f, "mark", err);
  incomplete = incomplete != 0;
  if (rc != XIO_OK || incomplete == f->incomplete) return rc;
  if (in_callback(f)) return refuse_in_callback(f, "set_incomplete", err);
  if (!f->backend->set_incomplete)
    return xio_error_set(err, XIO_EUNSUPPORTED, "%s cannot be marked incomplete", f->path);
  pthread_mutex_lock(&f->size_mu);
  f->incomplete = incomplete;
  rc = f->backend->set_incomplete(f, err);
  if (rc != XIO_OK) f->incomplete = !incomplete;
  pthread_mutex_unlock(&f->size_mu);
  return rc;
}

xio_err xio_file_set_kind(xio_file *f, xio_kind kind, xio_error *err) {
  if (kind != XIO_KIND_DATA && kind != XIO_KIND_LOG)
    return xio_error_set(err, XIO_EINVAL, "unknown file kind %d", (int)kind);
  if (check_process(f, err) != XIO_OK) return XIO_EINVAL;
  xio_err rc = check_writable(f, "change the kind of", err);
  if (rc != XIO_OK || kind == f->kind) return rc;
  if (in_callback(f)) return refuse_in_callback(f, "set_kind", err);
  if (!f->backend->set_kind)
    return xio_error_set(err, XIO_EUNSUPPORTED, "%s cannot record a file kind", f->path);
  pthread_mutex_lock(&f->size_mu);
  xio_kind old = f->kind;
  f->kind = kind;
  rc = f->backend->set_kind(f, err);
  if (rc != XIO_OK) f->kind = old;
  pthread_mutex_unlock(&f->size_mu);
  return rc;
}
const char *xio_file_path(const xio_file *f) { return f->path; }
const char *xio_file_backend(const xio_file *f) { return f->backend->name; }

void xio_file_get_stats(const xio_file *f, xio_file_stats *o) {
  o->reads = atomic_load(&f->stats.reads);
  o->writes = atomic_load(&f->stats.writes);
  o->bytes_read = atomic_load(&f->stats.bytes_read);
  o->bytes_written = atomic_load(&f->stats.bytes_written);
  o->bytes_cleared = atomic_load(&f->stats.bytes_cleared);
  o->bytes_zero_written = atomic_load(&f->stats.bytes_zero_written);
  o->requests = atomic_load(&f->stats.requests);
  o->retries = atomic_load(&f->stats.retries);
  o->failures = atomic_load(&f->stats.failures);
  o->stall_read_us = atomic_load(&f->stats.stall_read_us);
  o->stall_write_us = atomic_load(&f->stats.stall_write_us);
  o->stall_other_us = atomic_load(&f->stats.stall_other_us);
  o->rmw_conflicts = atomic_load(&f->stats.rmw_conflicts);
  o->throttled = atomic_load(&f->stats.throttled);
  o->read_requests = atomic_load(&f->stats.read_requests);
  o->write_requests = atomic_load(&f->stats.write_requests);
  o->zero_requests = atomic_load(&f->stats.zero_requests);
  o->readback_requests = atomic_load(&f->stats.readback_requests);
}

/* ------------------------------------------------------ open / close ---- */

static xio_err check_open(const xio_open_options *o, xio_error *err) {
  unsigned known = XIO_OPEN_CREATE | XIO_OPEN_CREATE_ONLY | XIO_OPEN_READONLY | XIO_OPEN_EXCLUSIVE |
                   XIO_OPEN_BREAK_LEASE | XIO_OPEN_UNALIGNED | XIO_OPEN_INCOMPLETE_OK |
                   XIO_OPEN_PINNED | XIO_OPEN_MISSING_OK | XIO_OPEN_MARK_INCOMPLETE;
  if (o->flags & ~known)
    return xio_error_set(err, XIO_EINVAL, "unknown open flags 0x%x", o->flags & ~known);
  if ((o->flags & XIO_OPEN_READONLY) &&
      (o->flags & (XIO_OPEN_CREATE | XIO_OPEN_CREATE_ONLY | XIO_OPEN_EXCLUSIVE)))
    return xio_error_set(err, XIO_EINVAL, "read-only opens cannot create or lease");
  if ((o->flags & XIO_OPEN_PINNED) && !(o->flags & XIO_OPEN_READONLY))
    return xio_error_set(err, XIO_EINVAL,
                         "a pinned open reads one version of the file: it needs "
                         "XIO_OPEN_READONLY (a write would change the version)");
  if ((o->flags & XIO_OPEN_MARK_INCOMPLETE) &&
      !(o->flags & (XIO_OPEN_CREATE | XIO_OPEN_CREATE_ONLY)))
    return xio_error_set(err, XIO_EINVAL,
                         "XIO_OPEN_MARK_INCOMPLETE marks a file the open creates: it needs "
                         "XIO_OPEN_CREATE or XIO_OPEN_CREATE_ONLY");
  if ((o->flags & XIO_OPEN_BREAK_LEASE) && !(o->flags & XIO_OPEN_EXCLUSIVE))
    return xio_error_set(err, XIO_EINVAL, "break-lease needs an exclusive open");
  if (o->kind != XIO_KIND_DATA && o->kind != XIO_KIND_LOG)
    return xio_error_set(err, XIO_EINVAL, "unknown file kind %d", (int)o->kind);
  if (o->init < XIO_INIT_DEFAULT || o->init > XIO_INIT_CLEAR)
    return xio_error_set(err, XIO_EINVAL, "unknown init policy %d", (int)o->init);
  if (o->size > XIO_FILE_MAX_SIZE)
    return xio_error_set(err, XIO_ELIMIT, "size %" PRIu64 " exceeds 8 TiB", o->size);
  return XIO_OK;
}

xio_err xio_file_open(xio_ctx *ctx, const char *target, const xio_open_options *opts,
                      xio_file **out, xio_error *err) {
  xio_open_options o = opts ? *opts : xio_open_options_default();
  *out = NULL;
  if (!ctx || !target || !*target) return xio_error_set(err, XIO_EINVAL, "no context or target");
  if (xio__ctx_check_process(ctx, err) != XIO_OK) return XIO_EINVAL;
  xio_err rc = check_open(&o, err);
  if (rc != XIO_OK) return rc;
  const xio_backend *b = xio__backend_for(target);
  if (!b) return unsupported_target(target, err);
  xio_file *f = NULL;
  int created = 0;
  rc = b->open(ctx, target, &o, &f, &created, err);
  if (rc != XIO_OK) return rc;
  int marked_here = created && (o.flags & XIO_OPEN_MARK_INCOMPLETE);
  if (f->incomplete && !marked_here && !(o.flags & XIO_OPEN_INCOMPLETE_OK)) {
    rc = xio_error_set(err, XIO_ECONFLICT,
                       "%s is incomplete: a transfer into it was interrupted (put --resume "
                       "finishes it; XIO_OPEN_INCOMPLETE_OK opens it anyway)",
                       f->path);
    xio_error_set_operation(err, "OpenFile");
    b->close(f, NULL);
    return rc;
  }
  xio_init init = resolve_init(f->kind, o.init);
  if (created) xio__wq_all_zero(f); /* a created file reads as zeros, whatever the init */
  if (created && init != XIO_INIT_NONE)
    rc = zero_internal(f, 0, round_up(atomic_load(&f->size), b->alignment), init, err);
  if (rc != XIO_OK) {
    b->close(f, NULL);
    return rc;
  }
  xio__tracked_add(xio__ctx_open_files(ctx), &f->open_node);
  *out = f;
  return XIO_OK;
}

xio_err xio_file_close(xio_file *f, xio_error *err) {
  if (!f) return XIO_OK;
  /* A forked child leaves the file to its parent: no lease released, nothing freed. */
  if (enter(f, "close", err) != XIO_OK) return XIO_EINVAL;
  xio_error held_err;
  xio_err held = xio__held_flush(f, &held_err);
  xio__tracked_remove(xio__ctx_open_files(f->ctx), &f->open_node);
  wait_idle(f);
  xio__wq_disarm(f);
  xio_err rc = f->backend->close(f, err);
  if (held != XIO_OK && err) *err = held_err;
  return held != XIO_OK ? held : rc;
}

xio_err xio_file_delete(xio_ctx *ctx, const char *target, xio_error *err) {
  if (!ctx || !target || !*target) return xio_error_set(err, XIO_EINVAL, "no context or target");
  if (xio__ctx_check_process(ctx, err) != XIO_OK) return XIO_EINVAL;
  const xio_backend *b = xio__backend_for(target);
  return b ? b->remove(ctx, target, XIO__REMOVE_SNAPSHOTS, err) : unsupported_target(target, err);
}

xio_err xio_file_delete_unless_snapshots(xio_ctx *ctx, const char *target, xio_error *err) {
  if (!ctx || !target || !*target) return xio_error_set(err, XIO_EINVAL, "no context or target");
  if (xio__ctx_check_process(ctx, err) != XIO_OK) return XIO_EINVAL;
  const xio_backend *b = xio__backend_for(target);
  return b ? b->remove(ctx, target, 0, err) : unsupported_target(target, err);
}

xio_err xio_file_delete_if_exists(xio_ctx *ctx, const char *target, int *deleted, xio_error *err) {
  if (deleted) *deleted = 0;
  if (!ctx || !target || !*target) return xio_error_set(err, XIO_EINVAL, "no context or target");
  if (xio__ctx_check_process(ctx, err) != XIO_OK) return XIO_EINVAL;
  const xio_backend *b = xio__backend_for(target);
  if (!b) return unsupported_target(target, err);
  xio_err rc = b->remove(ctx, target, XIO__REMOVE_SNAPSHOTS | XIO__REMOVE_IF_EXISTS, err);
  if (rc == XIO_ENOTFOUND) {
    xio_error_clear(err);
    return XIO_OK;
  }
  if (rc == XIO_OK && deleted) *deleted = 1;
  return rc;
}
