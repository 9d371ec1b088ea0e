/*
 * extents.c - where a plain local file (put's source) holds data: its data extents
 * by SEEK_DATA/SEEK_HOLE, so a sparse file's holes cost nothing, kept as
 * xio_ranges (sorted, inclusive [start, end]). Targets opened through the file
 * layer list theirs with xio_file_ranges.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <unistd.h>

#include "cli.h"

static xio_err add(xio_ranges *r, uint64_t start, uint64_t end, xio_error *err) {
  if (xio_ranges_add(r, start, end) != XIO_OK)
    return xio_error_set(err, XIO_ENOMEM, "out of memory listing extents");
  return XIO_OK;
}

xio_err cli_local_extents(int fd, const char *path, uint64_t size, xio_ranges *out,
                          xio_error *err) {
  uint64_t pos = 0;
  while (pos < size) {
    off_t data = lseek(fd, (off_t)pos, SEEK_DATA);
    if (data < 0 && errno == ENXIO) break; /* only a hole from here on */
    if (data < 0 && errno == EINVAL) return add(out, pos, size - 1, err);
    if (data < 0) return xio_error_from_errno(err, errno, "ListExtents", "lseek(SEEK_DATA)", path);
    off_t hole = lseek(fd, data, SEEK_HOLE);
    if (hole < 0) return xio_error_from_errno(err, errno, "ListExtents", "lseek(SEEK_HOLE)", path);
    uint64_t end = (uint64_t)hole < size ? (uint64_t)hole : size;
    if (end > (uint64_t)data) {
      xio_err rc = add(out, (uint64_t)data, end - 1, err);
      if (rc != XIO_OK) return rc;
    }
    if (end <= pos) break;
    pos = end;
  }
  return XIO_OK;
}
