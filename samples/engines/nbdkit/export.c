/*
 * export.c - the served target: one xio context and one open file for the whole
 * nbdkit process, made after nbdkit forked into the background (the context runs
 * threads, which a fork would lose) and closed when nbdkit stops.
 *
 * The same open is tried once before, with a context of its own made and freed
 * before nbdkit listens or forks (get_ready): what makes it fail (a blob leased by
 * another client, a missing one, a refused credential) then ends nbdkit with the
 * reason on stderr, before it serves and before --run starts its command, which
 * would otherwise wait for a server that is gone. Between the two opens the lease is
 * free for a moment; another client that takes it then makes the second open fail
 * as before, in the server's log.
 *
 * A writable target is opened exclusively: the file holds the blob's lease for the
 * export's whole life, renewed by the context's lease keeper, so no second export
 * (or any other xio writer) can write it meanwhile. takeover=1 breaks another
 * holder's lease first; that holder's later writes then fail. A clean stop
 * (SIGTERM, SIGINT, the last client of --run leaving) runs cleanup, which closes
 * the file and so releases the lease; a killed process leaves the lease to expire
 * or to be taken over. A snapshot URL is served read-only, with no lease.
 */
#define NBDKIT_API_VERSION 2
#include <errno.h>
#include <inttypes.h>
#include <nbdkit-plugin.h>
#include <string.h>

#include "nbd_int.h"

xnbd_export xnbd_ex;

int xnbd_fail(const char *op, uint64_t offset, uint64_t len, const xio_error *err) {
  nbdkit_error("xio: %s at %" PRIu64 "+%" PRIu64 ": %s: %s", op, offset, len,
               xio_err_name(err->code), err->message[0] ? err->message : xio_strerror(err->code));
  int e = EIO;
  if (err->code == XIO_ENOMEM) e = ENOMEM;
  if (err->code == XIO_EREADONLY) e = EROFS;
  nbdkit_set_error(e);
  return -1;
}

/* 1 when the URL names a snapshot (a snapshot= parameter in its query). */
static int is_snapshot_url(const char *url) {
  xio_target_parts p;
  int snap = xio_target_parse(url, &p, NULL) == XIO_OK && p.snapshot != NULL;
  xio_target_parts_clear(&p);
  return snap;
}

/* The refusal of an open that found the target leased by another client: names the
 * lease as the service reports it and the way to take over. Returns -1. */
static int refuse_busy(const xio_error *err) {
  xio_file_info info;
  xio_error e2;
  memset(&info, 0, sizeof info);
  memset(&e2, 0, sizeof e2);
  const char *state = "leased", *duration = "";
  if (xio_stat(xnbd_ex.ctx, xnbd_cfg.url, &info, &e2) == XIO_OK) {
    if (info.lease_state[0]) state = info.lease_state;
    duration = info.lease_duration;
  }
  nbdkit_error("xio: %s is in use: another client holds its lease (lease state %s%s%s; "
               "another nbdkit or xio program serving it). Stop that one, or start with "
               "takeover=1 to break its lease (its writes then fail) [%s]",
               err->target[0] ? err->target : "the target", state, duration[0] ? ", duration " : "",
               duration, xio_err_name(err->code));
  return -1;
}

/* Brings an existing target to size= when resize=1, or refuses a size mismatch.
 * 0, or -1 after nbdkit_error. */
static int check_size(void) {
  uint64_t have = xio_file_size(xnbd_ex.file);
  if (!xnbd_cfg.has_size || have == xnbd_cfg.size) return 0;
  if (!xnbd_cfg.resize) {
    nbdkit_error("xio: the target exists with size %" PRIu64 ", not size=%" PRIu64
                 ": give resize=1 to resize it, or leave size= out to serve it as it is",
                 have, xnbd_cfg.size);
    return -1;
  }
  xio_error err;
  memset(&err, 0, sizeof err);
  if (xio_file_set_size(xnbd_ex.file, xnbd_cfg.size, XIO_INIT_CLEAR, &err) != XIO_OK)
    return xnbd_fail("resize", 0, xnbd_cfg.size, &err);
  return 0;
}

/* The open flags the configuration asks for. */
static xio_open_options open_options(void) {
  xio_open_options o = xio_open_options_default();
  if (xnbd_ex.readonly) {
    o.flags = XIO_OPEN_READONLY;
    return o;
  }
  o.flags = XIO_OPEN_LEASE | XIO_OPEN_UNALIGNED;
  if (xnbd_cfg.takeover) o.flags |= XIO_OPEN_BREAK_LEASE;
  if (xnbd_cfg.has_size) {
    o.flags |= XIO_OPEN_CREATE;
    o.size = xnbd_cfg.size;
    o.init = XIO_INIT_NONE; /* a new page blob reads as zeros already */
  }
  return o;
}

int xnbd_export_open(void) {
  xio_error err;
  memset(&err, 0, sizeof err);
  xio_ctx_options co = xio_ctx_options_default(); /* environment: credentials, XIO_TRACE */
  if (xio_ctx_new(&co, &xnbd_ex.ctx, &err) != XIO_OK) {
    nbdkit_error("xio: cannot start: %s: %s", xio_err_name(err.code), err.message);
    return -1;
  }
  xnbd_ex.readonly = is_snapshot_url(xnbd_cfg.url);
  xio_open_options o = open_options();
  xio_err rc = xio_file_open(xnbd_ex.ctx, xnbd_cfg.url, &o, &xnbd_ex.file, &err);
  if (rc == XIO_EBUSY) return refuse_busy(&err);
  if (rc == XIO_ENOTFOUND && !xnbd_cfg.has_size && !xnbd_ex.readonly) {
    nbdkit_error("xio: %s does not exist: give size= to create it", err.target);
    return -1;
  }
  if (rc != XIO_OK) {
    nbdkit_error("xio: cannot open %s: %s: %s", err.target[0] ? err.target : "the target",
                 xio_err_name(rc), err.message);
    return -1;
  }
  if (!xnbd_ex.readonly && check_size() != 0) return -1;
  xnbd_ex.size = xio_file_size(xnbd_ex.file);
  return 0;
}

int xnbd_export_check(void) {
  int rc = xnbd_export_open();
  xnbd_export_close(); /* its threads must not meet nbdkit's fork */
  return rc;
}

void xnbd_export_close(void) {
  if (xnbd_ex.file) {
    xio_error err;
    memset(&err, 0, sizeof err);
    if (xio_file_close(xnbd_ex.file, &err) != XIO_OK)
      nbdkit_error("xio: close: %s: %s", xio_err_name(err.code), err.message);
    xnbd_ex.file = NULL;
  }
  xio_ctx_free(xnbd_ex.ctx);
  xnbd_ex.ctx = NULL;
}
