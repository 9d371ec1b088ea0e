/*
 * rebuild.c - the blob as it was at one link of a backup chain, rebuilt in a local
 * file (backup_int.h): restore writes it to its target from there, and --keep folds
 * old links into a new base with it.
 *
 * The file starts empty at the base's size; each link up to the one asked for is
 * applied in turn: the file is resized to the link's size (a shrink drops the
 * tail, a growth adds zeros), its cleared ranges are punched out, and its pieces
 * are read from its data file, checked against their CRC-64 and written, except
 * for the all-zero blocks of a piece, which are punched (holes read as zero), so
 * the file stays as sparse as the blob was. A piece that does not match its CRC
 * stops the rebuild before any of its bytes is written.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xio/alloc.h>

#include "backup_int.h"

#define BLOCK ((uint64_t)4096) /* the granule of holes */

/* Makes [off, off + len) of `fd` read as zeros: a hole where the file system
 * punches one, else zeros written. */
static int zero_range(int fd, uint64_t off, uint64_t len) {
  if (len == 0) return 0;
  if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)off, (off_t)len) == 0)
    return 0;
  static const char zeros[65536];
  while (len) {
    size_t n = len < sizeof zeros ? (size_t)len : sizeof zeros;
    ssize_t k = pwrite(fd, zeros, n, (off_t)off);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return k < 0 ? errno : EIO;
    off += (uint64_t)k;
    len -= (uint64_t)k;
  }
  return 0;
}

static int write_all(int fd, const char *p, size_t n, uint64_t off) {
  while (n) {
    ssize_t k = pwrite(fd, p, n, (off_t)off);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return k < 0 ? errno : EIO;
    p += k;
    n -= (size_t)k;
    off += (uint64_t)k;
  }
  return 0;
}

/* Writes a piece: runs of non-zero blocks written, runs of zero blocks punched. */
static int write_sparse(int fd, const char *buf, uint64_t len, uint64_t off) {
  uint64_t i = 0;
  while (i < len) {
    uint64_t end = (off + i) / BLOCK * BLOCK + BLOCK - off; /* next block boundary */
    if (end > len) end = len;
    int zero = xio_is_zero(buf + i, (size_t)(end - i));
    /* extend the run while blocks are alike */
    uint64_t j = end + xio_zero_run(buf + end, (size_t)(len - end), BLOCK, zero);
    int e =
        zero ? zero_range(fd, off + i, j - i) : write_all(fd, buf + i, (size_t)(j - i), off + i);
    if (e) return e;
    i = j;
  }
  return 0;
}

static xio_err read_piece(int dfd, const char *path, const bk_piece *p, char *buf, xio_error *err) {
  for (uint64_t got = 0; got < p->len;) {
    ssize_t k = pread(dfd, buf + got, (size_t)(p->len - got), (off_t)(p->pos + got));
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) return xio_error_from_errno(err, errno, "ReadBackup", "pread", path);
    if (k == 0) {
      xio_error_set(err, XIO_EIO,
                    "%.300s ends at byte %" PRIu64 ", inside the piece at %" PRIu64
                    " (blob offset %" PRIu64 ", %" PRIu64 " bytes): the backup is damaged",
                    path, p->pos + got, p->pos, p->off, p->len);
      xio_error_set_operation(err, "ReadBackup");
      return XIO_EIO;
    }
    got += (uint64_t)k;
  }
  if (xio_crc64(0, buf, (size_t)p->len) != p->crc) {
    xio_error_set(err, XIO_ECHECKSUM,
                  "corrupt piece in %.300s: the %" PRIu64 " bytes at %" PRIu64
                  " (blob offset %" PRIu64 ") do not match their CRC-64",
                  path, p->len, p->pos, p->off);
    xio_error_set_operation(err, "ReadBackup");
    return XIO_ECHECKSUM;
  }
  return XIO_OK;
}

/* Applies link `l` to `fd`, polling `stop` before each piece. */
static xio_err apply_link(const bk_chain *ch, const bk_link *l, int fd, const char *what, char *buf,
                          uint64_t *bytes, xio_backup_stop_fn stop, void *ud, xio_error *err) {
  if (ftruncate(fd, (off_t)l->size) != 0)
    return xio_error_from_errno(err, errno, "RestoreFile", "ftruncate", what);
  for (size_t i = 0; i < l->cleared.n; i++) {
    uint64_t s = l->cleared.v[i].start, e = l->cleared.v[i].end + 1;
    if (s >= l->size) break;
    int r = zero_range(fd, s, (e < l->size ? e : l->size) - s);
    if (r) return xio_error_from_errno(err, r, "RestoreFile", "fallocate", what);
  }
  char path[4096];
  xio_err rc = bk_path(ch->dir, l->data, path, sizeof path, err);
  if (rc != XIO_OK) return rc;
  int dfd = open(path, O_RDONLY | O_CLOEXEC);
  if (dfd < 0) return xio_error_from_errno(err, errno, "ReadBackup", "open", path);
  for (size_t i = 0; rc == XIO_OK && i < l->npieces; i++) {
    rc = bk_check_stop(stop, ud, err);
    if (rc == XIO_OK) rc = read_piece(dfd, path, &l->pieces[i], buf, err);
    int r = rc == XIO_OK ? write_sparse(fd, buf, l->pieces[i].len, l->pieces[i].off) : 0;
    if (r) rc = xio_error_from_errno(err, r, "RestoreFile", "pwrite", what);
    if (rc == XIO_OK && bytes) *bytes += l->pieces[i].len;
  }
  close(dfd);
  return rc;
}

xio_err bk_rebuild(const bk_chain *ch, size_t upto, int fd, const char *what, uint64_t *bytes,
                   xio_backup_stop_fn stop, void *ud, xio_error *err) {
  if (bytes) *bytes = 0;
  char *buf = xio_malloc(BK_PIECE);
  if (!buf) return xio_error_set(err, XIO_ENOMEM, "out of memory for a piece");
  xio_err rc = XIO_OK;
  for (size_t i = 0; rc == XIO_OK && i <= upto && i < ch->n; i++)
    rc = apply_link(ch, &ch->links[i], fd, what, buf, bytes, stop, ud, err);
  xio_free(buf);
  return rc;
}
