/*
 * pending.c - a file's pending writes: one map, by offset, of the runs of bytes it
 * has not yet sent, and the held runs in it.
 *
 * Every write an engine has not yet seen acknowledged is in one store per file, as
 * runs with a policy that says when each goes:
 * - Held runs (xio_file_hold): byte-exact, disjoint and not touching; a write merges
 *   into every held run it overlaps or touches (the newest bytes win). They go at a
 *   flush, the commit range last (flush.c). Reads see them: io.c overlays
 *   them on every read an engine makes, through xio__pending_overlay, the one place
 *   that does.
 * - The open queued run (every write of a file held alone, XIO_OPEN_LEASE): one
 *   aligned range that a new write joins while it touches or overlaps it and the two
 *   fit in one request (4 MiB); otherwise the write closes it and opens a run of its
 *   own (queue.c). A closed run leaves the map for the send list, in the order runs
 *   closed, and is sent (runs.c) once no earlier run there shares a sector
 *   with it: overlapping writes reach storage in the order they were made.
 *
 * A flush turns the held runs into queued writes (flush.c), so every byte
 * reaches storage through one pipeline: the queue, its edge sectors and its order.
 *
 * What the handle knows of the file's sectors, the one source of every edge sector,
 * is known.c's; the combining window is window.c's.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include <xio/alloc.h>

#include "pending_int.h"

static size_t align_of(const xio_file *f) { return f->backend->alignment; }

void xio__pending_init(xio_file *f) {
  xio__pending *p = &f->pend;
  pthread_mutex_init(&p->mu, NULL);
  p->enabled = (f->flags & XIO_OPEN_LEASE) && !(f->flags & XIO_OPEN_READONLY);
  p->zero_from = atomic_load(&f->size);
}

static void free_run(xio__run *r) {
  if (r->cap) xio_free(r->buf);
  xio_free(r);
}

void xio__pending_release(xio_file *f) {
  xio__pending *p = &f->pend;
  for (size_t i = 0; i < p->n; i++)
    free_run(p->map[i]); /* held runs: queued ones were sent before a close */
  xio_free(p->map);
  p->map = NULL;
  p->n = p->cap = 0;
  p->held_bytes = 0;
  for (int i = 0; i < XIO__KNOWN_SECTORS; i++)
    xio_free(p->known[i].data);
  pthread_mutex_destroy(&p->mu);
}

/* -------------------------------------------------------------- the map ---- */

/* Index of the first run that starts at or after `off`. */
static size_t lower_bound(const xio__pending *p, uint64_t off) {
  size_t lo = 0, hi = p->n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (p->map[mid]->start < off)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

int xio__map_insert(xio__pending *p, xio__run *r) {
  if (p->n == p->cap) {
    size_t cap = p->cap ? p->cap * 2 : 8;
    xio__run **v = xio_malloc(cap * sizeof *v);
    if (!v) return -1;
    if (p->n) memcpy(v, p->map, p->n * sizeof *v);
    xio_free(p->map);
    p->map = v;
    p->cap = cap;
  }
  size_t at = lower_bound(p, r->start);
  memmove(p->map + at + 1, p->map + at, (p->n - at) * sizeof *p->map);
  p->map[at] = r;
  p->n++;
  return 0;
}

void xio__map_remove(xio__pending *p, const xio__run *r) {
  for (size_t i = lower_bound(p, r->start); i < p->n; i++)
    if (p->map[i] == r) {
      memmove(p->map + i, p->map + i + 1, (p->n - i - 1) * sizeof *p->map);
      p->n--;
      return;
    }
}

void xio__pending_close_open(xio__pending *p) {
  xio__run *r = p->open;
  if (!r) return;
  xio__map_remove(p, r);
  p->open = NULL;
  r->due = 1;
  xio__run **tail = &p->out;
  while (*tail)
    tail = &(*tail)->next;
  *tail = r;
}

/* Index from which every held run that ends at or after `off` (touching counts)
 * follows: held runs are disjoint, so only the last one starting before `off` can
 * reach it, and the open run may lie between. */
static size_t first_touching(const xio__pending *p, uint64_t off) {
  size_t i = lower_bound(p, off), k = i;
  while (k > 0) {
    const xio__run *r = p->map[--k];
    if (!r->held) continue; /* the open run: look past it */
    if (r->end >= off) i = k;
    break;
  }
  return i;
}

/* ------------------------------------------------------------ held runs ---- */

/* Makes room for `len` bytes in `r`'s buffer, keeping its bytes: 0, or -1 on OOM. */
static int reserve(xio__run *r, size_t len) {
  if (r->buf && len <= r->cap) return 0;
  size_t cap = r->cap ? r->cap : 4096;
  while (cap < len)
    cap *= 2;
  char *b = xio_malloc(cap);
  if (!b) return -1;
  if (r->buf && r->end > r->start) memcpy(b, r->buf, (size_t)(r->end - r->start));
  if (r->cap) xio_free(r->buf);
  r->buf = b;
  r->cap = cap;
  return 0;
}

static int new_held(xio__pending *p, uint64_t off, const void *buf, size_t len) {
  xio__run *r = xio_calloc(1, sizeof *r);
  if (!r) return -1;
  r->held = 1;
  r->start = r->end = off;
  if (reserve(r, len) || xio__map_insert(p, r)) {
    free_run(r);
    return -1;
  }
  memcpy(r->buf, buf, len);
  r->end = off + len;
  p->held_bytes += len;
  return 0;
}

/* Merges the held runs `t[0..nt)` (sorted) and the write into t[0]: in its own
 * buffer, so appending stays linear. */
static int merge_held(xio__pending *p, xio__run **t, size_t nt, uint64_t off, const void *buf,
                      size_t len) {
  xio__run *r = t[0];
  uint64_t end = t[nt - 1]->end > off + len ? t[nt - 1]->end : off + len;
  if (reserve(r, (size_t)(end - r->start))) return -1;
  for (size_t k = 1; k < nt; k++) {
    memcpy(r->buf + (t[k]->start - r->start), t[k]->buf, (size_t)(t[k]->end - t[k]->start));
    p->held_bytes -= t[k]->end - t[k]->start;
    xio__map_remove(p, t[k]);
    free_run(t[k]);
  }
  memcpy(r->buf + (off - r->start), buf, len);
  p->held_bytes += end - r->end;
  r->end = end;
  return 0;
}

/* The write [off, off+len) when it starts before every held run it meets: a new run
 * taking their bytes. */
static int replace_held(xio__pending *p, xio__run **t, size_t nt, uint64_t off, const void *buf,
                        size_t len) {
  uint64_t end = t[nt - 1]->end > off + len ? t[nt - 1]->end : off + len;
  xio__run *r = xio_calloc(1, sizeof *r);
  if (!r) return -1;
  r->held = 1;
  r->start = r->end = off;
  if (reserve(r, (size_t)(end - off))) {
    free_run(r);
    return -1;
  }
  for (size_t k = 0; k < nt; k++) {
    memcpy(r->buf + (t[k]->start - off), t[k]->buf, (size_t)(t[k]->end - t[k]->start));
    p->held_bytes -= t[k]->end - t[k]->start;
    xio__map_remove(p, t[k]);
    free_run(t[k]);
  }
  memcpy(r->buf, buf, len);
  r->end = end;
  p->held_bytes += end - off;
  return xio__map_insert(p, r); /* room: runs were just removed */
}

xio_err xio__pending_hold(xio_file *f, uint64_t off, const void *buf, size_t len, xio_error *err) {
  xio__pending *p = &f->pend;
  if (len == 0) return XIO_OK;
  pthread_mutex_lock(&p->mu);
  size_t nt = 0, cap = 0;
  xio__run **t = NULL;
  int rc = 0;
  for (size_t i = first_touching(p, off); i < p->n && p->map[i]->start <= off + len && !rc; i++) {
    if (!p->map[i]->held) continue;
    if (nt == cap) {
      xio__run **v = xio_malloc((cap = cap ? cap * 2 : 4) * sizeof *v);
      if (!(rc = !v) && nt) memcpy(v, t, nt * sizeof *v);
      xio_free(t);
      t = v;
    }
    if (!rc) t[nt++] = p->map[i];
  }
  if (!rc)
    rc = nt == 0              ? new_held(p, off, buf, len)
         : t[0]->start <= off ? merge_held(p, t, nt, off, buf, len)
                              : replace_held(p, t, nt, off, buf, len);
  pthread_mutex_unlock(&p->mu);
  xio_free(t);
  return rc ? xio_error_set(err, XIO_ENOMEM, "out of memory holding a write to %s", f->path)
            : XIO_OK;
}

/* Copies the held bytes in [off, off+len) over `buf`; the count copied. Lock held. */
static uint64_t overlay_locked(const xio__pending *p, uint64_t off, void *buf, size_t len) {
  uint64_t end = off + len, covered = 0;
  for (size_t i = first_touching(p, off); i < p->n && p->map[i]->start < end; i++) {
    const xio__run *r = p->map[i];
    uint64_t s = r->start > off ? r->start : off, e = r->end < end ? r->end : end;
    if (!r->held || e <= s) continue;
    memcpy((char *)buf + (s - off), r->buf + (s - r->start), (size_t)(e - s));
    covered += e - s;
  }
  return covered;
}

void xio__pending_overlay(xio_file *f, uint64_t off, void *buf, size_t len) {
  pthread_mutex_lock(&f->pend.mu);
  if (f->pend.held_bytes) overlay_locked(&f->pend, off, buf, len);
  pthread_mutex_unlock(&f->pend.mu);
}

static int by_start(const void *a, const void *b) {
  const xio__run *x = *(xio__run *const *)a, *y = *(xio__run *const *)b;
  return x->start < y->start ? -1 : x->start > y->start;
}

void xio__pending_keep_held(xio__pending *p, uint64_t from, uint64_t to) {
  size_t k = 0;
  for (size_t i = 0; i < p->n; i++) {
    xio__run *r = p->map[i];
    uint64_t s = r->start > from ? r->start : from, e = r->end < to ? r->end : to;
    if (r->held && e <= s) {
      p->held_bytes -= r->end - r->start;
      free_run(r);
      continue;
    }
    if (r->held && s > r->start) memmove(r->buf, r->buf + (s - r->start), (size_t)(e - s));
    if (r->held) {
      p->held_bytes -= (r->end - r->start) - (e - s);
      r->start = s;
      r->end = e;
    }
    p->map[k++] = r;
  }
  p->n = k;
  if (p->n > 1) qsort(p->map, p->n, sizeof *p->map, by_start); /* a cut start moved */
}

/* Marks in `last` the pieces that go with the commit range: those meeting it, and
 * every piece sharing or touching a sector with one of them (the queue would combine
 * them). Pieces are sorted, so such chains are neighbours. */
static void mark_last(const xio__pending *p, const xio__piece *v, size_t n, size_t a,
                      unsigned char *last) {
  for (size_t i = 0; i < n; i++)
    last[i] = p->commit_off < p->commit_end && v[i].off < p->commit_end &&
              v[i].off + v[i].len > p->commit_off;
  for (size_t i = 1; i < n; i++) /* forward, then back */
    if (last[i - 1] && xio__rdown(v[i].off, a) <= xio__rup(v[i - 1].off + v[i - 1].len, a))
      last[i] = 1;
  for (size_t i = n; i-- > 1;)
    if (last[i] && xio__rdown(v[i].off, a) <= xio__rup(v[i - 1].off + v[i - 1].len, a))
      last[i - 1] = 1;
}

size_t xio__pending_held_pieces(const xio_file *f, xio__piece *out, unsigned char *last) {
  const xio__pending *p = &f->pend;
  size_t n = 0;
  for (size_t i = 0; i < p->n; i++)
    if (p->map[i]->held)
      out[n++] = (xio__piece){p->map[i]->start, (size_t)(p->map[i]->end - p->map[i]->start),
                              p->map[i]->buf};
  mark_last(p, out, n, align_of(f), last);
  return n;
}

/* ------------------------------------------------- held: the public API ---- */

int xio_file_held_read(xio_file *f, uint64_t offset, void *buf, size_t len) {
  if (!f || !len) return len == 0;
  pthread_mutex_lock(&f->pend.mu);
  uint64_t covered = f->pend.held_bytes ? overlay_locked(&f->pend, offset, buf, len) : 0;
  pthread_mutex_unlock(&f->pend.mu);
  return covered == len;
}

uint64_t xio_file_held_bytes(xio_file *f) {
  if (!f) return 0;
  pthread_mutex_lock(&f->pend.mu);
  uint64_t n = f->pend.held_bytes;
  pthread_mutex_unlock(&f->pend.mu);
  return n;
}

uint64_t xio_file_held_end(xio_file *f) {
  if (!f) return 0;
  pthread_mutex_lock(&f->pend.mu);
  uint64_t end = 0;
  for (size_t i = f->pend.n; i-- > 0 && !end;)
    if (f->pend.map[i]->held) end = f->pend.map[i]->end;
  pthread_mutex_unlock(&f->pend.mu);
  return end;
}

void xio_file_drop_held(xio_file *f, uint64_t offset) {
  if (!f) return;
  pthread_mutex_lock(&f->pend.mu);
  xio__pending_keep_held(&f->pend, 0, offset);
  pthread_mutex_unlock(&f->pend.mu);
}

void xio_file_held_each(xio_file *f, xio_held_fn fn, void *ud) {
  if (!f || !fn) return;
  pthread_mutex_lock(&f->pend.mu);
  for (size_t i = 0; i < f->pend.n; i++) {
    const xio__run *r = f->pend.map[i];
    if (r->held) fn(r->start, r->buf, (size_t)(r->end - r->start), ud);
  }
  pthread_mutex_unlock(&f->pend.mu);
}

void xio_file_set_commit_range(xio_file *f, uint64_t offset, uint64_t len) {
  if (!f) return;
  pthread_mutex_lock(&f->pend.mu);
  f->pend.commit_off = offset;
  f->pend.commit_end = len && offset <= UINT64_MAX - len ? offset + len : offset;
  pthread_mutex_unlock(&f->pend.mu);
}
