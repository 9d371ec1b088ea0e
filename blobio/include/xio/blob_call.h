/*
 * xio/blob_call.h - calls of the page-blob client (libxio_blob): one REST operation
 * on a target, built by an xio_blob_call_* builder, sent asynchronously
 * (xio_blob_submit, completion callback on the engine's I/O thread) or synchronously
 * (xio_blob_send), and read back through the result accessors. Also the arguments
 * and results calls carry (conditions, metadata, properties, page ranges, listings,
 * lease actions) and the UUIDs a client makes up for lease and request ids. One call
 * is no storage operation: the request for an Entra ID token from a managed
 * identity endpoint, sent through the same engine as every other.
 *
 * Limits are enforced by the builders before anything is sent: offsets and lengths
 * of page operations are multiples of 512, a Put Page carries at most 4 MiB, a blob
 * is at most 8 TiB, and a page range lies inside the blob when its size is known.
 *
 * Threads: every function may be called from any thread, except that xio_blob_send
 * must not be called from a completion callback (it would wait for the thread that
 * runs it).
 */
#ifndef XIO_BLOB_CALL_H
#define XIO_BLOB_CALL_H

#include <stddef.h>
#include <stdint.h>

#include <time.h>

#include <xio/blob_engine.h>
#include <xio/entra.h>
#include <xio/blob_target.h>
#include <xio/error.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Service limits: the page size, the largest Put Page, the largest page blob. */
#define XIO_BLOB_PAGE_SIZE    512u
#define XIO_BLOB_MAX_PUT_PAGE (4u * 1024u * 1024u)
#define XIO_BLOB_MAX_SIZE     (8ull * 1024u * 1024u * 1024u * 1024u)
/* Largest range for which the service returns a transactional checksum on read. */
#define XIO_BLOB_MAX_CHECKED_READ (4u * 1024u * 1024u)
/* Lease Blob's limits: an acquired lease lasts 15..60 s (or -1: until released), a
 * break lets the lease run on 0..60 s. */
#define XIO_BLOB_LEASE_MIN_S 15
#define XIO_BLOB_LEASE_MAX_S 60
#define XIO_BLOB_BREAK_MAX_S 60

/** 1 when Lease Blob takes `duration_s` as an acquire's duration:
 *  XIO_BLOB_LEASE_MIN_S..XIO_BLOB_LEASE_MAX_S, or -1 (infinite) when `infinite_ok`;
 *  else 0. */
int xio_blob_lease_duration_ok(int duration_s, int infinite_ok);

/** 1 when Lease Blob takes `period_s` as a break period: 0..XIO_BLOB_BREAK_MAX_S, or
 *  -1 (the service's default) when `default_ok`; else 0. */
int xio_blob_break_period_ok(int period_s, int default_ok);

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
  char access_tier[16]; /* x-ms-access-tier (premium page blobs: P10..P80), or "" */
} xio_blob_props;

/** Looks up metadata `name` (case-insensitive) in `p`; NULL when absent. */
const char *xio_blob_props_meta(const xio_blob_props *p, const char *name);

/* Page ranges come as xio_ranges (<xio/base.h>), sorted and merged where adjacent. */

/** One blob of a listing. */
typedef struct xio_blob_item {
  char *name; /* malloc'd */
  uint64_t size;
  char blob_type[16];
  char lease_state[16];
  char last_modified[40];
  char *snapshot;          /* malloc'd snapshot id, NULL for a base blob (see
                              XIO_BLOB_LIST_SNAPSHOTS) */
  char lease_status[16];   /* locked, unlocked, or "" */
  char lease_duration[16]; /* infinite, fixed, or "" */
  int nmeta;               /* entries in meta (XIO_BLOB_LIST_METADATA) */
  xio_blob_meta *meta;     /* malloc'd, or NULL when nmeta is 0 */
} xio_blob_item;

/** Looks up metadata `name` (case-insensitive) of a listed blob; NULL when absent. */
const char *xio_blob_item_meta(const xio_blob_item *item, const char *name);

/** One page of a blob listing. */
typedef struct xio_blob_list {
  xio_blob_item *v; /* malloc'd */
  size_t n;
  char *next_marker; /* malloc'd, NULL when this was the last page */
} xio_blob_list;

/** Frees what `l` owns and zeroes it; `l` may be NULL. */
void xio_blob_list_clear(xio_blob_list *l);

/** One container of a listing (List Containers). */
typedef struct xio_blob_container {
  char *name;             /* malloc'd */
  char last_modified[40]; /* the service's HTTP date, or "" */
} xio_blob_container;

/** One page of containers, as xio_blob_list for blobs. */
typedef struct xio_blob_container_list {
  xio_blob_container *v; /* malloc'd */
  size_t n;
  char *next_marker; /* malloc'd, NULL when this was the last page */
} xio_blob_container_list;

/** Frees what `l` owns and zeroes it; `l` may be NULL. */
void xio_blob_container_list_clear(xio_blob_container_list *l);

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

/** What a Copy Blob reports, on its own response and on the destination's
 *  properties while and after it runs. */
typedef struct xio_blob_copy_state {
  char id[64];           /* x-ms-copy-id, or "" */
  char status[16];       /* pending, success, aborted, failed, or "" (never copied) */
  uint64_t copied;       /* bytes copied so far (x-ms-copy-progress), 0 when unknown */
  uint64_t total;        /* bytes to copy, 0 when unknown */
  char description[256]; /* x-ms-copy-status-description (failed, pending), or "" */
} xio_blob_copy_state;

/** Extra parts of a listing (List Blobs include=). */
#define XIO_BLOB_LIST_SNAPSHOTS 0x1 /* each blob's snapshots, beside the blob */
#define XIO_BLOB_LIST_METADATA  0x2 /* each blob's metadata */

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

/** List Blobs, one page, with the extra parts `include` names (XIO_BLOB_LIST_*;
 *  0: as xio_blob_call_list). Errors: as xio_blob_call_list, and XIO_EINVAL for an
 *  unknown include bit. */
xio_err xio_blob_call_list_include(const xio_blob_target *container, const char *prefix,
                                   const char *marker, int maxresults, unsigned include,
                                   xio_blob_call **out, xio_error *err);

/** List Containers, one page, of the account `account` addresses (a URL of the
 *  account or of anything in it; prefix, marker may be NULL; maxresults 0: service
 *  default, else 1..5000). A SAS must be an account SAS granting list. */
xio_err xio_blob_call_list_containers(const xio_blob_target *account, const char *prefix,
                                      const char *marker, int maxresults, xio_blob_call **out,
                                      xio_error *err);

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
 *  A response shorter than asked is a torn response and is retried. A read of at
 *  most XIO_BLOB_MAX_CHECKED_READ bytes is verified by the engine's checksum (see
 *  xio_blob_checksum): a body that does not match is retried, then XIO_ECHECKSUM. */
xio_err xio_blob_call_read(const xio_blob_target *blob, uint64_t offset, void *buf, size_t len,
                           const xio_blob_cond *cond, xio_blob_call **out, xio_error *err);

/** Get Page Ranges of [offset, offset+len) (len 0: whole blob), one page from `marker`
 *  (may be NULL). */
xio_err xio_blob_call_page_ranges(const xio_blob_target *blob, uint64_t offset, uint64_t len,
                                  const char *marker, xio_blob_call **out, xio_error *err);

/** Get Page Ranges with prevsnapshot: the pages of [offset, offset+len) (len 0: whole
 *  blob) written or cleared between snapshot `prevsnapshot` and `blob` (the blob, or a
 *  later snapshot of it when `blob` names one), one page from `marker` (may be NULL).
 *  Read the answer with xio_blob_call_ranges_diff. Errors: XIO_EINVAL (no or an empty
 *  `prevsnapshot`, a range not of whole pages), XIO_ENOMEM. */
xio_err xio_blob_call_page_ranges_diff(const xio_blob_target *blob, uint64_t offset, uint64_t len,
                                       const char *prevsnapshot, const char *marker,
                                       xio_blob_call **out, xio_error *err);

/** Delete Blob; `include_snapshots` also deletes its snapshots. */
xio_err xio_blob_call_delete(const xio_blob_target *blob, int include_snapshots,
                             const xio_blob_cond *cond, xio_blob_call **out, xio_error *err);

/** Delete Blob of one snapshot of `blob` (DELETE ?snapshot=ID): the blob and its
 *  other snapshots stay. `blob` must not carry a snapshot of its own. Errors:
 *  XIO_EINVAL (no id, or `blob` already names a snapshot). */
xio_err xio_blob_call_delete_snapshot(const xio_blob_target *blob, const char *snapshot,
                                      const xio_blob_cond *cond, xio_blob_call **out,
                                      xio_error *err);

/** Copy Blob: a server-side copy of `source` (a blob or a snapshot, in any account
 *  the service can reach) onto `dest`, which it creates or replaces. The source is
 *  named in x-ms-copy-source by its URL with its SAS when it carries one (a source
 *  in another account needs one; in the same account Shared Key of the destination
 *  covers it). The answer's copy state (xio_blob_call_copy_state) says whether the
 *  copy is done or pending. cond->if_none_match "*" copies only onto a missing blob;
 *  cond->lease_id is the destination's lease. Errors: XIO_EINVAL (a target that names
 *  no blob). */
xio_err xio_blob_call_copy(const xio_blob_target *dest, const xio_blob_target *source,
                           const xio_blob_cond *cond, xio_blob_call **out, xio_error *err);

/** Abort Copy Blob: stops the pending copy `copy_id` onto `dest`, which is left an
 *  empty blob of the source's size. Errors: XIO_EINVAL (no id). */
xio_err xio_blob_call_abort_copy(const xio_blob_target *dest, const char *copy_id,
                                 const xio_blob_cond *cond, xio_blob_call **out, xio_error *err);

/** Lease Blob. A control request: the engine sends it ahead of the calls waiting
 *  for their turn (its queue, its in-flight limit, the pacer), so that a renewal
 *  never waits behind a blob's writes. A renewal counts throttling answers among the
 *  engine's max_retries, like other faults, instead of retrying them for
 *  throttle_ms: its sender renews on a schedule of its own and tries again there. */
xio_err xio_blob_call_lease(const xio_blob_target *blob, const xio_blob_lease_args *args,
                            xio_blob_call **out, xio_error *err);

/** Snapshot Blob. */
xio_err xio_blob_call_snapshot(const xio_blob_target *blob, const xio_blob_cond *cond,
                               xio_blob_call **out, xio_error *err);

/** Set Blob Metadata (replaces all metadata). */
xio_err xio_blob_call_set_metadata(const xio_blob_target *blob, const xio_blob_meta *meta,
                                   int nmeta, const xio_blob_cond *cond, xio_blob_call **out,
                                   xio_error *err);

/** Get User Delegation Key for the account of `t` (any target of the account), valid
 *  from `start` (0: omitted, i.e. now) to `expiry`. Needs an Entra ID token: give `t`
 *  a credential source that yields bearer tokens. Read the key with xio_blob_call_udk. */
xio_err xio_blob_call_user_delegation_key(const xio_blob_target *t, time_t start, time_t expiry,
                                          xio_blob_call **out, xio_error *err);

/** A request for an Entra ID token from a managed identity endpoint (the App
 *  Service protocol: IDENTITY_ENDPOINT with X-IDENTITY-HEADER) or the instance
 *  metadata service ("Metadata: true"). The builder copies the strings. */
typedef struct xio_blob_token_request {
  const char *url;          /* the endpoint with its query (api-version, resource,
                               client_id): http or https */
  const char *header_name;  /* "X-IDENTITY-HEADER" or "Metadata" */
  const char *header_value; /* its value; the identity header is a secret, wiped with
                               the call */
  int metadata_service;     /* the instance metadata service: plain http to a
                               link-local address (169.254.0.0/16, fe80::/10) is
                               allowed, as it never leaves the machine */
  int probe;                /* one try, never retried (the metadata service's probe) */
  int connect_timeout_ms;   /* 0: the engine's */
  int deadline_ms;          /* the whole call with its retries; 0: the engine's */
} xio_blob_token_request;

/**
 * GET a token from r->url. It goes out like every call, through the engine's
 * transport: its trust store and ca_file, its timeouts, its retries of transport
 * failures and of 408, 429 and 5xx answers (none for a probe), and XIO_EINSECURE
 * for plain http to a host that is not loopback (nor, for the metadata service,
 * link-local). It carries no storage headers and no credential, and never goes
 * through a proxy. Read the token with xio_blob_call_token_result. Errors:
 * XIO_EINVAL (a missing field, a negative timeout), XIO_EPARSE (the URL: names the
 * part that is wrong), XIO_ENOMEM.
 */
xio_err xio_blob_call_token(const xio_blob_token_request *r, xio_blob_call **out, xio_error *err);

/**
 * The token of a finished GetToken call, into `out` (a secret: xio_auth_token_clear),
 * its expiry from the answer's expires_on or, counted from `now`, expires_in.
 * Errors: the call's own (the endpoint's status in err->http_status), XIO_EPARSE (the
 * answer holds no token or no expiry; never quotes it), XIO_ENOMEM.
 */
xio_err xio_blob_call_token_result(const xio_blob_call *c, time_t now, xio_auth_token *out,
                                   xio_error *err);

/** Frees a call that is not in flight. `c` may be NULL. */
void xio_blob_call_free(xio_blob_call *c);

/** Attaches `tag` to `c`: the sender's note of what the call is for, which the
 *  engine's hooks (xio_blob_engine_options on_try and on_complete) read back with
 *  xio_blob_call_tag. Borrowed: it must stay valid until the call completes. The
 *  engine itself never reads it. NULL (the default) attaches nothing. */
void xio_blob_call_set_tag(xio_blob_call *c, const void *tag);

/** Sets how long `c` may take: `deadline_ms` the whole call with its retries and
 *  waits, `try_timeout_ms` each try (0 for either: the engine's retry policy). A
 *  call whose answer is worth nothing after a moment (a lease renewal, due before
 *  the lease runs out) says so here, so that a stalled try is cut and tried again in
 *  time. Cannot fail; negative values count as 0. Before xio_blob_submit only. */
void xio_blob_call_set_time_limits(xio_blob_call *c, int deadline_ms, int try_timeout_ms);

/** The tag attached to `c`, or NULL. */
const void *xio_blob_call_tag(const xio_blob_call *c);

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

/** Times the request was sent again: the engine's retries, plus the times libcurl
 *  re-sent it by itself on a new connection after a reused one died before answering
 *  (the first copy may have been applied, so a trace counts it as a retry too). */
int xio_blob_call_retries(const xio_blob_call *c);

/** Wall time from submit to completion, microseconds. */
int64_t xio_blob_call_duration_us(const xio_blob_call *c);

/** A response header of the last try (case-insensitive name), or NULL. */
const char *xio_blob_call_header(const xio_blob_call *c, const char *name);

/** The service error code of a failed call ("LeaseIdMissing"), or "" (never NULL). */
const char *xio_blob_call_service_code(const xio_blob_call *c);

/** 1 when the last try was answered with one of the service's throttling answers,
 *  503 ServerBusy or 500 OperationTimedOut (the service asking its clients to slow
 *  down), else 0. */
int xio_blob_call_throttled(const xio_blob_call *c);

/** x-ms-request-id / x-ms-client-request-id (never NULL; "" when unknown). */
const char *xio_blob_call_request_id(const xio_blob_call *c);
const char *xio_blob_call_client_request_id(const xio_blob_call *c);

/** The call's operation name ("PutPage") and log-safe URL. */
const char *xio_blob_call_operation(const xio_blob_call *c);
const char *xio_blob_call_safe_url(const xio_blob_call *c);

/** 1 when `c` is a storage request, 0 for a request that reaches no storage (a token
 *  request, xio_blob_call_token). */
int xio_blob_call_is_storage(const xio_blob_call *c);

/** Properties from a finished get_properties / create / resize call. Errors:
 *  XIO_EINVAL (the call did not succeed), XIO_EHTTP (a size that is not a number). */
xio_err xio_blob_call_props(const xio_blob_call *c, xio_blob_props *out, xio_error *err);

/** Ranges of a finished page_ranges call, appended to `out` (merged), and the
 *  continuation marker (malloc'd into *next_marker, NULL when done). */
xio_err xio_blob_call_ranges(const xio_blob_call *c, xio_ranges *out, char **next_marker,
                             xio_error *err);

/** The ranges of a finished page_ranges_diff call: <PageRange> ones appended to
 *  `written`, <ClearRange> ones to `cleared` (NULL: dropped), each merged, and the
 *  continuation marker (malloc'd into *next_marker, NULL when done). On failure both
 *  lists are as they were. Errors: XIO_EINVAL (the call did not succeed), XIO_EPARSE,
 *  XIO_ENOMEM. */
xio_err xio_blob_call_ranges_diff(const xio_blob_call *c, xio_ranges *written, xio_ranges *cleared,
                                  char **next_marker, xio_error *err);

/** The page of a finished list call. */
xio_err xio_blob_call_list_result(const xio_blob_call *c, xio_blob_list *out, xio_error *err);

/** The page of a finished List Containers call, appended to `out` (which starts
 *  zeroed); out->next_marker is replaced. Errors: as xio_blob_call_list_result. */
xio_err xio_blob_call_container_list_result(const xio_blob_call *c, xio_blob_container_list *out,
                                            xio_error *err);

/** The copy state of a finished copy or get_properties call (all fields empty when
 *  the blob was never a copy's destination). Errors: XIO_EINVAL (the call did not
 *  succeed). */
xio_err xio_blob_call_copy_state(const xio_blob_call *c, xio_blob_copy_state *out, xio_error *err);

/** Lease id returned by acquire/change (copied into `out`, 64 bytes). */
xio_err xio_blob_call_lease_id(const xio_blob_call *c, char out[64], xio_error *err);

/** Snapshot timestamp returned by a snapshot call (into `out`, 64 bytes). */
xio_err xio_blob_call_snapshot_id(const xio_blob_call *c, char out[64], xio_error *err);

/** The user delegation key of a finished Get User Delegation Key call, into `out`
 *  (xio_auth_udk_clear; its value is a secret). Errors: the call's, XIO_EPARSE. */
xio_err xio_blob_call_udk(const xio_blob_call *c, xio_auth_udk *out, xio_error *err);

/** Writes a random UUID (version 4, lowercase, 36 characters and a NUL) into `out`:
 *  a lease id to propose, or a client request id. `out` is "" on failure.
 *  Errors: XIO_EIO (neither OpenSSL's generator nor getrandom(2) gave bytes). */
xio_err xio_blob_new_uuid(char out[37], xio_error *err);

#ifdef __cplusplus
}
#endif
#endif /* XIO_BLOB_CALL_H */
