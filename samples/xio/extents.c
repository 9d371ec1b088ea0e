/*
 * extents.c - where a target holds data: the page ranges of a page blob (Get Page
 * Ranges, in segments, merged), or the data extents of a local file (SEEK_DATA /
 * SEEK_HOLE, so a sparse file's holes cost nothing). stat, ranges, put and get all
 * walk these lists, kept as xio_blob_ranges: sorted, inclusive [start, end].
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli.h"

xio_err cli_ranges_add(xio_blob_ranges *r, uint64_t start, uint64_t end, xio_error *err) {
  if (r->n > 0 && r->v[r->n - 1].end + 1 == start) {
    r->v[r->n - 1].end = end;
    return XIO_OK;
  }
  if (r->n == r->cap) {
    size_t cap = r->cap ? r->cap * 2 : 64;
    xio_blob_range *v = realloc(r->v, cap * sizeof *v);
    if (!v) return xio_error_set(err, XIO_ENOMEM, "out of memory listing ranges");
    r->v = v;
    r->cap = cap;
  }
  r->v[r->n].start = start;
  r->v[r->n].end = end;
  r->n++;
  return XIO_OK;
}

xio_err cli_local_extents(int fd, const char *path, uint64_t size, xio_blob_ranges *out,
                          xio_error *err) {
  uint64_t pos = 0;
  while (pos < size) {
    off_t data = lseek(fd, (off_t)pos, SEEK_DATA);
    if (data < 0 && errno == ENXIO) break; /* only a hole from here on */
    if (data < 0 && errno == EINVAL) return cli_ranges_add(out, pos, size - 1, err);
    if (data < 0) return cli_sys_error(err, errno, "ListExtents", "lseek(SEEK_DATA)", path);
    off_t hole = lseek(fd, data, SEEK_HOLE);
    if (hole < 0) return cli_sys_error(err, errno, "ListExtents", "lseek(SEEK_HOLE)", path);
    uint64_t end = (uint64_t)hole < size ? (uint64_t)hole : size;
    if (end > (uint64_t)data) {
      xio_err rc = cli_ranges_add(out, (uint64_t)data, end - 1, err);
      if (rc != XIO_OK) return rc;
    }
    if (end <= pos) break;
    pos = end;
  }
  return XIO_OK;
}

static xio_err blob_ranges(cli *c, const char *url, uint64_t size, xio_blob_ranges *out,
                           xio_error *err) {
  xio_ctx *ctx;
  xio_blob_target *t = NULL;
  xio_blob_ranges all = {NULL, 0, 0};
  xio_err rc = cli_context(c, &ctx, err);
  if (rc == XIO_OK) rc = xio_ctx_blob_target(ctx, url, &t, err);
  if (rc == XIO_OK) rc = xio_blob_get_ranges(xio_ctx_engine(ctx), t, 0, 0, 0, &all, err);
  for (size_t i = 0; rc == XIO_OK && i < all.n && all.v[i].start < size; i++) {
    uint64_t end = all.v[i].end < size - 1 ? all.v[i].end : size - 1;
    rc = cli_ranges_add(out, all.v[i].start, end, err);
  }
  xio_blob_ranges_clear(&all);
  xio_blob_target_free(t);
  return rc;
}

static xio_err file_extents(const char *path, uint64_t size, xio_blob_ranges *out,
                            xio_error *err) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return cli_sys_error(err, errno, "ListExtents", "open", path);
  xio_err rc = cli_local_extents(fd, path, size, out, err);
  close(fd);
  return rc;
}

xio_err cli_target_ranges(cli *c, const char *target, uint64_t size, xio_blob_ranges *out,
                          xio_error *err) {
  if (size == 0) return XIO_OK;
  return cli_is_url(target) ? blob_ranges(c, target, size, out, err)
                            : file_extents(target, size, out, err);
}
