/*
 * backend_local.c - the local backend: a file is a regular file on the local file
 * system, named by a path or a file:// URL.
 *
 * Reads and writes are pread/pwrite loops run on the context's worker threads, so
 * local files get the same asynchronous interface as page blobs. Clearing (the init
 * policy "clear") is metadata-only zeroing: fallocate(FALLOC_FL_ZERO_RANGE), else
 * FALLOC_FL_PUNCH_HOLE, else writing zeros; each file remembers which of these its
 * file system took, so a refused method is not retried. Exclusive opens hold an
 * flock, which no other open file description (in this or another process) can
 * take or break. The file kind lives in the extended attribute user.xio.kind, as
 * the page blob keeps it in its xiokind metadata. Every storage request (open,
 * create, read, write, clear, resize, lock, delete, ranges) is a local_call run by
 * local_send, the one place that makes its system calls and hands it to the
 * completion hook (its trace event, its file's counters), as every page-blob request
 * passes the engine.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include <xio/alloc.h>
#include <xio/base.h>

#include "xio_int.h"

#define XATTR_KIND        "user.xio.kind"
#define XATTR_INCOMPLETE  "user.xio.incomplete" /* "1" while a transfer into it runs */
#define LOCAL_MAX_REQUEST ((size_t)8 << 20)

/* Ways to clear a range, best first; a file only ever moves down this list. */
enum { CLEAR_ZERO_RANGE, CLEAR_PUNCH_HOLE, CLEAR_WRITE };

typedef struct local_file {
  xio_file base; /* first: the generic layer sees an xio_file */
  int fd;
  int locked;               /* holds the flock of an exclusive open */
  _Atomic int clear_method; /* CLEAR_*: the best method not yet refused */
  int pinned;               /* XIO_OPEN_PINNED: reads check `pin` */
  struct stat pin;          /* the file as the open found it */
} local_file;

/* One sub on its way to a worker. */
typedef struct local_job {
  xio__job job; /* first: the worker sees an xio__job */
  xio__sub *sub;
} local_job;

/* ------------------------------------------------------------ requests ---- */

/* One storage request of this backend, as a call is one of the page blob's: what it
 * is for, the system calls that make it, their arguments and what they moved. */
typedef struct local_call local_call;
struct local_call {
  xio__req req;                                 /* type, file (or NULL) and range */
  const char *path;                             /* the file's path */
  xio_err (*io)(local_call *c, xio_error *err); /* its system calls */
  const xio_open_options *o;                    /* open, create, lock: the open's */
  int *fd;                                      /* open, create: the descriptor made */
  local_file *lf;                               /* the open file, for the others */
  xio__sub *sub;                                /* read, write, clear */
  uint64_t size;                                /* resize: the new size; ranges: up to */
  xio_ranges *ranges;                           /* ranges: appended to */
  size_t moved;                                 /* read, write: bytes moved */
};

/* Runs the system calls of `c`, then hands the request, timed, to the completion hook
 * whatever they returned: every storage request of this backend goes through here. */
static xio_err local_send(xio_ctx *ctx, local_call *c, xio_error *err) {
  int64_t t0 = xio_auth_monotonic_us();
  xio_err rc = c->io(c, err);
  xio__outcome o = {c->path, 0, NULL, "", "", xio_auth_monotonic_us() - t0, 0, rc};
  xio__request_done(ctx, &c->req, &o);
  return rc;
}

/* ------------------------------------------------------------ targets ---- */

/* ------------------------------------------------------------- kinds ---- */

/* The kind stored with the file; data when there is none (or no xattrs). */
static xio_kind read_kind(int fd) {
  char v[8];
  ssize_t n = fgetxattr(fd, XATTR_KIND, v, sizeof v);
  return n == 3 && memcmp(v, "log", 3) == 0 ? XIO_KIND_LOG : XIO_KIND_DATA;
}

/* Stores the kind. A file system that refuses user xattrs is not an error: the file
 * then reopens as a data file. */
static void write_kind(int fd, xio_kind kind) {
  const char *v = kind == XIO_KIND_LOG ? "log" : "data";
  (void)fsetxattr(fd, XATTR_KIND, v, strlen(v), 0);
}

static xio_err lf_set_kind(xio_file *f, xio_error *err) {
  (void)err;
  write_kind(((local_file *)f)->fd, f->kind);
  return XIO_OK;
}

/* 1 when the file carries the incomplete mark. */
static int read_incomplete(int fd) {
  char v[2];
  return fgetxattr(fd, XATTR_INCOMPLETE, v, sizeof v) == 1 && v[0] == '1';
}

/* Sets or removes the incomplete mark. Unlike the kind, a mark that cannot be kept
 * is an error: the file would look whole. */
static xio_err lf_set_incomplete(xio_file *f, xio_error *err) {
  int fd = ((local_file *)f)->fd;
  int r = f->incomplete ? fsetxattr(fd, XATTR_INCOMPLETE, "1", 1, 0)
                        : fremovexattr(fd, XATTR_INCOMPLETE);
  if (r == 0 || (!f->incomplete && errno == ENODATA)) return XIO_OK;
  return xio_error_from_errno(err, errno, "SetFileProperties",
                              f->incomplete ? "fsetxattr" : "fremovexattr", f->path);
}

/* --------------------------------------------------------------- open ---- */

static int open_flags(unsigned flags) {
  return O_CLOEXEC | (flags & XIO_OPEN_READONLY ? O_RDONLY : O_RDWR);
}

static int truncate_to(int fd, uint64_t size) {
  int r = ftruncate(fd, (off_t)size);
  while (r != 0 && errno == EINTR)
    r = ftruncate(fd, (off_t)size);
  return r;
}

static xio_err io_open(local_call *c, xio_error *err) {
  if ((*c->fd = open(c->path, open_flags(c->o->flags))) < 0)
    return xio_error_from_errno(err, errno, "OpenFile", "open", c->path);
  return XIO_OK;
}

/* Opens an existing file: one XIOTypeOpenFile request. */
static xio_err open_existing(xio_ctx *ctx, const char *path, const xio_open_options *o, int *fd,
                             const char *expect_missing, xio_error *err) {
  local_call c = {.req = {XIO_REQ_OPEN, NULL, 0, 0, NULL, expect_missing},
                  .path = path,
                  .io = io_open,
                  .o = o,
                  .fd = fd};
  return local_send(ctx, &c, err);
}

/* A file left half made is removed. */
static xio_err io_create(local_call *c, xio_error *err) {
  const xio_open_options *o = c->o;
  int *fd = c->fd;
  if ((*fd = open(c->path, open_flags(o->flags) | O_CREAT | O_EXCL, 0666)) < 0)
    return xio_error_from_errno(err, errno, "CreateFile", "open", c->path);
  const char *step = truncate_to(*fd, o->size) != 0 ? "ftruncate" : NULL;
  if (!step && (o->flags & XIO_OPEN_MARK_INCOMPLETE) &&
      fsetxattr(*fd, XATTR_INCOMPLETE, "1", 1, 0) != 0)
    step = "fsetxattr"; /* a mark that cannot be kept is an error (lf_set_incomplete) */
  if (step) {
    xio_err rc = xio_error_from_errno(err, errno, "CreateFile", step, c->path);
    close(*fd);
    unlink(c->path);
    *fd = -1;
    return rc;
  }
  write_kind(*fd, o->kind);
  return XIO_OK;
}

/* Creates the file (it must not exist) with `o->size` zero bytes, its kind and, with
 * XIO_OPEN_MARK_INCOMPLETE, its incomplete mark: one XIOTypeCreateFile request. */
static xio_err create_new(xio_ctx *ctx, const char *path, const xio_open_options *o, int *fd,
                          xio_error *err) {
  local_call c = {.req = {XIO_REQ_CREATE, NULL, 0, o->size, NULL, NULL},
                  .path = path,
                  .io = io_create,
                  .o = o,
                  .fd = fd};
  return local_send(ctx, &c, err);
}

/* Opens or creates per the flags, like the page blob: an open first unless
 * create-only, then a create when the file is missing and creation is asked for. */
static xio_err open_or_create(xio_ctx *ctx, const char *path, const xio_open_options *o, int *fd,
                              int *created, xio_error *err) {
  int create = o->flags & (XIO_OPEN_CREATE | XIO_OPEN_CREATE_ONLY);
  xio_err rc = XIO_ENOTFOUND;
  /* With create, a missing file is expected: it is created next. */
  /* So it is with XIO_OPEN_MISSING_OK: the caller asked whether it exists. */
  int expected = create || (o->flags & XIO_OPEN_MISSING_OK);
  if (!(o->flags & XIO_OPEN_CREATE_ONLY))
    rc = open_existing(ctx, path, o, fd, expected ? "" : NULL, err);
  if (rc != XIO_ENOTFOUND || !create) return rc;
  xio_error_clear(err);
  rc = create_new(ctx, path, o, fd, err);
  if (rc == XIO_EEXIST && !(o->flags & XIO_OPEN_CREATE_ONLY)) {
    xio_error_clear(err); /* created by someone else meanwhile */
    return open_existing(ctx, path, o, fd, NULL, err);
  }
  if (rc == XIO_OK) *created = 1;
  return rc;
}

/* Wraps an open descriptor in a file; the file owns `fd` only on success. */
static xio_err make_file(xio_ctx *ctx, const char *path, int fd, const xio_open_options *o,
                         int created, local_file **out, xio_error *err) {
  struct stat st;
  if (fstat(fd, &st) != 0) return xio_error_from_errno(err, errno, "OpenFile", "fstat", path);
  if (!S_ISREG(st.st_mode)) {
    xio_error_set(err, XIO_EINVAL, "%s is not a regular file", path);
    xio_error_set_operation(err, "OpenFile");
    xio_error_set_target(err, path);
    return XIO_EINVAL;
  }
  local_file *lf = xio_calloc(1, sizeof *lf);
  xio_kind kind = created ? o->kind : read_kind(fd);
  if (lf && xio__file_init(&lf->base, &xio__local_backend, ctx, path, kind, o->flags,
                           (uint64_t)st.st_size) != XIO_OK) {
    xio__file_release(&lf->base);
    xio_free(lf);
    lf = NULL;
  }
  if (!lf) {
    xio_error_set(err, XIO_ENOMEM, "out of memory");
    return XIO_ENOMEM;
  }
  lf->fd = fd;
  lf->pinned = (o->flags & XIO_OPEN_PINNED) != 0;
  lf->pin = st;
  lf->base.incomplete = created ? (o->flags & XIO_OPEN_MARK_INCOMPLETE) != 0 : read_incomplete(fd);
  atomic_init(&lf->clear_method, CLEAR_ZERO_RANGE);
  *out = lf;
  return XIO_OK;
}

static xio_err busy(const char *path, unsigned flags, xio_error *err) {
  if (flags & XIO_OPEN_BREAK_LEASE)
    xio_error_set(err, XIO_EBUSY,
                  "%s is in use: another open file holds its lock, and a local file "
                  "lock cannot be broken (break-lease works on page blobs only)",
                  path);
  else
    xio_error_set(err, XIO_EBUSY,
                  "%s is in use: another open file (in this or another process) holds "
                  "its lock",
                  path);
  xio_error_set_operation(err, "OpenFile");
  xio_error_set_target(err, path);
  return XIO_EBUSY;
}

static xio_err io_lock(local_call *c, xio_error *err) {
  int r = flock(c->lf->fd, LOCK_EX | LOCK_NB);
  while (r != 0 && errno == EINTR)
    r = flock(c->lf->fd, LOCK_EX | LOCK_NB);
  if (r != 0 && errno == EWOULDBLOCK) return busy(c->path, c->o->flags, err);
  if (r != 0) return xio_error_from_errno(err, errno, "OpenFile", "flock", c->path);
  return XIO_OK;
}

/* Takes the exclusive lock of an exclusive open: one XIOTypeLease request. */
static xio_err take_lock(local_file *lf, const xio_open_options *o, xio_error *err) {
  local_call c = {.req = {XIO_REQ_LEASE, NULL, 0, 0, NULL, NULL},
                  .path = lf->base.path,
                  .io = io_lock,
                  .o = o,
                  .lf = lf};
  xio_err rc = local_send(lf->base.ctx, &c, err);
  lf->locked = rc == XIO_OK;
  return rc;
}

static void free_file(local_file *lf) {
  close(lf->fd);
  xio__file_release(&lf->base);
  xio_free(lf);
}

static xio_err lf_open(xio_ctx *ctx, const char *target, const xio_open_options *o, xio_file **out,
                       int *created, xio_error *err) {
  char *path;
  int fd = -1;
  local_file *lf = NULL;
  xio_err rc = xio__target_local_path(target, &path, err);
  if (rc == XIO_OK) rc = open_or_create(ctx, path, o, &fd, created, err);
  if (rc == XIO_OK) rc = make_file(ctx, path, fd, o, *created, &lf, err);
  if (rc != XIO_OK && fd >= 0) close(fd);
  if (rc == XIO_OK && lf && (o->flags & XIO_OPEN_LEASE)) rc = take_lock(lf, o, err);
  if (rc != XIO_OK && lf) free_file(lf);
  xio_free(path);
  if (rc != XIO_OK) return rc;
  *out = &lf->base;
  return XIO_OK;
}

/* ------------------------------------------------------------- async ---- */

/* Writes all `n` bytes of `buf` at `off`. */
static xio_err pwrite_all(local_file *lf, const char *buf, size_t n, uint64_t off,
                          const char *operation, size_t *done, xio_error *err) {
  for (size_t w = 0; w < n;) {
    ssize_t k = pwrite(lf->fd, buf + w, n - w, (off_t)(off + w));
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0)
      return xio_error_from_errno(err, k < 0 ? errno : EIO, operation, "pwrite", lf->base.path);
    w += (size_t)k;
    if (done) *done += (size_t)k;
  }
  return XIO_OK;
}

/* Reads up to s->length bytes; fewer only at the end of the file. */
static xio_err do_read(local_file *lf, xio__sub *s, size_t *done, xio_error *err) {
  char *buf = s->buf;
  while (*done < s->length) {
    ssize_t k = pread(lf->fd, buf + *done, s->length - *done, (off_t)(s->offset + *done));
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) return xio_error_from_errno(err, errno, "ReadFile", "pread", lf->base.path);
    if (k == 0) break; /* end of file */
    *done += (size_t)k;
  }
  return XIO_OK;
}

/* XIO_OPEN_PINNED: XIO_ECHANGED when the file is no longer as the open found it (its
 * inode, size, modification or change time differ), with `operation` named. */
static xio_err check_pin(local_file *lf, const char *operation, xio_error *err) {
  struct stat st;
  if (!lf->pinned) return XIO_OK;
  if (fstat(lf->fd, &st) != 0)
    return xio_error_from_errno(err, errno, operation, "fstat", lf->base.path);
  const struct stat *p = &lf->pin;
  if (st.st_ino == p->st_ino && st.st_dev == p->st_dev && st.st_size == p->st_size &&
      st.st_mtim.tv_sec == p->st_mtim.tv_sec && st.st_mtim.tv_nsec == p->st_mtim.tv_nsec &&
      st.st_ctim.tv_sec == p->st_ctim.tv_sec && st.st_ctim.tv_nsec == p->st_ctim.tv_nsec)
    return XIO_OK;
  xio_error_set(err, XIO_ECHANGED,
                "%s changed since it was opened (its size or modification time differs): "
                "reading on would mix two versions of it",
                lf->base.path);
  xio_error_set_operation(err, operation);
  xio_error_set_target(err, lf->base.path);
  return XIO_ECHANGED;
}

/* Writes zeros over [off, off+len) from the context's shared zero buffer. */
static xio_err write_zeros(local_file *lf, uint64_t off, uint64_t len, xio_error *err) {
  const char *zeros = xio__ctx_zeros(lf->base.ctx);
  size_t piece = xio__ctx_zeros_len(lf->base.ctx);
  for (uint64_t done = 0; done < len;) {
    size_t n = len - done < piece ? (size_t)(len - done) : piece;
    xio_err rc = pwrite_all(lf, zeros, n, off + done, "ZeroFile", NULL, err);
    if (rc != XIO_OK) return rc;
    done += n;
  }
  return XIO_OK;
}

static int unsupported(int e) { return e == EOPNOTSUPP || e == ENOSYS || e == EINVAL; }

static int falloc(int fd, int mode, uint64_t off, uint64_t len) {
  int r = fallocate(fd, mode, (off_t)off, (off_t)len);
  while (r != 0 && errno == EINTR)
    r = fallocate(fd, mode, (off_t)off, (off_t)len);
  return r == 0 ? 0 : errno;
}

static const struct {
  int mode;
  const char *call;
} clear_modes[] = {
    {FALLOC_FL_ZERO_RANGE | FALLOC_FL_KEEP_SIZE, "fallocate(FALLOC_FL_ZERO_RANGE)"},
    {FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, "fallocate(FALLOC_FL_PUNCH_HOLE)"},
};

/* Clears [off, off+len) by the best method this file's file system takes. */
static xio_err do_clear(local_file *lf, const xio__sub *s, xio_error *err) {
  uint64_t off = s->offset, len = s->clear_length;
  if (len == 0) return XIO_OK;
  for (int m = atomic_load(&lf->clear_method); m < CLEAR_WRITE; m++) {
    int e = falloc(lf->fd, clear_modes[m].mode, off, len);
    if (e == 0) return XIO_OK;
    if (!unsupported(e))
      return xio_error_from_errno(err, e, "ZeroFile", clear_modes[m].call, lf->base.path);
    int expected = m;
    atomic_compare_exchange_strong(&lf->clear_method, &expected, m + 1);
  }
  return write_zeros(lf, off, len, err);
}

static xio_request_type sub_type(const xio__sub *s) {
  if (s->op == XIO__SUB_READ) return XIO_REQ_READ;
  return s->op == XIO__SUB_CLEAR || s->zeroing ? XIO_REQ_ZERO : XIO_REQ_WRITE;
}

/* A sub's read, write or clear. */
static xio_err io_sub(local_call *c, xio_error *err) {
  xio__sub *s = c->sub;
  local_file *lf = c->lf;
  if (s->op == XIO__SUB_READ) {
    xio_err rc = do_read(lf, s, &c->moved, err);
    return rc == XIO_OK ? check_pin(lf, "ReadFile", err) : rc;
  }
  if (s->op == XIO__SUB_WRITE)
    return pwrite_all(lf, s->buf, s->length, s->offset, s->zeroing ? "ZeroFile" : "WriteFile",
                      &c->moved, err);
  return do_clear(lf, s, err);
}

/* A worker runs one sub: its request, then its completion. */
static void run_sub(xio__job *job) {
  xio__sub *s = ((local_job *)job)->sub;
  local_file *lf = (local_file *)s->file;
  xio_free(job);
  xio_error e;
  xio_error_clear(&e);
  s->req = (xio__req){sub_type(s), &lf->base,
                      s->offset,   s->op == XIO__SUB_CLEAR ? s->clear_length : s->length,
                      NULL,        NULL};
  local_call c = {.req = s->req, .path = lf->base.path, .io = io_sub, .lf = lf, .sub = s};
  xio_err rc = local_send(lf->base.ctx, &c, &e);
  xio__sub_done(s, rc, &e, rc == XIO_OK ? c.moved : 0);
}

static void lf_submit(xio_file *f, xio__sub *s) {
  local_job *j = xio_malloc(sizeof *j);
  if (!j) {
    xio_error e;
    xio_error_clear(&e);
    xio_error_set(&e, XIO_ENOMEM, "out of memory queueing a local request");
    xio__sub_done(s, XIO_ENOMEM, &e, 0);
    return;
  }
  j->job.run = run_sub;
  j->sub = s;
  xio__ctx_run(f->ctx, &j->job);
}

/* -------------------------------------------------------------- sync ---- */

static xio_err io_resize(local_call *c, xio_error *err) {
  if (truncate_to(c->lf->fd, c->size) != 0)
    return xio_error_from_errno(err, errno, "SetFileSize", "ftruncate", c->path);
  return XIO_OK;
}

/* Sets the file's size exactly: one XIOTypeSetFileSize request. */
static xio_err lf_resize(xio_file *f, uint64_t size, xio_error *err) {
  local_call c = {.req = {XIO_REQ_SET_SIZE, f, 0, size, NULL, NULL},
                  .path = f->path,
                  .io = io_resize,
                  .lf = (local_file *)f,
                  .size = size};
  return local_send(f->ctx, &c, err);
}

/* Makes written data durable. Not a storage request of the trace schema: no event. */
static xio_err lf_sync(xio_file *f, xio_error *err) {
  local_file *lf = (local_file *)f;
  if (fdatasync(lf->fd) != 0)
    return xio_error_from_errno(err, errno, "FlushFile", "fdatasync", f->path);
  return XIO_OK;
}

static xio_err io_unlock(local_call *c, xio_error *err) {
  if (flock(c->lf->fd, LOCK_UN) != 0)
    return xio_error_from_errno(err, errno, "CloseFile", "flock", c->path);
  return XIO_OK;
}

/* Drops the lock of an exclusive open: one XIOTypeLease request. */
static xio_err release_lock(local_file *lf, xio_error *err) {
  local_call c = {.req = {XIO_REQ_LEASE, NULL, 0, 0, NULL, NULL},
                  .path = lf->base.path,
                  .io = io_unlock,
                  .lf = lf};
  xio_err rc = local_send(lf->base.ctx, &c, err);
  lf->locked = 0;
  return rc;
}

static xio_err lf_close(xio_file *f, xio_error *err) {
  local_file *lf = (local_file *)f;
  xio_err rc = XIO_OK;
  if (lf->locked) rc = release_lock(lf, err);
  if (close(lf->fd) != 0 && errno != EINTR && rc == XIO_OK)
    rc = xio_error_from_errno(err, errno, "CloseFile", "close", f->path);
  lf->fd = -1;
  xio__file_release(f);
  xio_free(lf);
  return rc;
}

/* Unlinks `path` unless an exclusive open holds its lock (XIO_EBUSY), like a
 * leased blob; the lock is taken for the unlink, so no exclusive open starts on the
 * file meanwhile. A file that cannot be opened to check is unlinked as is (and a
 * missing one fails there, with XIO_ENOTFOUND). */
static xio_err unlink_unlocked(const char *path, xio_error *err) {
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK) {
    close(fd);
    xio_error_set(err, XIO_EBUSY, "%s is in use: a leased open holds its lock", path);
    xio_error_set_operation(err, "DeleteFile");
    xio_error_set_target(err, path);
    return XIO_EBUSY;
  }
  xio_err rc = XIO_OK;
  if (unlink(path) != 0) rc = xio_error_from_errno(err, errno, "DeleteFile", "unlink", path);
  if (fd >= 0) close(fd);
  return rc;
}

static xio_err io_unlink(local_call *c, xio_error *err) { return unlink_unlocked(c->path, err); }

/* Deletes the file: one XIOTypeDeleteFile request. */
static xio_err lf_remove(xio_ctx *ctx, const char *target, unsigned how, xio_error *err) {
  /* A local file has no snapshots; with IF_EXISTS its ENOENT is expected. */
  char *path;
  xio_err rc = xio__target_local_path(target, &path, err);
  if (rc != XIO_OK) return rc;
  local_call c = {
      .req = {XIO_REQ_DELETE, NULL, 0, 0, NULL, how & XIO__REMOVE_IF_EXISTS ? "" : NULL},
      .path = path,
      .io = io_unlink};
  rc = local_send(ctx, &c, err);
  xio_free(path);
  return rc;
}

/* ----------------------------------------------------------- ranges ---- */

/* The data extents of [0, size) by SEEK_DATA/SEEK_HOLE; a file system without them
 * reports one extent covering everything. */
static xio_err walk_extents(local_file *lf, uint64_t size, xio_ranges *out, xio_error *err) {
  for (uint64_t pos = 0; pos < size;) {
    off_t data = lseek(lf->fd, (off_t)pos, SEEK_DATA);
    if (data < 0 && errno == ENXIO) break; /* only a hole from here on */
    if (data < 0 && errno == EINVAL) return xio_ranges_add(out, pos, size - 1);
    if (data < 0)
      return xio_error_from_errno(err, errno, "GetRanges", "lseek(SEEK_DATA)", lf->base.path);
    off_t hole = lseek(lf->fd, data, SEEK_HOLE);
    if (hole < 0)
      return xio_error_from_errno(err, errno, "GetRanges", "lseek(SEEK_HOLE)", lf->base.path);
    uint64_t end = (uint64_t)hole < size ? (uint64_t)hole : size;
    if (end <= pos || end <= (uint64_t)data) break;
    xio_err rc = xio_ranges_add(out, (uint64_t)data, end - 1);
    if (rc != XIO_OK) return xio_error_set(err, rc, "out of memory listing ranges");
    pos = end;
  }
  return XIO_OK;
}

static xio_err io_ranges(local_call *c, xio_error *err) {
  xio_err rc = walk_extents(c->lf, c->size, c->ranges, err);
  return rc == XIO_OK ? check_pin(c->lf, "GetRanges", err) : rc;
}

/* The file's data extents: one XIOTypeGetRanges request. */
static xio_err lf_ranges(xio_file *f, xio_ranges *out, xio_error *err) {
  uint64_t size = atomic_load(&f->size);
  local_call c = {.req = {XIO_REQ_RANGES, f, 0, size, NULL, NULL},
                  .path = f->path,
                  .io = io_ranges,
                  .lf = (local_file *)f,
                  .size = size,
                  .ranges = out};
  return local_send(f->ctx, &c, err);
}

static xio_err lf_snapshot(xio_file *f, char *id, size_t size, xio_error *err) {
  (void)id, (void)size;
  xio_error_set(err, XIO_EUNSUPPORTED, "local files have no snapshots (%s)", f->path);
  xio_error_set_operation(err, "SnapshotFile");
  return XIO_EUNSUPPORTED;
}

static xio_err lf_ranges_diff(xio_file *f, const char *since, xio_ranges *written,
                              xio_ranges *cleared, xio_error *err) {
  (void)since, (void)written, (void)cleared;
  xio_error_set(err, XIO_EUNSUPPORTED,
                "local files keep no snapshots to diff against (%s): diffs are of page blobs",
                f->path);
  xio_error_set_operation(err, "GetRanges");
  return XIO_EUNSUPPORTED;
}

/* --------------------------------------------------- properties, leases ---- */

/* From fstat(2): no storage request. A local file has no lease to report. */
static xio_err lf_stat(xio_file *f, xio_file_info *out, xio_error *err) {
  local_file *lf = (local_file *)f;
  struct stat st;
  if (fstat(lf->fd, &st) != 0)
    return xio_error_from_errno(err, errno, "GetFileProperties", "fstat", f->path);
  char iso[21];
  out->stored_size = (uint64_t)st.st_size;
  out->allocated = (uint64_t)st.st_blocks * 512;
  out->incomplete = read_incomplete(lf->fd);
  snprintf(out->last_modified, sizeof out->last_modified, "%s",
           xio_auth_format_iso8601(st.st_mtime, iso));
  return XIO_OK;
}

static xio_err lf_lease(xio_ctx *ctx, const char *target, const xio_lease_request *req,
                        xio_lease_result *out, xio_error *err) {
  (void)ctx, (void)req, (void)out;
  xio_error_set(err, XIO_EUNSUPPORTED,
                "leases are held on blobs; a local file is locked only while open (%s)", target);
  xio_error_set_operation(err, "Lease");
  return XIO_EUNSUPPORTED;
}

const xio_backend xio__local_backend = {
    .version = 1,
    .name = "local",
    .alignment = 1,
    .max_request = LOCAL_MAX_REQUEST,
    .max_read = LOCAL_MAX_REQUEST,
    .open = lf_open,
    .submit = lf_submit,
    .resize = lf_resize,
    .sync = lf_sync,
    .close = lf_close,
    .remove = lf_remove,
    .ranges = lf_ranges,
    .snapshot = lf_snapshot,
    .stat = lf_stat,
    .lease = lf_lease,
    .set_kind = lf_set_kind,
    .set_incomplete = lf_set_incomplete,
    .ranges_diff = lf_ranges_diff,
    .request_bytes = 0,    /* a local request costs a system call: runs are never joined */
    .max_checked_read = 0, /* no end-to-end check of reads */
};
