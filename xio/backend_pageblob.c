/*
 * backend_pageblob.c - the page-blob backend: a file is one page blob.
 *
 * Opening reads the blob's properties (or creates it, and its container when
 * missing), and for exclusive opens acquires a lease that the lease keeper renews.
 * Reads, writes and clears are single REST calls submitted to the context's engine;
 * their completions arrive on the engine's I/O thread. The blob's size is always a
 * multiple of 512; a logical size that is not is kept in the blob's metadata,
 * beside the file kind (blobmeta.c).
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xio/alloc.h>

#include "blobmeta_int.h"
#include "ctx_int.h"

/*
 * The largest Get Blob of one sub. The service answers a transactional checksum
 * (x-ms-range-get-content-crc64 or -md5) only for a range of at most 4 MiB
 * (XIO_BLOB_MAX_CHECKED_READ), so while reads are checked, the file layer splits
 * them there (max_checked_read): a longer range would reach the engine on nobody's
 * word, as a flipped byte in an 8 MiB body once did. With checksums off
 * (XIO_CHECKSUM_NONE) a read goes out in pieces of 8 MiB, as the service sets no
 * limit on an unchecked range and each request costs a round trip and the
 * service's work per request. A larger read is still split, so that its pieces
 * travel in parallel.
 * Azurite shows the per-request cost at its worst: for every range of up to
 * 4 MiB it computes an MD5 of the range (returned only on request) and reads the
 * range a second time, which doubles its work per byte.
 */
#define PB_MAX_READ ((size_t)8 << 20)

/*
 * What one request costs, in bytes: a standard page blob serves about 500 requests
 * and 60 MiB per second (Azure's scale targets), so a request takes as much of the blob's
 * budget as 60 MiB / 500 = 123 KiB of transfer. Premium tiers give more requests per
 * byte (P30: 5,000 IOPS and 200 MB/s, 40 KB a request), so this errs toward joining
 * less there.
 */
#define PB_REQUEST_BYTES ((size_t)(60u << 20) / 500u)

typedef struct pb_file {
  xio_file base; /* first: the generic layer sees an xio_file */
  xio_blob_target *target;
  _Atomic uint64_t blob_size; /* physical size, a multiple of 512 */
  int has_size_meta;          /* the blob records its logical size (blobmeta.c) */
  int leased;
  xio__lease lease;
  char pin[80]; /* XIO_OPEN_PINNED: the ETag every read must still find; "" when unpinned */
} pb_file;

static uint64_t pages(uint64_t n) { return (n + 511) / 512 * 512; }

static const char *lease_id(const pb_file *p) { return p->leased ? p->lease.id : NULL; }

/* 1 when the file holds a lease that can no longer be trusted (lease.c). */
static int lease_gone(pb_file *p) { return p->leased && !xio__lease_valid(&p->lease); }

/* --------------------------------------------------------- requests ---- */

static xio_err get_props(xio_ctx *ctx, xio_blob_target *t, xio_blob_props *props,
                         const char *expect_missing, xio_error *err) {
  xio__req r = {XIO_REQ_OPEN, NULL, 0, 0, NULL, expect_missing};
  xio_blob_call *c = NULL;
  xio_err rc = xio_blob_call_get_properties(t, NULL, &c, err);
  if (rc == XIO_OK) rc = xio__send(ctx, c, &r, err);
  if (rc == XIO_OK) rc = xio_blob_call_props(c, props, err);
  xio_blob_call_free(c);
  return rc;
}

/* 1 when a blob the open creates carries the incomplete mark from the start. */
static int marks(const xio_open_options *o) { return (o->flags & XIO_OPEN_MARK_INCOMPLETE) != 0; }

/* Creates the blob (and its container when that is what is missing), with its
 * metadata: kind, logical size and, when asked, the incomplete mark. */
static xio_err create_blob(xio_ctx *ctx, xio_blob_target *t, const xio_open_options *o,
                           xio_error *err) {
  xio_blob_meta meta[XIO__BLOBMETA_MAX];
  int nmeta = xio__blobmeta_make(o->kind, o->size, marks(o), meta);
  xio_blob_cond cond = {NULL, NULL, "*"};
  xio__req r = {XIO_REQ_CREATE, NULL, 0, pages(o->size), NULL, NULL};
  xio_blob_call *c = NULL;
  xio_err rc = xio_blob_call_create(t, pages(o->size), meta, nmeta, &cond, &c, err);
  if (rc == XIO_OK) rc = xio__send_in_container(ctx, c, &r, err);
  xio_blob_call_free(c);
  return rc;
}

/* Opens or creates per the flags; fills props of the blob opened. */
static xio_err open_or_create(xio_ctx *ctx, xio_blob_target *t, const xio_open_options *o,
                              xio_blob_props *props, int *created, xio_error *err) {
  int create = o->flags & (XIO_OPEN_CREATE | XIO_OPEN_CREATE_ONLY);
  xio_err rc = XIO_ENOTFOUND;
  /* With create, a missing blob is expected: it is created next. */
  /* So it is with XIO_OPEN_MISSING_OK: the caller asked whether it exists. */
  int expected = create || (o->flags & XIO_OPEN_MISSING_OK);
  if (!(o->flags & XIO_OPEN_CREATE_ONLY)) rc = get_props(ctx, t, props, expected ? "" : NULL, err);
  if (rc != XIO_ENOTFOUND || !create) return rc;
  xio_error_clear(err);
  rc = create_blob(ctx, t, o, err);
  if (rc == XIO_EEXIST && !(o->flags & XIO_OPEN_CREATE_ONLY))
    return get_props(ctx, t, props, NULL, err); /* created by someone else meanwhile */
  if (rc != XIO_OK) return rc;
  *created = 1;
  memset(props, 0, sizeof *props);
  props->size = pages(o->size);
  props->nmeta = xio__blobmeta_make(o->kind, o->size, marks(o), props->meta);
  snprintf(props->blob_type, sizeof props->blob_type, "PageBlob");
  return XIO_OK;
}

/* ----------------------------------------------------------- leases ---- */

static xio_err lease_call(pb_file *p, const xio_blob_lease_args *a, char *id_out, xio_error *err) {
  xio__req r = {XIO_REQ_LEASE, NULL, 0, 0, NULL, NULL};
  xio_blob_call *c = NULL;
  xio_err rc = xio_blob_call_lease(p->target, a, &c, err);
  if (rc == XIO_OK) rc = xio__send(p->base.ctx, c, &r, err);
  if (rc == XIO_OK && id_out) rc = xio_blob_call_lease_id(c, id_out, err);
  xio_blob_call_free(c);
  return rc;
}

static xio_err take_lease(pb_file *p, int break_first, xio_error *err) {
  xio_ctx *ctx = p->base.ctx;
  char proposed[37];
  xio_err rc = xio_blob_new_uuid(proposed, err);
  if (rc != XIO_OK) return rc;
  xio_blob_lease_args acquire = {XIO_BLOB_LEASE_ACQUIRE, NULL, proposed,
                                 xio__ctx_options(ctx)->lease_duration_s, 0};
  int64_t sent = xio__lease_now(ctx); /* the lease runs from no earlier than this */
  rc = lease_call(p, &acquire, p->lease.id, err);
  if (rc == XIO_EBUSY && break_first) {
    /* Break period 0: the other holder's lease ends at once, so the acquire that
     * follows takes the file over without waiting out its duration. */
    xio_blob_lease_args brk = {XIO_BLOB_LEASE_BREAK, NULL, NULL, 0, 0};
    xio_error_clear(err);
    rc = lease_call(p, &brk, NULL, err);
    sent = xio__lease_now(ctx);
    if (rc == XIO_OK) rc = lease_call(p, &acquire, p->lease.id, err);
  }
  if (rc == XIO_EBUSY && err) {
    /* A clearer message, keeping the service's status, code and request ids. */
    xio_error svc = *err;
    xio_error_set(err, XIO_EBUSY,
                  "%s is in use: another client holds its lease "
                  "(open with break-lease to take it over)",
                  p->base.path);
    err->http_status = svc.http_status;
    err->retries = svc.retries;
    memcpy(err->service_code, svc.service_code, sizeof err->service_code);
    memcpy(err->request_id, svc.request_id, sizeof err->request_id);
    memcpy(err->client_request_id, svc.client_request_id, sizeof err->client_request_id);
    memcpy(err->target, svc.target, sizeof err->target);
  }
  if (rc != XIO_OK) return rc;
  p->leased = 1;
  p->lease.file = &p->base;
  p->lease.target = p->target;
  p->base.lease = &p->lease;
  xio__lease_keep(ctx, &p->lease, sent);
  return XIO_OK;
}

/* ------------------------------------------------------------- open ---- */

static void pb_free(pb_file *p) {
  xio_blob_target_free(p->target);
  xio__file_release(&p->base);
  xio_free(p);
}

/* 1 when the URL's query `q` (may be NULL) names a snapshot. */
static int names_snapshot(const char *q) {
  return xio_auth_query_value(q, "snapshot", NULL) != NULL;
}

/* XIO_OPEN_PINNED: keeps the ETag the open saw, which every later read must find. A
 * snapshot never changes: it needs no pin. */
static xio_err pin_version(pb_file *p, const char *query, const xio_blob_props *props,
                           xio_error *err) {
  if (names_snapshot(query)) return XIO_OK;
  if (!props->etag[0])
    return xio_error_set(err, XIO_EHTTP,
                         "the service sent no ETag for %s: its version cannot "
                         "be pinned",
                         p->base.path);
  snprintf(p->pin, sizeof p->pin, "%s", props->etag);
  return XIO_OK;
}

static xio_err pb_open(xio_ctx *ctx, const char *target, const xio_open_options *o, xio_file **out,
                       int *created, xio_error *err) {
  pb_file *p = xio_calloc(1, sizeof *p);
  if (!p) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  xio_err rc = xio__ctx_blob_target(ctx, target, &p->target, err);
  const char *q = rc == XIO_OK ? xio_blob_target_url(p->target)->query : NULL;
  if (names_snapshot(q) && !(o->flags & XIO_OPEN_READONLY))
    rc = xio_error_set(err, XIO_EINVAL, "a snapshot is read-only: open it with XIO_OPEN_READONLY");
  xio_blob_props props;
  const char *path = p->target ? xio_blob_target_safe_url(p->target) : target;
  if (rc == XIO_OK) rc = open_or_create(ctx, p->target, o, &props, created, err);
  if (rc == XIO_OK && strcmp(props.blob_type, "PageBlob") != 0)
    rc = xio_error_set(err, XIO_EINVAL, "%s is a %s, not a page blob", path, props.blob_type);
  if (rc == XIO_OK) {
    xio__blobmeta m;
    xio__blobmeta_from_props(&props, &m);
    p->has_size_meta = m.has_size;
    atomic_store(&p->blob_size, props.size);
    if (xio__file_init(&p->base, &xio__pageblob_backend, ctx, path, m.kind, o->flags, m.size))
      rc = xio_error_set(err, XIO_ENOMEM, "out of memory");
    p->base.incomplete = m.incomplete;
  }
  if (rc == XIO_OK && (o->flags & XIO_OPEN_PINNED)) rc = pin_version(p, q, &props, err);
  if (rc == XIO_OK && (o->flags & XIO_OPEN_LEASE))
    rc = take_lease(p, o->flags & XIO_OPEN_BREAK_LEASE, err);
  if (rc != XIO_OK) {
    if (err && !err->operation[0]) xio_error_set_operation(err, "OpenFile");
    pb_free(p);
    return rc;
  }
  *out = &p->base;
  return XIO_OK;
}

/* ------------------------------------------------------------ async ---- */

static xio_request_type sub_type(const xio__sub *s) {
  if (s->op == XIO__SUB_READ) return XIO_REQ_READ;
  return s->op == XIO__SUB_CLEAR || s->zeroing ? XIO_REQ_ZERO : XIO_REQ_WRITE;
}

/* The version flags of a sub (xio_int.h): a read hands back the blob's ETag, which
 * Get Blob answers with the data; a conditional write refused with 412
 * ConditionNotMet says the blob has changed since. */
static void note_version(xio__sub *s, const xio_blob_call *c) {
  xio_err rc = xio_blob_call_result(c, NULL);
  if ((s->flags & XIO__SUB_VERSION_OUT) && rc == XIO_OK) {
    const char *etag = xio_blob_call_header(c, "ETag");
    snprintf(s->version->tag, sizeof s->version->tag, "%s", etag ? etag : "");
  }
  if ((s->flags & XIO__SUB_IF_VERSION) && rc == XIO_ECONFLICT &&
      strcmp(xio_blob_call_service_code(c), "ConditionNotMet") == 0)
    s->version->changed = 1;
}

/* The failure of a pinned file whose blob changed since the open: XIO_ECHANGED, with the
 * service's status, code and request ids kept from `svc` (may be NULL). */
static xio_err changed(const pb_file *p, const char *operation, const xio_error *svc,
                       xio_error *err) {
  xio_error keep;
  xio_error_clear(&keep);
  if (svc) keep = *svc;
  xio_error_set(err, XIO_ECHANGED,
                "%s changed since it was opened (its ETag is no longer %s): reading on would "
                "mix two versions of it",
                p->base.path, p->pin);
  if (err && svc) {
    err->http_status = keep.http_status;
    err->retries = keep.retries;
    memcpy(err->service_code, keep.service_code, sizeof err->service_code);
    memcpy(err->request_id, keep.request_id, sizeof err->request_id);
    memcpy(err->client_request_id, keep.client_request_id, sizeof err->client_request_id);
  }
  xio_error_set_operation(err, operation);
  xio_error_set_target(err, p->base.path);
  return XIO_ECHANGED;
}

/* What a finished request of a sub means to the file layer (xio__req's judge): a read
 * of a pinned file refused by its If-Match found the blob at another version. */
static xio_err pb_judge(const xio_blob_call *c, const xio__req *r) {
  const pb_file *p = (const pb_file *)r->file;
  xio_err rc = xio_blob_call_result(c, NULL);
  if (p->pin[0] && r->type == XIO_REQ_READ && rc == XIO_ECONFLICT &&
      strcmp(xio_blob_call_service_code(c), "ConditionNotMet") == 0)
    return XIO_ECHANGED;
  return rc;
}

static void on_done(xio_blob_call *c, void *ud) {
  xio__sub *s = ud;
  pb_file *p = (pb_file *)s->file;
  xio_error detail;
  xio_err rc = xio_blob_call_result(c, &detail);
  if (pb_judge(c, &s->req) == XIO_ECHANGED) rc = changed(p, "ReadFile", &detail, &detail);
  note_version(s, c);
  if (rc == XIO_ELEASELOST) xio__lease_lose(&p->lease, XIO__LEASE_REFUSED);
  xio_blob_call_free(c);
  xio__sub_done(s, rc, &detail, rc == XIO_OK && s->op != XIO__SUB_CLEAR ? s->length : 0);
}

static xio_err lost_lease(pb_file *p, xio_error *err) {
  if (atomic_load(&p->lease.lost) == XIO__LEASE_EXPIRED)
    xio_error_set(err, XIO_ELEASELOST,
                  "the lease on %s ran out: it was not renewed within its %d s (the process "
                  "was paused or the service unreachable); nothing is written without it: "
                  "reopen the file",
                  p->base.path, xio__ctx_options(p->base.ctx)->lease_duration_s);
  else
    xio_error_set(err, XIO_ELEASELOST,
                  "the lease on %s was lost (broken, taken or expired); "
                  "nothing is written without it: reopen the file",
                  p->base.path);
  xio_error_set_operation(err, "WriteFile");
  xio_error_set_target(err, p->base.path);
  return XIO_ELEASELOST;
}

/*
 * What fences a write: the lease id alone, and no ETag or sequence-number condition.
 *
 * The lease fences every writer that can come after us. The service judges each
 * write by the blob's lease state when the write reaches it (Lease Blob, "outcomes
 * of use attempts"): a write carrying our id fails with 412 once our lease has
 * expired (LeaseLost), was broken (LeaseLost), released, or is held by another
 * client under its own id (LeaseIdMismatchWithBlobOperation); a writer without a
 * lease cannot write while ours is active. Azurite does the same. Lease ids are
 * fresh UUIDs per open, so no later holder has ours. Requests we queued or sent
 * before a pause are therefore refused when they arrive after a takeover or after
 * the lease ran out, however late that is.
 *
 * What the lease alone does not fence, and what closes it:
 * - An expired lease coming back: the service renews an expired lease whose blob
 *   nobody modified. Writes refused while it was expired, then later ones accepted,
 *   would leave holes behind acknowledged writes. Closed client-side: a lease the
 *   lease clock says ran out is never renewed and never trusted again (lease.c), and
 *   writes are refused before they are sent.
 * - Breaking with a break period: the holder may still write until the period ends
 *   (Breaking state). That is by the service's design and harmless: nobody else can
 *   write or acquire before it ends, so those writes are ordered before the next
 *   holder's. Takeovers here break with period 0.
 * - Files opened without XIO_OPEN_LEASE hold no lease: their writers are not
 *   fenced from each other, which is what a caller asks for by opening shared. The
 *   one exception is where shared writers would silently lose each other's bytes:
 *   the edge sectors of an unaligned write, read and written back under an ETag
 *   condition (below, and file.c's write_rmw_fenced).
 *
 * For exclusive files a condition would add nothing the lease does not give, at a cost: an ETag
 * condition (If-Match) changes with every write, so one holder's concurrent writes
 * would refuse each other; an epoch in the blob sequence number
 * (x-ms-if-sequence-number-eq, bumped by each exclusive open) costs one more request
 * per open, takes the sequence number from applications that use it, and covers only
 * Put Page: resizes and metadata changes take no sequence-number condition, so the
 * lease would still be their only fence. And a condition is judged in the same step
 * as the lease id (Azurite checks all three at once), so neither would close a gap
 * the lease leaves open.
 */
static xio_err build(pb_file *p, xio__sub *s, xio_blob_call **c, xio_error *err) {
  xio_blob_cond cond = {lease_id(p), NULL, NULL};
  /* The one ETag condition: an edge sector of an unaligned write to a file opened
   * without a lease, read under that ETag (file.c, write_rmw_fenced). */
  if (s->flags & XIO__SUB_IF_VERSION) cond.if_match = s->version->tag;
  uint64_t size = atomic_load(&p->blob_size);
  /* A pinned file reads only the version its open saw. */
  xio_blob_cond pinned = {NULL, p->pin, NULL};
  switch (s->op) {
  case XIO__SUB_READ:
    return xio_blob_call_read(p->target, s->offset, s->buf, s->length, p->pin[0] ? &pinned : NULL,
                              c, err);
  case XIO__SUB_WRITE:
    return xio_blob_call_put_page(p->target, s->offset, s->buf, s->length, size, &cond, c, err);
  default: return xio_blob_call_clear(p->target, s->offset, s->clear_length, size, &cond, c, err);
  }
}

static void pb_submit(xio_file *f, xio__sub *s) {
  pb_file *p = (pb_file *)f;
  xio_error e;
  xio_error_clear(&e);
  xio_blob_call *c = NULL;
  xio_err rc = XIO_OK;
  if (s->op != XIO__SUB_READ && lease_gone(p)) rc = lost_lease(p, &e);
  if (rc == XIO_OK) rc = build(p, s, &c, &e);
  if (rc != XIO_OK) {
    xio__sub_done(s, rc, &e, 0);
    return;
  }
  s->req =
      (xio__req){sub_type(s), f,   s->offset, s->op == XIO__SUB_CLEAR ? s->clear_length : s->length,
                 pb_judge,    NULL};
  xio__submit(f->ctx, c, &s->req, on_done, s);
}

/* ------------------------------------------------------------- sync ---- */

static xio_err set_meta(pb_file *p, uint64_t logical, xio_error *err) {
  xio_blob_meta meta[XIO__BLOBMETA_MAX];
  int n = xio__blobmeta_make(p->base.kind, logical, p->base.incomplete, meta);
  xio_blob_cond cond = {lease_id(p), NULL, NULL};
  xio__req r = {XIO_REQ_SET_SIZE, &p->base, logical, 0, NULL, NULL};
  xio_blob_call *c = NULL;
  xio_err rc = xio_blob_call_set_metadata(p->target, meta, n, &cond, &c, err);
  if (rc == XIO_OK) rc = xio__send(p->base.ctx, c, &r, err);
  xio_blob_call_free(c);
  if (rc == XIO_OK) p->has_size_meta = logical % 512 != 0;
  return rc;
}

static xio_err pb_resize(xio_file *f, uint64_t size, xio_error *err) {
  pb_file *p = (pb_file *)f;
  if (lease_gone(p)) return lost_lease(p, err);
  xio_err rc = XIO_OK;
  /* Checked before rounding up to pages, which would wrap a size near 2^64 to 0. */
  if (size > XIO_BLOB_MAX_SIZE)
    return xio_error_set(err, XIO_ELIMIT,
                         "ResizeBlob: size %" PRIu64 " exceeds the 8 TiB page blob limit", size);
  uint64_t phys = pages(size);
  if (phys != atomic_load(&p->blob_size)) {
    xio_blob_cond cond = {lease_id(p), NULL, NULL};
    xio__req r = {XIO_REQ_SET_SIZE, f, 0, phys, NULL, NULL};
    xio_blob_call *c = NULL;
    rc = xio_blob_call_resize(p->target, phys, &cond, &c, err);
    if (rc == XIO_OK) rc = xio__send(f->ctx, c, &r, err);
    xio_blob_call_free(c);
    if (rc == XIO_OK) atomic_store(&p->blob_size, phys);
  }
  if (rc == XIO_OK && (size % 512 || p->has_size_meta)) rc = set_meta(p, size, err);
  if (rc == XIO_ELEASELOST) xio__lease_lose(&p->lease, XIO__LEASE_REFUSED);
  return rc;
}

/* The kind and the incomplete mark live in the metadata beside the logical size: all
 * of it is written again from the file's fields (set_kind and set_incomplete). */
static xio_err pb_record_meta(xio_file *f, xio_error *err) {
  pb_file *p = (pb_file *)f;
  if (lease_gone(p)) return lost_lease(p, err);
  xio_err rc = set_meta(p, atomic_load(&f->size), err);
  if (rc == XIO_ELEASELOST) xio__lease_lose(&p->lease, XIO__LEASE_REFUSED);
  return rc;
}

static xio_err pb_sync(xio_file *f, xio_error *err) {
  (void)f, (void)err;
  return XIO_OK; /* a completed Put Page is durable */
}

static xio_err pb_close(xio_file *f, xio_error *err) {
  pb_file *p = (pb_file *)f;
  xio_err rc = XIO_OK;
  if (p->leased) {
    xio__lease_forget(f->ctx, &p->lease);
    if (xio__lease_valid(&p->lease)) {
      xio_blob_lease_args a = {XIO_BLOB_LEASE_RELEASE, p->lease.id, NULL, 0, 0};
      rc = lease_call(p, &a, NULL, err);
    }
  }
  pb_free(p);
  return rc;
}

static xio_err pb_remove(xio_ctx *ctx, const char *target, unsigned how, xio_error *err) {
  int with_snapshots = (how & XIO__REMOVE_SNAPSHOTS) != 0;
  /* "": any 404 is expected, a missing container as much as a missing blob. */
  xio__req r = {XIO_REQ_DELETE, NULL, 0, 0, NULL, how & XIO__REMOVE_IF_EXISTS ? "" : NULL};
  xio_blob_target *t = NULL;
  xio_err rc = xio__ctx_blob_target(ctx, target, &t, err);
  xio_blob_call *c = NULL;
  if (rc == XIO_OK) rc = xio_blob_call_delete(t, with_snapshots, NULL, &c, err);
  if (rc == XIO_OK) rc = xio__send(ctx, c, &r, err);
  xio_blob_call_free(c);
  xio_blob_target_free(t);
  return rc;
}

/* Sends one Get Page Ranges call of xio_blob_get_ranges_with, on the file. A pinned
 * file checks that the ranges are of its version: the answer carries the blob's ETag. */
static xio_err send_ranges_call(void *ud, xio_blob_call *c, xio_error *err) {
  pb_file *p = ud;
  xio__req r = {XIO_REQ_RANGES, &p->base, 0, 0, NULL, NULL};
  xio_err rc = xio__send(p->base.ctx, c, &r, err);
  const char *etag = xio_blob_call_header(c, "ETag");
  if (rc != XIO_OK || !p->pin[0]) return rc;
  if (!etag)
    return xio_error_set(err, XIO_EHTTP,
                         "the service sent no ETag with the page ranges of %s: their version "
                         "cannot be checked against the pinned one",
                         p->base.path);
  return strcmp(etag, p->pin) == 0 ? XIO_OK : changed(p, "GetPageRanges", NULL, err);
}

static xio_err pb_ranges(xio_file *f, xio_ranges *out, xio_error *err) {
  pb_file *p = (pb_file *)f;
  uint64_t size = atomic_load(&f->size);
  if (size == 0) return XIO_OK;
  xio_ranges all = {NULL, 0, 0};
  xio_err rc =
      xio_blob_get_ranges_with(send_ranges_call, p, p->target, 0, pages(size), 0, &all, err);
  /* The last page may reach past an unaligned logical end: cut it there. */
  for (size_t i = 0; rc == XIO_OK && i < all.n && all.v[i].start < size; i++) {
    uint64_t end = all.v[i].end < size - 1 ? all.v[i].end : size - 1;
    if (xio_ranges_add(out, all.v[i].start, end) != XIO_OK)
      rc = xio_error_set(err, XIO_ENOMEM, "out of memory listing ranges");
  }
  xio_ranges_clear(&all);
  return rc;
}

/* Appends the ranges of `all` that start inside the logical size, cut there. */
static xio_err cut_to_size(const xio_ranges *all, uint64_t size, xio_ranges *out, xio_error *err) {
  for (size_t i = 0; out && i < all->n && all->v[i].start < size; i++) {
    uint64_t end = all->v[i].end < size - 1 ? all->v[i].end : size - 1;
    if (xio_ranges_add(out, all->v[i].start, end) != XIO_OK)
      return xio_error_set(err, XIO_ENOMEM, "out of memory listing ranges");
  }
  return XIO_OK;
}

static xio_err pb_ranges_diff(xio_file *f, const char *since, xio_ranges *written,
                              xio_ranges *cleared, xio_error *err) {
  pb_file *p = (pb_file *)f;
  uint64_t size = atomic_load(&f->size);
  if (size == 0) return XIO_OK;
  xio_ranges w = {NULL, 0, 0}, c = {NULL, 0, 0};
  xio_err rc = xio_blob_get_ranges_diff_with(send_ranges_call, p, p->target, since, 0, pages(size),
                                             0, &w, cleared ? &c : NULL, err);
  if (rc == XIO_OK) rc = cut_to_size(&w, size, written, err);
  if (rc == XIO_OK && cleared) rc = cut_to_size(&c, size, cleared, err);
  xio_ranges_clear(&w);
  xio_ranges_clear(&c);
  return rc;
}

static xio_err pb_snapshot(xio_file *f, char *id, size_t size, xio_error *err) {
  pb_file *p = (pb_file *)f;
  if (lease_gone(p)) return lost_lease(p, err);
  xio_blob_cond cond = {lease_id(p), NULL, NULL};
  xio__req r = {XIO_REQ_SNAPSHOT, f, 0, 0, NULL, NULL};
  xio_blob_call *c = NULL;
  char snap[64];
  xio_err rc = xio_blob_call_snapshot(p->target, &cond, &c, err);
  if (rc == XIO_OK) rc = xio__send(f->ctx, c, &r, err);
  if (rc == XIO_OK) rc = xio_blob_call_snapshot_id(c, snap, err);
  xio_blob_call_free(c);
  if (rc == XIO_OK && (size_t)snprintf(id, size, "%s", snap) >= size)
    rc = xio_error_set(err, XIO_EINVAL, "snapshot id buffer of %zu bytes is too small", size);
  return rc;
}

/* --------------------------------------------------- properties, leases ---- */

static xio_err pb_stat(xio_file *f, xio_file_info *out, xio_error *err) {
  pb_file *p = (pb_file *)f;
  xio__req r = {XIO_REQ_GET_SIZE, f, 0, 0, NULL, NULL};
  xio_blob_call *c = NULL;
  xio_blob_props props;
  xio_err rc = xio_blob_call_get_properties(p->target, NULL, &c, err);
  if (rc == XIO_OK) rc = xio__send(f->ctx, c, &r, err);
  if (rc == XIO_OK) rc = xio_blob_call_props(c, &props, err);
  xio_blob_call_free(c);
  if (rc != XIO_OK) return rc;
  xio__blobmeta m;
  xio__blobmeta_from_props(&props, &m);
  out->stored_size = props.size;
  out->allocated = XIO_UNKNOWN_SIZE;
  out->incomplete = m.incomplete;
  out->sequence_number = props.sequence_number;
#define COPY(field) snprintf(out->field, sizeof out->field, "%s", props.field)
  COPY(blob_type);
  COPY(lease_state);
  COPY(lease_status);
  COPY(lease_duration);
  COPY(etag);
  COPY(last_modified);
  snprintf(out->tier, sizeof out->tier, "%s", props.access_tier);
#undef COPY
  return XIO_OK;
}

static xio_blob_lease_action blob_action(xio_lease_action a) {
  switch (a) {
  case XIO_LEASE_ACQUIRE: return XIO_BLOB_LEASE_ACQUIRE;
  case XIO_LEASE_RENEW: return XIO_BLOB_LEASE_RENEW;
  case XIO_LEASE_RELEASE: return XIO_BLOB_LEASE_RELEASE;
  default: return XIO_BLOB_LEASE_BREAK;
  }
}

/* Reads what the lease call answered into `out`. */
static xio_err lease_result(const xio_blob_call *c, xio_lease_action a, xio_lease_result *out,
                            xio_error *err) {
  const char *left = xio_blob_call_header(c, "x-ms-lease-time");
  if (a == XIO_LEASE_BREAK && left) out->remaining_s = (int)strtol(left, NULL, 10);
  return a == XIO_LEASE_ACQUIRE ? xio_blob_call_lease_id(c, out->id, err) : XIO_OK;
}

static xio_err pb_lease(xio_ctx *ctx, const char *target, const xio_lease_request *req,
                        xio_lease_result *out, xio_error *err) {
  char proposed[37];
  xio_blob_lease_args a = {blob_action(req->action), NULL, NULL, 0, 0};
  if (req->action == XIO_LEASE_ACQUIRE) {
    xio_err rc = req->lease_id ? XIO_OK : xio_blob_new_uuid(proposed, err);
    if (rc != XIO_OK) return rc;
    a.proposed_id = req->lease_id ? req->lease_id : proposed;
    a.duration_s = req->duration_s;
  } else if (req->action == XIO_LEASE_BREAK) {
    a.break_period_s = req->break_period_s;
  } else {
    a.lease_id = req->lease_id;
  }
  xio__req r = {XIO_REQ_LEASE, NULL, 0, 0, NULL, NULL};
  xio_blob_target *t = NULL;
  xio_blob_call *c = NULL;
  xio_err rc = xio__ctx_blob_target(ctx, target, &t, err);
  if (rc == XIO_OK) rc = xio_blob_call_lease(t, &a, &c, err);
  if (rc == XIO_OK) rc = xio__send(ctx, c, &r, err);
  if (rc == XIO_OK) rc = lease_result(c, req->action, out, err);
  xio_blob_call_free(c);
  xio_blob_target_free(t);
  return rc;
}

const xio_backend xio__pageblob_backend = {
    .version = 1,
    .name = "pageblob",
    .alignment = XIO_BLOB_PAGE_SIZE,
    .max_request = XIO_BLOB_MAX_PUT_PAGE,
    .max_read = PB_MAX_READ,
    .open = pb_open,
    .submit = pb_submit,
    .resize = pb_resize,
    .sync = pb_sync,
    .close = pb_close,
    .remove = pb_remove,
    .ranges = pb_ranges,
    .snapshot = pb_snapshot,
    .stat = pb_stat,
    .lease = pb_lease,
    .set_kind = pb_record_meta,
    .set_incomplete = pb_record_meta,
    .ranges_diff = pb_ranges_diff,
    .request_bytes = PB_REQUEST_BYTES,
    .max_checked_read = XIO_BLOB_MAX_CHECKED_READ,
};
