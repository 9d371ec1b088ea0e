/*
 * zeroscan.c - how a write full of zeros goes out.
 *
 * File systems and engines write zeros as plain data: mkfs its tables, ext4 its
 * journal, PostgreSQL every new 16 MiB WAL segment. On a page blob, zeros need not
 * travel: Put Page clear makes any range read as zeros in one request with no body.
 *
 * The rule, with Azure's billing in mind. A standard page blob bills every request
 * (a Put Page of 4 KiB costs what one of 4 MiB costs) and the pages written, zeros
 * included, until they are cleared; a premium one bills its provisioned size, and
 * both spend the client's bandwidth and the request's time on every byte shipped.
 * Ingress itself is free. So:
 *  - a write whose bytes are all zero is one clear: one request, no bytes, and the
 *    pages stop being billed;
 *  - a write with zeros in it is scanned in 4 KiB units (the block size writers
 *    use); runs of zero units of at least 64 KiB are candidates to be cleared
 *    instead of shipped, shorter ones ride along with the data around them (a clear
 *    of a few KiB costs a request to save little);
 *  - the write is split into its data runs and cleared runs only when every request
 *    the split adds saves at least 256 KiB of shipped zeros (an extra request is
 *    worth about what 256 KiB take on the wire, and it is billed the same as the
 *    write it stands beside); otherwise it is one plain write, zeros included.
 * The pieces of a split never overlap, so they are sent together (writes.c).
 */
#include <stdlib.h>
#include <string.h>

#include "nbd_int.h"

/* Appends a piece, merging it into the last one when both are of the same kind. */
static void add_piece(xnbd_plan *p, size_t off, size_t len, int clear) {
  if (p->n > 0 && p->v[p->n - 1].clear == clear) {
    p->v[p->n - 1].len += len;
  } else {
    p->v[p->n].off = off;
    p->v[p->n].len = len;
    p->v[p->n].clear = clear;
    p->n++;
  }
  if (clear)
    p->cleared += len;
  else
    p->shipped += len;
}

/* Requests a piece takes: a data piece one per 4 MiB, a clear one. */
static size_t piece_requests(const xnbd_piece *pc) {
  if (pc->clear) return 1;
  return (pc->len + XNBD_MAX_REQUEST - 1) / XNBD_MAX_REQUEST;
}

/* Splits the write into data pieces and cleared runs of zero units (at least
 * XNBD_ZERO_RUN_MIN long; shorter runs stay data). */
static void split(const unsigned char *buf, size_t len, xnbd_plan *p) {
  size_t off = 0;
  while (off < len) {
    size_t zlen = xio_zero_run(buf + off, len - off, XNBD_ZERO_UNIT, 1); /* zero units at off */
    if (zlen >= XNBD_ZERO_RUN_MIN) {
      add_piece(p, off, zlen, 1);
      off += zlen;
      continue;
    }
    /* zlen short zeros, then one unit that is not zero (or the end) as data */
    size_t dlen = zlen;
    if (off + dlen < len)
      dlen += len - off - dlen < XNBD_ZERO_UNIT ? len - off - dlen : XNBD_ZERO_UNIT;
    add_piece(p, off, dlen, 0);
    off += dlen;
  }
}

/* Makes `p` the single plain write of `len` bytes. */
static void plain(xnbd_plan *p, size_t len) {
  p->n = 0;
  p->shipped = p->cleared = 0;
  add_piece(p, 0, len, 0);
}

int xnbd_plan_write(const void *buf, size_t len, xnbd_plan *out) {
  memset(out, 0, sizeof *out);
  size_t cap = len / XNBD_ZERO_UNIT + 2;
  out->v = calloc(cap, sizeof *out->v);
  if (!out->v) return -1;
  if (len > 0 && xio_is_zero(buf, len)) {
    add_piece(out, 0, len, 1);
    return 0;
  }
  split(buf, len, out);
  size_t split_reqs = 0;
  for (size_t i = 0; i < out->n; i++)
    split_reqs += piece_requests(&out->v[i]);
  size_t plain_reqs = (len + XNBD_MAX_REQUEST - 1) / XNBD_MAX_REQUEST;
  if (out->n <= 1) return 0;
  if (split_reqs > plain_reqs &&
      out->cleared < (uint64_t)(split_reqs - plain_reqs) * XNBD_REQUEST_WORTH)
    plain(out, len);
  return 0;
}

void xnbd_plan_free(xnbd_plan *p) {
  free(p->v);
  memset(p, 0, sizeof *p);
}
