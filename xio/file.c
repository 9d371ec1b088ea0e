/*
 * file.c - the file API: open and close, the entry checks of every call, the
 * synchronous calls, sizes, held writes, flush, stats. What a read, write or zero
 * becomes is rw.c's (and below it plan.c's); pending writes, held and queued, are
 * pending.c's and its neighbours'. Calls only down.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <xio/alloc.h>

#include "xio_int.h"

static uint64_t round_up(uint64_t v, uint64_t a) { return a > 1 ? (v + a - 1) / a * a : v; }

xio_open_options xio_open_options_default(void) {
  xio_open_options o = {0, XIO_KIND_DATA, 0, XIO_INIT_DEFAULT};
  return o;
}

static xio_init resolve_init(xio_kind kind, xio_init init) {
  if (init != XIO_INIT_DEFAULT) return init;
  return kind == XIO_KIND_LOG ? XIO_INIT_CLEAR : XIO_INIT_NONE;
}

const xio_backend *xio__backend_for(const char *target) {
  switch (xio_target_classify(target)) {
  case XIO_TARGET_BLOB: return &xio__pageblob_backend;
  case XIO_TARGET_LOCAL: return &xio__local_backend;
  default: return NULL;
  }
}

/* The error for a target no backend opens: a URL of a scheme other than http(s) or
 * file. */
static xio_err unsupported_target(const char *target, xio_error *err) {
  int n = (int)xio_target_scheme_length(target);
  return xio_error_set(err, XIO_EUNSUPPORTED,
                       "unsupported URL scheme '%.*s': xio opens http:// and https:// page-blob "
                       "URLs, local paths and file:// URLs",
                       n, target);
}

xio_err xio__file_init(xio_file *f, const xio_backend *b, xio_ctx *ctx, const char *path,
                       xio_kind kind, unsigned flags, uint64_t size) {
  f->backend = b;
  f->ctx = ctx;
  f->kind = kind;
  f->flags = flags;
  atomic_store(&f->size, size);
  if (!(f->path = xio_strdup(path))) return XIO_ENOMEM;
  pthread_mutex_init(&f->size_mu, NULL);
  pthread_mutex_init(&f->io_mu, NULL);
  pthread_cond_init(&f->io_cv, NULL);
  pthread_mutex_init(&f->rmw_mu, NULL);
  pthread_cond_init(&f->rmw_cv, NULL);
  xio__pending_init(f);
  f->send_queued = xio__pending_kick;
  f->overlay_held = xio__pending_overlay;
  return XIO_OK;
}

void xio__file_release(xio_file *f) {
  if (!f->path) return;
  pthread_mutex_destroy(&f->size_mu);
  pthread_mutex_destroy(&f->io_mu);
  pthread_cond_destroy(&f->io_cv);
  pthread_mutex_destroy(&f->rmw_mu);
  pthread_cond_destroy(&f->rmw_cv);
  xio__pending_release(f);
  xio_free(f->path);
  f->path = NULL;
}

/* XIO_EINVAL in a child forked from the process that opened `f` (ctx.c). */
static xio_err check_process(const xio_file *f, xio_error *err) {
  return xio__ctx_check_process(f->ctx, err);
}

/* The entry check of a public call that may block, written once: XIO_EINVAL in a
 * child forked from the process that opened `f`, or on the engine's I/O thread (a
 * completion callback), where `what` would wait for that very thread. Returns
 * XIO_OK or XIO_EINVAL. */
static xio_err enter(xio_file *f, const char *what, xio_error *err) {
  if (check_process(f, err) != XIO_OK) return XIO_EINVAL;
  return xio__in_callback(f) ? xio__refuse_in_callback(f, what, err) : XIO_OK;
}

xio_err xio_file_submit(xio_file *f, xio_io *io, xio_error *err) {
  if (!f || !io) return xio_error_set(err, XIO_EINVAL, "no file or request");
  if (check_process(f, err) != XIO_OK) return XIO_EINVAL;
  if ((io->op == XIO_IO_READ || io->op == XIO_IO_WRITE) && io->length && !io->buf)
    return xio_error_set(err, XIO_EINVAL, "no buffer");
  return xio__rw_submit(f, io, err);
}

/* ------------------------------------------------------------ sync API ---- */

static xio_err run_sync(xio_file *f, xio_io *io, xio_error *err) {
  xio_err rc = xio_file_submit(f, io, err);
  if (rc != XIO_OK) return rc;
  rc = xio_io_wait(io);
  if (rc != XIO_OK && err) *err = io->error;
  return rc;
}

xio_err xio_file_read(xio_file *f, uint64_t offset, void *buf, size_t len, size_t *nread,
                      xio_error *err) {
  xio_io io;
  memset(&io, 0, sizeof io);
  io.op = XIO_IO_READ;
  io.offset = offset;
  io.length = len;
  io.buf = buf;
  xio_err rc = run_sync(f, &io, err);
  if (nread) *nread = rc == XIO_OK ? io.transferred : 0;
  return rc;
}

xio_err xio_file_write(xio_file *f, uint64_t offset, const void *buf, size_t len, xio_error *err) {
  xio_io io;
  memset(&io, 0, sizeof io);
  io.op = XIO_IO_WRITE;
  io.offset = offset;
  io.length = len;
  io.buf = (void *)buf;
  return run_sync(f, &io, err);
}

xio_err xio_file_zero(xio_file *f, uint64_t offset, uint64_t len, xio_init how, xio_error *err) {
  xio_io io;
  memset(&io, 0, sizeof io);
  io.op = XIO_IO_ZERO;
  io.offset = offset;
  io.length = (size_t)len;
  io.init = how;
  return run_sync(f, &io, err);
}

xio_err xio_file_set_size(xio_file *f, uint64_t size, xio_init init, xio_error *err) {
  if (check_process(f, err) != XIO_OK) return XIO_EINVAL;
  xio_err rc = xio__check_writable(f, "resize", err);
  if (rc != XIO_OK) return rc;
  if (xio__in_callback(f)) return xio__refuse_in_callback(f, "set_size", err);
  init = resolve_init(f->kind, init);
  if (init < XIO_INIT_NONE || init > XIO_INIT_CLEAR)
    return xio_error_set(err, XIO_EINVAL, "unknown init policy %d", (int)init);
  if ((rc = xio__check_max_size("resizing", size, err)) != XIO_OK) return rc;
  return xio__rw_resize(f, size, init, err);
}

uint64_t xio_file_size(const xio_file *f) { return atomic_load(&f->size); }

/* ------------------------------------------------------- held writes ---- */

xio_err xio_file_hold(xio_file *f, uint64_t offset, const void *buf, size_t len, xio_error *err) {
  if (!f || (!buf && len)) return xio_error_set(err, XIO_EINVAL, "no file or no buffer");
  xio_err rc = xio__check_writable(f, "hold a write to", err);
  if (rc != XIO_OK) return rc;
  if (!(f->flags & XIO_OPEN_LEASE))
    return xio_error_set(err, XIO_EINVAL,
                         "cannot hold a write to %s: held writes need a file opened "
                         "XIO_OPEN_LEASE (its only writer)",
                         f->path);
  if ((rc = xio__check_aligned(f, offset, len, "held write", err)) != XIO_OK) return rc;
  if (len && offset > UINT64_MAX - len)
    return xio_error_set(err, XIO_ERANGE,
                         "held write at offset %" PRIu64 " of %" PRIu64
                         " bytes overflows: it would end past 2^64 - 1",
                         offset, (uint64_t)len);
  if ((rc = xio__check_max_size("holding a write", offset + len, err)) != XIO_OK) return rc;
  return xio__pending_hold(f, offset, buf, len, err);
}

xio_err xio_file_send_held(xio_file *f, xio_error *err) {
  if (!f) return xio_error_set(err, XIO_EINVAL, "no file");
  if (enter(f, "sending held writes", err) != XIO_OK) return XIO_EINVAL;
  return xio__pending_flush(f, 1, err);
}

xio_err xio_file_flush(xio_file *f, xio_error *err) {
  if (enter(f, "flush", err) != XIO_OK) return XIO_EINVAL;
  xio_err rc = xio__pending_flush(f, 0, err);
  xio__wait_idle(f);
  if (rc == XIO_OK) rc = f->backend->sync(f, err);
  pthread_mutex_lock(&f->io_mu);
  if (rc == XIO_OK && f->sticky != XIO_OK) {
    rc = f->sticky;
    if (err) *err = f->sticky_detail;
  }
  f->sticky = XIO_OK;
  pthread_mutex_unlock(&f->io_mu);
  return rc;
}

xio_err xio_file_wait(xio_file *f, xio_error *err) {
  if (!f) return xio_error_set(err, XIO_EINVAL, "no file");
  if (enter(f, "waiting", err) != XIO_OK) return XIO_EINVAL;
  xio__wait_idle(f);
  return XIO_OK;
}

static void kick_one(xio__tracked_node *n, void *ud) {
  (void)ud;
  xio__pending_kick((xio_file *)((char *)n - offsetof(xio_file, open_node)));
}

static void wait_one(xio__tracked_node *n, void *ud) {
  (void)ud;
  xio__wait_idle((xio_file *)((char *)n - offsetof(xio_file, open_node)));
}

xio_err xio_ctx_wait(xio_ctx *ctx, xio_error *err) {
  if (!ctx) return xio_error_set(err, XIO_EINVAL, "no context");
  if (xio__ctx_check_process(ctx, err) != XIO_OK) return XIO_EINVAL;
  if (xio__ctx_on_io_thread(ctx))
    return xio_error_set(err, XIO_EINVAL,
                         "waiting would block: not allowed from a completion callback");
  xio__tracked_each(xio__ctx_open_files(ctx), kick_one, NULL);
  xio__tracked_each(xio__ctx_open_files(ctx), wait_one, NULL);
  return XIO_OK;
}

xio_err xio_file_ranges(xio_file *f, xio_ranges *out, xio_error *err) {
  if (enter(f, "listing ranges", err) != XIO_OK) return XIO_EINVAL;
  return f->backend->ranges(f, out, err);
}

xio_err xio_file_ranges_diff(xio_file *f, const char *since, xio_ranges *written,
                             xio_ranges *cleared, xio_error *err) {
  if (check_process(f, err) != XIO_OK) return XIO_EINVAL;
  if (!written) return xio_error_set(err, XIO_EINVAL, "no list for the written ranges");
  if (!since || !since[0])
    return xio_error_set(err, XIO_EINVAL, "no snapshot to diff against: give its id (--since)");
  if (xio__in_callback(f)) return xio__refuse_in_callback(f, "listing ranges", err);
  return f->backend->ranges_diff(f, since, written, cleared, err);
}

xio_err xio_file_snapshot(xio_file *f, char *id, size_t size, xio_error *err) {
  if (enter(f, "a snapshot", err) != XIO_OK) return XIO_EINVAL;
  xio__wait_idle(f);
  return f->backend->snapshot(f, id, size, err);
}

xio_err xio_file_stat(xio_file *f, xio_file_info *out, xio_error *err) {
  if (enter(f, "stat", err) != XIO_OK) return XIO_EINVAL;
  memset(out, 0, sizeof *out);
  out->backend = f->backend->name;
  out->kind = f->kind;
  out->size = atomic_load(&f->size);
  return f->backend->stat(f, out, err);
}

xio_err xio_stat(xio_ctx *ctx, const char *target, xio_file_info *out, xio_error *err) {
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_READONLY;
  xio_file *f = NULL;
  xio_err rc = xio_file_open(ctx, target, &o, &f, err);
  if (rc == XIO_OK) rc = xio_file_stat(f, out, err);
  xio_file_close(f, NULL);
  return rc;
}

static xio_err check_lease(const xio_lease_request *r, xio_error *err) {
  if (r->action < XIO_LEASE_ACQUIRE || r->action > XIO_LEASE_BREAK)
    return xio_error_set(err, XIO_EINVAL, "unknown lease action %d", (int)r->action);
  if ((r->action == XIO_LEASE_RENEW || r->action == XIO_LEASE_RELEASE) &&
      (!r->lease_id || !*r->lease_id))
    return xio_error_set(err, XIO_EINVAL, "renewing or releasing a lease needs its id");
  if (r->action == XIO_LEASE_ACQUIRE && !xio_blob_lease_duration_ok(r->duration_s, 1))
    return xio_error_set(err, XIO_EINVAL, "lease duration %d: use -1 (infinite) or %d..%d",
                         r->duration_s, XIO_BLOB_LEASE_MIN_S, XIO_BLOB_LEASE_MAX_S);
  if (r->action == XIO_LEASE_BREAK && !xio_blob_break_period_ok(r->break_period_s, 0))
    return xio_error_set(err, XIO_EINVAL, "break period %d outside 0..%d", r->break_period_s,
                         XIO_BLOB_BREAK_MAX_S);
  return XIO_OK;
}

xio_err xio_lease(xio_ctx *ctx, const char *target, const xio_lease_request *req,
                  xio_lease_result *out, xio_error *err) {
  xio_lease_result ignored;
  if (!out) out = &ignored;
  memset(out, 0, sizeof *out);
  out->remaining_s = -1;
  if (!ctx || !target || !*target || !req)
    return xio_error_set(err, XIO_EINVAL, "no context, target or lease request");
  if (xio__ctx_check_process(ctx, err) != XIO_OK) return XIO_EINVAL;
  if (xio__ctx_on_io_thread(ctx))
    return xio_error_set(err, XIO_EINVAL,
                         "a lease request would block: not allowed from a completion callback");
  xio_err rc = check_lease(req, err);
  if (rc != XIO_OK) return rc;
  const xio_backend *b = xio__backend_for(target);
  return b ? b->lease(ctx, target, req, out, err) : unsupported_target(target, err);
}

xio_kind xio_file_kind(const xio_file *f) { return f->kind; }

int xio_file_incomplete(const xio_file *f) { return f->incomplete; }

xio_err xio_file_set_incomplete(xio_file *f, int incomplete, xio_error *err) {
  if (check_process(f, err) != XIO_OK) return XIO_EINVAL;
  xio_err rc = xio__check_writable(f, "mark", err);
  incomplete = incomplete != 0;
  if (rc != XIO_OK || incomplete == f->incomplete) return rc;
  if (xio__in_callback(f)) return xio__refuse_in_callback(f, "set_incomplete", err);
  if (!f->backend->set_incomplete)
    return xio_error_set(err, XIO_EUNSUPPORTED, "%s cannot be marked incomplete", f->path);
  pthread_mutex_lock(&f->size_mu);
  f->incomplete = incomplete;
  rc = f->backend->set_incomplete(f, err);
  if (rc != XIO_OK) f->incomplete = !incomplete;
  pthread_mutex_unlock(&f->size_mu);
  return rc;
}

xio_err xio_file_set_kind(xio_file *f, xio_kind kind, xio_error *err) {
  if (kind != XIO_KIND_DATA && kind != XIO_KIND_LOG)
    return xio_error_set(err, XIO_EINVAL, "unknown file kind %d", (int)kind);
  if (check_process(f, err) != XIO_OK) return XIO_EINVAL;
  xio_err rc = xio__check_writable(f, "change the kind of", err);
  if (rc != XIO_OK || kind == f->kind) return rc;
  if (xio__in_callback(f)) return xio__refuse_in_callback(f, "set_kind", err);
  if (!f->backend->set_kind)
    return xio_error_set(err, XIO_EUNSUPPORTED, "%s cannot record a file kind", f->path);
  pthread_mutex_lock(&f->size_mu);
  xio_kind old = f->kind;
  f->kind = kind;
  rc = f->backend->set_kind(f, err);
  if (rc != XIO_OK) f->kind = old;
  pthread_mutex_unlock(&f->size_mu);
  return rc;
}
const char *xio_file_path(const xio_file *f) { return f->path; }
const char *xio_file_backend(const xio_file *f) { return f->backend->name; }

void xio_file_get_stats(const xio_file *f, xio_file_stats *o) {
  o->reads = atomic_load(&f->stats.reads);
  o->writes = atomic_load(&f->stats.writes);
  o->bytes_read = atomic_load(&f->stats.bytes_read);
  o->bytes_written = atomic_load(&f->stats.bytes_written);
  o->bytes_cleared = atomic_load(&f->stats.bytes_cleared);
  o->bytes_zero_written = atomic_load(&f->stats.bytes_zero_written);
  o->requests = atomic_load(&f->stats.requests);
  o->retries = atomic_load(&f->stats.retries);
  o->failures = atomic_load(&f->stats.failures);
  o->stall_read_us = atomic_load(&f->stats.stall_read_us);
  o->stall_write_us = atomic_load(&f->stats.stall_write_us);
  o->stall_other_us = atomic_load(&f->stats.stall_other_us);
  o->rmw_conflicts = atomic_load(&f->stats.rmw_conflicts);
  o->throttled = atomic_load(&f->stats.throttled);
  o->read_requests = atomic_load(&f->stats.read_requests);
  o->write_requests = atomic_load(&f->stats.write_requests);
  o->zero_requests = atomic_load(&f->stats.zero_requests);
  o->readback_requests = atomic_load(&f->stats.readback_requests);
}

/* ------------------------------------------------------ open / close ---- */

static xio_err check_open(const xio_open_options *o, xio_error *err) {
  unsigned known = XIO_OPEN_CREATE | XIO_OPEN_CREATE_ONLY | XIO_OPEN_READONLY | XIO_OPEN_LEASE |
                   XIO_OPEN_BREAK_LEASE | XIO_OPEN_UNALIGNED | XIO_OPEN_INCOMPLETE_OK |
                   XIO_OPEN_PINNED | XIO_OPEN_MISSING_OK | XIO_OPEN_MARK_INCOMPLETE |
                   XIO_OPEN_ZEROS_AS_CLEAR;
  if (o->flags & ~known)
    return xio_error_set(err, XIO_EINVAL, "unknown open flags 0x%x", o->flags & ~known);
  if ((o->flags & XIO_OPEN_READONLY) &&
      (o->flags & (XIO_OPEN_CREATE | XIO_OPEN_CREATE_ONLY | XIO_OPEN_LEASE)))
    return xio_error_set(err, XIO_EINVAL, "read-only opens cannot create or lease");
  if ((o->flags & XIO_OPEN_PINNED) && !(o->flags & XIO_OPEN_READONLY))
    return xio_error_set(err, XIO_EINVAL,
                         "a pinned open reads one version of the file: it needs "
                         "XIO_OPEN_READONLY (a write would change the version)");
  if ((o->flags & XIO_OPEN_MARK_INCOMPLETE) &&
      !(o->flags & (XIO_OPEN_CREATE | XIO_OPEN_CREATE_ONLY)))
    return xio_error_set(err, XIO_EINVAL,
                         "XIO_OPEN_MARK_INCOMPLETE marks a file the open creates: it needs "
                         "XIO_OPEN_CREATE or XIO_OPEN_CREATE_ONLY");
  if ((o->flags & XIO_OPEN_BREAK_LEASE) && !(o->flags & XIO_OPEN_LEASE))
    return xio_error_set(err, XIO_EINVAL, "break-lease needs a leased open (XIO_OPEN_LEASE)");
  if ((o->flags & XIO_OPEN_ZEROS_AS_CLEAR) && !(o->flags & XIO_OPEN_LEASE))
    return xio_error_set(err, XIO_EINVAL,
                         "XIO_OPEN_ZEROS_AS_CLEAR applies to the write queue of a file held "
                         "alone: it needs XIO_OPEN_LEASE");
  if (o->kind != XIO_KIND_DATA && o->kind != XIO_KIND_LOG)
    return xio_error_set(err, XIO_EINVAL, "unknown file kind %d", (int)o->kind);
  if (o->init < XIO_INIT_DEFAULT || o->init > XIO_INIT_CLEAR)
    return xio_error_set(err, XIO_EINVAL, "unknown init policy %d", (int)o->init);
  if (o->size > XIO_FILE_MAX_SIZE)
    return xio_error_set(err, XIO_ELIMIT, "size %" PRIu64 " exceeds 8 TiB", o->size);
  return XIO_OK;
}

/* A create-only open refused because the file exists: says so in words, naming the
 * file, keeping the detail of the refusal (status, service code, request ids; a
 * local file's errno and its system call's message). */
static void say_exists(const char *target, xio_error *err) {
  if (!err) return;
  char *safe = err->target[0] ? NULL : xio_target_safe(target);
  const char *name = err->target[0] ? err->target : safe ? safe : "the file";
  const char *call = err->sys_errno ? err->message : NULL; /* "open failed: File exists" */
  char msg[sizeof err->message];
  int n = snprintf(msg, sizeof msg,
                   "%s already exists%s%s%s: nothing of it was changed (a create-only open makes a "
                   "new file only)",
                   name, call ? " (" : "", call ? call : "", call ? ")" : "");
  if (n > 0) memcpy(err->message, msg, sizeof msg); /* cut at its size when too long */
  xio_free(safe);
}

xio_err xio_file_open(xio_ctx *ctx, const char *target, const xio_open_options *opts,
                      xio_file **out, xio_error *err) {
  xio_open_options o = opts ? *opts : xio_open_options_default();
  *out = NULL;
  if (!ctx || !target || !*target) return xio_error_set(err, XIO_EINVAL, "no context or target");
  if (xio__ctx_check_process(ctx, err) != XIO_OK) return XIO_EINVAL;
  xio_err rc = check_open(&o, err);
  if (rc != XIO_OK) return rc;
  const xio_backend *b = xio__backend_for(target);
  if (!b) return unsupported_target(target, err);
  xio_file *f = NULL;
  int created = 0;
  rc = b->open(ctx, target, &o, &f, &created, err);
  if (rc == XIO_EEXIST && (o.flags & XIO_OPEN_CREATE_ONLY)) say_exists(target, err);
  if (rc != XIO_OK) return rc;
  int marked_here = created && (o.flags & XIO_OPEN_MARK_INCOMPLETE);
  if (f->incomplete && !marked_here && !(o.flags & XIO_OPEN_INCOMPLETE_OK)) {
    rc = xio_error_set(err, XIO_ECONFLICT,
                       "%s is incomplete: a transfer into it was interrupted (put --resume "
                       "finishes it; XIO_OPEN_INCOMPLETE_OK opens it anyway)",
                       f->path);
    xio_error_set_operation(err, "OpenFile");
    b->close(f, NULL);
    return rc;
  }
  xio_init init = resolve_init(f->kind, o.init);
  if (created) xio__pending_all_zero(f); /* a created file reads as zeros, whatever the init */
  if (created && init != XIO_INIT_NONE)
    rc = xio__zero_internal(f, 0, round_up(atomic_load(&f->size), b->alignment), init, err);
  if (rc != XIO_OK) {
    b->close(f, NULL);
    return rc;
  }
  xio__tracked_add(xio__ctx_open_files(ctx), &f->open_node);
  *out = f;
  return XIO_OK;
}

xio_err xio_file_close(xio_file *f, xio_error *err) {
  if (!f) return XIO_OK;
  /* A forked child leaves the file to its parent: no lease released, nothing freed. */
  if (enter(f, "close", err) != XIO_OK) return XIO_EINVAL;
  xio_error held_err;
  xio_err held = xio__pending_flush(f, 0, &held_err);
  xio__tracked_remove(xio__ctx_open_files(f->ctx), &f->open_node);
  xio__wait_idle(f);
  xio__pending_disarm(f);
  xio_err rc = f->backend->close(f, err);
  if (held != XIO_OK && err) *err = held_err;
  return held != XIO_OK ? held : rc;
}

xio_err xio_file_delete(xio_ctx *ctx, const char *target, xio_error *err) {
  if (!ctx || !target || !*target) return xio_error_set(err, XIO_EINVAL, "no context or target");
  if (xio__ctx_check_process(ctx, err) != XIO_OK) return XIO_EINVAL;
  const xio_backend *b = xio__backend_for(target);
  return b ? b->remove(ctx, target, XIO__REMOVE_SNAPSHOTS, err) : unsupported_target(target, err);
}

xio_err xio_file_delete_unless_snapshots(xio_ctx *ctx, const char *target, xio_error *err) {
  if (!ctx || !target || !*target) return xio_error_set(err, XIO_EINVAL, "no context or target");
  if (xio__ctx_check_process(ctx, err) != XIO_OK) return XIO_EINVAL;
  const xio_backend *b = xio__backend_for(target);
  return b ? b->remove(ctx, target, 0, err) : unsupported_target(target, err);
}

xio_err xio_file_delete_if_exists(xio_ctx *ctx, const char *target, int *deleted, xio_error *err) {
  if (deleted) *deleted = 0;
  if (!ctx || !target || !*target) return xio_error_set(err, XIO_EINVAL, "no context or target");
  if (xio__ctx_check_process(ctx, err) != XIO_OK) return XIO_EINVAL;
  const xio_backend *b = xio__backend_for(target);
  if (!b) return unsupported_target(target, err);
  xio_err rc = b->remove(ctx, target, XIO__REMOVE_SNAPSHOTS | XIO__REMOVE_IF_EXISTS, err);
  if (rc == XIO_ENOTFOUND) {
    xio_error_clear(err);
    return XIO_OK;
  }
  if (rc == XIO_OK && deleted) *deleted = 1;
  return rc;
}
