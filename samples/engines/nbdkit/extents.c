/*
 * extents.c - block status: what of a range is allocated. The allocated ranges come
 * from xio_file_ranges (Get Page Ranges on a page blob, asked in segments and
 * followed page by page as xio does; SEEK_DATA/SEEK_HOLE on a local file); they are
 * data, everything between them a hole that reads as zeros (HOLE|ZERO). So
 * `nbdinfo --map`, nbdcopy and `qemu-img convert` keep a sparse blob sparse.
 *
 * Each call lists the ranges afresh: the listing is what the service has now, never
 * a cache that a write could have made stale.
 */
#define NBDKIT_API_VERSION 2
#include <nbdkit-plugin.h>
#include <string.h>

#include "nbd_int.h"

/* Adds [from, to) as `type` to `extents` when it is not empty. 0 or -1. */
static int add(struct nbdkit_extents *extents, uint64_t from, uint64_t to, uint32_t type) {
  if (to <= from) return 0;
  return nbdkit_add_extent(extents, from, to - from, type);
}

int xnbd_extents(uint32_t count, uint64_t offset, int req_one, struct nbdkit_extents *extents) {
  xio_ranges r;
  xio_error err;
  memset(&r, 0, sizeof r);
  memset(&err, 0, sizeof err);
  if (xio_file_ranges(xnbd_ex.file, &r, &err) != XIO_OK)
    return xnbd_fail("extents", offset, count, &err);
  const uint32_t hole = NBDKIT_EXTENT_HOLE | NBDKIT_EXTENT_ZERO;
  uint64_t end = offset + count, pos = offset;
  int rc = 0;
  for (size_t i = 0; i < r.n && pos < end && rc == 0; i++) {
    uint64_t s = r.v[i].start, e = r.v[i].end + 1; /* ranges are inclusive */
    if (e <= pos) continue;
    if (s > pos) {
      rc = add(extents, pos, s < end ? s : end, hole);
      pos = s < end ? s : end;
      if (req_one || pos >= end || rc != 0) break;
    }
    rc = add(extents, pos, e < end ? e : end, 0);
    pos = e < end ? e : end;
    if (req_one) break;
  }
  if (rc == 0 && pos < end && !(req_one && pos > offset)) rc = add(extents, pos, end, hole);
  xio_ranges_clear(&r);
  return rc;
}
