/*
 * cache.c - the read cache of one file: bounded, in lines of 64 KiB, with read-ahead.
 *
 * SQLite reads one page at a time; a request per page would make a table scan cost
 * one round trip per 4 KiB. A miss reads a window of lines at once: the lines the
 * read needs after a random miss, sixteen times as many as last time after a miss
 * that continues the previous window or the previous read (up to 16 MiB, read as
 * concurrent requests of 1 MiB, and at most half the cache). The cache is coherent
 * because the lease keeps every other writer out: the only writes are this
 * process's, and a line always holds what SQLite reads there. It is filled through
 * the file layer's reads, which include the writes it holds until a sync; each write
 * is copied into the cached lines it touches as it is made (xsq_cache_patch), and
 * again, with the lines it covers whole, when it is sent (xsq_cache_update). Bytes
 * past the stored size are never answered from here (store.c). Lines are evicted
 * least recently used first.
 */
#include <stdlib.h>
#include <string.h>

#include "sq_int.h"

#define MAX_AHEAD 256u /* lines: 16 MiB, read as sixteen concurrent 1 MiB requests */

int xsq_cache_init(xsq_cache *c, uint64_t bytes) {
  memset(c, 0, sizeof *c);
  c->maxlines = (size_t)(bytes / XSQ_LINE);
  if (c->maxlines < 1) c->maxlines = 1;
  c->nbuckets = 64;
  while (c->nbuckets < c->maxlines)
    c->nbuckets *= 2;
  /* NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers */
  c->buckets = calloc(c->nbuckets, sizeof *c->buckets);
  c->ahead = 1;
  return c->buckets ? 0 : -1;
}

void xsq_cache_free(xsq_cache *c) {
  for (size_t b = 0; c->buckets && b < c->nbuckets; b++) {
    xsq_line *l = c->buckets[b];
    while (l) {
      xsq_line *next = l->next;
      free(l);
      l = next;
    }
  }
  free(c->buckets);
  memset(c, 0, sizeof *c);
}

static xsq_line *find(xsq_cache *c, uint64_t idx) {
  for (xsq_line *l = c->buckets[idx & (c->nbuckets - 1)]; l; l = l->next)
    if (l->idx == idx) return l;
  return NULL;
}

static void unlink_line(xsq_cache *c, xsq_line *l) {
  xsq_line **pp = &c->buckets[l->idx & (c->nbuckets - 1)];
  while (*pp != l)
    pp = &(*pp)->next;
  *pp = l->next;
  c->nlines--;
}

static void evict_one(xsq_cache *c) {
  xsq_line *old = NULL;
  for (size_t b = 0; b < c->nbuckets; b++)
    for (xsq_line *l = c->buckets[b]; l; l = l->next)
      if (!old || l->tick < old->tick) old = l;
  if (old) {
    unlink_line(c, old);
    free(old);
  }
}

/* Stores one line read from storage (the caller gives its 64 KiB). A line already
 * held keeps its bytes (they may be newer) and counts as just used, like the rest of
 * the window it came with. */
static void insert(xsq_cache *c, uint64_t idx, const unsigned char *data) {
  xsq_line *held = find(c, idx);
  if (held) {
    held->tick = ++c->tick;
    return;
  }
  while (c->nlines >= c->maxlines)
    evict_one(c);
  xsq_line *l = malloc(sizeof *l + XSQ_LINE);
  if (!l) return; /* a cache that cannot grow just misses */
  l->idx = idx;
  l->tick = ++c->tick;
  memcpy(l->data, data, XSQ_LINE);
  l->next = c->buckets[idx & (c->nbuckets - 1)];
  c->buckets[idx & (c->nbuckets - 1)] = l;
  c->nlines++;
}

#define PIECE (1024u * 1024u) /* a window is read as concurrent requests of 1 MiB */

/* Reads [off, off+len) of `f` into buf as concurrent requests of at most PIECE. */
static xio_err read_pieces(xio_file *f, uint64_t off, unsigned char *buf, size_t len,
                           xio_error *err) {
  size_t n = (len + PIECE - 1) / PIECE;
  xio_io *io = calloc(n, sizeof *io);
  if (!io) return xio_error_set(err, XIO_ENOMEM, "out of memory reading the cache");
  xio_err first = XIO_OK;
  size_t submitted = 0;
  for (size_t i = 0; i < n; i++, submitted++) {
    io[i].op = XIO_IO_READ;
    io[i].offset = off + (uint64_t)i * PIECE;
    io[i].length = len - i * PIECE < PIECE ? len - i * PIECE : PIECE;
    io[i].buf = buf + i * PIECE;
    if ((first = xio_file_submit(f, &io[i], err)) != XIO_OK) break;
  }
  for (size_t i = 0; i < submitted; i++) {
    xio_err rc = xio_io_wait(&io[i]);
    if (rc != XIO_OK && first == XIO_OK) {
      first = rc;
      *err = io[i].error;
    }
  }
  free(io);
  return first;
}

/* Reads lines [first, first+count) from storage into the cache. */
static xio_err fill(xsq_cache *c, xio_file *f, uint64_t fsize, uint64_t first, unsigned count,
                    xio_error *err) {
  size_t len = (size_t)count * XSQ_LINE;
  unsigned char *buf = calloc(1, len);
  if (!buf) return xio_error_set(err, XIO_ENOMEM, "out of memory reading the cache");
  uint64_t off = first * XSQ_LINE;
  xio_err rc = XIO_OK;
  if (off < fsize)
    rc = read_pieces(f, off, buf, fsize - off < len ? (size_t)(fsize - off) : len, err);
  for (unsigned i = 0; rc == XIO_OK && i < count; i++)
    insert(c, first + i, buf + (size_t)i * XSQ_LINE);
  free(buf);
  return rc;
}

/* A miss at line idx of a read that needs `want` lines from there: how many lines
 * to read (at least `want`, unless the last of them is cached). A miss that goes on
 * from the last sequential window's end, or from where the previous read ended (a
 * reader that walked on through lines already cached, or whose window was evicted
 * under it by the transaction's own writes), grows the window; any other miss reads
 * what it needs and leaves the sequential stream as it was (a scan also reads
 * interior pages elsewhere). */
static unsigned window(xsq_cache *c, uint64_t idx, unsigned want, uint64_t fsize) {
  unsigned n = 1;
  int sequential = idx != 0 && (idx == c->last_miss_end || idx == c->next_line);
  if (sequential) {
    c->ahead = c->ahead * 16 > MAX_AHEAD ? MAX_AHEAD : c->ahead * 16;
    n = c->ahead;
  } else if (c->last_miss_end == 0 || idx == 0) {
    c->ahead = 1; /* the first miss starts a stream */
  }
  if (n > c->maxlines / 2 && c->maxlines >= 2) n = (unsigned)(c->maxlines / 2);
  if (n < want) n = want;
  uint64_t lines_in_file = (fsize + XSQ_LINE - 1) / XSQ_LINE;
  if (idx + n > lines_in_file) n = lines_in_file > idx ? (unsigned)(lines_in_file - idx) : 1;
  while (n > 1 && find(c, idx + n - 1)) /* do not re-read lines already held */
    n--;
  if (!n) n = 1;
  if (sequential || c->last_miss_end == 0 || idx == 0) c->last_miss_end = idx + n;
  return n;
}

xio_err xsq_cache_read(xsq_cache *c, xio_file *f, uint64_t fsize, uint64_t off, void *buf,
                       size_t len, xio_error *err) {
  unsigned char *out = buf;
  uint64_t end = len ? (off + len - 1) / XSQ_LINE + 1 : off / XSQ_LINE;
  while (len > 0) {
    uint64_t idx = off / XSQ_LINE;
    size_t in = (size_t)(off % XSQ_LINE), n = XSQ_LINE - in;
    if (n > len) n = len;
    xsq_line *l = find(c, idx);
    if (!l) {
      c->misses++;
      unsigned want = end - idx < MAX_AHEAD ? (unsigned)(end - idx) : MAX_AHEAD;
      xio_err rc = fill(c, f, fsize, idx, window(c, idx, want, fsize), err);
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
  c->next_line = end;
  return XIO_OK;
}

void xsq_cache_patch(xsq_cache *c, uint64_t off, const void *buf, size_t len) {
  const unsigned char *src = buf;
  while (len > 0) {
    size_t in = (size_t)(off % XSQ_LINE), n = XSQ_LINE - in;
    if (n > len) n = len;
    xsq_line *l = find(c, off / XSQ_LINE);
    if (l) memcpy(l->data + in, src, n);
    src += n;
    off += n;
    len -= n;
  }
}

void xsq_cache_update(xsq_cache *c, uint64_t off, const void *buf, size_t len, uint64_t fsize) {
  const unsigned char *src = buf;
  unsigned char *tmp = NULL;
  while (len > 0) {
    size_t in = (size_t)(off % XSQ_LINE), n = XSQ_LINE - in;
    if (n > len) n = len;
    xsq_line *l = find(c, off / XSQ_LINE);
    if (l) {
      memcpy(l->data + in, src, n);
    } else if (in == 0 && n == XSQ_LINE) {
      insert(c, off / XSQ_LINE, src); /* a whole line written: now known */
    } else if (in == 0 && off + n >= fsize && (tmp || (tmp = calloc(1, XSQ_LINE)))) {
      memcpy(tmp, src, n); /* the file's last line: past its end reads as zeros */
      insert(c, off / XSQ_LINE, tmp);
    }
    src += n;
    off += n;
    len -= n;
  }
  free(tmp);
}

void xsq_cache_truncate(xsq_cache *c, uint64_t size) {
  uint64_t first = size / XSQ_LINE;
  for (size_t b = 0; b < c->nbuckets; b++) {
    xsq_line **pp = &c->buckets[b];
    while (*pp) {
      xsq_line *l = *pp;
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
