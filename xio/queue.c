/*
 * queue.c - the writes of a file held alone (XIO_OPEN_LEASE): the open queued
 * run they join, their edge sectors, and joined spans of held runs.
 *
 * A write joins the open run (in the map of pending runs, pending.c) while it touches
 * or overlaps it and the two fit in one request (4 MiB); otherwise it closes that run,
 * which goes to the send list (runs.c), and opens one of its own. Each write completes
 * only once its run's bytes are acknowledged, with its run's result. Edge sectors of
 * an unaligned write come from what the handle knows (known.c); only a sector known
 * no way is read back, once, and the read is counted in
 * xio_file_stats.readback_requests.
 */
#define _POSIX_C_SOURCE 200809L
#include <string.h>

#include <xio/alloc.h>

#include "pending_int.h"

#define RUN_MAX (4u * 1024u * 1024u) /* one Put Page */

static size_t align_of(const xio_file *f) { return f->backend->alignment; }

static size_t run_max(const xio_file *f) {
  return f->backend->max_request < RUN_MAX ? f->backend->max_request : RUN_MAX;
}

static int holds(const xio__run *r, uint64_t sec) { return sec >= r->start && sec < r->end; }

/* ------------------------------------------------------- the open run ---- */

/* Makes `r` cover [s, e) with a buffer of its own, keeping its bytes. Errors:
 * XIO_ENOMEM (r unchanged). */
static xio_err widen(xio__run *r, uint64_t s, uint64_t e, xio_error *err) {
  uint64_t ns = s < r->start ? s : r->start, ne = e > r->end ? e : r->end;
  size_t need = (size_t)(ne - ns);
  if (r->cap >= need && ns == r->start) {
    r->end = ne;
    return XIO_OK;
  }
  size_t cap = r->cap ? r->cap : 4096;
  while (cap < need)
    cap *= 2;
  char *b = xio_malloc(cap);
  if (!b) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  if (r->end > r->start) memcpy(b + (r->start - ns), r->buf, (size_t)(r->end - r->start));
  if (r->cap) xio_free(r->buf);
  r->buf = b;
  r->cap = cap;
  r->start = ns;
  r->end = ne;
  return XIO_OK;
}

/* Widens the open run, keeping its place in the map. Lock held. */
static xio_err widen_open(xio__pending *p, uint64_t s, uint64_t e, xio_error *err) {
  xio__run *t = p->open;
  if (s >= t->start) return widen(t, s, e, err);
  xio__map_remove(p, t);
  xio_err rc = widen(t, s, e, err);
  xio__map_insert(p, t); /* room: it was just taken out */
  return rc;
}

/* The open run when a write of aligned range [s, e) may join it. */
static xio__run *merge_target(xio_file *f, uint64_t s, uint64_t e) {
  xio__run *t = f->pend.open;
  if (!t || s > t->end || e < t->start) return NULL;
  uint64_t ns = s < t->start ? s : t->start, ne = e > t->end ? e : t->end;
  return ne - ns <= run_max(f) ? t : NULL;
}

/* The edge sectors of [off, end) that the write does not cover whole and run `t`
 * (may be NULL) does not hold: up to two offsets into `sec`, with the first byte
 * of each that is not the write's in `need`. */
static int edges(xio_file *f, const xio__run *t, uint64_t off, uint64_t end, uint64_t sec[2],
                 uint64_t need[2]) {
  size_t a = align_of(f);
  int n = 0;
  uint64_t h = xio__rdown(off, a), tl = xio__rdown(end, a);
  if (a <= 1) return 0;
  if (off != h && !(t && holds(t, h))) sec[n] = h, need[n++] = h;
  if (end != tl && !(tl == h && off != h) && !(t && holds(t, tl))) sec[n] = tl, need[n++] = end;
  return n;
}

/* Reads the sector at `sec` from storage into `buf` with the lock released; counted
 * as a read-back. */
static xio_err read_back(xio_file *f, uint64_t sec, char *buf, xio_error *err) {
  atomic_fetch_add(&f->stats.readback_requests, 1);
  memset(buf, 0, align_of(f));
  return xio__read_internal(f, sec, buf, align_of(f), err);
}

/* Finds (reading back where it must) every edge sector of [off, end) not held by the
 * merge target; returns with the lock held and `*t` the target. */
static xio_err prepare(xio_file *f, uint64_t off, uint64_t end, xio__run **t, char *edge_buf,
                       xio_error *err) {
  xio__pending *p = &f->pend;
  size_t a = align_of(f);
  pthread_mutex_lock(&p->mu);
  for (;;) {
    *t = merge_target(f, xio__rdown(off, a), xio__rup(end, a));
    uint64_t sec[2], need[2];
    int n = edges(f, *t, off, end, sec, need), unknown = -1;
    for (int i = 0; i < n && unknown < 0; i++)
      if (!xio__known_sector(f, sec[i], need[i], edge_buf + (size_t)i * a)) unknown = i;
    if (unknown < 0) return XIO_OK;
    uint64_t gen = p->gen;
    pthread_mutex_unlock(&p->mu);
    xio_err rc = read_back(f, sec[unknown], edge_buf, err);
    pthread_mutex_lock(&p->mu);
    if (rc != XIO_OK) {
      pthread_mutex_unlock(&p->mu);
      return rc;
    }
    if (p->gen != gen) continue; /* written meanwhile: look again */
    if (!xio__known_put(f, sec[unknown], edge_buf)) {
      pthread_mutex_unlock(&p->mu); /* no memory to remember it */
      return xio_error_set(err, XIO_ENOMEM, "out of memory");
    }
  }
}

/* A new queued run for [s, e), its buffer borrowed from `src` when the write is
 * exactly that range. */
static xio__run *new_run(xio_file *f, uint64_t s, uint64_t e, const char *src, int borrow,
                         xio_error *err) {
  xio__run *r = xio_calloc(1, sizeof *r);
  if (!r) {
    xio_error_set(err, XIO_ENOMEM, "out of memory");
    return NULL;
  }
  r->file = f;
  r->members_tail = &r->members;
  r->start = r->end = s;
  if (src && borrow) {
    r->buf = (char *)src; /* a whole-sector write: its own buffer, valid until it completes */
    r->end = e;
    return r;
  }
  if (widen(r, s, e, err) != XIO_OK) {
    xio_free(r);
    return NULL;
  }
  return r;
}

/* Closes the open run and opens `r` in its place. Errors: XIO_ENOMEM (no change). */
static xio_err open_run(xio__pending *p, xio__run *r, xio_error *err) {
  xio__run *was = p->open;
  if (xio__map_insert(p, r)) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  if (was) {
    p->open = was;
    xio__pending_close_open(p);
  }
  p->open = r;
  return XIO_OK;
}

/* With the lock held: puts the write's bytes into `r`, its edges from `edge_buf`,
 * and updates what the handle knows. */
static void place(xio_file *f, xio__run *r, uint64_t off, uint64_t end, const char *src,
                  const char *edge_buf, int nedges, const uint64_t sec[2]) {
  xio__pending *p = &f->pend;
  size_t a = align_of(f);
  for (int i = 0; i < nedges; i++)
    memcpy(r->buf + (sec[i] - r->start), edge_buf + (size_t)i * a, a);
  if (r->buf + (off - r->start) != src) memcpy(r->buf + (off - r->start), src, (size_t)(end - off));
  xio__known_refresh(f, r);
  if (a > 1 && off % a)
    (void)xio__known_put(f, xio__rdown(off, a), r->buf + (xio__rdown(off, a) - r->start));
  if (a > 1 && end % a)
    (void)xio__known_put(f, xio__rdown(end, a), r->buf + (xio__rdown(end, a) - r->start));
  if (end > p->zero_from) p->zero_from = end;
  p->gen++;
}

static void add_member(xio_file *f, xio__run *r, xio__io_state *st) {
  st->report_len = st->io->length;
  st->io->reserved_[2] = f; /* queued: xio_io_wait sends its run (io.c) */
  *r->members_tail = st;
  r->members_tail = &st->next_member;
}

/* Joins the write into the open run, or opens a run for it. Lock held. */
static xio_err join(xio_file *f, xio__run *t, uint64_t off, uint64_t end, const void *src,
                    xio__run **out, xio_error *err) {
  size_t a = align_of(f);
  uint64_t s = xio__rdown(off, a), e = xio__rup(end, a);
  *out = t;
  if (t) return widen_open(&f->pend, s, e, err);
  xio__run *r = new_run(f, s, e, src, s == off && e == end, err);
  if (!r) return XIO_ENOMEM;
  xio_err rc = open_run(&f->pend, r, err);
  if (rc != XIO_OK) {
    if (r->cap) xio_free(r->buf);
    xio_free(r);
    return rc;
  }
  *out = r;
  return XIO_OK;
}

xio_err xio__pending_write(xio_file *f, xio__io_state *st, const void *src, xio_error *err) {
  xio__pending *p = &f->pend;
  size_t a = align_of(f);
  xio_io *io = st->io;
  uint64_t off = io->offset, end = off + io->length;
  char *edge_buf = xio_malloc(2 * (a ? a : 1));
  if (!edge_buf) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  xio__run *t;
  xio_err rc = prepare(f, off, end, &t, edge_buf, err);
  if (rc != XIO_OK) {
    xio_free(edge_buf);
    return rc;
  }
  uint64_t sec[2], need[2];
  int n = edges(f, t, off, end, sec, need);
  rc = join(f, t, off, end, src, &t, err);
  if (rc == XIO_OK) {
    place(f, t, off, end, src, edge_buf, n, sec);
    add_member(f, t, st);
  }
  int window = xio__ctx_combine_window_us(f->ctx);
  if (rc == XIO_OK && window < 0 && !p->batches) t->due = 1;
  pthread_mutex_unlock(&p->mu);
  xio_free(edge_buf);
  if (rc != XIO_OK) return rc;
  xio__pending_pump(f, 0); /* a closed run may go */
  if (window >= 0) xio__window_arm(f);
  return XIO_OK;
}

/* -------------------------------------------------------------- spans ---- */

xio_err xio__span_plan(xio_file *f, uint64_t start, uint64_t end, xio__span *sp, xio_error *err) {
  xio__pending *p = &f->pend;
  size_t a = align_of(f);
  memset(sp, 0, sizeof *sp);
  sp->start = start;
  sp->end = end;
  size_t n = (size_t)((end - start) / (a ? a : 1));
  if (!(sp->unknown = xio_malloc(n / 8 + 1)))
    return xio_error_set(err, XIO_ENOMEM, "out of memory planning a joined write");
  pthread_mutex_lock(&p->mu);
  sp->gen = p->gen;
  sp->need_read = xio__known_unknown(f, sp, sp->unknown);
  pthread_mutex_unlock(&p->mu);
  return XIO_OK;
}

void xio__span_clear(xio__span *sp) {
  xio_free(sp->unknown);
  sp->unknown = NULL;
}

xio_err xio__span_submit(xio_file *f, xio__io_state *st, const xio__span *sp, const char *readbuf,
                         const xio__piece *over, size_t nover, int *stale, xio_error *err) {
  xio__pending *p = &f->pend;
  *stale = 0;
  xio__run *r = new_run(f, sp->start, sp->end, NULL, 0, err);
  if (!r) return XIO_ENOMEM;
  pthread_mutex_lock(&p->mu);
  xio_err rc = XIO_OK;
  if (p->gen != sp->gen || !xio__known_fill(f, sp, readbuf, r->buf))
    *stale = 1;
  else
    rc = open_run(p, r, err);
  if (*stale || rc != XIO_OK) {
    pthread_mutex_unlock(&p->mu);
    xio_free(r->buf);
    xio_free(r);
    return rc;
  }
  for (size_t i = 0; i < nover; i++)
    memcpy(r->buf + (over[i].off - sp->start), over[i].buf, over[i].len);
  xio__known_refresh(f, r);
  if (sp->end > p->zero_from) p->zero_from = sp->end;
  p->gen++;
  r->due = 1;
  add_member(f, r, st);
  pthread_mutex_unlock(&p->mu);
  xio__pending_pump(f, 0);
  return XIO_OK;
}
