/*
 * source.c - put's view of the local file it uploads: a ring of memory the file is
 * read into, a chunk at a time, just ahead of the requests that send it.
 *
 * File byte `off` lives at ring offset off % size. A Put Page request of up to
 * 4 MiB points straight into the ring, so no byte is copied by the command; its
 * bytes must be contiguous there, so no request may run past the ring's end onto
 * its start, and the caller sends the request being built before that could
 * happen (put.c: make_room). A load never runs past it: it stays inside one
 * 4 MiB-aligned chunk, the ring is a whole number of chunks, and the O_DIRECT
 * round-up of the file's last partial block stays inside its chunk. The caller
 * also keeps what is live (the requests in flight, the one being built, the chunk
 * being scanned) within one ring's length of file offsets before it loads the
 * next chunk.
 *
 * The ring is one mapping of transparent huge pages (hugemem.c), not shared
 * memory (a memory file gets none): reads into it cost less system CPU than into
 * 4 KiB pages (docs/benchmarks/design.md#put-ring-huge-pages).
 *
 * Reads go through a descriptor opened with O_DIRECT where the file system takes
 * it, as database engines read their own files: the disk fills the ring by DMA,
 * with none of the page-cache copying or page-table work that a buffered read or
 * a mapping of the file costs per 4 KiB (several times the system CPU:
 * docs/benchmarks/design.md#put-direct-reads), and a file larger than
 * memory does not push everything else out of the page cache. Bytes before the
 * first DIRECT_ALIGN boundary of a load are read buffered, and so is everything
 * once the file system has refused O_DIRECT (EINVAL at open or on a read).
 *
 * The file must hold still while it is uploaded: a file that grows, shrinks or is
 * rewritten meanwhile would give a blob that mixes old and new bytes, or lacks the
 * new ones, and looks whole. What it was when put opened it (its inode, size,
 * modification and status change times) is kept, and cli_source_check compares
 * the file and its path with that before each load and after the last write; a
 * load that finds the file ended early says it shrank.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

#define DIRECT_ALIGN ((uint64_t)4096) /* offsets, lengths and addresses of O_DIRECT reads */

/* Maps the ring of `size` bytes. */
static xio_err map_ring(cli_source *s, size_t size, xio_error *err) {
  if (!(s->ring = cli_huge_map(size)))
    return xio_error_from_errno(err, errno, "ReadLocalFile", "mmap", s->path);
  s->size = size;
  return XIO_OK;
}

xio_err cli_source_open(cli_source *s, const char *path, int fd, size_t size, int direct,
                        xio_error *err) {
  memset(s, 0, sizeof *s);
  s->path = path;
  s->fd = fd;
  s->dfd = -1;
  if (fstat(fd, &s->st) != 0)
    return xio_error_from_errno(err, errno, "ReadLocalFile", "fstat", path);
  s->file_size = (uint64_t)s->st.st_size;
  s->dfd = direct ? open(path, O_RDONLY | O_CLOEXEC | O_DIRECT) : -1;
  s->direct = s->dfd >= 0;
  xio_err rc = s->file_size ? map_ring(s, size, err) : XIO_OK;
  if (rc != XIO_OK) cli_source_close(s);
  return rc;
}

const char *cli_source_at(const cli_source *s, uint64_t off) { return s->ring + off % s->size; }

/* Reads up to `n` bytes at `off` of `fd` into `buf` until end of file; the count
 * read in `*got`. 0 or the errno of the failure. */
static int read_fully(int fd, char *buf, size_t n, uint64_t off, size_t *got) {
  *got = 0;
  while (*got < n) {
    ssize_t k = pread(fd, buf + *got, n - *got, (off_t)(off + *got));
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) return errno;
    if (k == 0) break;
    *got += (size_t)k;
  }
  return 0;
}

/* Buffered read of [off, off + n), which must all be there. */
static xio_err read_buffered(cli_source *s, uint64_t off, size_t n, xio_error *err) {
  size_t got;
  int e = read_fully(s->fd, (char *)cli_source_at(s, off), n, off, &got);
  if (e) return xio_error_from_errno(err, e, "ReadLocalFile", "pread", s->path);
  if (got < n) {
    s->changed = 1;
    xio_error_set(err, XIO_ECHANGED,
                  "%s changed while it was being uploaded (it shrank: %llu bytes expected, "
                  "it ends at %llu)",
                  s->path, (unsigned long long)s->file_size, (unsigned long long)off + got);
    xio_error_set_operation(err, "ReadLocalFile");
    xio_error_set_target(err, s->path);
    return XIO_ECHANGED;
  }
  return XIO_OK;
}

/* O_DIRECT read of [off, end) with `off` aligned; the length is rounded up to whole
 * blocks, which stays inside the ring: a load ends inside its 4 MiB chunk, whose
 * end is a block boundary and at most the ring's end. The file's last partial
 * block fills its whole block of the ring (what the disk holds past the end of
 * the file). 1 when O_DIRECT was refused, so the caller reads it buffered. */
static int read_direct(cli_source *s, uint64_t off, uint64_t end, xio_error *err, xio_err *rc) {
  size_t want = (size_t)(end - off), got;
  size_t len = (want + DIRECT_ALIGN - 1) / DIRECT_ALIGN * DIRECT_ALIGN;
  int e = read_fully(s->dfd, (char *)cli_source_at(s, off), len, off, &got);
  if (e == EINVAL) { /* this file or disk wants another alignment: buffered from here */
    close(s->dfd);
    s->dfd = -1;
    s->direct = 0;
    return 1;
  }
  if (e)
    *rc = xio_error_from_errno(err, e, "ReadLocalFile", "pread", s->path);
  else if (got < want)
    *rc = read_buffered(s, off + got, want - got, err); /* names the shrinking */
  else
    s->bytes_direct += want;
  return 0;
}

xio_err cli_source_load(cli_source *s, uint64_t off, size_t n, xio_error *err) {
  uint64_t end = off + n;
  uint64_t head = (off + DIRECT_ALIGN - 1) / DIRECT_ALIGN * DIRECT_ALIGN;
  if (s->dfd < 0 || head >= end) return read_buffered(s, off, n, err);
  xio_err rc = read_buffered(s, off, (size_t)(head - off), err);
  if (rc == XIO_OK && read_direct(s, head, end, err, &rc))
    rc = read_buffered(s, head, (size_t)(end - head), err);
  return rc;
}

static int same_time(const struct timespec *a, const struct timespec *b) {
  return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

/* What differs between the file as it was (`was`), as its descriptor sees it now
 * (`now`) and as its path names it (`named`, or NULL when the path names nothing),
 * into `why`; 0 when nothing does. */
static int what_changed(const struct stat *was, const struct stat *now, const struct stat *named,
                        char *why, size_t size) {
  if (!named)
    snprintf(why, size, "its path no longer names it: it was removed or renamed");
  else if (named->st_dev != was->st_dev || named->st_ino != was->st_ino)
    snprintf(why, size, "the path now names another file");
  else if (now->st_size != was->st_size)
    snprintf(why, size, "it %s from %lld to %lld bytes",
             now->st_size > was->st_size ? "grew" : "shrank", (long long)was->st_size,
             (long long)now->st_size);
  else if (!same_time(&now->st_mtim, &was->st_mtim))
    snprintf(why, size, "it was modified: its modification time moved");
  else if (!same_time(&now->st_ctim, &was->st_ctim))
    snprintf(why, size, "its status change time moved: it was written or its attributes changed");
  else
    return 0;
  return 1;
}

xio_err cli_source_check(cli_source *s, xio_error *err) {
  struct stat now, named;
  char why[128];
  if (fstat(s->fd, &now) != 0)
    return xio_error_from_errno(err, errno, "ReadLocalFile", "fstat", s->path);
  int there = stat(s->path, &named) == 0;
  if (!what_changed(&s->st, &now, there ? &named : NULL, why, sizeof why)) return XIO_OK;
  s->changed = 1;
  xio_error_set(err, XIO_ECHANGED, "%s changed while it was being uploaded (%s)", s->path, why);
  xio_error_set_operation(err, "ReadLocalFile");
  xio_error_set_target(err, s->path);
  return XIO_ECHANGED;
}

void cli_source_close(cli_source *s) {
  cli_huge_unmap(s->ring, s->size);
  if (s->dfd >= 0) close(s->dfd);
  s->ring = NULL;
  s->dfd = -1;
}
