/*
 * cache.c - the read cache of one file: bounded, in lines of 64 KiB, with read-ahead.
 *
 * SQLite reads one page at a time; a request per page would make a table scan cost
 * one round trip per 4 KiB. A miss reads a window of lines in one request: one line
 * after a random miss, twice as many as last time after a miss that continues the
 * previous window (up to 4 MiB). The cache is coherent because the lease keeps every
 * other writer out: the only writes are this process's, and store.c copies each one
 * into the lines it touches once it is on storage. Lines are evicted least recently
 * used first.
 */
#include <stdlib.h>
#include <string.h>

#include "sq_int.h"

#define MAX_AHEAD 64u /* lines: 4 MiB, the largest single read */

int xio__sq_cache_init(xio__sq_cache *c, uint64_t bytes) {
  memset(c, 0, sizeof *c);
  c->maxlines = (size_t)(bytes / XIO__SQ_LINE);
  if (c->maxlines < 1) c->maxlines = 1;
  c->nbuckets = 64;
  while (c->nbuckets < c->maxlines)
    c->nbuckets *= 2;
  c->buckets = calloc(c->nbuckets, sizeof *c->buckets);
  c->ahead = 1;
  return c->buckets ? 0 : -1;
}

void xio__sq_cache_free(xio__sq_cache *c) {
  for (size_t b = 0; c->buckets && b < c->nbuckets; b++) {
    xio__sq_line *l = c->buckets[b];
    while (l) {
      xio__sq_line *next = l->next;
      free(l);
      l = next;
    }
  }
  free(c->buckets);
  memset(c, 0, sizeof *c);
}

static xio__sq_line *find(xio__sq_cache *c, uint64_t idx) {
  for (xio__sq_line *l = c->buckets[idx & (c->nbuckets - 1)]; l; l = l->next)
    if (l->idx == idx) return l;
  return NULL;
}

static void unlink_line(xio__sq_cache *c, xio__sq_line *l) {
  xio__sq_line **pp = &c->buckets[l->idx & (c->nbuckets - 1)];
  while (*pp != l)
    pp = &(*pp)->next;
  *pp = l->next;
  c->nlines--;
}

static void evict_one(xio__sq_cache *c) {
  xio__sq_line *old = NULL;
  for (size_t b = 0; b < c->nbuckets; b++)
    for (xio__sq_line *l = c->buckets[b]; l; l = l->next)
      if (!old || l->tick < old->tick) old = l;
  if (old) {
    unlink_line(c, old);
    free(old);
  }
}

/* Stores one line read from storage (the caller gives its 64 KiB). */
static void insert(xio__sq_cache *c, uint64_t idx, const unsigned char *data) {
  if (find(c, idx)) return;
  while (c->nlines >= c->maxlines)
    evict_one(c);
  xio__sq_line *l = malloc(sizeof *l + XIO__SQ_LINE);
  if (!l) return; /* a cache that cannot grow just misses */
  l->idx = idx;
  l->tick = ++c->tick;
  memcpy(l->data, data, XIO__SQ_LINE);
  l->next = c->buckets[idx & (c->nbuckets - 1)];
  c->buckets[idx & (c->nbuckets - 1)] = l;
  c->nlines++;
}

/* Reads lines [first, first+count) from storage into the cache. */
static xio_err fill(xio__sq_cache *c, xio_file *f, uint64_t fsize, uint64_t first, unsigned count,
                    xio_error *err) {
  size_t len = (size_t)count * XIO__SQ_LINE;
  unsigned char *buf = calloc(1, len);
  if (!buf) return xio_error_set(err, XIO_ENOMEM, "out of memory reading the cache");
  uint64_t off = first * XIO__SQ_LINE;
  xio_err rc = XIO_OK;
  if (off < fsize) {
    size_t want = fsize - off < len ? (size_t)(fsize - off) : len;
    rc = xio_file_read(f, off, buf, want, NULL, err);
  }
  for (unsigned i = 0; rc == XIO_OK && i < count; i++)
    insert(c, first + i, buf + (size_t)i * XIO__SQ_LINE);
  free(buf);
  return rc;
}

/* A miss at line idx: how many lines to read, growing the window when sequential. */
static unsigned window(xio__sq_cache *c, uint64_t idx, uint64_t fsize) {
  if (idx == c->last_miss_end && idx != 0)
    c->ahead = c->ahead * 2 > MAX_AHEAD ? MAX_AHEAD : c->ahead * 2;
  else
    c->ahead = 1;
  unsigned n = c->ahead;
  if (n > c->maxlines / 2 && c->maxlines >= 2) n = (unsigned)(c->maxlines / 2);
  uint64_t lines_in_file = (fsize + XIO__SQ_LINE - 1) / XIO__SQ_LINE;
  if (idx + n > lines_in_file) n = lines_in_file > idx ? (unsigned)(lines_in_file - idx) : 1;
  while (n > 1 && find(c, idx + n - 1)) /* do not re-read lines already held */
    n--;
  c->last_miss_end = idx + n;
  return n ? n : 1;
}

xio_err xio__sq_cache_read(xio__sq_cache *c, xio_file *f, uint64_t fsize, uint64_t off, void *buf,
                           size_t len, xio_error *err) {
  unsigned char *out = buf;
  while (len > 0) {
    uint64_t idx = off / XIO__SQ_LINE;
    size_t in = (size_t)(off % XIO__SQ_LINE), n = XIO__SQ_LINE - in;
    if (n > len) n = len;
    xio__sq_line *l = find(c, idx);
    if (!l) {
      c->misses++;
      xio_err rc = fill(c, f, fsize, idx, window(c, idx, fsize), err);
      if (rc != XIO_OK) return rc;
      l = find(c, idx);
    } else {
      c->hits++;
    }
    if (l) {
      l->tick = ++c->tick;
      memcpy(out, l->data + in, n);
    } else { /* no memory for a line: read around the cache */
      memset(out, 0, n);
      if (off < fsize) {
        size_t want = fsize - off < n ? (size_t)(fsize - off) : n;
        xio_err rc = xio_file_read(f, off, out, want, NULL, err);
        if (rc != XIO_OK) return rc;
      }
    }
    out += n;
    off += n;
    len -= n;
  }
  return XIO_OK;
}

void xio__sq_cache_update(xio__sq_cache *c, uint64_t off, const void *buf, size_t len) {
  const unsigned char *src = buf;
  while (len > 0) {
    size_t in = (size_t)(off % XIO__SQ_LINE), n = XIO__SQ_LINE - in;
    if (n > len) n = len;
    xio__sq_line *l = find(c, off / XIO__SQ_LINE);
    if (l) memcpy(l->data + in, src, n);
    src += n;
    off += n;
    len -= n;
  }
}

void xio__sq_cache_truncate(xio__sq_cache *c, uint64_t size) {
  uint64_t first = size / XIO__SQ_LINE;
  for (size_t b = 0; b < c->nbuckets; b++) {
    xio__sq_line **pp = &c->buckets[b];
    while (*pp) {
      xio__sq_line *l = *pp;
      if (l->idx >= first) {
        *pp = l->next;
        c->nlines--;
        free(l);
      } else {
        pp = &l->next;
      }
    }
  }
}
