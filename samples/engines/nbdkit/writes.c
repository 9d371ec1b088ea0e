/*
 * writes.c - writes, zeroing and flushes, each acknowledged only once the service
 * acknowledged every request it sent.
 *
 * A write goes out as zeroscan.c plans it: one plain write, one clear, or data
 * pieces and clears sent together (they never overlap) and all waited for. trim
 * and zero are the same thing here: one Put Page clear over the whole range
 * whatever its size (a 2 GiB trim is one request), so a trimmed range really reads
 * as zeros afterwards, which ext4 relies on. Edges that are not whole 512-byte
 * pages are written as zeros (read-modify-write of the edge pages).
 *
 * Every callback returns only after its requests were acknowledged, and a Put Page
 * is durable once acknowledged; so flush has nothing left to wait for but the
 * requests still in flight on the file (xio_file_flush waits for them). It then
 * makes sure the lease still holds: the lease keeper learns of a lease broken and
 * taken by another client only at its next renewal, up to 20 s later, so flush asks
 * the service itself (one renewal, xio_file_lease_confirm) unless the lease was
 * confirmed within the last second. A file system flushes at every fsync and
 * journal commit; the bound keeps that to one extra request a second at most.
 */
#define NBDKIT_API_VERSION 2
#include <errno.h>
#include <nbdkit-plugin.h>
#include <stdlib.h>
#include <string.h>

#include "nbd_int.h"

/* Sends the pieces of `plan` concurrently and waits for all of them. 0 or -1. */
static int send_plan(const xnbd_plan *plan, const char *buf, uint64_t offset) {
  xio_io *ios = calloc(plan->n, sizeof *ios);
  if (!ios) {
    nbdkit_error("xio: out of memory");
    return -1;
  }
  int rc = 0;
  size_t submitted = 0;
  xio_error err;
  memset(&err, 0, sizeof err);
  for (; submitted < plan->n; submitted++) {
    const xnbd_piece *pc = &plan->v[submitted];
    xio_io *io = &ios[submitted];
    io->op = pc->clear ? XIO_IO_ZERO : XIO_IO_WRITE;
    io->offset = offset + pc->off;
    io->length = pc->len;
    io->buf = (void *)(buf + pc->off);
    io->init = XIO_INIT_CLEAR;
    if (xio_file_submit(xnbd_ex.file, io, &err) != XIO_OK) {
      rc = xnbd_fail("write", io->offset, io->length, &err);
      break;
    }
  }
  for (size_t i = 0; i < submitted; i++) {
    if (xio_io_wait(&ios[i]) != XIO_OK && rc == 0)
      rc = xnbd_fail(ios[i].op == XIO_IO_ZERO ? "clear" : "write", ios[i].offset, ios[i].length,
                     &ios[i].error);
  }
  free(ios);
  return rc;
}

int xnbd_write(const void *buf, uint32_t count, uint64_t offset) {
  xnbd_plan plan;
  if (xnbd_plan_write(buf, count, &plan) != 0) {
    nbdkit_error("xio: out of memory");
    return -1;
  }
  int rc;
  xio_error err;
  memset(&err, 0, sizeof err);
  if (plan.n == 1 && plan.v[0].clear) {
    rc = xnbd_zero(count, offset);
  } else if (plan.n == 1) {
    rc = xio_file_write(xnbd_ex.file, offset, buf, count, &err) == XIO_OK
             ? 0
             : xnbd_fail("write", offset, count, &err);
  } else {
    rc = send_plan(&plan, buf, offset);
  }
  xnbd_plan_free(&plan);
  return rc;
}

/* Writes `len` (< 512) zero bytes at `offset`: an edge of a zeroed range. */
static int zero_edge(uint64_t offset, uint64_t len) {
  static const char zeros[XIO_PAGE_SIZE];
  xio_error err;
  memset(&err, 0, sizeof err);
  if (len == 0) return 0;
  if (xio_file_write(xnbd_ex.file, offset, zeros, len, &err) != XIO_OK)
    return xnbd_fail("zero", offset, len, &err);
  return 0;
}

int xnbd_zero(uint32_t count, uint64_t offset) {
  uint64_t end = offset + count;
  uint64_t a = (offset + XIO_PAGE_SIZE - 1) / XIO_PAGE_SIZE * XIO_PAGE_SIZE;
  uint64_t b = end / XIO_PAGE_SIZE * XIO_PAGE_SIZE;
  if (a >= b) return zero_edge(offset, count); /* inside one page */
  if (zero_edge(offset, a - offset) != 0 || zero_edge(b, end - b) != 0) return -1;
  xio_error err;
  memset(&err, 0, sizeof err);
  if (xio_file_zero(xnbd_ex.file, a, b - a, XIO_INIT_CLEAR, &err) != XIO_OK)
    return xnbd_fail("clear", a, b - a, &err);
  return 0;
}

int xnbd_flush(void) {
  xio_error err;
  memset(&err, 0, sizeof err);
  if (xio_file_flush(xnbd_ex.file, &err) != XIO_OK) return xnbd_fail("flush", 0, 0, &err);
  xio_err rc = xio_file_lease_confirm(xnbd_ex.file, XNBD_LEASE_CONFIRM_MS, &err);
  if (rc == XIO_ELEASELOST) {
    nbdkit_error("xio: flush: the lease on %s is lost (another client took the target "
                 "over): writes are refused [%s]",
                 xio_file_path(xnbd_ex.file), xio_err_name(rc));
    nbdkit_set_error(EIO);
    return -1;
  }
  if (rc != XIO_OK) return xnbd_fail("flush: confirming the lease", 0, 0, &err);
  return 0;
}
