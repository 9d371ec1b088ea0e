/*
 * held.c - held writes: an engine's writes kept in memory until it flushes.
 *
 * A database engine writes in small pieces between syncs (SQLite: a WAL frame as a
 * 24-byte header and a page, a journal record as three writes) and needs them on
 * storage only when it syncs. xio_file_hold copies each into the file's held runs,
 * sorted, disjoint and not touching, merging a write into every run it overlaps or
 * touches (the newest bytes win). Reads see them (io.c overlays them on every read an
 * engine makes). xio_file_flush hands the runs as they are to the write queue
 * (combine.c) in one batch, which combines runs that share or touch a sector into
 * one Put Page (the combining window does not split a batch) and fills their edge
 * sectors from what the handle knows, and waits for them.
 *
 * The commit range is the engine's header or commit record (SQLite: page 1). At a
 * flush the runs meeting it, and the runs sharing or touching a sector with those,
 * go only after every other run is acknowledged, so the header changes on storage
 * only once everything it points to is there. xio_file_send_held sends everything
 * outside the commit range early (a transaction too large to hold), cutting a run
 * that crosses its edge, and keeps the commit range's bytes held.
 *
 * Runs a little apart are sent as one write where that costs less. A transaction
 * that changes every second or third page of a table would otherwise cost a Put Page
 * per page: thousands of requests at a flush, against a standard blob's 500 a
 * second. Runs whose gaps are smaller than what one request costs in bytes
 * (backend request_bytes: 123 KiB on a page blob) form a cluster of at most one
 * request's span; when one read of the span (for the gap bytes nobody knows: the
 * write queue's own knowledge comes first) and one write cost less than a request
 * per run, that is what is sent, counted in xio_file_stats.readback_requests. A
 * write queued elsewhere during the read makes the cluster go run by run instead.
 *
 * Sending submits pointers into the runs' buffers: the runs stay as they are until
 * every request is done, then the sent bytes are forgotten. A failed send forgets
 * nothing, so the engine may retry or drop them.
 */
#define _POSIX_C_SOURCE 200809L
#include <string.h>

#include <xio/alloc.h>

#include "ctx_int.h"

static uint64_t rdown(uint64_t v, uint64_t a) { return a > 1 ? v / a * a : v; }
static uint64_t rup(uint64_t v, uint64_t a) { return a > 1 ? (v + a - 1) / a * a : v; }

void xio__held_init(xio_file *f) { pthread_mutex_init(&f->held.mu, NULL); }

static void free_runs(xio__held *h, size_t from, size_t to) {
  for (size_t i = from; i < to; i++) {
    h->bytes -= h->v[i].len;
    xio_free(h->v[i].buf);
  }
}

void xio__held_release(xio_file *f) {
  xio__held *h = &f->held;
  free_runs(h, 0, h->n);
  xio_free(h->v);
  h->v = NULL;
  h->n = h->cap = 0;
  pthread_mutex_destroy(&h->mu);
}

/* ------------------------------------------------------------ the runs ---- */

/* Makes room for `len` bytes in `r`'s buffer, keeping its bytes: 0, or -1 on OOM. */
static int reserve(xio__held_run *r, size_t len) {
  if (r->buf && len <= r->cap) return 0;
  size_t cap = r->cap ? r->cap : 4096;
  while (cap < len)
    cap *= 2;
  char *b = xio_malloc(cap);
  if (!b) return -1;
  if (r->buf && r->len) memcpy(b, r->buf, r->len);
  xio_free(r->buf);
  r->buf = b;
  r->cap = cap;
  return 0;
}

/* Index of the first run that ends at or after `off` (touching counts). */
static size_t first_touching(const xio__held *h, uint64_t off) {
  size_t lo = 0, hi = h->n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (h->v[mid].off + h->v[mid].len < off)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static int insert_run(xio__held *h, size_t at, uint64_t off, const void *buf, size_t len) {
  if (h->n == h->cap) {
    size_t cap = h->cap ? h->cap * 2 : 8;
    xio__held_run *v = xio_malloc(cap * sizeof *v);
    if (!v) return -1;
    if (h->n) memcpy(v, h->v, h->n * sizeof *v);
    xio_free(h->v);
    h->v = v;
    h->cap = cap;
  }
  xio__held_run r = {off, 0, 0, NULL};
  if (reserve(&r, len)) return -1;
  memcpy(r.buf, buf, len);
  r.len = len;
  memmove(h->v + at + 1, h->v + at, (h->n - at) * sizeof *h->v);
  h->v[at] = r;
  h->n++;
  h->bytes += len;
  return 0;
}

/* Merges runs [i, j) and the write into one run, at i: in run i's own buffer when the
 * write does not start before it (appending stays linear), else in a new one. */
static int merge_runs(xio__held *h, size_t i, size_t j, uint64_t off, const void *buf, size_t len) {
  uint64_t start = h->v[i].off < off ? h->v[i].off : off;
  uint64_t end = h->v[j - 1].off + h->v[j - 1].len;
  if (off + len > end) end = off + len;
  xio__held_run nr = {start, 0, 0, NULL};
  size_t keep = start == h->v[i].off ? i + 1 : i; /* runs copied into the result */
  if (keep > i) {
    nr = h->v[i];
    h->v[i].buf = NULL; /* moved */
  }
  if (reserve(&nr, (size_t)(end - start))) {
    if (keep > i) h->v[i] = nr;
    return -1;
  }
  for (size_t k = keep; k < j; k++)
    memcpy(nr.buf + (h->v[k].off - start), h->v[k].buf, h->v[k].len);
  memcpy(nr.buf + (off - start), buf, len);
  if (keep > i) h->bytes -= h->v[i].len;
  free_runs(h, keep, j);
  nr.len = (size_t)(end - start);
  h->v[i] = nr;
  h->bytes += nr.len;
  memmove(h->v + i + 1, h->v + j, (h->n - j) * sizeof *h->v);
  h->n -= j - i - 1;
  return 0;
}

xio_err xio__held_put(xio_file *f, uint64_t off, const void *buf, size_t len, xio_error *err) {
  xio__held *h = &f->held;
  if (len == 0) return XIO_OK;
  pthread_mutex_lock(&h->mu);
  size_t i = first_touching(h, off), j = i;
  while (j < h->n && h->v[j].off <= off + len)
    j++;
  int rc = i == j ? insert_run(h, i, off, buf, len) : merge_runs(h, i, j, off, buf, len);
  pthread_mutex_unlock(&h->mu);
  return rc ? xio_error_set(err, XIO_ENOMEM, "out of memory holding a write to %s", f->path)
            : XIO_OK;
}

/* Copies the held bytes in [off, off+len) over `buf`; the count copied. Lock held. */
static uint64_t overlay_locked(const xio__held *h, uint64_t off, void *buf, size_t len) {
  uint64_t end = off + len, covered = 0;
  for (size_t i = first_touching(h, off); i < h->n && h->v[i].off < end; i++) {
    const xio__held_run *r = &h->v[i];
    uint64_t s = r->off > off ? r->off : off;
    uint64_t e = r->off + r->len < end ? r->off + r->len : end;
    if (e <= s) continue;
    memcpy((char *)buf + (s - off), r->buf + (s - r->off), (size_t)(e - s));
    covered += e - s;
  }
  return covered;
}

/* Keeps only the held bytes in [from, to): runs outside go, runs crossing are cut.
 * Lock held. */
static void keep_only(xio__held *h, uint64_t from, uint64_t to) {
  size_t k = 0;
  for (size_t i = 0; i < h->n; i++) {
    xio__held_run *r = &h->v[i];
    uint64_t s = r->off > from ? r->off : from;
    uint64_t e = r->off + r->len < to ? r->off + r->len : to;
    if (e <= s) {
      free_runs(h, i, i + 1);
      continue;
    }
    if (s > r->off) memmove(r->buf, r->buf + (s - r->off), (size_t)(e - s));
    h->bytes -= r->len - (size_t)(e - s);
    r->off = s;
    r->len = (size_t)(e - s);
    h->v[k++] = *r;
  }
  h->n = k;
}

/* ---------------------------------------------------------- public API ---- */

void xio__held_overlay(xio_file *f, uint64_t offset, void *buf, size_t len) {
  pthread_mutex_lock(&f->held.mu);
  if (f->held.n) overlay_locked(&f->held, offset, buf, len);
  pthread_mutex_unlock(&f->held.mu);
}

int xio_file_held_read(xio_file *f, uint64_t offset, void *buf, size_t len) {
  if (!f || !len) return len == 0;
  pthread_mutex_lock(&f->held.mu);
  uint64_t covered = f->held.n ? overlay_locked(&f->held, offset, buf, len) : 0;
  pthread_mutex_unlock(&f->held.mu);
  return covered == len;
}

uint64_t xio_file_held_bytes(xio_file *f) {
  if (!f) return 0;
  pthread_mutex_lock(&f->held.mu);
  uint64_t n = f->held.bytes;
  pthread_mutex_unlock(&f->held.mu);
  return n;
}

uint64_t xio_file_held_end(xio_file *f) {
  if (!f) return 0;
  pthread_mutex_lock(&f->held.mu);
  const xio__held *h = &f->held;
  uint64_t end = h->n ? h->v[h->n - 1].off + h->v[h->n - 1].len : 0;
  pthread_mutex_unlock(&f->held.mu);
  return end;
}

void xio_file_drop_held(xio_file *f, uint64_t offset) {
  if (!f) return;
  pthread_mutex_lock(&f->held.mu);
  keep_only(&f->held, 0, offset);
  pthread_mutex_unlock(&f->held.mu);
}

void xio_file_held_each(xio_file *f, xio_held_fn fn, void *ud) {
  if (!f || !fn) return;
  pthread_mutex_lock(&f->held.mu);
  for (size_t i = 0; i < f->held.n; i++)
    fn(f->held.v[i].off, f->held.v[i].buf, f->held.v[i].len, ud);
  pthread_mutex_unlock(&f->held.mu);
}

void xio_file_set_commit_range(xio_file *f, uint64_t offset, uint64_t len) {
  if (!f) return;
  pthread_mutex_lock(&f->held.mu);
  f->held.commit_off = offset;
  f->held.commit_end = len && offset <= UINT64_MAX - len ? offset + len : offset;
  pthread_mutex_unlock(&f->held.mu);
}

/* ------------------------------------------------------------- sending ---- */

/* One piece to send: a pointer into a held run. */
typedef xio__wq_piece piece;

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
  if (!f->backend->request_bytes || !f->wq.enabled) return j;
  for (; j < n; j++) {
    uint64_t gap_from = p[j - 1].off + p[j - 1].len, end = rup(p[j].off + p[j].len, a);
    if (p[j].off - gap_from >= f->backend->request_bytes || end - start > f->backend->max_request ||
        end > size)
      break;
  }
  return j;
}

/* Sends pieces [0, n) as one write of their aligned span, the bytes between them
 * read once from storage (unless the write queue knows them), when that costs less
 * than a request per piece. *joined: it was queued, as `io`; else nothing was sent
 * and the caller sends the pieces one by one. Errors: XIO_ENOMEM. */
static xio_err send_joined(xio_file *f, const piece *p, size_t n, xio_io *io, int *joined,
                           xio_error *err) {
  size_t a = f->backend->alignment;
  uint64_t s = rdown(p[0].off, a), e = rup(p[n - 1].off + p[n - 1].len, a), apart = 0;
  for (size_t i = 0; i < n; i++)
    apart += cost(f, p[i].len);
  *joined = 0;
  xio__wq_span sp;
  xio_err rc = xio__wq_span_plan(f, s, e, &sp, err);
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
  memset(io, 0, sizeof *io);
  io->op = XIO_IO_WRITE;
  io->offset = s;
  io->length = (size_t)(e - s);
  xio__io_state *st;
  if ((rc = xio__io_begin(f, io, 0, &st, err)) != XIO_OK) goto out;
  int stale = 0;
  rc = xio__wq_span_submit(f, st, &sp, readbuf, p, n, &stale, err);
  if (rc != XIO_OK || stale) {
    st->internal = st->no_sticky = 1; /* never sent: no count, no sticky failure */
    xio__io_fail(st, XIO_ECANCELED, NULL);
    xio__io_wait(io);
  } else {
    *joined = 1;
  }
out:
  xio_free(readbuf);
  xio__wq_span_clear(&sp);
  return rc;
}

/* Submits one piece as a write. */
static xio_err send_one(xio_file *f, const piece *p, xio_io *w, xio_error *err) {
  w->op = XIO_IO_WRITE;
  w->offset = p->off;
  w->length = p->len;
  w->buf = p->buf;
  return xio__rw_submit(f, w, err);
}

/* Submits every piece, a cluster of them with small gaps as one write where that
 * costs less (send_joined), as one batch of the write queue (no window sends a run
 * before the pieces sharing its sectors joined it), and waits for all; the first
 * failure. */
static xio_err send_pieces(xio_file *f, const piece *p, size_t n, xio_error *err) {
  if (n == 0) return XIO_OK;
  xio_io *io = xio_calloc(n, sizeof *io);
  if (!io) return xio_error_set(err, XIO_ENOMEM, "out of memory sending held writes");
  xio_err first = XIO_OK;
  size_t submitted = 0;
  xio__wq_batch(f, 1);
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
  xio__wq_batch(f, 0);
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

/* Marks in `last` the runs that go with the commit range: those meeting it, and
 * every run sharing or touching a sector with one of them (the write queue would
 * combine them). Runs are sorted, so such chains are neighbours. */
static void mark_last(const xio__held *h, size_t a, unsigned char *last) {
  for (size_t i = 0; i < h->n; i++)
    last[i] = h->commit_off < h->commit_end && h->v[i].off < h->commit_end &&
              h->v[i].off + h->v[i].len > h->commit_off;
  for (size_t i = 1; i < h->n; i++) /* forward, then back */
    if (last[i - 1] && rdown(h->v[i].off, a) <= rup(h->v[i - 1].off + h->v[i - 1].len, a))
      last[i] = 1;
  for (size_t i = h->n; i-- > 1;)
    if (last[i] && rdown(h->v[i].off, a) <= rup(h->v[i - 1].off + h->v[i - 1].len, a))
      last[i - 1] = 1;
}

/* The runs whose `last` mark equals `which`, as pieces. */
static size_t pick(const xio__held *h, const unsigned char *last, int which, piece *out) {
  size_t n = 0;
  for (size_t i = 0; i < h->n; i++)
    if (last[i] == which) out[n++] = (piece){h->v[i].off, h->v[i].len, h->v[i].buf};
  return n;
}

/* Copies the runs out under the lock: they do not change while this thread sends. */
xio_err xio__held_flush(xio_file *f, xio_error *err) {
  xio__held *h = &f->held;
  pthread_mutex_lock(&h->mu);
  size_t n = h->n;
  piece *p = n ? xio_calloc(n, sizeof *p) : NULL;
  unsigned char *last = n ? xio_calloc(n, 1) : NULL;
  if (n && (!p || !last)) {
    pthread_mutex_unlock(&h->mu);
    xio_free(p);
    xio_free(last);
    return xio_error_set(err, XIO_ENOMEM, "out of memory sending held writes");
  }
  if (n) mark_last(h, f->backend->alignment, last);
  size_t first = n ? pick(h, last, 0, p) : 0, rest = n ? pick(h, last, 1, p + first) : 0;
  pthread_mutex_unlock(&h->mu);
  xio_err rc = send_pieces(f, p, first, err);
  if (rc == XIO_OK) rc = send_pieces(f, p + first, rest, err);
  if (rc == XIO_OK && n) {
    pthread_mutex_lock(&h->mu);
    keep_only(h, 0, 0);
    pthread_mutex_unlock(&h->mu);
  }
  xio_free(p);
  xio_free(last);
  return rc;
}

/* The parts of the runs outside [c0, c1), as pieces (at most two a run). */
static size_t outside(const xio__held *h, uint64_t c0, uint64_t c1, piece *out) {
  size_t n = 0;
  for (size_t i = 0; i < h->n; i++) {
    const xio__held_run *r = &h->v[i];
    uint64_t s = r->off, e = r->off + r->len;
    if (c0 >= c1 || e <= c0 || s >= c1) {
      out[n++] = (piece){s, r->len, r->buf};
      continue;
    }
    if (s < c0) out[n++] = (piece){s, (size_t)(c0 - s), r->buf};
    if (e > c1) out[n++] = (piece){c1, (size_t)(e - c1), r->buf + (c1 - s)};
  }
  return n;
}

xio_err xio__held_send(xio_file *f, xio_error *err) {
  xio__held *h = &f->held;
  pthread_mutex_lock(&h->mu);
  uint64_t c0 = h->commit_off, c1 = h->commit_end;
  piece *p = h->n ? xio_calloc(2 * h->n, sizeof *p) : NULL;
  if (h->n && !p) {
    pthread_mutex_unlock(&h->mu);
    return xio_error_set(err, XIO_ENOMEM, "out of memory sending held writes");
  }
  size_t n = h->n ? outside(h, c0, c1, p) : 0;
  pthread_mutex_unlock(&h->mu);
  xio_err rc = send_pieces(f, p, n, err);
  if (rc == XIO_OK && n) {
    pthread_mutex_lock(&h->mu);
    keep_only(h, c0, c0 < c1 ? c1 : c0);
    pthread_mutex_unlock(&h->mu);
  }
  xio_free(p);
  return rc;
}
