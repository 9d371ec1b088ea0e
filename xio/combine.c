/*
 * combine.c - how the file layer serves an engine's writes on a file it holds
 * alone (XIO_OPEN_EXCLUSIVE): write combining and edge sectors from memory.
 *
 * Every write of such a file joins the file's write queue, a list of runs in the
 * order they were made. A run is one aligned range [start, end) with the bytes to
 * put there and the writes (members) that it carries. A new write merges into the
 * newest run while that one is not yet sent, touches or overlaps it and the two fit
 * in one request (4 MiB); otherwise it starts a run of its own. A run is sent when
 * someone waits for it (xio_io_wait on a member, a flush, close, xio_file_wait), when
 * the context's combining window has passed since the first write queued after the
 * file's last such send (a timer on the engine's I/O thread, below), and never before every earlier
 * run that shares a sector with it has completed: overlapping writes reach storage in the order
 * they were made. While a batch is handed over (a flush's held runs, xio__wq_batch) only a full run
 * goes: its end sends the rest, so what it combines does not depend on the timing. Each member
 * completes only once its run's bytes are acknowledged, with its run's result.
 *
 * Edge sectors of an unaligned write come from what this handle knows: the newest run
 * that holds the sector, a small cache of the partial sectors it wrote, or zeros for
 * sectors at or past zero_from (every byte from there on reads as zero: the file was
 * created, cleared or grown with the storage's zeros, and nothing was written there
 * since, or the engine said with xio_file_forget_from that nothing there is relied
 * on). Only a sector known none of these ways is read back, once, and the read is
 * counted in xio_file_stats.readback_requests. The lease keeps other clients out, so
 * what the handle knows stays true; a shared open never comes here (file.c fences its
 * read-modify-writes instead).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <string.h>
#include <time.h>

#include <xio/alloc.h>

#include "ctx_int.h"

#define COMBINE_MAX       (4u * 1024u * 1024u) /* one Put Page */
#define DEFAULT_WINDOW_US 2000

struct xio__run {
  xio_file *file;
  uint64_t start, end; /* aligned for the backend */
  char *buf;           /* end - start bytes to write */
  size_t cap;          /* allocated bytes of buf; 0: borrowed from its only member */
  int sent, due;
  xio__io_state *members, **members_tail;
  xio_io io; /* the internal request that sends it */
  xio__run *next;
};

static uint64_t rdown(uint64_t v, uint64_t a) { return a > 1 ? v / a * a : v; }
static uint64_t rup(uint64_t v, uint64_t a) { return a > 1 ? (v + a - 1) / a * a : v; }
static size_t align_of(const xio_file *f) { return f->backend->alignment; }
static size_t run_max(const xio_file *f) {
  return f->backend->max_request < COMBINE_MAX ? f->backend->max_request : COMBINE_MAX;
}

/* --------------------------------------------------------- the cache ---- */

void xio__wq_init(xio_file *f) {
  xio__wq *q = &f->wq;
  pthread_mutex_init(&q->mu, NULL);
  q->enabled = (f->flags & XIO_OPEN_EXCLUSIVE) && !(f->flags & XIO_OPEN_READONLY);
  q->zero_from = atomic_load(&f->size);
}

void xio__wq_release(xio_file *f) {
  xio__wq *q = &f->wq;
  for (int i = 0; i < XIO__WQ_CACHE; i++)
    xio_free(q->cache[i].data);
  pthread_mutex_destroy(&q->mu);
}

static struct xio__wq_sector *cache_find(xio__wq *q, uint64_t sec) {
  for (int i = 0; i < XIO__WQ_CACHE; i++)
    if (q->cache[i].used && q->cache[i].offset == sec) return &q->cache[i];
  return NULL;
}

/* Remembers `data` as the content of the sector at `sec` (the oldest entry goes). A
 * failed allocation only forgets: the sector is read back when next needed. */
static void cache_put(xio_file *f, uint64_t sec, const char *data) {
  xio__wq *q = &f->wq;
  size_t a = align_of(f);
  struct xio__wq_sector *e = cache_find(q, sec);
  if (!e) {
    e = &q->cache[0];
    for (int i = 1; i < XIO__WQ_CACHE; i++)
      if (!q->cache[i].used || (e->used && q->cache[i].stamp < e->stamp)) e = &q->cache[i];
    if (!e->data && !(e->data = xio_malloc(a))) return;
    e->offset = sec;
    e->used = 1;
  }
  e->stamp = ++q->clock;
  memcpy(e->data, data, a);
}

/* Forgets the cached sectors that lie in [from, to). */
static void cache_drop(xio__wq *q, uint64_t from, uint64_t to) {
  for (int i = 0; i < XIO__WQ_CACHE; i++)
    if (q->cache[i].used && q->cache[i].offset >= from && q->cache[i].offset < to)
      q->cache[i].used = 0;
}

/* Copies the content run `r` will write into every cached sector it covers. */
static void cache_refresh(xio_file *f, const xio__run *r) {
  xio__wq *q = &f->wq;
  for (int i = 0; i < XIO__WQ_CACHE; i++) {
    struct xio__wq_sector *e = &q->cache[i];
    if (e->used && e->offset >= r->start && e->offset < r->end)
      /* A run always has its bytes (widen made them, or a whole-sector write lent
       * them). NOLINTNEXTLINE(clang-analyzer-core.NonNullParamChecker) */
      memcpy(e->data, r->buf + (e->offset - r->start), align_of(f));
  }
}

/* The content the sector at `sec` will have once every queued write is done, into
 * `out`: from the newest run holding it, the cache, or zeros when `need_from` (the
 * first byte of it that is needed) is at or past zero_from. 0 when unknown. */
static int known_sector(xio_file *f, uint64_t sec, uint64_t need_from, char *out) {
  xio__wq *q = &f->wq;
  size_t a = align_of(f);
  const xio__run *newest = NULL;
  for (const xio__run *r = q->head; r; r = r->next)
    if (sec >= r->start && sec < r->end) newest = r;
  if (newest) {
    memcpy(out, newest->buf + (sec - newest->start), a);
    return 1;
  }
  struct xio__wq_sector *e = cache_find(q, sec);
  if (e) {
    memcpy(out, e->data, a);
    return 1;
  }
  if (need_from >= q->zero_from) {
    memset(out, 0, a);
    return 1;
  }
  return 0;
}

/* ------------------------------------------------------------- sending ---- */

static int runs_overlap(const xio__run *a, const xio__run *b) {
  return a->start < b->end && b->start < a->end;
}

/* With the queue's lock held: the due runs that may go now (no earlier run shares a
 * sector with them), marked sent, chained through `next_send`. */
static int take_sendable(xio__wq *q, xio__run **out, int max) {
  int n = 0;
  for (xio__run *r = q->head; r && n < max; r = r->next) {
    if (r->sent || !r->due) continue;
    int blocked = 0;
    for (const xio__run *e = q->head; e != r && !blocked; e = e->next)
      blocked = runs_overlap(e, r);
    if (blocked) continue;
    r->sent = 1;
    out[n++] = r;
  }
  return n;
}

static void run_done(xio_io *io, void *ud);
static void run_done_with(xio__run *r, xio_err rc, const xio_error *detail);

/* Sends `r` as one internal request (cut at max_request only when a single write
 * was larger). Its completion comes to run_done. */
static void launch(xio__run *r) {
  xio_file *f = r->file;
  size_t piece = f->backend->max_request;
  uint64_t len = r->end - r->start;
  memset(&r->io, 0, sizeof r->io);
  r->io.op = XIO_IO_WRITE;
  r->io.offset = r->start;
  r->io.length = (size_t)len;
  r->io.buf = r->buf;
  r->io.done = run_done;
  r->io.ud = r;
  xio__io_state *st;
  xio_error e;
  xio_error_clear(&e);
  if (xio__io_begin(f, &r->io, (int)((len + piece - 1) / piece), &st, &e) != XIO_OK) {
    run_done_with(r, XIO_ENOMEM, &e);
    return;
  }
  st->internal = 1;
  st->no_sticky = 1; /* each member records its own failure */
  for (uint64_t done = 0; done < len;) {
    size_t n = (size_t)(len - done < piece ? len - done : piece);
    xio__io_add(st, XIO__SUB_WRITE, r->start + done, n, r->buf + done);
    done += n;
  }
  xio__io_launch(st);
}

/* Marks the file's runs due (all when `all`) and sends those that may go. Any
 * thread; never waits for storage. */
static void pump(xio_file *f, int all) {
  xio__wq *q = &f->wq;
  for (;;) {
    xio__run *go[16];
    pthread_mutex_lock(&q->mu);
    if (all && !q->batches) /* a batch's end kicks */
      for (xio__run *r = q->head; r; r = r->next)
        r->due = 1;
    int n = take_sendable(q, go, 16);
    pthread_mutex_unlock(&q->mu);
    for (int i = 0; i < n; i++)
      launch(go[i]);
    if (n < 16) return;
  }
}

static void restart_window(xio_file *f);

void xio__wq_kick(xio_file *f) {
  if (!f->wq.enabled) return;
  pump(f, 1);
  restart_window(f);
}

void xio__wq_batch(xio_file *f, int begin) {
  xio__wq *q = &f->wq;
  if (!q->enabled) return;
  pthread_mutex_lock(&q->mu);
  q->batches += begin ? 1 : -1;
  pthread_mutex_unlock(&q->mu);
  if (!begin) xio__wq_kick(f);
}

/* Removes `r` from the queue, forgetting what it wrote when it failed. */
static void unlink_run(xio_file *f, xio__run *r, xio_err rc) {
  xio__wq *q = &f->wq;
  pthread_mutex_lock(&q->mu);
  for (xio__run **p = &q->head; *p; p = &(*p)->next)
    if (*p == r) {
      *p = r->next;
      break;
    }
  if (rc != XIO_OK) cache_drop(q, r->start, r->end);
  pthread_mutex_unlock(&q->mu);
}

static void run_done_with(xio__run *r, xio_err rc, const xio_error *detail) {
  xio_file *f = r->file;
  xio_error d; /* `detail` may live in `r` */
  if (detail)
    d = *detail;
  else
    xio_error_clear(&d);
  unlink_run(f, r, rc);
  xio__io_state *m = r->members;
  if (r->cap) xio_free(r->buf);
  xio_free(r);
  pump(f, 0); /* runs that waited for this one */
  while (m) {
    xio__io_state *next = m->next_member;
    xio__io_fail(m, rc, rc == XIO_OK ? NULL : &d);
    m = next;
  }
}

static void run_done(xio_io *io, void *ud) { run_done_with(ud, io->result, &io->error); }

/* -------------------------------------------------------------- merging ---- */

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

/* The newest run when a write of aligned range [s, e) may merge into it. */
static xio__run *merge_target(xio_file *f, uint64_t s, uint64_t e) {
  xio__run *t = f->wq.head;
  while (t && t->next)
    t = t->next;
  if (!t || t->sent || s > t->end || e < t->start) return NULL;
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
  uint64_t h = rdown(off, a), tl = rdown(end, a);
  if (a <= 1) return 0;
  if (off != h && !(t && h >= t->start && h < t->end)) sec[n] = h, need[n++] = h;
  if (end != tl && !(tl == h && off != h) && !(t && tl >= t->start && tl < t->end))
    sec[n] = tl, need[n++] = end;
  return n;
}

/* ------------------------------------------------------------ submitting ---- */

/* Reads the sector at `sec` from storage into `buf` with the queue's lock released;
 * counted as a read-back. */
static xio_err read_back(xio_file *f, uint64_t sec, char *buf, xio_error *err) {
  atomic_fetch_add(&f->stats.readback_requests, 1);
  memset(buf, 0, align_of(f));
  return xio__read_internal(f, sec, buf, align_of(f), err);
}

/* Finds (reading back where it must) every edge sector of [off, end) not held by the
 * merge target; returns with the queue locked and `*t` the target. */
static xio_err prepare(xio_file *f, uint64_t off, uint64_t end, xio__run **t, char *edge_buf,
                       xio_error *err) {
  xio__wq *q = &f->wq;
  size_t a = align_of(f);
  pthread_mutex_lock(&q->mu);
  for (;;) {
    *t = merge_target(f, rdown(off, a), rup(end, a));
    uint64_t sec[2], need[2];
    int n = edges(f, *t, off, end, sec, need), unknown = -1;
    for (int i = 0; i < n && unknown < 0; i++)
      if (!known_sector(f, sec[i], need[i], edge_buf + (size_t)i * a)) unknown = i;
    if (unknown < 0) return XIO_OK;
    uint64_t gen = q->gen;
    pthread_mutex_unlock(&q->mu);
    xio_err rc = read_back(f, sec[unknown], edge_buf, err);
    pthread_mutex_lock(&q->mu);
    if (rc != XIO_OK) {
      pthread_mutex_unlock(&q->mu);
      return rc;
    }
    if (q->gen != gen) continue; /* written meanwhile: look again */
    cache_put(f, sec[unknown], edge_buf);
    if (!cache_find(q, sec[unknown])) {
      pthread_mutex_unlock(&q->mu); /* no memory to remember it */
      return xio_error_set(err, XIO_ENOMEM, "out of memory");
    }
  }
}

/* A new run for [s, e), its buffer borrowed from `src` when the write is exactly
 * that range. */
static xio__run *new_run(xio_file *f, uint64_t s, uint64_t e, uint64_t off, const char *src,
                         int borrow, xio_error *err) {
  xio__run *r = xio_calloc(1, sizeof *r);
  if (!r) {
    xio_error_set(err, XIO_ENOMEM, "out of memory");
    return NULL;
  }
  r->file = f;
  r->members_tail = &r->members;
  r->start = r->end = s;
  if (src && off == s && borrow) {
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

static void append_run(xio__wq *q, xio__run *r) {
  xio__run **p = &q->head;
  while (*p)
    p = &(*p)->next;
  *p = r;
}

/* With the lock held: puts the write's bytes into `r`, its edges from `edge_buf`,
 * and updates what the handle knows. */
static void place(xio_file *f, xio__run *r, uint64_t off, uint64_t end, const char *src,
                  const char *edge_buf, int nedges, const uint64_t sec[2]) {
  xio__wq *q = &f->wq;
  size_t a = align_of(f);
  for (int i = 0; i < nedges; i++)
    memcpy(r->buf + (sec[i] - r->start), edge_buf + (size_t)i * a, a);
  if (r->buf + (off - r->start) != src) memcpy(r->buf + (off - r->start), src, (size_t)(end - off));
  cache_refresh(f, r);
  if (a > 1 && off % a) cache_put(f, rdown(off, a), r->buf + (rdown(off, a) - r->start));
  if (a > 1 && end % a) cache_put(f, rdown(end, a), r->buf + (rdown(end, a) - r->start));
  if (end > q->zero_from) q->zero_from = end;
  q->gen++;
}

/* A write the newest run cannot take closes it: nothing more will join it, so it is
 * due now rather than when the window passes. */
static void close_newest(xio__wq *q) {
  xio__run *t = q->head;
  while (t && t->next)
    t = t->next;
  if (t) t->due = 1;
}

/* Arms the combiner for the file's queue unless it is armed already. */
static void arm(xio_file *f);

xio_err xio__wq_submit(xio_file *f, xio__io_state *st, const void *src, xio_error *err) {
  xio__wq *q = &f->wq;
  size_t a = align_of(f);
  xio_io *io = st->io;
  uint64_t off = io->offset, end = off + io->length, s = rdown(off, a), e = rup(end, a);
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
  if (t)
    rc = widen(t, s, e, err);
  else if (close_newest(q), 0) {
  } else if ((t = new_run(f, s, e, off, src, s == off && e == end, err)) == NULL)
    rc = XIO_ENOMEM;
  else
    append_run(q, t);
  if (rc == XIO_OK) {
    place(f, t, off, end, src, edge_buf, n, sec);
    st->report_len = io->length;
    io->reserved_[2] = f; /* queued: xio_io_wait sends its run (io.c) */
    *t->members_tail = st;
    t->members_tail = &st->next_member;
  }
  int window = xio__ctx_combine_window_us(f->ctx);
  if (rc == XIO_OK && window < 0 && !q->batches) t->due = 1;
  pthread_mutex_unlock(&q->mu);
  xio_free(edge_buf);
  if (rc != XIO_OK) return rc;
  pump(f, 0); /* a closed run may go */
  if (window >= 0) arm(f);
  return XIO_OK;
}

/* ----------------------------------------------------------- spans ---- */

/* Marks in `bits` (one per sector of sp) the sectors the queue knows nothing of:
 * no queued run holds them, the cache has none, and they lie before zero_from.
 * Lock held. */
static int unknown_sectors(xio_file *f, const xio__wq_span *sp, unsigned char *bits) {
  xio__wq *q = &f->wq;
  size_t a = align_of(f), n = (size_t)((sp->end - sp->start) / a);
  int any = 0;
  memset(bits, 0, (n + 7) / 8);
  for (size_t i = 0; i < n; i++) {
    uint64_t sec = sp->start + (uint64_t)i * a;
    int known = sec >= q->zero_from || cache_find(q, sec) != NULL;
    for (const xio__run *r = q->head; r && !known; r = r->next)
      known = sec >= r->start && sec < r->end;
    if (!known) bits[i / 8] |= (unsigned char)(1u << (i % 8)), any = 1;
  }
  return any;
}

xio_err xio__wq_span_plan(xio_file *f, uint64_t start, uint64_t end, xio__wq_span *sp,
                          xio_error *err) {
  xio__wq *q = &f->wq;
  size_t a = align_of(f);
  memset(sp, 0, sizeof *sp);
  sp->start = start;
  sp->end = end;
  size_t n = (size_t)((end - start) / (a ? a : 1));
  if (!(sp->unknown = xio_malloc(n / 8 + 1)))
    return xio_error_set(err, XIO_ENOMEM, "out of memory planning a joined write");
  pthread_mutex_lock(&q->mu);
  sp->gen = q->gen;
  sp->need_read = unknown_sectors(f, sp, sp->unknown);
  pthread_mutex_unlock(&q->mu);
  return XIO_OK;
}

void xio__wq_span_clear(xio__wq_span *sp) {
  xio_free(sp->unknown);
  sp->unknown = NULL;
}

/* The run's bytes for the span: queued runs' (oldest first, so the newest wins),
 * cached sectors, zeros past zero_from, then what was read for the sectors the
 * plan found unknown. 0 when a sector is known no way (the plan went stale). Lock
 * held. */
static int fill_span(xio_file *f, const xio__wq_span *sp, const char *readbuf, char *out) {
  xio__wq *q = &f->wq;
  size_t a = align_of(f), n = (size_t)((sp->end - sp->start) / a);
  unsigned char *now = xio_malloc(n / 8 + 1);
  if (!now) return 0;
  unknown_sectors(f, sp, now);
  int ok = 1;
  for (size_t i = 0; i < n && ok; i++) {
    uint64_t sec = sp->start + (uint64_t)i * a;
    char *dst = out + (size_t)i * a;
    int was = sp->unknown[i / 8] >> (i % 8) & 1, is = now[i / 8] >> (i % 8) & 1;
    if (is) { /* unknown now: the read holds it, if it was unknown at the plan too */
      ok = was && readbuf;
      if (ok) memcpy(dst, readbuf + (size_t)i * a, a);
      continue;
    }
    const struct xio__wq_sector *c = cache_find(q, sec);
    if (c)
      memcpy(dst, c->data, a);
    else
      memset(dst, 0, a); /* past zero_from, unless a run below says otherwise */
  }
  for (const xio__run *r = q->head; r && ok; r = r->next) {
    uint64_t s = r->start > sp->start ? r->start : sp->start;
    uint64_t e = r->end < sp->end ? r->end : sp->end;
    if (s < e) memcpy(out + (s - sp->start), r->buf + (s - r->start), (size_t)(e - s));
  }
  xio_free(now);
  return ok;
}

xio_err xio__wq_span_submit(xio_file *f, xio__io_state *st, const xio__wq_span *sp,
                            const char *readbuf, const xio__wq_piece *over, size_t nover,
                            int *stale, xio_error *err) {
  xio__wq *q = &f->wq;
  *stale = 0;
  xio__run *r = new_run(f, sp->start, sp->end, sp->start, NULL, 0, err);
  if (!r) return XIO_ENOMEM;
  pthread_mutex_lock(&q->mu);
  if (q->gen != sp->gen || !fill_span(f, sp, readbuf, r->buf)) {
    pthread_mutex_unlock(&q->mu);
    xio_free(r->buf);
    xio_free(r);
    *stale = 1;
    return XIO_OK;
  }
  for (size_t i = 0; i < nover; i++)
    memcpy(r->buf + (over[i].off - sp->start), over[i].buf, over[i].len);
  close_newest(q);
  append_run(q, r);
  cache_refresh(f, r);
  if (sp->end > q->zero_from) q->zero_from = sp->end;
  q->gen++;
  r->due = 1;
  st->report_len = st->io->length;
  st->io->reserved_[2] = f; /* queued: xio_io_wait sends its run (io.c) */
  *r->members_tail = st;
  r->members_tail = &st->next_member;
  pthread_mutex_unlock(&q->mu);
  pump(f, 0);
  return XIO_OK;
}

void xio__wq_forget(xio_file *f, uint64_t from, uint64_t to, int zeros) {
  xio__wq *q = &f->wq;
  if (!q->enabled) return;
  pthread_mutex_lock(&q->mu);
  for (int i = 0; i < XIO__WQ_CACHE; i++) {
    struct xio__wq_sector *c = &q->cache[i];
    if (!c->used || c->offset + align_of(f) <= from || c->offset >= to) continue;
    if (zeros && c->offset >= from && c->offset + align_of(f) <= to)
      memset(c->data, 0, align_of(f));
    else
      c->used = 0;
  }
  q->gen++; /* a span read meanwhile may hold what was there before */
  pthread_mutex_unlock(&q->mu);
}

void xio_file_forget_from(xio_file *f, uint64_t offset) {
  if (!f || !f->wq.enabled) return;
  xio__wq *q = &f->wq;
  pthread_mutex_lock(&q->mu);
  if (offset < q->zero_from) q->zero_from = offset; /* edges there: zeros will do */
  pthread_mutex_unlock(&q->mu);
}

void xio__wq_shrunk(xio_file *f, uint64_t size) {
  xio__wq *q = &f->wq;
  if (!q->enabled) return;
  pthread_mutex_lock(&q->mu);
  cache_drop(q, rup(size, align_of(f)), UINT64_MAX);
  if (size < q->zero_from) q->zero_from = size;
  q->gen++;
  pthread_mutex_unlock(&q->mu);
}

void xio__wq_all_zero(xio_file *f) {
  pthread_mutex_lock(&f->wq.mu);
  f->wq.zero_from = 0;
  pthread_mutex_unlock(&f->wq.mu);
}

int xio__wq_idle(xio_file *f) {
  pthread_mutex_lock(&f->wq.mu);
  int idle = f->wq.head == NULL;
  pthread_mutex_unlock(&f->wq.mu);
  return idle;
}

/* ------------------------------------------------------------ combiner ---- */

int xio__ctx_combine_window_us(const xio_ctx *ctx) {
  int w = ctx->opts.combine_window_us;
  return w == 0 ? DEFAULT_WINDOW_US : w;
}

/* Under c->mu: sets the timer for the earliest window's end among the armed files. */
static void schedule_locked(xio__combiner *c) {
  int64_t best = INT64_MAX;
  for (xio_file *f = c->armed; f; f = f->wq.next_armed)
    if (f->wq.deadline_us < best) best = f->wq.deadline_us;
  if (best != INT64_MAX) xio_blob_engine_timer_set(c->engine, &c->timer, best);
}

static void arm(xio_file *f) {
  xio__combiner *c = &f->ctx->combiner;
  pthread_mutex_lock(&c->mu);
  if (!f->wq.armed) {
    f->wq.armed = 1;
    f->wq.deadline_us = xio_auth_monotonic_us() + xio__ctx_combine_window_us(f->ctx);
    f->wq.next_armed = c->armed;
    c->armed = f;
    schedule_locked(c);
  }
  pthread_mutex_unlock(&c->mu);
}

static void disarm_locked(xio__combiner *c, xio_file *f) {
  for (xio_file **p = &c->armed; *p; p = &(*p)->wq.next_armed)
    if (*p == f) {
      *p = f->wq.next_armed;
      break;
    }
  f->wq.armed = 0;
}

/* After a kick sent every run: the writes queued from now on get a window of their
 * own, counted from the first of them, not the rest of one that began with a write
 * already sent. A run queued meanwhile and not sent yet is armed again here; one
 * queued after the disarm arms itself. */
static void restart_window(xio_file *f) {
  xio__combiner *c = &f->ctx->combiner;
  xio__wq *q = &f->wq;
  pthread_mutex_lock(&c->mu);
  if (q->armed) disarm_locked(c, f);
  pthread_mutex_unlock(&c->mu);
  pthread_mutex_lock(&q->mu);
  int waiting = 0;
  for (const xio__run *r = q->head; r && !waiting; r = r->next)
    waiting = !r->due;
  pthread_mutex_unlock(&q->mu);
  if (waiting && xio__ctx_combine_window_us(f->ctx) >= 0) arm(f);
}

void xio__wq_disarm(xio_file *f) {
  xio__combiner *c = &f->ctx->combiner;
  if (!f->wq.enabled) return;
  pthread_mutex_lock(&c->mu);
  if (f->wq.armed) disarm_locked(c, f);
  while (c->kicking == f)
    pthread_cond_wait(&c->cv, &c->mu);
  pthread_mutex_unlock(&c->mu);
}

/* The timer (on the engine's I/O thread): sends the runs of every file whose window
 * has passed, then sets itself for the next window's end. Never waits for storage. */
static void windows_passed(void *ud) {
  xio__combiner *c = ud;
  pthread_mutex_lock(&c->mu);
  for (;;) {
    xio_file *due = NULL;
    int64_t now = xio_auth_monotonic_us();
    for (xio_file *f = c->armed; f && !due; f = f->wq.next_armed)
      if (f->wq.deadline_us <= now) due = f;
    if (!due) break;
    disarm_locked(c, due);
    c->kicking = due;
    pthread_mutex_unlock(&c->mu);
    pump(due, 1);
    pthread_mutex_lock(&c->mu);
    c->kicking = NULL;
    pthread_cond_broadcast(&c->cv);
  }
  schedule_locked(c);
  pthread_mutex_unlock(&c->mu);
}

xio_err xio__combiner_start(xio_ctx *ctx, xio_error *err) {
  (void)err;
  xio__combiner *c = &ctx->combiner;
  pthread_mutex_init(&c->mu, NULL);
  pthread_cond_init(&c->cv, NULL);
  c->engine = ctx->engine;
  c->timer.fn = windows_passed;
  c->timer.ud = c;
  c->inited = 1;
  return XIO_OK;
}

void xio__combiner_stop(xio_ctx *ctx) {
  xio__combiner *c = &ctx->combiner;
  if (!c->inited) return;
  xio_blob_engine_timer_cancel(c->engine, &c->timer);
  pthread_cond_destroy(&c->cv);
  pthread_mutex_destroy(&c->mu);
  c->inited = 0;
}
