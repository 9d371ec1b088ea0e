/*
 * known.c - what a handle held alone knows of its file's sectors: the one source of
 * every edge sector and of the bytes between joined runs.
 *
 * The content a sector will have once every queued write is done comes from the
 * newest queued run that holds it, a small cache of the partial sectors the handle
 * wrote, or zeros for sectors at or past zero_from (every byte from there on reads as
 * zero: the file was created, cleared or grown with the storage's zeros, and nothing
 * was written there since, or the engine said with xio_file_forget_from that nothing
 * there is relied on). A sector known none of these ways must be read back (queue.c
 * does, once, counted in xio_file_stats.readback_requests). The lease keeps other
 * clients out, so what the handle knows stays true; a shared open never comes here
 * (rw.c fences its read-modify-writes instead). Every function but the xio__pending_*
 * and public ones is called with the pending lock held.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <string.h>

#include <xio/alloc.h>

#include "pending_int.h"

static size_t align_of(const xio_file *f) { return f->backend->alignment; }

/* ---------------------------------------------------------- the cache ---- */

static struct xio__sector *known_find(xio__pending *p, uint64_t sec) {
  for (int i = 0; i < XIO__KNOWN_SECTORS; i++)
    if (p->known[i].used && p->known[i].offset == sec) return &p->known[i];
  return NULL;
}

/* Remembers `data` as the content of the sector at `sec` (the oldest entry goes): 1,
 * or 0 when no memory was left to remember it (the sector is read back when next
 * needed). */
int xio__known_put(xio_file *f, uint64_t sec, const char *data) {
  xio__pending *p = &f->pend;
  size_t a = align_of(f);
  struct xio__sector *e = known_find(p, sec);
  if (!e) {
    e = &p->known[0];
    for (int i = 1; i < XIO__KNOWN_SECTORS; i++)
      if (!p->known[i].used || (e->used && p->known[i].stamp < e->stamp)) e = &p->known[i];
    if (!e->data && !(e->data = xio_malloc(a))) return 0;
    e->offset = sec;
    e->used = 1;
  }
  e->stamp = ++p->clock;
  memcpy(e->data, data, a);
  return 1;
}

void xio__known_drop(xio__pending *p, uint64_t from, uint64_t to) {
  for (int i = 0; i < XIO__KNOWN_SECTORS; i++)
    if (p->known[i].used && p->known[i].offset >= from && p->known[i].offset < to)
      p->known[i].used = 0;
}

/* Copies the content run `r` will write into every cached sector it covers. */
void xio__known_refresh(xio_file *f, const xio__run *r) {
  xio__pending *p = &f->pend;
  for (int i = 0; i < XIO__KNOWN_SECTORS; i++) {
    struct xio__sector *e = &p->known[i];
    if (e->used && e->offset >= r->start && e->offset < r->end)
      /* A run always has its bytes (widen made them, or a whole-sector write lent
       * them). NOLINTNEXTLINE(clang-analyzer-core.NonNullParamChecker) */
      memcpy(e->data, r->buf + (e->offset - r->start), align_of(f));
  }
}

/* ------------------------------------------------------ what is known ---- */

static int holds(const xio__run *r, uint64_t sec) { return sec >= r->start && sec < r->end; }

/* The newest queued run that holds the sector at `sec`, or NULL. */
static const xio__run *newest_holding(const xio__pending *p, uint64_t sec) {
  if (p->open && holds(p->open, sec)) return p->open;
  const xio__run *newest = NULL;
  for (const xio__run *r = p->out; r; r = r->next)
    if (holds(r, sec)) newest = r;
  return newest;
}

/* The content the sector at `sec` will have once every queued write is done, into
 * `out`: from the newest run holding it, the cache, or zeros when `need_from` (the
 * first byte of it that is needed) is at or past zero_from. 0 when unknown. */
int xio__known_sector(xio_file *f, uint64_t sec, uint64_t need_from, char *out) {
  xio__pending *p = &f->pend;
  size_t a = align_of(f);
  const xio__run *r = newest_holding(p, sec);
  if (r) {
    memcpy(out, r->buf + (sec - r->start), a);
    return 1;
  }
  const struct xio__sector *e = known_find(p, sec);
  if (e) {
    memcpy(out, e->data, a);
    return 1;
  }
  if (need_from >= p->zero_from) {
    memset(out, 0, a);
    return 1;
  }
  return 0;
}

/* 1 when a queued run holds the sector at `sec`. Lock held. */
static int queued_holds(const xio__pending *p, uint64_t sec) {
  return newest_holding(p, sec) != NULL;
}

/* Marks in `bits` (one per sector of sp) the sectors the handle knows nothing of: no
 * queued run holds them, the cache has none, and they lie before zero_from. Lock
 * held. */
int xio__known_unknown(xio_file *f, const xio__span *sp, unsigned char *bits) {
  xio__pending *p = &f->pend;
  size_t a = align_of(f), n = (size_t)((sp->end - sp->start) / a);
  int any = 0;
  memset(bits, 0, (n + 7) / 8);
  for (size_t i = 0; i < n; i++) {
    uint64_t sec = sp->start + (uint64_t)i * a;
    if (sec >= p->zero_from || known_find(p, sec) || queued_holds(p, sec)) continue;
    bits[i / 8] |= (unsigned char)(1u << (i % 8));
    any = 1;
  }
  return any;
}

/* Copies the bytes of every queued run, oldest first (so the newest wins), that fall
 * in [start, end) into `out`. Lock held. */
static void copy_queued(const xio__pending *p, uint64_t start, uint64_t end, char *out) {
  for (const xio__run *r = p->out;; r = r->next) {
    if (!r) r = p->open;
    if (!r) break;
    uint64_t s = r->start > start ? r->start : start, e = r->end < end ? r->end : end;
    if (s < e) memcpy(out + (s - start), r->buf + (s - r->start), (size_t)(e - s));
    if (r == p->open) break;
  }
}

/* The run's bytes for the span: cached sectors, zeros past zero_from, what was read
 * for the sectors the plan found unknown, then queued runs' bytes over them. 0 when
 * a sector is known no way (the plan went stale). Lock held. */
int xio__known_fill(xio_file *f, const xio__span *sp, const char *readbuf, char *out) {
  xio__pending *p = &f->pend;
  size_t a = align_of(f), n = (size_t)((sp->end - sp->start) / a);
  unsigned char *now = xio_malloc(n / 8 + 1);
  if (!now) return 0;
  xio__known_unknown(f, sp, now);
  int ok = 1;
  for (size_t i = 0; i < n && ok; i++) {
    char *dst = out + (size_t)i * a;
    int was = sp->unknown[i / 8] >> (i % 8) & 1, is = now[i / 8] >> (i % 8) & 1;
    if (is) { /* unknown now: the read holds it, if it was unknown at the plan too */
      ok = was && readbuf;
      if (ok) memcpy(dst, readbuf + (size_t)i * a, a);
      continue;
    }
    const struct xio__sector *c = known_find(p, sp->start + (uint64_t)i * a);
    if (c)
      memcpy(dst, c->data, a);
    else
      memset(dst, 0, a); /* past zero_from, unless a run below says otherwise */
  }
  if (ok) copy_queued(p, sp->start, sp->end, out);
  xio_free(now);
  return ok;
}

/* --------------------------------------------------------- forgetting ---- */

void xio__pending_forget(xio_file *f, uint64_t from, uint64_t to, int zeros) {
  xio__pending *p = &f->pend;
  if (!p->enabled) return;
  pthread_mutex_lock(&p->mu);
  for (int i = 0; i < XIO__KNOWN_SECTORS; i++) {
    struct xio__sector *c = &p->known[i];
    if (!c->used || c->offset + align_of(f) <= from || c->offset >= to) continue;
    if (zeros && c->offset >= from && c->offset + align_of(f) <= to)
      memset(c->data, 0, align_of(f));
    else
      c->used = 0;
  }
  p->gen++; /* a span read meanwhile may hold what was there before */
  pthread_mutex_unlock(&p->mu);
}

void xio_file_forget_from(xio_file *f, uint64_t offset) {
  if (!f || !f->pend.enabled) return;
  xio__pending *p = &f->pend;
  pthread_mutex_lock(&p->mu);
  if (offset < p->zero_from) p->zero_from = offset; /* edges there: zeros will do */
  pthread_mutex_unlock(&p->mu);
}

void xio__pending_shrunk(xio_file *f, uint64_t size) {
  xio__pending *p = &f->pend;
  if (!p->enabled) return;
  pthread_mutex_lock(&p->mu);
  xio__known_drop(p, xio__rup(size, align_of(f)), UINT64_MAX);
  if (size < p->zero_from) p->zero_from = size;
  p->gen++;
  pthread_mutex_unlock(&p->mu);
}

void xio__pending_all_zero(xio_file *f) {
  pthread_mutex_lock(&f->pend.mu);
  f->pend.zero_from = 0;
  pthread_mutex_unlock(&f->pend.mu);
}
