/*
 * ranges.c - xio_ranges, the file layer's list of allocated ranges: kept sorted,
 * with ranges that overlap or touch (one ends at byte E, the next starts at E + 1)
 * merged into one. Ranges added in ascending order, as both backends list them,
 * append in O(1) amortized; one out of order is merged in place.
 *
 * Invariant: v[i].start <= v[i].end, and v[i].end + 1 < v[i + 1].start.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <xio/xio.h>

#define RANGES_MIN_CAP 16

void xio_ranges_clear(xio_ranges *r) {
  if (!r) return;
  free(r->v);
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

/* Room for one more range. Errors: XIO_ENOMEM. */
static xio_err reserve_one(xio_ranges *r) {
  if (r->n < r->cap) return XIO_OK;
  if (r->cap > SIZE_MAX / sizeof *r->v / 2) return XIO_ENOMEM;
  size_t cap = r->cap < RANGES_MIN_CAP ? RANGES_MIN_CAP : r->cap * 2;
  xio_range *v = realloc(r->v, cap * sizeof *v);
  if (!v) return XIO_ENOMEM;
  r->v = v;
  r->cap = cap;
  return XIO_OK;
}

/* 1 when a range ending at `end` lies before `start` with a gap between them. */
static int apart(uint64_t end, uint64_t start) { return start > 0 && end < start - 1; }

xio_err xio_ranges_add(xio_ranges *r, uint64_t start, uint64_t end) {
  if (!r || start > end) return XIO_EINVAL;
  size_t i = r->n; /* the first range not entirely before [start, end] */
  while (i > 0 && !apart(r->v[i - 1].end, start))
    i--;
  size_t j = i; /* the first range entirely after it */
  while (j < r->n && !apart(end, r->v[j].start))
    j++;
  if (i == j) { /* touches nothing: insert at i */
    if (reserve_one(r) != XIO_OK) return XIO_ENOMEM;
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
