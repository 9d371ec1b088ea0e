/*
 * xio/blob.h - the page-blob REST client.
 *
 * Three pieces:
 *  - an engine (xio_blob_engine): one libcurl multi handle with its pool of
 *    keep-alive connections, driven by one I/O thread; it signs every try, retries
 *    what can be retried, and reports each finished call once;
 *  - targets (xio_blob_target): an addressed container or blob with its credential
 *    and its log-safe URL;
 *  - calls (xio_blob_call): one REST operation on a target, built by the
 *    xio_blob_call_* functions, sent asynchronously (xio_blob_submit, completion
 *    callback on the I/O thread) or synchronously (xio_blob_send).
 * On top sit synchronous one-line operations (xio_blob_create, xio_blob_read, ...)
 * used by tools and tests.
 *
 * Limits are enforced here before anything is sent: offsets and lengths of page
 * operations are multiples of 512, a Put Page carries at most 4 MiB, a blob is at
 * most 8 TiB, and a page range lies inside the blob when its size is known.
 *
 * Threads: every function may be called from any thread, except that synchronous
 * functions must not be called from a completion callback (they would wait for the
 * thread that runs it). Targets are immutable after creation and may be shared.
 */
#ifndef XIO_BLOB_H
#define XIO_BLOB_H

#include <stddef.h>
#include <stdint.h>

#include <xio/auth.h>
#include <xio/error.h>

#ifdef __cplusplus
extern "C" {
#endif

#define XIO_BLOB_PAGE_SIZE    512u
#define XIO_BLOB_MAX_PUT_PAGE (4u * 1024u * 1024u)
#define XIO_BLOB_MAX_SIZE     (8ull * 1024u * 1024u * 1024u * 1024u)
/* Largest range for which the service returns a transactional checksum on read. */
#define XIO_BLOB_MAX_CHECKED_READ (4u * 1024u * 1024u)

/* ------------------------------------------------------------ checksums ---- */

/** CRC-64/NVME (reflected poly 0x9A6C9329AC4BC9B5, init and xorout all ones) of `n`
 *  bytes, continuing from `crc` (start with 0). */
uint64_t xio_blob_crc64(uint64_t crc, const void *data, size_t n);

/** x-ms-content-crc64 header value of a body: base64 of the little-endian CRC. `out`
 *  holds 13 bytes. Returns `out`. */
char *xio_blob_crc64_base64(const void *data, size_t n, char out[13]);

/** Content-MD5 header value of a body: base64 of its MD5. `out` holds 25 bytes. */
char *xio_blob_md5_base64(const void *data, size_t n, char out[25]);

/* ---------------------------------------------------------------- engine ---- */

typedef enum xio_blob_checksum {
  XIO_BLOB_CHECKSUM_CRC64 = 0, /* x-ms-content-crc64 on every Put Page update (default) */
  XIO_BLOB_CHECKSUM_MD5,       /* Content-MD5 instead */
  XIO_BLOB_CHECKSUM_NONE
} xio_blob_checksum;

/** How calls are retried. Delays grow as base * 2^try with jitter x0.8..1.3, capped. */
typedef struct xio_blob_retry_policy {
  int max_retries;    /* retries after the first try (default 3) */
  int base_delay_ms;  /* default 800 */
  int max_delay_ms;   /* default 60000 */
  int try_timeout_ms; /* per try, from send to last byte; 0: none (default 120000) */
  int deadline_ms;    /* whole call including waits; 0: none (default 0) */
} xio_blob_retry_policy;

/** One finished try, for tracing and fault studies. Borrowed for the callback. */
typedef struct xio_blob_try_info {
  const char *operation; /* "PutPage" */
  const char *safe_url;
  int attempt;                 /* 0 for the first try */
  int http_status;             /* 0 when no response */
  const char *transport_error; /* libcurl's text, or NULL */
  int will_retry;
  int delay_ms; /* before the next try, when will_retry */
} xio_blob_try_info;

typedef struct xio_blob_engine_options {
  int max_in_flight;      /* requests on the wire at once (default 32) */
  int connect_timeout_ms; /* default 10000 */
  xio_blob_retry_policy retry;
  xio_blob_checksum checksum; /* default CRC64 */
  const char *ca_file;        /* extra CA bundle (PEM) to trust besides the system
                                 store, or NULL; read at start and at each TLS
                                 connection */
  int allow_insecure_remote;  /* allow http:// to non-loopback hosts (default 0) */
  xio_auth_clock clock;       /* for x-ms-date; zeroed: system clock */
  void (*on_try)(const xio_blob_try_info *info, void *ud); /* may be NULL; I/O thread */
  void *on_try_ud;
} xio_blob_engine_options;

typedef struct xio_blob_engine xio_blob_engine;

/** Default options; cannot fail. */
xio_blob_engine_options xio_blob_engine_options_default(void);

/**
 * Starts an engine and its I/O thread. `opts` may be NULL (defaults); it is copied
 * (ca_file too). Errors: XIO_EINVAL (a bad option, named), XIO_EIO (ca_file cannot
 * be opened), XIO_EPARSE (ca_file holds no PEM certificate), XIO_ENOMEM,
 * XIO_ETRANSPORT (libcurl could not be set up).
 */
xio_err xio_blob_engine_new(const xio_blob_engine_options *opts, xio_blob_engine **out,
                            xio_error *err);

/** Stops the engine: calls not yet finished complete with XIO_ECANCELED, then the
 *  I/O thread exits and everything is freed. `e` may be NULL. */
void xio_blob_engine_free(xio_blob_engine *e);

/** 1 when called on the engine's I/O thread (inside a completion callback). */
int xio_blob_engine_on_io_thread(const xio_blob_engine *e);

/** The options the engine runs with (read-only). */
const xio_blob_engine_options *xio_blob_engine_options_get(const xio_blob_engine *e);

/* ---------------------------------------------------------------- targets ---- */

typedef struct xio_blob_target xio_blob_target;

/**
 * Makes a target from a container or blob URL (see xio_auth_url_parse). The
 * credential is `cred` when given (copied); otherwise a SAS in the URL's query;
 * otherwise anonymous. A SAS in the URL is parsed and checked for expiry at each
 * call. Errors: XIO_EPARSE (URL or SAS), XIO_EINSECURE is not raised here (the
 * engine refuses at send time), XIO_ENOMEM.
 */
xio_err xio_blob_target_new(const char *url, const xio_auth_cred *cred, xio_blob_target **out,
                            xio_error *err);

/** A target for blob `name` in the container (or account+container) of `t`,
 *  sharing its credential. Errors: XIO_EINVAL (t has no container), XIO_ENOMEM. */
xio_err xio_blob_target_child(const xio_blob_target *t, const char *name, xio_blob_target **out,
                              xio_error *err);

/** Frees `t` (may be NULL). Calls built on `t` must have finished first. */
void xio_blob_target_free(xio_blob_target *t);

/** Log-safe URL of the target: no query string, never a secret. */
const char *xio_blob_target_safe_url(const xio_blob_target *t);

/** Parsed parts of the target's URL (account, container, blob...). */
const xio_auth_url *xio_blob_target_url(const xio_blob_target *t);

/** The target's credential kind. */
xio_auth_cred_kind xio_blob_target_cred_kind(const xio_blob_target *t);

/* ------------------------------------------------------- call arguments ---- */

/** Conditions a call carries. All may be NULL. Borrowed until the call is built. */
typedef struct xio_blob_cond {
  const char *lease_id;      /* x-ms-lease-id */
  const char *if_match;      /* ETag */
  const char *if_none_match; /* "*" = only if absent */
} xio_blob_cond;

#define XIO_BLOB_MAX_META 16

typedef struct xio_blob_meta {
  char name[64]; /* a C identifier, as Azure requires */
  char value[256];
} xio_blob_meta;

/** Blob properties from Get Blob Properties (or a create / resize response). */
typedef struct xio_blob_props {
  uint64_t size; /* Content-Length of the blob */
  char etag[80];
  char last_modified[40];
  char blob_type[16];      /* "PageBlob" */
  char lease_state[16];    /* available, leased, expired, breaking, broken */
  char lease_status[16];   /* locked, unlocked */
  char lease_duration[16]; /* infinite, fixed, or "" */
  int64_t sequence_number;
  int nmeta;
  xio_blob_meta meta[XIO_BLOB_MAX_META];
} xio_blob_props;

/** Looks up metadata `name` (case-insensitive) in `p`; NULL when absent. */
const char *xio_blob_props_meta(const xio_blob_props *p, const char *name);

/** One allocated (or, in diffs, cleared) range: bytes [start, end], inclusive. */
typedef struct xio_blob_range {
  uint64_t start;
  uint64_t end;
} xio_blob_range;

/** A list of page ranges, sorted and merged where adjacent. */
typedef struct xio_blob_ranges {
  xio_blob_range *v; /* malloc'd */
  size_t n;
  size_t cap;
} xio_blob_ranges;

/** Frees what `r` owns and zeroes it; `r` may be NULL. */
void xio_blob_ranges_clear(xio_blob_ranges *r);

/**
 * Adds [start, end] (inclusive) to `r`, keeping it sorted and merging overlapping or
 * adjacent ranges (end + 1 == next start). Fast when ranges arrive in order.
 * Errors: XIO_ENOMEM, XIO_EINVAL (start > end).
 */
xio_err xio_blob_ranges_add(xio_blob_ranges *r, uint64_t start, uint64_t end);

/** Total bytes covered by `r`. */
uint64_t xio_blob_ranges_bytes(const xio_blob_ranges *r);

/** One blob of a listing. */
typedef struct xio_blob_item {
  char *name; /* malloc'd */
  uint64_t size;
  char blob_type[16];
  char lease_state[16];
  char last_modified[40];
} xio_blob_item;

/** One page of a blob listing. */
typedef struct xio_blob_list {
  xio_blob_item *v; /* malloc'd */
  size_t n;
  char *next_marker; /* malloc'd, NULL when this was the last page */
} xio_blob_list;

/** Frees what `l` owns and zeroes it; `l` may be NULL. */
void xio_blob_list_clear(xio_blob_list *l);

typedef enum xio_blob_lease_action {
  XIO_BLOB_LEASE_ACQUIRE,
  XIO_BLOB_LEASE_RENEW,
  XIO_BLOB_LEASE_CHANGE,
  XIO_BLOB_LEASE_RELEASE,
  XIO_BLOB_LEASE_BREAK
} xio_blob_lease_action;

typedef struct xio_blob_lease_args {
  xio_blob_lease_action action;
  const char *lease_id;    /* renew, change, release: the current id */
  const char *proposed_id; /* acquire (optional; makes it retryable), change (required) */
  int duration_s;          /* acquire: -1 infinite or 15..60 */
  int break_period_s;      /* break: 0..60, or -1 for the service default */
} xio_blob_lease_args;

/* ---------------------------------------------------------------- calls ---- */

typedef struct xio_blob_call xio_blob_call;
typedef void (*xio_blob_done_fn)(xio_blob_call *call, void *ud);

/* Builders. Each checks its arguments and limits, and returns a call not yet sent,
 * owned by the caller (xio_blob_call_free). Buffers are borrowed, not copied: they
 * must stay valid until the call completes. Errors: XIO_EINVAL, XIO_EALIGN,
 * XIO_ELIMIT, XIO_ERANGE (as each states), XIO_ENOMEM. */

/** Create Container (PUT ?restype=container). */
xio_err xio_blob_call_create_container(const xio_blob_target *container, xio_blob_call **out,
                                       xio_error *err);

/** List Blobs, one page (prefix, marker may be NULL; maxresults 0: service default,
 *  else 1..5000). */
xio_err xio_blob_call_list(const xio_blob_target *container, const char *prefix, const char *marker,
                           int maxresults, xio_blob_call **out, xio_error *err);

/** Create a page blob of `size` bytes (multiple of 512, <= 8 TiB), with optional
 *  metadata; cond->if_none_match = "*" makes it create-only. */
xio_err xio_blob_call_create(const xio_blob_target *blob, uint64_t size, const xio_blob_meta *meta,
                             int nmeta, const xio_blob_cond *cond, xio_blob_call **out,
                             xio_error *err);

/** Get Blob Properties (HEAD). */
xio_err xio_blob_call_get_properties(const xio_blob_target *blob, const xio_blob_cond *cond,
                                     xio_blob_call **out, xio_error *err);

/** Resize (Set Blob Properties with x-ms-blob-content-length). */
xio_err xio_blob_call_resize(const xio_blob_target *blob, uint64_t size, const xio_blob_cond *cond,
                             xio_blob_call **out, xio_error *err);

/** Put Page update of `len` bytes at `offset` from `data` (borrowed), with the
 *  engine's transactional checksum. `blob_size` (0: unknown) lets the client refuse
 *  ranges past the end. */
xio_err xio_blob_call_put_page(const xio_blob_target *blob, uint64_t offset, const void *data,
                               size_t len, uint64_t blob_size, const xio_blob_cond *cond,
                               xio_blob_call **out, xio_error *err);

/** Put Page clear of [offset, offset+len): any length, one request. */
xio_err xio_blob_call_clear(const xio_blob_target *blob, uint64_t offset, uint64_t len,
                            uint64_t blob_size, const xio_blob_cond *cond, xio_blob_call **out,
                            xio_error *err);

/** Get Blob of [offset, offset+len) straight into `buf` (borrowed). Any alignment.
 *  A response shorter than asked is a torn response and is retried. */
xio_err xio_blob_call_read(const xio_blob_target *blob, uint64_t offset, void *buf, size_t len,
                           const xio_blob_cond *cond, xio_blob_call **out, xio_error *err);

/** Get Page Ranges of [offset, offset+len) (len 0: whole blob), one page from `marker`
 *  (may be NULL). */
xio_err xio_blob_call_page_ranges(const xio_blob_target *blob, uint64_t offset, uint64_t len,
                                  const char *marker, xio_blob_call **out, xio_error *err);

/** Delete Blob; `include_snapshots` also deletes its snapshots. */
xio_err xio_blob_call_delete(const xio_blob_target *blob, int include_snapshots,
                             const xio_blob_cond *cond, xio_blob_call **out, xio_error *err);

/** Lease Blob. */
xio_err xio_blob_call_lease(const xio_blob_target *blob, const xio_blob_lease_args *args,
                            xio_blob_call **out, xio_error *err);

/** Snapshot Blob. */
xio_err xio_blob_call_snapshot(const xio_blob_target *blob, const xio_blob_cond *cond,
                               xio_blob_call **out, xio_error *err);

/** Set Blob Metadata (replaces all metadata). */
xio_err xio_blob_call_set_metadata(const xio_blob_target *blob, const xio_blob_meta *meta,
                                   int nmeta, const xio_blob_cond *cond, xio_blob_call **out,
                                   xio_error *err);

/** Frees a call that is not in flight. `c` may be NULL. */
void xio_blob_call_free(xio_blob_call *c);

/* Sending. */

/** Sends `c` asynchronously; `done` runs once on the engine's I/O thread when it has
 *  finished (after retries). `c` stays owned by the caller, who must not touch it
 *  until `done` runs. */
void xio_blob_submit(xio_blob_engine *e, xio_blob_call *c, xio_blob_done_fn done, void *ud);

/** Sends `c` and waits for it. Returns its result (see xio_blob_call_result). */
xio_err xio_blob_send(xio_blob_engine *e, xio_blob_call *c, xio_error *err);

/* Results of a finished call. */

/** The call's result code, and its detail in `err` (may be NULL). */
xio_err xio_blob_call_result(const xio_blob_call *c, xio_error *err);

/** HTTP status of the last try (0: none). */
int xio_blob_call_status(const xio_blob_call *c);

/** Retries made. */
int xio_blob_call_retries(const xio_blob_call *c);

/** Wall time from submit to completion, microseconds. */
int64_t xio_blob_call_duration_us(const xio_blob_call *c);

/** A response header of the last try (case-insensitive name), or NULL. */
const char *xio_blob_call_header(const xio_blob_call *c, const char *name);

/** The service error code of a failed call ("LeaseIdMissing"), or "" (never NULL). */
const char *xio_blob_call_service_code(const xio_blob_call *c);

/** x-ms-request-id / x-ms-client-request-id (never NULL; "" when unknown). */
const char *xio_blob_call_request_id(const xio_blob_call *c);
const char *xio_blob_call_client_request_id(const xio_blob_call *c);

/** The call's operation name ("PutPage") and log-safe URL. */
const char *xio_blob_call_operation(const xio_blob_call *c);
const char *xio_blob_call_safe_url(const xio_blob_call *c);

/** Properties from a finished get_properties / create / resize call. Errors:
 *  XIO_EINVAL (the call did not succeed), XIO_EHTTP (a size that is not a number). */
xio_err xio_blob_call_props(const xio_blob_call *c, xio_blob_props *out, xio_error *err);

/** Ranges of a finished page_ranges call, appended to `out` (merged), and the
 *  continuation marker (malloc'd into *next_marker, NULL when done). */
xio_err xio_blob_call_ranges(const xio_blob_call *c, xio_blob_ranges *out, char **next_marker,
                             xio_error *err);

/** The page of a finished list call. */
xio_err xio_blob_call_list_result(const xio_blob_call *c, xio_blob_list *out, xio_error *err);

/** Lease id returned by acquire/change (copied into `out`, 64 bytes). */
xio_err xio_blob_call_lease_id(const xio_blob_call *c, char out[64], xio_error *err);

/** Snapshot timestamp returned by a snapshot call (into `out`, 64 bytes). */
xio_err xio_blob_call_snapshot_id(const xio_blob_call *c, char out[64], xio_error *err);

/* --------------------------------------------- synchronous operations ---- */
/* Each builds a call, sends it, frees it. Errors: those of the builder and of the
 * service, mapped as xio_blob_call_result does, with the detail in `err`. */

/** Creates the container; `if_missing` makes an existing one a success. */
xio_err xio_blob_create_container(xio_blob_engine *e, const xio_blob_target *container,
                                  int if_missing, xio_error *err);

/** Lists one page of blobs into `out` (xio_blob_list_clear). */
xio_err xio_blob_list_page(xio_blob_engine *e, const xio_blob_target *container, const char *prefix,
                           const char *marker, int maxresults, xio_blob_list *out, xio_error *err);

xio_err xio_blob_create(xio_blob_engine *e, const xio_blob_target *blob, uint64_t size,
                        const xio_blob_meta *meta, int nmeta, const xio_blob_cond *cond,
                        xio_error *err);

xio_err xio_blob_get_properties(xio_blob_engine *e, const xio_blob_target *blob,
                                const xio_blob_cond *cond, xio_blob_props *out, xio_error *err);

xio_err xio_blob_resize(xio_blob_engine *e, const xio_blob_target *blob, uint64_t size,
                        const xio_blob_cond *cond, xio_error *err);

xio_err xio_blob_put_page(xio_blob_engine *e, const xio_blob_target *blob, uint64_t offset,
                          const void *data, size_t len, const xio_blob_cond *cond, xio_error *err);

xio_err xio_blob_clear(xio_blob_engine *e, const xio_blob_target *blob, uint64_t offset,
                       uint64_t len, const xio_blob_cond *cond, xio_error *err);

xio_err xio_blob_read(xio_blob_engine *e, const xio_blob_target *blob, uint64_t offset, void *buf,
                      size_t len, const xio_blob_cond *cond, xio_error *err);

/**
 * All page ranges of [offset, offset+len) (len 0: to the end of the blob), following
 * NextMarker, and querying in segments of `segment` bytes (0: 128 GiB) so that a
 * fragmented large blob never needs one huge listing. Appends merged ranges to `out`.
 */
xio_err xio_blob_get_ranges(xio_blob_engine *e, const xio_blob_target *blob, uint64_t offset,
                            uint64_t len, uint64_t segment, xio_blob_ranges *out, xio_error *err);

/** Sends one call synchronously and returns its result (xio_blob_send's shape), so
 *  that a caller can route the calls of a multi-call operation its own way. */
typedef xio_err (*xio_blob_send_fn)(void *ud, xio_blob_call *c, xio_error *err);

/** xio_blob_get_ranges with every call sent by `send(ud, call, err)`: the file layer
 *  uses it to trace each Get Page Ranges request. */
xio_err xio_blob_get_ranges_with(xio_blob_send_fn send, void *ud, const xio_blob_target *blob,
                                 uint64_t offset, uint64_t len, uint64_t segment,
                                 xio_blob_ranges *out, xio_error *err);

xio_err xio_blob_delete(xio_blob_engine *e, const xio_blob_target *blob, int include_snapshots,
                        const xio_blob_cond *cond, xio_error *err);

/** Runs a lease action; for acquire and change, the lease id lands in `lease_id_out`
 *  (64 bytes, may be NULL otherwise). */
xio_err xio_blob_lease(xio_blob_engine *e, const xio_blob_target *blob,
                       const xio_blob_lease_args *args, char *lease_id_out, xio_error *err);

xio_err xio_blob_snapshot(xio_blob_engine *e, const xio_blob_target *blob, char snapshot_out[64],
                          xio_error *err);

xio_err xio_blob_set_metadata(xio_blob_engine *e, const xio_blob_target *blob,
                              const xio_blob_meta *meta, int nmeta, const xio_blob_cond *cond,
                              xio_error *err);

/** Generates a random lease id (UUID v4) into `out` (37 bytes). */
void xio_blob_new_lease_id(char out[37]);

#ifdef __cplusplus
}
#endif
#endif /* XIO_BLOB_H */
