/*
 * flush.c - a flush of held runs: they become queued writes, the commit range last.
 *
 * A flush sends the held runs as queued writes (queue.c gives their edge sectors),
 * which combines runs that share or touch a sector into one Put Page. The commit
 * range is the engine's header or commit record (SQLite: page 1): the runs meeting it,
 * and the runs sharing or touching a sector with those, go only after every other run
 * is acknowledged, so the header changes on storage only once everything it points to
 * is there. xio_file_send_held sends everything outside the commit range early (a
 * transaction too large to hold), cutting a run that crosses its edge, and keeps the
 * commit range's bytes held.
 *
 * Held runs a little apart are sent as one write where that costs less. A transaction
 * that changes every second or third page of a table would otherwise cost a Put Page
 * per page: thousands of requests at a flush, against a standard blob's 500 a second.
 * Runs whose gaps are smaller than what one request costs in bytes (backend
 * request_bytes: 123 KiB on a page blob) form a cluster of at most one request's span;
 * when one read of the span (for the gap bytes nobody knows: the handle's own
 * knowledge comes first) and one write cost less than a request per run, that is what
 * is sent, counted in xio_file_stats.readback_requests. A write queued elsewhere
 * during the read makes the cluster go run by run instead.
 *
 * A flush sends pointers into the held runs' buffers: the runs stay as they are until
 * every request is done, then the sent bytes are forgotten. A failed send forgets
 * nothing, so the engine may retry or drop them.
 */
#define _POSIX_C_SOURCE 200809L
#include <string.h>

#include <xio/alloc.h>

#include "pending_int.h"

typedef xio__piece piece;

static uint64_t rdown(uint64_t v, uint64_t a) { return xio__rdown(v, a); }

static uint64_t rup(uint64_t v, uint64_t a) { return xio__rup(v, a); }

/* What a request of `bytes` costs, in bytes of transfer (see request_bytes). */
static uint64_t cost(const xio_file *f, uint64_t bytes) {
  uint64_t r = f->backend->request_bytes;
  return bytes > r ? bytes : r;
}

/* The end of the cluster that starts at piece `i`: the pieces after it whose gap to
 * the one before is smaller than a request's cost, while the aligned span stays one
 * request inside the file. `i + 1` when there is nothing to join with. */
static size_t cluster_end(const xio_file *f, const piece *p, size_t i, size_t n) {
  size_t a = f->backend->alignment, j = i + 1;
  uint64_t start = rdown(p[i].off, a), size = atomic_load(&f->size);
  if (!f->backend->request_bytes) return j;
  for (; j < n; j++) {
    uint64_t gap_from = p[j - 1].off + p[j - 1].len, end = rup(p[j].off + p[j].len, a);
    if (p[j].off - gap_from >= f->backend->request_bytes || end - start > f->backend->max_request ||
        end > size)
      break;
  }
  return j;
}

/* Begins the write `io` of [off, off+len) for a flush: counted as the engine's. */
static xio_err begin_write(xio_file *f, xio_io *io, uint64_t off, uint64_t len, char *buf,
                           xio__io_state **st, xio_error *err) {
  memset(io, 0, sizeof *io);
  io->op = XIO_IO_WRITE;
  io->offset = off;
  io->length = (size_t)len;
  io->buf = buf;
  return xio__io_begin(f, io, 0, st, err);
}

/* Sends pieces [0, n) as one write of their aligned span, the bytes between them
 * read once from storage (unless the handle knows them), when that costs less than
 * a request per piece. *joined: it was queued, as `io`; else nothing was sent and
 * the caller sends the pieces one by one. Errors: XIO_ENOMEM. */
static xio_err send_joined(xio_file *f, const piece *p, size_t n, xio_io *io, int *joined,
                           xio_error *err) {
  size_t a = f->backend->alignment;
  uint64_t s = rdown(p[0].off, a), e = rup(p[n - 1].off + p[n - 1].len, a), apart = 0;
  for (size_t i = 0; i < n; i++)
    apart += cost(f, p[i].len);
  *joined = 0;
  xio__span sp;
  xio_err rc = xio__span_plan(f, s, e, &sp, err);
  if (rc != XIO_OK) return rc;
  char *readbuf = NULL;
  if (cost(f, e - s) * (sp.need_read ? 2 : 1) >= apart) goto out; /* not worth it */
  if (sp.need_read) {
    xio_error ignored;
    if (!(readbuf = xio_malloc((size_t)(e - s)))) {
      rc = xio_error_set(err, XIO_ENOMEM, "out of memory joining held writes");
      goto out;
    }
    atomic_fetch_add(&f->stats.readback_requests, 1);
    if (xio__read_internal(f, s, readbuf, (size_t)(e - s), &ignored) != XIO_OK)
      goto out; /* sent one by one: their own answers tell */
  }
  xio__io_state *st;
  if ((rc = begin_write(f, io, s, e - s, NULL, &st, err)) != XIO_OK) goto out;
  int stale = 0;
  rc = xio__span_submit(f, st, &sp, readbuf, p, n, &stale, err);
  if (rc != XIO_OK || stale) {
    st->internal = st->no_sticky = 1; /* never sent: no count, no sticky failure */
    xio__io_fail(st, XIO_ECANCELED, NULL);
    xio__io_wait(io);
  } else {
    *joined = 1;
  }
out:
  xio_free(readbuf);
  xio__span_clear(&sp);
  return rc;
}

/* Queues one piece as a write, growing the file first when it ends past it. */
static xio_err send_one(xio_file *f, const piece *p, xio_io *w, xio_error *err) {
  xio__io_state *st;
  xio_err rc = xio__grow_to(f, p->off + p->len, err);
  if (rc == XIO_OK) rc = begin_write(f, w, p->off, p->len, p->buf, &st, err);
  if (rc != XIO_OK) return rc;
  xio_error e;
  xio_error_clear(&e);
  if ((rc = xio__pending_write(f, st, p->buf, &e)) != XIO_OK) xio__io_fail(st, rc, &e);
  return XIO_OK;
}

/* Queues every piece, a cluster of them with small gaps as one write where that costs
 * less (send_joined), as one batch (no window sends a run before the pieces sharing
 * its sectors joined it), and waits for all; the first failure. */
static xio_err send_pieces(xio_file *f, const piece *p, size_t n, xio_error *err) {
  if (n == 0) return XIO_OK;
  xio_err first = XIO_OK;
  xio_io *io = xio_calloc(n, sizeof *io);
  if (!io) return xio_error_set(err, XIO_ENOMEM, "out of memory sending held writes");
  size_t submitted = 0;
  xio__pending_batch(f, 1);
  for (size_t i = 0; i < n && first == XIO_OK;) {
    size_t j = cluster_end(f, p, i, n);
    int joined = 0;
    if (j - i > 1) first = send_joined(f, p + i, j - i, &io[submitted], &joined, err);
    if (joined) {
      submitted++;
      i = j;
      continue;
    }
    for (; i < j && first == XIO_OK; i++)
      if ((first = send_one(f, &p[i], &io[submitted], err)) == XIO_OK) submitted++;
  }
  xio__pending_batch(f, 0);
  for (size_t i = 0; i < submitted; i++) {
    xio_err rc = xio__io_wait(&io[i]);
    if (rc != XIO_OK && first == XIO_OK) {
      first = rc;
      if (err) *err = io[i].error;
    }
  }
  xio_free(io);
  return first;
}

/* The parts of the pieces outside [c0, c1), into `out` (at most two a piece). */
static size_t outside(const piece *v, size_t n, uint64_t c0, uint64_t c1, piece *out) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t s = v[i].off, e = s + v[i].len;
    if (c0 >= c1 || e <= c0 || s >= c1) {
      out[k++] = v[i];
      continue;
    }
    if (s < c0) out[k++] = (piece){s, (size_t)(c0 - s), v[i].buf};
    if (e > c1) out[k++] = (piece){c1, (size_t)(e - c1), v[i].buf + (c1 - s)};
  }
  return k;
}

/* The pieces whose `last` mark equals `which`, moved to the front of `v` in order;
 * the count. */
static size_t pick(piece *v, size_t n, const unsigned char *last, int which, piece *out) {
  size_t k = 0;
  for (size_t i = 0; i < n; i++)
    if (last[i] == which) out[k++] = v[i];
  return k;
}

xio_err xio__pending_flush(xio_file *f, int keep_commit, xio_error *err) {
  xio__pending *p = &f->pend;
  pthread_mutex_lock(&p->mu);
  size_t n = p->n; /* at least the held runs */
  uint64_t c0 = p->commit_off, c1 = p->commit_end;
  piece *v = n ? xio_calloc(3 * n, sizeof *v) : NULL;
  unsigned char *last = n ? xio_calloc(n, 1) : NULL;
  if (n && (!v || !last)) {
    pthread_mutex_unlock(&p->mu);
    xio_free(v);
    xio_free(last);
    return xio_error_set(err, XIO_ENOMEM, "out of memory sending held writes");
  }
  n = n ? xio__pending_held_pieces(f, v, last) : 0; /* the runs do not change meanwhile */
  pthread_mutex_unlock(&p->mu);
  piece *sorted = v + n; /* room for 2n */
  xio_err rc = XIO_OK;
  size_t first = 0, rest = 0;
  if (keep_commit) {
    first = outside(v, n, c0, c1, sorted);
  } else {
    first = pick(v, n, last, 0, sorted);
    rest = pick(v, n, last, 1, sorted + first);
  }
  rc = send_pieces(f, sorted, first, err);
  if (rc == XIO_OK) rc = send_pieces(f, sorted + first, rest, err);
  if (rc == XIO_OK && n) {
    pthread_mutex_lock(&p->mu);
    xio__pending_keep_held(p, keep_commit ? c0 : 0, keep_commit ? (c0 < c1 ? c1 : c0) : 0);
    pthread_mutex_unlock(&p->mu);
  }
  xio_free(v);
  xio_free(last);
  return rc;
}
