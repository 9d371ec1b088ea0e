/*
 * ranges.c - xio_ranges, a list of byte ranges kept sorted and merged: ranges that
 * overlap or touch (one ends at byte E, the next starts at E + 1) become one. The one
 * list of allocated ranges for every layer: a page blob's page ranges (blobio) and a
 * file's allocated ranges on either backend (xio). Adding in ascending order, as the
 * service and SEEK_DATA list them, costs O(1) amortized; an add out of order finds its
 * place by binary search and moves the tail once.
 *
 * Invariant: v[i].start <= v[i].end, and v[i].end + 1 < v[i + 1].start, so both
 * starts and ends are strictly increasing.
 * Part of libxio_auth's shared base (auth/base/), used by every xio library.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <xio/alloc.h>
#include <xio/base.h>

#define RANGES_MIN_CAP 16

void xio_ranges_clear(xio_ranges *r) {
  if (!r) return;
  xio_free(r->v);
  memset(r, 0, sizeof *r);
}

uint64_t xio_ranges_bytes(const xio_ranges *r) {
  uint64_t total = 0;
  if (!r) return 0;
  for (size_t i = 0; i < r->n; i++) {
    uint64_t len = r->v[i].end - r->v[i].start;       /* one less than the length */
    if (len >= UINT64_MAX - total) return UINT64_MAX; /* saturate: 2^64 bytes */
    total += len + 1;
  }
  return total;
}

xio_err xio_ranges_reserve(xio_ranges *r, size_t extra) {
  if (!r) return XIO_EINVAL;
  if (extra <= r->cap - r->n) return XIO_OK;
  if (extra > SIZE_MAX / sizeof *r->v - r->n) return XIO_ENOMEM;
  size_t need = r->n + extra;
  size_t cap = r->cap < RANGES_MIN_CAP ? RANGES_MIN_CAP : r->cap;
  while (cap < need)
    cap = cap > SIZE_MAX / sizeof *r->v / 2 ? need : cap * 2;
  xio_range *v = xio_realloc(r->v, cap * sizeof *v);
  if (!v) return XIO_ENOMEM;
  r->v = v;
  r->cap = cap;
  return XIO_OK;
}

/* 1 when a range ending at `end` lies before `start` with a gap between them, so
 * the two neither overlap nor touch. */
static int apart(uint64_t end, uint64_t start) { return start > 0 && end < start - 1; }

/* Index of the first range not entirely before [start, ...] (n when none). */
static size_t first_touching(const xio_ranges *r, uint64_t start) {
  size_t lo = 0, hi = r->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (apart(r->v[mid].end, start))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Index of the first range entirely after [..., end] (n when none). */
static size_t first_after(const xio_ranges *r, uint64_t end) {
  size_t lo = 0, hi = r->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (apart(end, r->v[mid].start))
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

/* The general case: [start, end] touches ranges [i, j) (none when i == j). */
static xio_err add_anywhere(xio_ranges *r, uint64_t start, uint64_t end) {
  size_t i = first_touching(r, start);
  size_t j = first_after(r, end);
  if (i == j) {
    xio_err rc = xio_ranges_reserve(r, 1);
    if (rc != XIO_OK) return rc;
    memmove(&r->v[i + 1], &r->v[i], (r->n - i) * sizeof *r->v);
    r->v[i].start = start;
    r->v[i].end = end;
    r->n++;
    return XIO_OK;
  }
  if (r->v[i].start < start) start = r->v[i].start;
  if (r->v[j - 1].end > end) end = r->v[j - 1].end;
  r->v[i].start = start;
  r->v[i].end = end;
  memmove(&r->v[i + 1], &r->v[j], (r->n - j) * sizeof *r->v);
  r->n -= j - i - 1;
  return XIO_OK;
}

xio_err xio_ranges_add(xio_ranges *r, uint64_t start, uint64_t end) {
  if (!r || start > end) return XIO_EINVAL;
  if (r->n == 0 || apart(r->v[r->n - 1].end, start)) { /* after the last: append */
    xio_err rc = xio_ranges_reserve(r, 1);
    if (rc != XIO_OK) return rc;
    r->v[r->n].start = start;
    r->v[r->n].end = end;
    r->n++;
    return XIO_OK;
  }
  xio_range *last = &r->v[r->n - 1];
  if (start >= last->start) { /* overlaps or extends only the last */
    if (end > last->end) last->end = end;
    return XIO_OK;
  }
  return add_anywhere(r, start, end);
}
