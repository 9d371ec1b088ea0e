/*
 * plan.c - requests cut into the pieces a backend takes, and the file layer's own
 * reads and zeros run to completion on the calling thread: the write queue's read-
 * back of an edge sector, held writes' gap bytes, a growth's zeroing; and growing a
 * file before a write past its end. The floor under the write path (rw.c, queue.c,
 * flush.c): it knows the backend and the I/O state (io.c), nothing above them.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <string.h>

#include "xio_int.h"

/* ---------------------------------------------------------- planning ---- */

int xio__count_pieces(uint64_t len, size_t piece) { return (int)((len + piece - 1) / piece); }

/* Cuts [off, off+len) of `buf` into subs of at most `piece` bytes. */
void xio__add_pieces(xio__io_state *st, xio__sub_op op, uint64_t off, uint64_t len, char *buf,
                     size_t piece, int zeroing) {
  for (uint64_t done = 0; done < len;) {
    size_t n = (size_t)(len - done < piece ? len - done : piece);
    xio__sub *s = xio__io_add(st, op, off + done, n, zeroing ? buf : buf + done);
    s->zeroing = zeroing;
    done += n;
  }
}

/* Runs an internal request to completion on this thread. */
xio_err xio__wait_internal(xio__io_state *st, xio_io *io, xio_error *err) {
  st->internal = 1;
  xio__io_launch(st);
  xio_err rc = xio__io_wait(io);
  if (rc != XIO_OK && err) *err = io->error;
  return rc;
}

/* The largest read request of `f`: a checked range at most, while reads are checked. */
size_t xio__read_piece(const xio_file *f) {
  size_t checked = f->backend->max_checked_read;
  if (!checked || xio__ctx_options(f->ctx)->checksum == XIO_CHECKSUM_NONE)
    return f->backend->max_read;
  return checked < f->backend->max_read ? checked : f->backend->max_read;
}

/* Reads [off, off+n) into buf, clamped to the logical size (the rest is left alone). */
xio_err xio__read_internal(xio_file *f, uint64_t off, void *buf, size_t n, xio_error *err) {
  uint64_t size = atomic_load(&f->size);
  if (off >= size) return XIO_OK;
  if (n > size - off) n = (size_t)(size - off);
  xio_io io;
  memset(&io, 0, sizeof io);
  io.op = XIO_IO_READ;
  xio__io_state *st;
  xio_err rc = xio__io_begin(f, &io, xio__count_pieces(n, xio__read_piece(f)), &st, err);
  if (rc != XIO_OK) return rc;
  xio__add_pieces(st, XIO__SUB_READ, off, n, buf, xio__read_piece(f), 0);
  return xio__wait_internal(st, &io, err);
}

/* Makes [off, end) (aligned for the backend) read as zero with CLEAR or ZERO. */
xio_err xio__zero_internal(xio_file *f, uint64_t off, uint64_t end, xio_init how, xio_error *err) {
  if (end <= off) return XIO_OK;
  size_t piece = f->backend->max_request;
  if (piece > xio__ctx_zeros_len(f->ctx)) piece = xio__ctx_zeros_len(f->ctx);
  xio_io io;
  memset(&io, 0, sizeof io);
  io.op = XIO_IO_ZERO;
  xio__io_state *st;
  int n = how == XIO_INIT_CLEAR ? 1 : xio__count_pieces(end - off, piece);
  xio_err rc = xio__io_begin(f, &io, n, &st, err);
  if (rc != XIO_OK) return rc;
  if (how == XIO_INIT_CLEAR)
    xio__io_add(st, XIO__SUB_CLEAR, off, 0, NULL)->clear_length = end - off;
  else
    xio__add_pieces(st, XIO__SUB_WRITE, off, end - off, (char *)xio__ctx_zeros(f->ctx), piece, 1);
  return xio__wait_internal(st, &io, err);
}

/* ------------------------------------------------------------ growth ---- */

/* Refuses a size past XIO_FILE_MAX_SIZE on every backend, before any request. */
xio_err xio__check_max_size(const char *what, uint64_t size, xio_error *err) {
  if (size <= XIO_FILE_MAX_SIZE) return XIO_OK;
  return xio_error_set(err, XIO_ELIMIT,
                       "%s to %" PRIu64 " bytes exceeds the 8 TiB limit of a file (%" PRIu64
                       " bytes)",
                       what, size, (uint64_t)XIO_FILE_MAX_SIZE);
}

/* Grows the file to at least `end` bytes (new bytes read as zero). */
xio_err xio__grow_to(xio_file *f, uint64_t end, xio_error *err) {
  xio_err rc = xio__check_max_size("growing", end, err);
  if (rc != XIO_OK) return rc;
  pthread_mutex_lock(&f->size_mu);
  if (end > atomic_load(&f->size)) {
    rc = f->backend->resize(f, end, err);
    if (rc == XIO_OK) atomic_store(&f->size, end);
  }
  pthread_mutex_unlock(&f->size_mu);
  return rc;
}
