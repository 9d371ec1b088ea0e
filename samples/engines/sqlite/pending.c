/*
 * pending.c - the writes SQLite made since the last sync, kept in memory.
 *
 * SQLite writes a WAL frame as two small writes (its 24-byte header, then the page)
 * and a journal record as three; page blobs want aligned writes of whole sectors.
 * So writes are only recorded here, merged into sorted, disjoint runs, and sent at
 * sync, one Put Page per run (store.c). Reads look here first so they see them.
 */
#include <stdlib.h>
#include <string.h>

#include "sq_int.h"

static int reserve(xio__sq_run *r, size_t len) {
  if (len <= r->cap) return 0;
  size_t cap = r->cap ? r->cap : 4096;
  while (cap < len)
    cap *= 2;
  unsigned char *b = realloc(r->buf, cap);
  if (!b) return -1;
  r->buf = b;
  r->cap = cap;
  return 0;
}

/* Index of the first run that ends at or after `off` (touching counts). */
static size_t first_touching(const xio__sq_pending *p, uint64_t off) {
  size_t lo = 0, hi = p->n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (p->v[mid].off + p->v[mid].len < off)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static int insert_run(xio__sq_pending *p, size_t at, uint64_t off, const void *buf, size_t len) {
  if (p->n == p->cap) {
    size_t cap = p->cap ? p->cap * 2 : 8;
    xio__sq_run *v = realloc(p->v, cap * sizeof *v);
    if (!v) return -1;
    p->v = v;
    p->cap = cap;
  }
  xio__sq_run r = {off, 0, 0, NULL};
  if (reserve(&r, len)) return -1;
  memcpy(r.buf, buf, len);
  r.len = len;
  memmove(p->v + at + 1, p->v + at, (p->n - at) * sizeof *p->v);
  p->v[at] = r;
  p->n++;
  p->bytes += len;
  return 0;
}

/* Merges runs [i, j) and the write into run i. */
static int merge_runs(xio__sq_pending *p, size_t i, size_t j, uint64_t off, const void *buf,
                      size_t len) {
  uint64_t start = p->v[i].off < off ? p->v[i].off : off;
  uint64_t end = p->v[j - 1].off + p->v[j - 1].len;
  if (off + len > end) end = off + len;
  xio__sq_run *r = &p->v[i];
  if (r->off != start) { /* the write starts before run i: make room at the front */
    xio__sq_run nr = {start, 0, 0, NULL};
    if (reserve(&nr, (size_t)(end - start))) return -1;
    /* Every run holds its bytes. NOLINTNEXTLINE(clang-analyzer-core.NonNullParamChecker) */
    memcpy(nr.buf + (r->off - start), r->buf, r->len);
    nr.len = r->len + (size_t)(r->off - start);
    free(r->buf);
    *r = nr;
  } else if (reserve(r, (size_t)(end - start))) {
    return -1;
  }
  for (size_t k = i + 1; k < j; k++) {
    memcpy(r->buf + (p->v[k].off - start), p->v[k].buf, p->v[k].len);
    free(p->v[k].buf);
  }
  /* r is run i; the loop freed only runs after it. NOLINTNEXTLINE(clang-analyzer-unix.Malloc) */
  memcpy(r->buf + (off - start), buf, len);
  r->len = (size_t)(end - start);
  memmove(p->v + i + 1, p->v + j, (p->n - j) * sizeof *p->v);
  p->n -= j - i - 1;
  p->bytes = 0;
  for (size_t k = 0; k < p->n; k++)
    p->bytes += p->v[k].len;
  return 0;
}

int xio__sq_pending_write(xio__sq_pending *p, uint64_t off, const void *buf, size_t len) {
  if (len == 0) return 0;
  size_t i = first_touching(p, off), j = i;
  while (j < p->n && p->v[j].off <= off + len)
    j++;
  if (i == j) return insert_run(p, i, off, buf, len);
  return merge_runs(p, i, j, off, buf, len);
}

int xio__sq_pending_overlay(const xio__sq_pending *p, uint64_t off, void *buf, size_t len) {
  uint64_t end = off + len, covered = 0;
  for (size_t i = first_touching(p, off); i < p->n && p->v[i].off < end; i++) {
    const xio__sq_run *r = &p->v[i];
    uint64_t s = r->off > off ? r->off : off;
    uint64_t e = r->off + r->len < end ? r->off + r->len : end;
    if (e <= s) continue;
    memcpy((unsigned char *)buf + (s - off), r->buf + (s - r->off), (size_t)(e - s));
    covered += e - s;
  }
  return covered == len;
}

void xio__sq_pending_truncate(xio__sq_pending *p, uint64_t size) {
  size_t k = 0;
  for (size_t i = 0; i < p->n; i++) {
    xio__sq_run *r = &p->v[i];
    if (r->off >= size) {
      p->bytes -= r->len;
      free(r->buf);
      continue;
    }
    if (r->off + r->len > size) {
      p->bytes -= r->len - (size_t)(size - r->off);
      r->len = (size_t)(size - r->off);
    }
    p->v[k++] = *r;
  }
  p->n = k;
}

int xio__sq_pending_take(xio__sq_pending *p, uint64_t end, xio__sq_pending *out) {
  size_t k = 0;
  for (; k < p->n && p->v[k].off < end; k++) {
    const xio__sq_run *r = &p->v[k];
    size_t n = r->off + r->len <= end ? r->len : (size_t)(end - r->off);
    if (xio__sq_pending_write(out, r->off, r->buf, n)) {
      xio__sq_pending_clear(out);
      return -1;
    }
  }
  /* Everything below `end` is copied: take it out of `p`. */
  size_t drop = k;
  if (k && p->v[k - 1].off + p->v[k - 1].len > end) { /* goes on past `end`: keep its tail */
    xio__sq_run *r = &p->v[k - 1];
    size_t head = (size_t)(end - r->off);
    memmove(r->buf, r->buf + head, r->len - head);
    r->off = end;
    r->len -= head;
    p->bytes -= head;
    drop = k - 1;
  }
  for (size_t i = 0; i < drop; i++) {
    p->bytes -= p->v[i].len;
    free(p->v[i].buf);
  }
  memmove(p->v, p->v + drop, (p->n - drop) * sizeof *p->v);
  p->n -= drop;
  return 0;
}

uint64_t xio__sq_pending_end(const xio__sq_pending *p) {
  return p->n ? p->v[p->n - 1].off + p->v[p->n - 1].len : 0;
}

void xio__sq_pending_clear(xio__sq_pending *p) {
  for (size_t i = 0; i < p->n; i++)
    free(p->v[i].buf);
  free(p->v);
  memset(p, 0, sizeof *p);
}
