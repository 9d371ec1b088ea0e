/*
 * xio/xio.h - the file layer a database engine links against: open, read, write,
 * grow, zero and close files that live on Azure page blobs or on a local disk,
 * through one API.
 *
 * A context (xio_ctx) owns the shared machinery: the REST engine with its I/O
 * thread and connection pool, the credentials, the trace sinks, the lease keeper
 * and the workers of the local backend. Files (xio_file) are opened in a context by
 * URL ("https://acct.blob.core.windows.net/c/db.mdf", "http://127.0.0.1:PORT/acct/c/b")
 * or by local path.
 *
 * Newly exposed or zeroed bytes follow an init policy: NONE (instant file
 * initialization: the bytes are whatever the storage returns for never-written
 * space, which is zeros on both backends), ZERO (write zeros: the classic slow way)
 * or CLEAR (metadata zeroing: Put Page clear, FALLOC_FL_ZERO_RANGE). Data files
 * default to NONE, log files to CLEAR. Whatever the policy, a grown or zeroed region
 * of a log file reads as zeros.
 *
 * Every request that reaches storage emits one trace event, xio_send_complete, and
 * is counted in the file's statistics; each try of it that failed and was sent again
 * emits an xio_failed_request event.
 *
 * Beside files, the layer answers what a tool asks of a target without writing
 * it: its properties (xio_stat), its allocated ranges, its lease (xio_lease); and
 * what an operator asks of a container: its files (xio_list), server-side copies
 * (xio_copy) and snapshots (xio_snapshot_list, xio_snapshot_delete).
 * Nothing here exposes the REST engine below; the file layer is the whole API.
 *
 * Threads: all functions are thread-safe; many threads may do I/O on one file at
 * once. Completion callbacks run on the context's I/O or worker threads: they must
 * not block and must not call the synchronous functions (which fail with
 * XIO_EINVAL there); they may submit further asynchronous requests. The context's
 * threads are the I/O thread, which also runs what waits for a moment (lease
 * renewals, the combining window, Entra ID tokens falling due), the local backend's
 * workers, and, only while an Entra ID token is being fetched, a fetch thread, where
 * the token callback (<xio/credentials.h>) and the Azure CLI run. No thread only
 * sleeps until a deadline.
 *
 * Processes: a context and its files belong to the process that made the context.
 * A child made by fork() has none of the context's threads; it makes a context of
 * its own with xio_ctx_new (as after exec) and opens its files there. Every call on
 * a context or file of the parent fails in the child at once with XIO_EINVAL, the
 * message naming fork; xio_file_close and xio_ctx_free there do nothing, so the
 * child never releases or renews the parent's leases nor touches its connections,
 * and the parent goes on unaffected (the parent's memory stays allocated in the
 * child). A leased open in the child is another client for the lease: a file
 * the parent holds is refused with XIO_EBUSY. Only an asynchronous request the
 * parent had in flight must not be waited on in the child (xio_io_wait would wait
 * for ever).
 */
#ifndef XIO_XIO_H
#define XIO_XIO_H

#include <stddef.h>
#include <stdint.h>

#include <xio/alloc.h> /* xio_free: releases what xio hands out (trace JSON, ...) */
#include <xio/base.h>  /* the shared base: xio_auth_clock, URLs */
#include <xio/error.h>

#ifdef __cplusplus
extern "C" {
#endif

/* -------------------------------------------------------------- errors ---- */

/*
 * Storage errors: the codes a storage request (one REST call to a page blob, or one
 * system call on a local file) can end with. A function whose errors include
 * "storage errors" may return any of them besides the codes it names, with the
 * detail in its xio_error: the operation, the HTTP status, the service's error code,
 * the request ids and the log-safe target. A page-blob request is retried where
 * another try can help (timeouts, throttling, 5xx, transport failures, a corrupted
 * body), so these come once the retries ran out:
 *  - the service's answer: XIO_ENOTFOUND (no such file, snapshot or container),
 *    XIO_EEXIST, XIO_EBUSY (leased by another client), XIO_ELEASELOST (the service
 *    refused our lease), XIO_ECONFLICT (409, or 412: a condition not met),
 *    XIO_EAUTH (401/403: the credential was refused), XIO_EPERM (403: it lacks a
 *    permission), XIO_EINVAL (400), XIO_ERANGE (416), XIO_ELIMIT (413),
 *    XIO_ECHECKSUM (the body arrived corrupted), XIO_ETHROTTLED (503 ServerBusy,
 *    429), XIO_ETIMEDOUT (500 OperationTimedOut, 408, 504, or no answer within the
 *    per-try timeout or the deadline), XIO_EHTTP (another status, or an answer that
 *    cannot be read);
 *  - on the way there: XIO_ETRANSPORT (no connection, or one reset or cut short),
 *    XIO_EINSECURE (plain http to a remote host), XIO_EEXPIRED and XIO_ENOTYET (a
 *    SAS outside its validity), XIO_ENOCRED (no credential could be had, such as an
 *    Entra ID token), XIO_ECANCELED (the context was canceled, xio_ctx_cancel, or
 *    was being freed), XIO_ENOMEM;
 *  - on a local file: XIO_EIO (a system call failed; its errno in the detail), and
 *    XIO_ENOTFOUND, XIO_EEXIST, XIO_EPERM or XIO_ENOMEM where the errno says so.
 */

/* ------------------------------------------------------------- tracing ---- */

/* XX(enum, name): the storage request types, named as SQL Server names them in
 * xio_send_complete. Append only. */
#define XIO_REQUEST_TYPE_MAP(XX)                                                                   \
  XX(XIO_REQ_CREATE, "XIOTypeCreateFile")                                                          \
  XX(XIO_REQ_OPEN, "XIOTypeOpenFile")                                                              \
  XX(XIO_REQ_READ, "XIOTypeReadFile")                                                              \
  XX(XIO_REQ_WRITE, "XIOTypeWriteFile")                                                            \
  XX(XIO_REQ_ZERO, "XIOTypeZeroFile")                                                              \
  XX(XIO_REQ_GET_SIZE, "XIOTypeGetFileSize")                                                       \
  XX(XIO_REQ_SET_SIZE, "XIOTypeSetFileSize")                                                       \
  XX(XIO_REQ_RANGES, "XIOTypeGetRanges")                                                           \
  XX(XIO_REQ_DELETE, "XIOTypeDeleteFile")                                                          \
  XX(XIO_REQ_LEASE, "XIOTypeLease")                                                                \
  XX(XIO_REQ_SNAPSHOT, "XIOTypeSnapshot")                                                          \
  XX(XIO_REQ_LIST, "XIOTypeListFiles")                                                             \
  XX(XIO_REQ_COPY, "XIOTypeCopyFile")                                                              \
  XX(XIO_REQ_USER_DELEGATION_KEY, "XIOTypeUserDelegationKey")

/** The type of one storage request; XIO_REQ_COUNT counts them (not a type). */
typedef enum xio_request_type {
#define XIO__REQ_ENUM(e, name) e,
  XIO_REQUEST_TYPE_MAP(XIO__REQ_ENUM)
#undef XIO__REQ_ENUM
      XIO_REQ_COUNT
} xio_request_type;

/** The trace name of `t` ("XIOTypeWriteFile"), or "?" for a value outside the
 *  list. Static string; cannot fail. */
const char *xio_request_type_name(xio_request_type t);

/**
 * A trace event. Strings are borrowed for the duration of the callback; file_path is
 * log-safe (no query string). Two events share these fields:
 *  - xio_send_complete: one storage request completed, whatever its result, after
 *    all its tries; exactly one per request. Its http_status, error_code and
 *    request_id are those of its last try, retries counts the tries before it (and
 *    the times libcurl sent it again on a new connection by itself).
 *  - xio_failed_request: one try of a page-blob request failed and the request was
 *    sent again (a retry, or once more with a renewed credential): a 5xx, a
 *    throttling answer, a rejected checksum, a transport failure. It carries that
 *    try's http_status (0: no answer), error_code and request_id (what support asks
 *    for), the request's type, path, range and client_request_id (the same on every
 *    try of a request), duration_us of the try, retries as the retries made before
 *    this try (0: the first), result as the try's xio_err name. The last try of a
 *    request is told by its xio_send_complete, never by this event.
 * The callback and the trace file get both: tell them apart by `event`.
 */
typedef struct xio_trace_event {
  const char *event;    /* "xio_send_complete" or "xio_failed_request" */
  int64_t timestamp_us; /* completion, microseconds since the epoch (UTC) */
  const char *file_path;
  xio_request_type request_type; /* written as its name: "XIOTypeWriteFile", ... */
  uint64_t offset;
  uint64_t length;
  int http_status;               /* 0 for the local backend or no response */
  const char *error_code;        /* service error code, or NULL */
  const char *request_id;        /* "" when none */
  const char *client_request_id; /* "" when none */
  int64_t duration_us;
  int retries;
  const char *result; /* "ok" or the xio_err name, e.g. "XIO_ELEASELOST" */
} xio_trace_event;

/** Receives every trace event of a context (both kinds, see above), on the thread
 *  that completed the request or try: an I/O or worker thread, or for some requests (local files,
 * the look before a create, read-backs) the caller's. It may run on several threads at once, so it
 * must be thread-safe (the trace file sink serializes its own lines). Like a completion callback it
 * must not block, nor call the synchronous functions. */
typedef void (*xio_trace_fn)(const xio_trace_event *ev, void *ud);

/** Formats `ev` as one JSON line (no newline): the fields above by their names, the
 *  request type by its name, timestamp as ISO 8601 UTC with microseconds, absent
 *  strings as "" (error_code: null). Returns a malloc'd string (released with
 *  xio_free, see <xio/alloc.h>), or NULL on out-of-memory. */
char *xio_trace_event_json(const xio_trace_event *ev);

/* ------------------------------------------------------------- context ---- */

typedef struct xio_ctx xio_ctx;

/** How page-blob requests are retried: delays grow as base * 2^try with jitter
 *  x0.8..1.3, capped at max_delay_ms. A throttling answer (503 ServerBusy, 500
 *  OperationTimedOut, 429) asks for a lower rate: it is retried for throttle_ms from
 *  a request's first one, whatever max_retries, which bounds the other transient
 *  faults. */
typedef struct xio_retry {
  int max_retries;    /* retries after the first try (default 3) */
  int base_delay_ms;  /* default 800 */
  int max_delay_ms;   /* default 60000 */
  int try_timeout_ms; /* per try, from send to last byte; 0: none (default 120000) */
  int deadline_ms;    /* whole request including waits; 0: none (default 0) */
  int throttle_ms;    /* throttling answers are retried until this long after a request's
                         first one; 0: they count among max_retries (default 60000) */
} xio_retry;

/** The transactional checksum: sent with every page-blob write, and asked for on
 *  every read, which the file layer splits at 4 MiB (the longest range the service
 *  checksums) so that each body is checked. XIO_CHECKSUM_NONE turns both off; reads
 *  then go unchecked, in pieces of up to 8 MiB. */
typedef enum xio_checksum {
  XIO_CHECKSUM_CRC64 = 0, /* x-ms-content-crc64 (default) */
  XIO_CHECKSUM_MD5,       /* Content-MD5 */
  XIO_CHECKSUM_NONE
} xio_checksum;

/**
 * The clock the lease keeper measures leases by: microseconds that never go back
 * (any origin). `now_us` NULL means the system's monotonic clock. It is called from
 * the I/O thread (the lease keeper runs there) and from every thread that issues a
 * write, concurrently, so it
 * must be thread-safe, quick and must not block or call into xio. `ud` is borrowed
 * for the context's lifetime.
 *
 * A test seam: a clock moved ahead makes the context behave exactly as a process
 * that was paused (SIGSTOP, a VM freeze) that long, without waiting for it; the
 * service's own 15..60 s lease durations cannot be shortened.
 */
typedef struct xio_lease_clock {
  int64_t (*now_us)(void *ud);
  void *ud;
} xio_lease_clock;

typedef struct xio_file xio_file;

/** What the lease keeper tells of the lease of a page blob opened with XIO_OPEN_LEASE. */
typedef enum xio_lease_news {
  XIO_LEASE_RENEW_FAILED = 1, /* a renewal got no answer or a passing error (timeout,
                                 throttling, transport): the lease is still held and the
                                 keeper tries again every second, until the lease clock
                                 says the lease ran out (then XIO_LEASE_LOST) */
  XIO_LEASE_LOST = 2          /* lost for good, as xio_file_lease_lost tells: told once
                                 per file, before any later write of it fails for it */
} xio_lease_news;

/**
 * Receives a context's lease news (xio_ctx_options.lease_news) the moment the layer
 * learns it: a renewal refused (another client broke or took the lease, the blob is
 * gone), a renewal that failed, the lease clock past the duration with no renewal
 * acknowledged (a paused process), a write refused by the service for the lease.
 * Runs on the thread that found out: the I/O thread, where the lease keeper renews
 * (at most a second after the lease clock runs out, without any write), or the
 * thread of a call
 * on the file that found out first (before that call returns its XIO_ELEASELOST). It
 * must not block, nor call the synchronous functions, nor close `f`; it may call
 * xio_file_lease_lost and set flags the engine reads. `f` is valid for the callback.
 */
typedef void (*xio_lease_fn)(xio_file *f, xio_lease_news news, void *ud);

/*
 * Leases of page blobs opened with XIO_OPEN_LEASE. A lease is acquired for lease_duration_s
 * and renewed every lease_renew_s by the context's lease keeper. The duration is
 * counted on the lease clock from the moment the last successful acquire or renewal
 * was *sent* (the service starts it later, so the client's count runs out first).
 * Once that count passes the duration, or the service refuses a request carrying the
 * lease, the lease is lost for good: the file's writes, zeroing, resizes, metadata
 * changes and snapshots fail with XIO_ELEASELOST before anything is sent, the keeper
 * never renews it again (even where the service would still allow that), and close
 * does not release it. Requests already on their way carry the lease id, so the
 * service refuses them once the lease has ended or passed to another client; they
 * fail with XIO_ELEASELOST too. Reads are not fenced. Reopen the file to go on.
 */
/** Whether the context paces its page-blob requests (xio_ctx_options.pacing). */
typedef enum xio_pacing {
  XIO_PACING_AUTO = 0, /* on for remote endpoints, off for loopback emulators */
  XIO_PACING_OFF = 1,
  XIO_PACING_ON = 2 /* on everywhere: an emulator with targets (xio emulator's proxy) */
} xio_pacing;

typedef struct xio_ctx_options {
  int max_in_flight;     /* storage requests on the wire at once (default 32) */
  xio_retry retry;       /* default: 3 retries, 800 ms base, 120 s per try */
  xio_checksum checksum; /* default CRC64 */
  int lease_duration_s;  /* leased opens: 15..60 (default 60) */
  int lease_renew_s;     /* renew this often (default 20; 1..duration-1) */
  int local_threads;     /* workers for the local backend (default 4) */
  xio_trace_fn trace;    /* trace callback, or NULL */
  void *trace_ud;
  const char *trace_path;        /* JSON lines to this file ("-": stderr), or NULL */
  int use_environment;           /* read XIO_TRACE, AZURE_STORAGE_* , XIO_CREDENTIALS,
                                    XIO_ALLOW_EXPOSED_CREDENTIALS, XIO_CA_BUNDLE, and
                                    for Entra ID IDENTITY_ENDPOINT, IDENTITY_HEADER,
                                    AZURE_CLIENT_ID, XIO_ENTRA_METHOD
                                    (default 1; see <xio/credentials.h>) */
  const char *connection_string; /* an Azure Storage connection string, or NULL */
  const char *credential_file;   /* JSON credential file (see <xio/auth.h>), or NULL */
  const char *ca_file;           /* extra CA bundle (PEM) to trust besides the system
                                    store, or NULL: wins over XIO_CA_BUNDLE */
  int allow_insecure_remote;     /* allow http:// to non-loopback hosts (default 0) */
  xio_auth_clock clock;          /* for signing and SAS checks; zeroed: system clock */
  xio_lease_clock lease_clock;   /* for leases (see above); zeroed: the monotonic clock */
  /* Load a credential file that group or others may write, or read while it holds a
   * secret (default 0: refused, see xio_cred_file_load; with use_environment,
   * XIO_ALLOW_EXPOSED_CREDENTIALS=1 allows it too). */
  int allow_exposed_credential_file;
  /* Pacing of page-blob requests: each blob and account kept under the service's
   * scale targets (standard: 500 requests/s and 60 MiB/s per blob; a premium tier's
   * once the blob's properties name it), slowing on throttling answers and shared by
   * every file and transfer of the context. XIO_PACING_AUTO (default): on for Azure,
   * off for an emulator on this machine; with use_environment, XIO_PACING (auto, on,
   * off) decides instead (anything else: XIO_EINVAL from xio_ctx_new). */
  xio_pacing pacing;
  double max_rate_bps; /* cap per blob in bytes per second; 0: the tier's target */
  /* Appended. Writes of a file opened with XIO_OPEN_LEASE wait in the file's
   * write queue up to this many microseconds for more writes to combine with, unless
   * something waits for them first (xio_io_wait on one, a flush, xio_file_wait,
   * close): 0 means the default, 2000; a negative value sends each write at once
   * (combining then only what queues behind writes in flight to the same sectors).
   * The window is time: on a busy machine it may pass in the middle of writes an
   * engine meant to combine, so they cost more requests. An engine that flushes at
   * each commit may set it longer than a commit's writes take to submit (a minute):
   * the flush then decides what is combined. Held writes (xio_file_hold) are sent
   * by the flush and never split by the window. */
  int combine_window_us;
  /* Appended. Lease news of the context's leased page blobs (see
   * xio_lease_fn), or NULL. `lease_news_ud` is borrowed for the context's life. */
  xio_lease_fn lease_news;
  void *lease_news_ud;
} xio_ctx_options;

/** Default options; cannot fail. */
xio_ctx_options xio_ctx_options_default(void);

/**
 * Creates a context: starts the REST engine, the lease keeper and the local workers,
 * loads credentials (options first, then the environment when use_environment) and
 * opens the trace file. The context belongs to the calling process: in a child
 * forked from it, it and its files refuse every call with XIO_EINVAL (see
 * "Processes" at the top). `opts` may be NULL. Errors: XIO_EINVAL (a bad option, named),
 * XIO_EPARSE (a malformed connection string or credential file, or a CA file that
 * holds no PEM certificate), XIO_EIO (credential, CA or trace file
 * unreadable/unwritable), XIO_EPERM (a credential file others may write, or read
 * while it holds a secret: see xio_cred_file_load), XIO_ENOMEM, XIO_ETRANSPORT.
 */
xio_err xio_ctx_new(const xio_ctx_options *opts, xio_ctx **out, xio_error *err);

/**
 * Destroys a context. Teardown contract: files still open are closed first (each
 * waits for its requests and releases its lease, as xio_file_close), then the lease
 * keeper, the local workers, the REST engine and the trace file stop, in that
 * order. The context owns its files' shared machinery, so every xio_file of `ctx`
 * is invalid afterwards, and no other thread may use the context or its files
 * once the call starts. Call it from an application thread, never from a
 * completion or trace callback: on the context's own threads (I/O, workers) it
 * would wait for itself, so there it does nothing and returns
 * XIO_EINVAL; so it does in a child forked from the process that made `ctx`.
 * Otherwise returns XIO_OK (failures to release leases are not reported: close
 * files first to see them). `ctx` may be NULL.
 */
xio_err xio_ctx_free(xio_ctx *ctx);

/**
 * Stops the context's page-blob requests, for a program told to stop (SIGINT,
 * SIGTERM) while the service may not answer for minutes: from the call on, no
 * request is sent or retried. Requests that wait (queued, or for a retry, a
 * credential or the pacer) and every request made later fail with XIO_ECANCELED
 * without being sent. A request on the wire gets `grace_ms` (negative: 0) to end:
 * one answered by then ends as answered (a failure that would have been retried
 * fails with XIO_ECANCELED instead); when the grace ends, those still on the wire
 * are cut and fail with XIO_ECANCELED, whether or not the service applied them.
 * Each request completes once, with its callback (or xio_io_wait) and its
 * xio_send_complete trace event, as any other. A second call may shorten the grace
 * (the earliest end wins), never lengthen it: grace_ms 0 cuts at once.
 *
 * There is no going back: what the program does next with the context is to close
 * its files (their requests fail at once; a lease held is neither released nor
 * renewed, so it ends at the service within lease_duration_s) and free it. Requests
 * on local files are not affected: they end by themselves.
 *
 * Any thread, and async-signal-safe: a SIGINT handler may call it (it sets lock-free
 * atomics and writes to the I/O thread's eventfd; errno is kept). The context must
 * stay valid during the call, so a handler must not race xio_ctx_free. In a child
 * forked from the context's process it does nothing. `ctx` may be NULL.
 */
void xio_ctx_cancel(xio_ctx *ctx, int grace_ms);

/* --------------------------------------------------- sizes and targets ---- */

/**
 * Parses a size as people write it: decimal digits with an optional binary suffix,
 * K, M, G or T (also KB/KiB, ..., and B; any case): "4096", "4K" (4096), "64MiB",
 * "1T". The whole text must be a size: a sign, a fraction ("1.5G"), spaces, an
 * unknown unit or a value past 2^64 - 1 is refused. On success `*out` is set; on
 * failure it is left alone. Errors: XIO_EINVAL, with `err`'s message saying what is
 * wrong ("not a number", "too large", "unknown unit (use K, M, G or T)", ...) but
 * not quoting the text, so the caller can name where it came from.
 */
xio_err xio_size_parse(const char *text, uint64_t *out, xio_error *err);

/** What a target string names. */
typedef enum xio_target_kind {
  XIO_TARGET_UNSUPPORTED = 0, /* a URL of another scheme (ftp://...), or empty/NULL */
  XIO_TARGET_BLOB = 1,        /* an http:// or https:// page-blob URL */
  XIO_TARGET_LOCAL = 2        /* a local path, or a file:// URL */
} xio_target_kind;

/**
 * Classifies `target` the way xio_file_open picks its backend. Anything that starts
 * with a URL scheme and "://" is a URL: http and https (any case) name page blobs,
 * file names a local file, every other scheme is unsupported. Anything else,
 * relative or absolute, is a local path. Looks at the text only; never fails.
 */
xio_target_kind xio_target_classify(const char *target);

/**
 * The length of `target`'s URL scheme (3 for "ftp://x/y"), or 0 when `target` does
 * not start with SCHEME "://". For messages that name the
 * scheme of an unsupported target. Never fails.
 */
size_t xio_target_scheme_length(const char *target);

/**
 * Builds the URL of blob `blob` in container `container` of the context's own
 * account into `out` (`size` bytes): the connection string's blob endpoint (an
 * emulator's "http://127.0.0.1:PORT/devstoreaccount1" included), else
 * "https://$AZURE_STORAGE_ACCOUNT.blob.core.windows.net". The blob name is
 * percent-encoded but for '/'; the URL carries no credential (the context adds it on
 * every request), so it may be logged. No request. Errors: XIO_EINVAL (a container
 * name outside Azure's rules, an empty blob name or one that starts with '/'),
 * XIO_ENOCRED (the context names no account), XIO_ERANGE (does not fit; `out` is
 * then ""). Example: xio_target_url(ctx, "mssql", "db/log.ldf", url, sizeof url, &e).
 */
xio_err xio_target_url(xio_ctx *ctx, const char *container, const char *blob, char *out,
                       size_t size, xio_error *err);

/** A target taken apart (xio_target_parse). Every string is heap memory owned by
 *  the struct, decoded, and released by xio_target_parts_clear. None is a secret.
 *  A local target sets `kind`, `path` and `base` only. */
typedef struct xio_target_parts {
  xio_target_kind kind; /* XIO_TARGET_BLOB or XIO_TARGET_LOCAL */
  char *path;           /* a local target's path (a file:// URL's, decoded), else NULL */
  char *endpoint;       /* scheme://host[:port][/account], no '/' at the end */
  char *account;        /* the storage account's name */
  char *container;      /* NULL for an account URL */
  char *blob;           /* NULL for an account or container URL; may contain '/' */
  char *snapshot;       /* the id of ?snapshot=ID, or NULL */
  char *base;           /* the URL without its query (a local target: as given): log-safe */
  int has_sas;          /* 1 when the query carries a SAS token (a sig= parameter) */
} xio_target_parts;

/**
 * Takes `target` apart as xio_file_open reads it: a blob URL (virtual-host or path
 * style, with a SAS, with snapshot=ID) into its parts, a local path or file:// URL
 * into its path. A snapshot is named by its parameter, not by text: a blob named
 * "a-snapshot=1" names none. No request. On failure `*out` holds nothing to clear.
 * Errors: XIO_EUNSUPPORTED (a URL of another scheme), XIO_EPARSE (what is wrong:
 * host, container name, a query parameter that is neither a SAS's nor snapshot,
 * named but never quoted; a bad escape in a file URL), XIO_ENOMEM.
 */
xio_err xio_target_parse(const char *target, xio_target_parts *out, xio_error *err);

/** Frees what `p` owns and zeroes it. `p` may be NULL. */
void xio_target_parts_clear(xio_target_parts *p);

/**
 * The URL of blob `blob` in the container `container_url` names, in `*out` (malloc'd,
 * xio_free): the name percent-encoded but for '/', the container URL's query (its
 * SAS) kept, so treat it as a secret when the container URL carries one. No request.
 * Errors: XIO_EINVAL (not a container URL; an empty blob name or one that starts
 * with '/'), XIO_EPARSE (the URL), XIO_ENOMEM.
 */
xio_err xio_target_blob_url(const char *container_url, const char *blob, char **out,
                            xio_error *err);

/** The log-safe form of any target, for messages and logs: a blob URL without its
 *  query, fragment or user:password@, but with snapshot=ID kept; anything else as
 *  given. malloc'd (xio_free); NULL when `target` is NULL or out of memory. */
char *xio_target_safe(const char *target);

/**
 * The URL of snapshot `id` of the blob `url` names, in `*out` (malloc'd, xio_free;
 * it keeps `url`'s SAS, so treat it as a secret when `url` carries one): `url` with
 * any snapshot= parameter replaced by snapshot=ID. With `id` NULL or "", the URL of
 * the blob itself (snapshot= removed). No request. Errors: XIO_EINVAL (not a blob
 * URL; two snapshot= parameters), XIO_ENOMEM.
 */
xio_err xio_target_snapshot_url(const char *url, const char *id, char **out, xio_error *err);

/* The service's limits a client meets on every page blob (Azure's, enforced by xio
 * whatever the emulator accepts). */
#define XIO_PAGE_SIZE 512u /* a page: writes and clears align to it */
#define XIO_WRITE_MAX_SIZE                                                                         \
  (4u * 1024u * 1024u) /* the largest Put Page, and the largest                                    \
                           range a checked read covers */

/**
 * Continues CRC-64 `crc` (0 to start) over `n` bytes at `data`: the CRC-64 Azure
 * Storage puts in x-ms-content-crc64 (CRC-64/NVME: reflected polynomial
 * 0x9A6C9329AC4BC9B5, initial value and final xor all ones), for engines and tools that checksum
 * what they store the way the service does. Never fails.
 */
uint64_t xio_crc64(uint64_t crc, const void *data, size_t n);

/** 1 when the `len` bytes at `buf` are all zero (also when `len` is 0), else 0. At
 *  memory speed. Never fails. */
int xio_is_zero(const void *buf, size_t len);

/**
 * The length of the run at `buf` (`len` bytes) of whole `unit`-byte blocks (the last
 * one may be the shorter rest) that are all zero when `zero` is 1, or each hold a
 * byte that is not zero when `zero` is 0: what a program scans to clear zeros
 * (xio_file_zero with XIO_INIT_CLEAR) instead of shipping them, or to skip them
 * where storage already reads zeros. `unit` 0 takes the whole buffer as one block.
 * Never fails.
 */
size_t xio_zero_run(const void *buf, size_t len, size_t unit, int zero);

/* --------------------------------------------------------------- files ---- */

typedef enum xio_kind {
  XIO_KIND_DATA = 0, /* default init: none */
  XIO_KIND_LOG = 1   /* default init: clear; grown and zeroed regions read as zero */
} xio_kind;

typedef enum xio_init {
  XIO_INIT_DEFAULT = 0, /* the file kind's default */
  XIO_INIT_NONE,        /* instant initialization: no zeroing request */
  XIO_INIT_ZERO,        /* write zeros over the region */
  XIO_INIT_CLEAR        /* metadata zeroing (Put Page clear / FALLOC_FL_ZERO_RANGE) */
} xio_init;

/** Name of a policy: "default", "none", "zero", "clear". */
const char *xio_init_name(xio_init init);

/** Largest file size: a page blob's limit, applied to local files too. */
#define XIO_FILE_MAX_SIZE (8ull * 1024u * 1024u * 1024u * 1024u) /* the largest page blob */

/** Open flags. */
#define XIO_OPEN_CREATE 0x01 /* create when missing, else open what exists */
#define XIO_OPEN_CREATE_ONLY                                                                       \
  0x02 /* create a new file, POSIX O_CREAT | O_EXCL: when the file exists the open fails with      \
          XIO_EEXIST ("... already exists") and changes nothing of it. The create is the check     \
          (a page blob: Put Blob with If-None-Match: *; a local file: open O_CREAT | O_EXCL), so   \
          of creators racing for one name exactly one wins */
#define XIO_OPEN_READONLY 0x04 /* no writes, no lease */
#define XIO_OPEN_LEASE                                                                             \
  0x08 /* hold the file's lease (a page blob's; a local file: an flock) while open, which makes    \
          the handle the file's only writer; another leased open of it fails with XIO_EBUSY.       \
          It creates nothing and does not fail on a file that exists: that is CREATE_ONLY */
#define XIO_OPEN_EXCLUSIVE                                                                         \
  XIO_OPEN_LEASE /* the former name of XIO_OPEN_LEASE, the same flag, kept for programs written    \
                    with it: "exclusive" as in one writer, not POSIX O_EXCL */
#define XIO_OPEN_BREAK_LEASE 0x10 /* with LEASE: break another holder's lease (after a crash) */
#define XIO_OPEN_UNALIGNED   0x20 /* allow unaligned writes (read-modify-write) */
#define XIO_OPEN_INCOMPLETE_OK                                                                     \
  0x40 /* open a file marked incomplete (xio_file_set_incomplete); without it such an              \
          open is refused with XIO_ECONFLICT */
#define XIO_OPEN_PINNED                                                                            \
  0x80 /* with READONLY: every read and range listing sees the version of the file the open        \
          saw, or fails with XIO_ECHANGED (see below) */
#define XIO_OPEN_MISSING_OK                                                                        \
  0x200 /* a missing file is an answer the caller expects (an engine asking whether its            \
           journal exists): the open still fails with XIO_ENOTFOUND, but its 404 is traced         \
           with result "ok" (status and code kept) and counts as no failure */
#define XIO_OPEN_MARK_INCOMPLETE                                                                   \
  0x400 /* with CREATE or CREATE_ONLY: a file the open creates is marked incomplete                \
           (xio_file_set_incomplete) by the create itself (a page blob: in its Put Blob), so it    \
           never exists unmarked, whatever stops the transfer into it; a file that exists is       \
           opened as it is */
#define XIO_OPEN_ZEROS_AS_CLEAR                                                                    \
  0x800 /* with LEASE: a write that reaches storage as whole sectors of zeros (a run of            \
           the write queue, or of held writes at a flush, all zero bytes) is sent as a clear       \
           of its range (a page blob: Put Page clear, which ships no bytes and frees the           \
           pages) rather than as a write of zeros; the request count is the same. Without it,      \
           zeros an engine writes are written, as it asked (XIO_INIT_ZERO, a benchmark) */

typedef struct xio_open_options {
  unsigned flags;
  xio_kind kind; /* on create; an existing file keeps the kind it was made with */
  uint64_t size; /* size on create (any value; rounded up to 512 on page blobs) */
  xio_init init; /* how the created size is initialized (default by kind) */
} xio_open_options;

/** Default open options: no flags, data file, size 0. */
xio_open_options xio_open_options_default(void);

/**
 * Opens (and with CREATE / CREATE_ONLY creates, including the container) a file.
 *
 * An existing file is opened as it is: `size`, `kind` and `init` of the options
 * apply only when the open creates the file, so XIO_OPEN_CREATE with a size on an
 * existing file of another size keeps that file's size (xio_file_size tells it; grow
 * or shrink it with xio_file_set_size).
 *
 * XIO_OPEN_LEASE also makes the handle the file's only writer, which the file
 * layer uses: its writes wait in a write queue (up to the context's combining
 * window, xio_ctx_options.combine_window_us) and writes that touch or overlap are
 * sent as one request of up to 4 MiB; the edge sectors of unaligned writes come from
 * what the handle wrote (and zeros past what it wrote of a created, cleared or grown
 * file), read back only when unknown (xio_file_stats.readback_requests).
 *
 * XIO_OPEN_PINNED (with XIO_OPEN_READONLY only) is for readers that assemble a whole
 * copy of a file another client may be writing, such as a download: without it,
 * reads made while a writer writes can mix bytes of two versions. With it, every
 * read and xio_file_ranges listing is of the version the open saw, or fails with
 * XIO_ECHANGED once the file has changed (nothing of a failed read is returned as
 * data). A page blob pins its ETag: reads carry If-Match, and a range listing whose
 * answer names another ETag fails. A local file pins its inode, size, modification
 * and change times, compared after each read and listing: a write that changes none
 * of them (within the file system's timestamp granularity of the open, without
 * changing the size) is not seen. A snapshot never changes, so pinning one costs
 * nothing. To copy a file that is written all the time, read a snapshot of it.
 *
 * Errors: XIO_ENOTFOUND (no such file and no CREATE), XIO_EEXIST (CREATE_ONLY and it
 * exists), XIO_EBUSY (LEASE and another client holds the lease / lock),
 * XIO_EINVAL (bad flags, such as PINNED without READONLY), XIO_EPARSE (bad URL),
 * XIO_EAUTH / XIO_EPERM / XIO_EEXPIRED (credential), XIO_EIO (local), transport
 * errors; detail in `err`.
 */
xio_err xio_file_open(xio_ctx *ctx, const char *target, const xio_open_options *opts,
                      xio_file **out, xio_error *err);

/**
 * Closes a file: sends its held writes (xio_file_hold; drop them first with
 * xio_file_drop_held to discard them), waits for its requests, releases its lease,
 * frees it. The file is freed even when sending or releasing fails (the first
 * failure is returned). `f` may be NULL.
 */
xio_err xio_file_close(xio_file *f, xio_error *err);

/** Deletes the file at `target` (page blob: with its snapshots). It must not be open
 *  in this context. Errors: XIO_ENOTFOUND, XIO_EBUSY (leased), others as open. */
xio_err xio_file_delete(xio_ctx *ctx, const char *target, xio_error *err);

/** Deletes the file at `target` as xio_file_delete does, except that a page blob that
 *  has snapshots is left alone, with them (one Delete Blob request either way; the
 *  service decides, so no snapshot taken meanwhile is lost). Errors: XIO_ECONFLICT
 *  with service code SnapshotsPresent (it has snapshots), others as xio_file_delete. */
xio_err xio_file_delete_unless_snapshots(xio_ctx *ctx, const char *target, xio_error *err);

/** Deletes the file at `target` as xio_file_delete does, when it exists: a missing
 *  file is no failure but the answer the caller expects. Still one Delete Blob
 *  request (or unlink) either way, so nothing is looked up first; its 404 (or ENOENT)
 *  is traced with result "ok", its status and service code kept, like the look
 *  before a create. `deleted` (may be NULL) gets 1 when a file was deleted, 0 when
 *  there was none. Errors: XIO_EBUSY (leased), others as xio_file_delete but
 *  XIO_ENOTFOUND (a missing container counts as a missing file). */
xio_err xio_file_delete_if_exists(xio_ctx *ctx, const char *target, int *deleted, xio_error *err);

/** Reads up to `len` bytes at `offset`; `*nread` (may be NULL) gets the count, which
 *  is short only at the end of the file: bytes of `buf` past `*nread` are left as
 *  they were (not zeroed). Reads larger than 8 MiB on a page blob go out as 8 MiB
 *  Get Blob requests in parallel (writes: 4 MiB Put Pages, the service's limit). A
 *  read of bytes a write still in flight or queued covers may see the old or the new
 *  bytes: wait for the write first (xio_io_wait, xio_file_wait). Errors: XIO_ECHANGED
 *  (opened with XIO_OPEN_PINNED, and the file changed since), storage errors. */
xio_err xio_file_read(xio_file *f, uint64_t offset, void *buf, size_t len, size_t *nread,
                      xio_error *err);

/** Writes `len` bytes at `offset` and returns once storage acknowledged them
 *  (durable then on a page blob; on a local file at the next xio_file_flush, its fsync).
 *  Cost: a synchronous write is sent at once, never waiting for later writes to join
 *  it (only writes already queued go with it): each call costs at least one request
 *  (a page blob: ceil(len / 4 MiB) Put Pages), so a log appended by 1,000 calls costs
 *  1,000 requests. For a stream of small writes take the combining path, on a file
 *  opened XIO_OPEN_LEASE: xio_file_submit each write (or xio_file_hold it), then
 *  xio_file_flush (or xio_file_wait) at the commit, which sends the queued writes that
 *  touch or overlap as one request of up to 4 MiB (docs/engines.md, section 5).
 *  A write that ends past the file's end grows the file to the end this handle knows
 *  of: several writers of one file not opened with XIO_OPEN_LEASE must agree on its
 *  size beforehand (create it at full size or let one writer grow it), since a growth
 *  sets the size outright. Unaligned offsets or lengths need XIO_OPEN_UNALIGNED on a
 *  page blob (else XIO_EALIGN); on a file not opened with XIO_OPEN_LEASE each
 *  unaligned edge sector is written only if no other write reached the file since it
 *  was read, else read and written again.
 *  Errors: XIO_EREADONLY, XIO_ELEASELOST, XIO_EALIGN, XIO_ECONFLICT (an edge sector
 *  changed under other writers on every try; that sector is left as they wrote it),
 *  storage errors. */
xio_err xio_file_write(xio_file *f, uint64_t offset, const void *buf, size_t len, xio_error *err);

/**
 * Tells the file layer that no byte of `f` at or past `offset` is relied on any more,
 * such as the old records past the end of a log that started over from its beginning:
 * on a file opened XIO_OPEN_LEASE, the edge sectors of later unaligned writes are
 * filled there with zeros (or what the handle knows of them) instead of being read
 * back. Nothing is sent and nothing changes on storage now; a later write's edge
 * sector may replace such bytes with zeros. Bytes written after the call are relied
 * on again. No effect on other opens. Never fails; any thread but not while a write
 * of the same range is being submitted on another.
 */
void xio_file_forget_from(xio_file *f, uint64_t offset);

/* ------------------------------------------------------ held writes ---- */

/*
 * Held writes: write-back for an engine that, like SQLite, makes many small writes
 * between syncs and needs them on storage only at the sync. xio_file_hold copies a
 * write into the file's memory and returns: no request. Held writes that overlap or
 * touch are merged (the newest bytes win), reads see them (xio_file_read and read
 * requests of xio_file_submit up to the file's size, xio_file_held_read past it too:
 * the file grows when they are sent), and xio_file_flush sends them,
 * through the write queue that combines them and fills their edge sectors, before it
 * waits: held writes that share or touch a sector go as one request of up to 4 MiB
 * whatever the combining window and the machine's speed. A commit range
 * (xio_file_set_commit_range) is sent last, once every other held write is
 * acknowledged: the engine's header or commit record then changes on storage only
 * when everything it points to is there. Only on a file opened
 * XIO_OPEN_LEASE and writable; the alignment rule of xio_file_write applies. One
 * thread at a time holds, drops and sends the held writes of a file (reads may come
 * from any thread).
 */

/** Holds a copy of `len` bytes of `buf` to be written at `offset`: no request; the
 *  write may end past the file's end (the file grows when it is sent). Errors:
 *  XIO_EINVAL (not opened XIO_OPEN_LEASE), XIO_EREADONLY, XIO_EALIGN, XIO_ERANGE
 *  (the write ends past 2^64 - 1), XIO_ELIMIT (past XIO_FILE_MAX_SIZE), XIO_ENOMEM;
 *  on error nothing is held. */
xio_err xio_file_hold(xio_file *f, uint64_t offset, const void *buf, size_t len, xio_error *err);

/** Copies the held bytes that fall in [offset, offset+len) over `buf`, leaving the
 *  rest of it alone. Returns 1 when held bytes cover the whole range, else 0. */
int xio_file_held_read(xio_file *f, uint64_t offset, void *buf, size_t len);

/** How many bytes are held, and the end of the last one (0 when none). */
uint64_t xio_file_held_bytes(xio_file *f);
uint64_t xio_file_held_end(xio_file *f);

/** Forgets every held byte at or past `offset`, unsent (a truncation, or 0 to discard
 *  them all). Never fails. */
void xio_file_drop_held(xio_file *f, uint64_t offset);

/** Called by xio_file_held_each for one run of held bytes (borrowed for the call). */
typedef void (*xio_held_fn)(uint64_t offset, const void *buf, size_t len, void *ud);

/** Calls `fn` for every run of held bytes, in offset order (runs are disjoint and do
 *  not touch). Not while holding from another thread. */
void xio_file_held_each(xio_file *f, xio_held_fn fn, void *ud);

/** Makes [offset, offset+len) the file's commit range (len 0: none, the default).
 *  xio_file_flush sends the held writes meeting it, with those that share or touch
 *  a sector with them, only after every other held write is acknowledged;
 *  xio_file_send_held leaves its bytes held. */
void xio_file_set_commit_range(xio_file *f, uint64_t offset, uint64_t len);

/** Sends every held byte outside the commit range and waits until all are
 *  acknowledged (no fsync; the file's failure stays for the next flush): bounds the
 *  memory a long transaction holds. Held bytes stay held when a send fails. Errors:
 *  as xio_file_write; XIO_EINVAL from a completion callback. */
xio_err xio_file_send_held(xio_file *f, xio_error *err);

/** Makes [offset, offset+len) read as zeros (inside the file) with `how`: CLEAR or
 *  ZERO (DEFAULT: CLEAR; NONE is refused with XIO_EINVAL). */
xio_err xio_file_zero(xio_file *f, uint64_t offset, uint64_t len, xio_init how, xio_error *err);

/** Sets the file's size. Growing initializes the new bytes with `init` (DEFAULT: by
 *  kind); a 1 TiB log growth with CLEAR is two requests; requests in flight go on
 *  (the bytes they write stay where they are). Shrinking first waits for every
 *  request in flight on the file (queued writes are sent), then discards the tail
 *  and zeroes the rest of the last sector, so bytes past the end read as zero when the
 *  file grows again; a request submitted during the shrink past the new end fails
 *  with XIO_ERANGE or is undone by it. A size past XIO_FILE_MAX_SIZE is refused with
 *  XIO_ELIMIT on every backend. Held writes (xio_file_hold) stay held: drop those
 *  past a new end with xio_file_drop_held. */
xio_err xio_file_set_size(xio_file *f, uint64_t size, xio_init init, xio_error *err);

/** The file's logical size (kept by the client; no request). */
uint64_t xio_file_size(const xio_file *f);

/**
 * Sends the file's held writes (xio_file_hold; the commit range last), waits until
 * every request issued on the file so far has completed (writes still held for
 * combining are sent at once), then makes them durable and returns the
 * first failure among the file's requests since the last flush (clearing it), detail
 * in `err`. What durable means per backend: a page blob's Put Page is durable on the
 * service once acknowledged, so flush sends nothing more; a local file is fsync'ed.
 * Not from a completion callback (XIO_EINVAL); use an XIO_IO_FLUSH request there.
 */
xio_err xio_file_flush(xio_file *f, xio_error *err);

/**
 * Waits until every request issued on `f` so far has completed, sending at once the
 * writes held for combining: no fsync, and the file's first failure stays for the
 * next flush to return. For an engine that must know its writes are acknowledged
 * before it goes on (a page blob's acknowledged write is durable). Returns XIO_OK, or
 * XIO_EINVAL from a completion callback or in a forked child.
 */
xio_err xio_file_wait(xio_file *f, xio_error *err);

/**
 * xio_file_wait for every file open in `ctx`: the group commit of a log and a data
 * file waits once for both. Writes held for combining on every file are sent first,
 * so the files' requests overlap. Errors: as xio_file_wait.
 */
xio_err xio_ctx_wait(xio_ctx *ctx, xio_error *err);

/* Allocated ranges come as xio_ranges, from the shared base (<xio/base.h>). */

/**
 * Appends to `out` the allocated ranges of the file within its logical size: page
 * ranges of a page blob (queried in segments, each request traced as
 * XIOTypeGetRanges), data extents of a local file (SEEK_DATA/SEEK_HOLE). Sorted and
 * merged; bytes outside them read as zero. Free with xio_ranges_clear.
 * Errors: XIO_ENOMEM, XIO_ECHANGED (opened with XIO_OPEN_PINNED, and the file
 * changed since), storage errors.
 */
xio_err xio_file_ranges(xio_file *f, xio_ranges *out, xio_error *err);

/**
 * Appends to `written` the ranges written since snapshot `since` and to `cleared` the
 * ranges cleared since then (each sorted and merged, within the file's size; `cleared`
 * may be NULL). `f` may be the blob itself or a snapshot of it opened as
 * TARGET?snapshot=ID, giving the diff between `since` and that snapshot. Page blobs:
 * Get Page Ranges with prevsnapshot, segmented and paged, each request traced as
 * XIOTypeGetRanges. The lists are the caller's (xio_ranges_clear); on failure they may
 * hold part of the answer. Errors: XIO_EUNSUPPORTED (a local file: local files keep no
 * snapshots to diff against), XIO_ENOTFOUND (no such snapshot), XIO_EINVAL (`since`
 * NULL or empty, no `written` list), XIO_ENOMEM, XIO_ECHANGED (opened with
 * XIO_OPEN_PINNED and the file changed since), storage errors (XIO_ECONFLICT with
 * service code BlobOverwritten: the blob was replaced since the snapshot).
 */
xio_err xio_file_ranges_diff(xio_file *f, const char *since, xio_ranges *written,
                             xio_ranges *cleared, xio_error *err);

/**
 * Takes a snapshot of the file: a read-only, point-in-time copy of everything written
 * before the call (waits for the file's requests in flight first). `id` receives the
 * snapshot's name (`size` bytes, 64 is enough); open it read-only as
 * TARGET?snapshot=ID. Page blobs only: Snapshot Blob, traced as XIOTypeSnapshot.
 * Deleting the file deletes its snapshots. Errors: XIO_EUNSUPPORTED (local files),
 * XIO_ELEASELOST, storage errors.
 */
xio_err xio_file_snapshot(xio_file *f, char *id, size_t size, xio_error *err);

/** The file's kind. */
xio_kind xio_file_kind(const xio_file *f);

/**
 * Changes the kind recorded with the file (a page blob's xiokind metadata, one Set
 * Blob Metadata request traced as XIOTypeSetFileSize; a local file's user.xio.kind)
 * and the default init policy of its later growth. Nothing is written when the kind
 * is already `kind`. For replacing a file's content in place, keeping its snapshots.
 * Errors: XIO_EINVAL (unknown kind), XIO_EREADONLY, XIO_ELEASELOST, storage errors.
 */
xio_err xio_file_set_kind(xio_file *f, xio_kind kind, xio_error *err);

/**
 * Marks the file as holding an unfinished transfer (`incomplete` 1) or clears the
 * mark (0): a page blob's xioincomplete metadata (one Set Blob Metadata request,
 * traced as XIOTypeSetFileSize), a local file's user.xio.incomplete attribute. A
 * marked file opens only with XIO_OPEN_INCOMPLETE_OK and stats as incomplete. Set it
 * before the first data write and clear it after every write is acknowledged
 * (xio_file_flush). Nothing is written when the mark is already so.
 * Errors: XIO_EREADONLY, XIO_ELEASELOST, XIO_EIO (local: no user attributes),
 * storage errors.
 */
xio_err xio_file_set_incomplete(xio_file *f, int incomplete, xio_error *err);

/** 1 when the file was marked incomplete when opened, or since by this client. */
int xio_file_incomplete(const xio_file *f);

/** The file's log-safe name (URL without query, or path). */
const char *xio_file_path(const xio_file *f);

/** The file's backend: "pageblob" or "local". */
const char *xio_file_backend(const xio_file *f);

/** Per-file statistics, like SQL Server's sys.dm_io_virtual_file_stats. */
typedef struct xio_file_stats {
  uint64_t reads, writes; /* read / write operations (API calls) */
  uint64_t bytes_read, bytes_written;
  uint64_t bytes_cleared;      /* zeroed by metadata (clear) */
  uint64_t bytes_zero_written; /* zeroed by writing zeros */
  uint64_t requests;           /* storage requests (xio_send_complete events) */
  uint64_t retries;
  uint64_t failures;                                      /* storage requests that failed */
  uint64_t stall_read_us, stall_write_us, stall_other_us; /* summed request time */
  uint64_t rmw_conflicts; /* edge sectors of unaligned writes read and written again because
                             another writer changed the file in between (HTTP 412 on a page
                             blob; each is a failed request in the trace) */
  uint64_t throttled;     /* tries of the file's requests the service answered with a
                             throttling answer, 503 ServerBusy or 500 OperationTimedOut,
                             whether the request then succeeded or not (each retried try
                             is an xio_failed_request event) */
  /* Storage requests by kind (each also in `requests`; appended). */
  uint64_t read_requests;     /* reads sent (XIOTypeReadFile), read-backs included */
  uint64_t write_requests;    /* writes sent (XIOTypeWriteFile): after combining, one
                                 per Put Page / pwrite, however many API writes it carried */
  uint64_t zero_requests;     /* zeroing requests (XIOTypeZeroFile): clears and zero writes */
  uint64_t readback_requests; /* of read_requests, the edge sectors of unaligned writes
                                 read back because the handle knew nothing of them */
} xio_file_stats;

/** Copies the file's counters into `out`. */
void xio_file_get_stats(const xio_file *f, xio_file_stats *out);

/* ---------------------------------------------------- properties, leases ---- */

/** What the storage says about a file now (see xio_file_stat). Strings are copies. */
typedef struct xio_file_info {
  const char *backend;  /* "pageblob" or "local" (static) */
  xio_kind kind;        /* as recorded with the file */
  uint64_t size;        /* logical size */
  uint64_t stored_size; /* page blob: the blob's size (whole pages); local: st_size */
  uint64_t allocated;   /* local: bytes of the blocks in use (st_blocks); page blob:
                           XIO_UNKNOWN_SIZE, as the service only lists ranges (sum
                           xio_file_ranges with xio_ranges_bytes) */
  char blob_type[16];   /* page blob: "PageBlob"; local: "" */
  /* Lease, as the service reports it. A local file has no lease ("" below): it is
   * locked (flock) only while open with XIO_OPEN_LEASE. */
  char lease_state[16];    /* available, leased, expired, breaking, broken */
  char lease_status[16];   /* locked, unlocked */
  char lease_duration[16]; /* infinite, fixed, or "" */
  char etag[80];           /* page blob: the ETag; local: "" */
  char last_modified[40];  /* page blob: the service's HTTP date; local: ISO 8601 UTC */
  int64_t sequence_number; /* page blob: its sequence number; local: 0 */
  int incomplete;          /* 1: marked as holding an unfinished transfer
                              (xio_file_set_incomplete) */
  char tier[16];           /* page blob: its access tier as the service names it
                              (premium page blobs: P10..P80), "" when it names none
                              (standard page blobs, Azurite); local: "" */
} xio_file_info;

/** xio_file_info.allocated when the backend does not know it. */
#define XIO_UNKNOWN_SIZE UINT64_MAX

/**
 * Fills `out` with the file's properties as the storage has them now: a page blob
 * sends one Get Blob Properties (traced as XIOTypeGetFileSize), a local file is
 * asked with fstat(2) (no request). Errors: storage errors, XIO_EIO (local).
 */
xio_err xio_file_stat(xio_file *f, xio_file_info *out, xio_error *err);

/**
 * The properties of the file at `target` without keeping it open: opens it
 * read-only (traced as XIOTypeOpenFile), xio_file_stat, closes. Errors: those of
 * xio_file_open and xio_file_stat.
 */
xio_err xio_stat(xio_ctx *ctx, const char *target, xio_file_info *out, xio_error *err);

/**
 * 1 once the lease of `f` is known lost: the service refused a request carrying it
 * (another client broke or took it; the lease keeper's next renewal finds out, at
 * most lease_renew_s after), or the lease clock ran past the lease duration with no
 * renewal acknowledged (a paused process). It never comes back: the file's writes
 * fail with XIO_ELEASELOST from then on, and what the caller cached from the file
 * may be stale, as another client may have written it since. 0 while the lease is
 * held, and for a file that holds none (opened without XIO_OPEN_LEASE, or a
 * local file, whose lock cannot be lost). No request; never blocks; any thread.
 */
int xio_file_lease_lost(const xio_file *f);

/**
 * Confirms with the service that the lease of `f` still holds, unless the service
 * confirmed it within the last `max_age_ms` milliseconds of the lease clock: then
 * sends one renewal (Lease Blob renew, traced as XIOTypeLease) and waits for it. A
 * confirmation is an acquire or renewal the service acknowledged (the open's, the
 * lease keeper's, an earlier call's), dated from when it was sent; threads that ask
 * at once share one renewal. For an engine whose flush or commit promises that the
 * lease held when it returned: the keeper alone finds a broken or taken lease only
 * at its next renewal, up to lease_renew_s later. `max_age_ms` 0 asks every time;
 * a small bound (a second) keeps frequent flushes to one request a second at most,
 * and misses only a takeover in that last second.
 * Returns XIO_OK when the lease is confirmed (nothing sent when it was recently
 * enough), and for a file that holds no lease (opened without XIO_OPEN_LEASE,
 * a snapshot, a local file, whose lock cannot be lost). Errors: XIO_ELEASELOST (the
 * lease is lost: known before, or refused now because another client broke or took
 * it or the blob is gone; from then on as xio_file_lease_lost says, and the
 * context's lease_news is told), XIO_ETRANSPORT, XIO_ETIMEDOUT, XIO_ETHROTTLED (the
 * service could not be asked, after the retries), other storage errors (XIO_EAUTH:
 * the credential was refused); after these the lease is not known to hold, but not
 * lost either: the keeper keeps renewing it. XIO_EINVAL: a negative `max_age_ms`, a
 * file of the parent process in a forked child, a call from a completion callback
 * (it would block).
 */
xio_err xio_file_lease_confirm(xio_file *f, int64_t max_age_ms, xio_error *err);

/** A lease action of xio_lease. */
typedef enum xio_lease_action {
  XIO_LEASE_ACQUIRE, /* take the lease (fails XIO_EBUSY when another holds it) */
  XIO_LEASE_RENEW,   /* restart its duration (needs its id) */
  XIO_LEASE_RELEASE, /* give it up (needs its id) */
  XIO_LEASE_BREAK    /* end whoever's lease, after break_period_s */
} xio_lease_action;

typedef struct xio_lease_request {
  xio_lease_action action;
  const char *lease_id; /* acquire: the id to propose (NULL: a fresh one, so a retry
                           after a lost response gets the same lease); renew and
                           release: the lease's id; break: ignored */
  int duration_s;       /* acquire: -1 (infinite) or 15..60 */
  int break_period_s;   /* break: 0..60 seconds to let the lease run on */
} xio_lease_request;

typedef struct xio_lease_result {
  char id[64];     /* acquire: the lease's id; otherwise "" */
  int remaining_s; /* break: seconds until the lease ends; otherwise -1 */
} xio_lease_result;

/**
 * Acts on the lease of the page blob at `target` by hand, as an operator does
 * after a crash left a file leased: one Lease Blob request, traced as
 * XIOTypeLease. This is not the lease a leased open holds (that one the
 * context keeps and releases itself). `out` may be NULL. Errors: XIO_EUNSUPPORTED
 * (a local target: it is locked only while open), XIO_EINVAL (no id for renew or
 * release, a bad duration), XIO_EBUSY (acquire: leased by another), XIO_ELEASELOST
 * (the id given is not the blob's lease; break: there is no lease), XIO_ENOTFOUND,
 * other storage errors.
 */
xio_err xio_lease(xio_ctx *ctx, const char *target, const xio_lease_request *req,
                  xio_lease_result *out, xio_error *err);

/* -------------------------------------- containers, copies, snapshots ---- */

/** One file of a listing (xio_list) or one snapshot (xio_snapshot_list). Strings are
 *  borrowed for the duration of the callback. */
typedef struct xio_list_entry {
  const char *name;           /* the blob's name in its container */
  const char *snapshot;       /* the snapshot's id, or NULL for the blob itself */
  const char *blob_type;      /* "PageBlob", "BlockBlob", "AppendBlob" */
  xio_kind kind;              /* as recorded by xio (data when nothing is recorded) */
  uint64_t size;              /* logical size (xio's recorded size, else stored_size) */
  uint64_t stored_size;       /* the blob's size */
  uint64_t allocated;         /* bytes in its page ranges with XIO_LIST_ALLOCATED (page
                                 blobs), else XIO_UNKNOWN_SIZE */
  const char *lease_state;    /* available, leased, expired, breaking, broken ("" for
                                 snapshots) */
  const char *lease_status;   /* locked, unlocked, or "" */
  const char *lease_duration; /* infinite, fixed, or "" */
  const char *last_modified;  /* the service's HTTP date */
  int incomplete;             /* 1: marked as holding an unfinished transfer
                                 (xio_file_set_incomplete; a snapshot keeps the mark
                                 its blob had when it was taken) */
} xio_list_entry;

/** Called once per entry, in the service's order: by name, a blob's snapshots next
 *  to it (Azure: oldest first, before the blob; Azurite: newest first, around it). Return 0 to go
 * on, anything else to stop the listing (xio_list then returns XIO_ECANCELED). */
typedef int (*xio_list_fn)(const xio_list_entry *e, void *ud);

#define XIO_LIST_SNAPSHOTS 0x1 /* also each blob's snapshots */
#define XIO_LIST_ALLOCATED                                                                         \
  0x2 /* also the allocated bytes of each page blob and                                            \
         snapshot: one more request per entry */

typedef struct xio_list_options {
  const char *prefix; /* only names that start with it, or NULL */
  unsigned flags;     /* XIO_LIST_* */
  int page_size;      /* blobs per List Blobs request: 0 for the service's default
                         (5000), else 1..5000 */
} xio_list_options;

/** Default list options: no prefix, no flags, the service's page size. */
xio_list_options xio_list_options_default(void);

/**
 * Lists the blobs of the container at `container_url` (a container URL, with a SAS
 * that grants list when a SAS is the credential), following the service's
 * continuation markers page by page, and calls `fn` for each. Each List Blobs
 * request is traced as XIOTypeListFiles on the container's log-safe URL, each Get
 * Page Ranges (XIO_LIST_ALLOCATED) as XIOTypeGetRanges on the blob's. `opts` may be
 * NULL. Errors: XIO_EINVAL (a page size outside 0..5000, unknown flags, no callback),
 * XIO_EUNSUPPORTED (a local path: directories are not listed), XIO_EPARSE (a URL that
 * names no container), XIO_ENOTFOUND (no such container), XIO_ECANCELED (`fn`
 * stopped it), XIO_ENOMEM, credential and storage errors.
 */
xio_err xio_list(xio_ctx *ctx, const char *container_url, const xio_list_options *opts,
                 xio_list_fn fn, void *ud, xio_error *err);

/** One container of an account's listing (xio_container_list). Strings are borrowed
 *  for the duration of the callback. */
typedef struct xio_container_entry {
  const char *name;          /* the container's name */
  const char *last_modified; /* the service's HTTP date, or "" */
} xio_container_entry;

/** Called once per container, by name; return 0 to go on, anything else to stop
 *  (xio_container_list then returns XIO_ECANCELED). */
typedef int (*xio_container_fn)(const xio_container_entry *e, void *ud);

/**
 * Lists the containers of the account `account_url` names (its endpoint, such as
 * https://ACCOUNT.blob.core.windows.net or http://127.0.0.1:10000/devstoreaccount1,
 * or any URL in it) whose names start with `prefix` (NULL: all), following the
 * service's continuation markers, and calls `fn` for each. Each List Containers
 * request is traced as XIOTypeListFiles on the account's log-safe URL. A SAS must be
 * an account SAS that grants list. Errors: XIO_EINVAL (no context, URL or callback),
 * XIO_EUNSUPPORTED (a local path), XIO_ECANCELED (`fn` stopped it), XIO_ENOMEM,
 * credential and storage errors.
 */
xio_err xio_container_list(xio_ctx *ctx, const char *account_url, const char *prefix,
                           xio_container_fn fn, void *ud, xio_error *err);

/** Called while a copy runs, with the bytes copied so far and the total, on the
 *  calling thread. */
typedef void (*xio_copy_progress_fn)(uint64_t copied, uint64_t total, void *ud);

#define XIO_COPY_FORCE 0x1 /* replace a destination that exists */

typedef struct xio_copy_options {
  unsigned flags;                /* XIO_COPY_* */
  xio_copy_progress_fn progress; /* or NULL */
  void *progress_ud;
  int poll_ms; /* first wait before asking how a pending copy goes; doubles up to
                  5 s (default 250) */
} xio_copy_options;

/** Default copy options: no flags, no progress, 250 ms first poll. */
xio_copy_options xio_copy_options_default(void);

/** What a finished copy did. */
typedef struct xio_copy_result {
  char copy_id[64];       /* the service's x-ms-copy-id */
  uint64_t size;          /* logical size of the copy (as the source's) */
  uint64_t src_allocated; /* bytes in the source's page ranges */
  uint64_t dst_allocated; /* bytes in the copy's page ranges: equal when the copy
                             kept the source sparse */
  int polls;              /* properties requests made while it was pending */
  int restored;           /* 1: the source was a snapshot of the destination */
} xio_copy_result;

/**
 * Copies the page blob `src` onto `dst` with the service's server-side copy (Copy
 * Blob) and waits until it is done, asking the destination's properties while it
 * is pending. The copy carries the source's page ranges, metadata (xio's kind and
 * logical size) and size. `src` may name a snapshot (URL?snapshot=ID); copying a
 * snapshot onto its own blob restores the blob to it and needs no XIO_COPY_FORCE.
 * A source in another account than `dst` needs a SAS (with read) in its URL; one in
 * the same account is read with the destination's credential. A missing destination
 * container is created. Afterwards both blobs' page ranges are listed to fill
 * `out`'s allocated bytes (`out` may be NULL).
 *
 * Requests are traced on their blob's log-safe URL: properties of the source and
 * the destination as XIOTypeOpenFile, the copy as XIOTypeCopyFile (length: the
 * source's size), polls as XIOTypeGetFileSize, ranges as XIOTypeGetRanges.
 *
 * Errors: XIO_EUNSUPPORTED (a local source or destination: use read and write, or
 * a blob that is not a page blob), XIO_EINVAL (source and destination are the same
 * blob), XIO_ENOTFOUND (no source), XIO_EEXIST (the destination exists and no
 * XIO_COPY_FORCE), XIO_EBUSY (the destination is leased: the copy would replace a
 * file someone holds), XIO_ENOCRED (a source in another account without a SAS),
 * XIO_ECONFLICT (the copy failed or was aborted on the service; the message carries
 * its status description, and the destination is left as the service left it),
 * XIO_ENOMEM, credential and storage errors.
 */
xio_err xio_copy(xio_ctx *ctx, const char *src, const char *dst, const xio_copy_options *opts,
                 xio_copy_result *out, xio_error *err);

/**
 * Lists the snapshots of the page blob at `target` (a blob URL; a SAS must grant
 * list on its container), in the service's order, with one List Blobs request per page
 * (traced as XIOTypeListFiles). Each entry's name is the blob's and its snapshot
 * is set. `flags` takes XIO_LIST_ALLOCATED. Errors: as xio_list; XIO_EUNSUPPORTED
 * for local files.
 */
xio_err xio_snapshot_list(xio_ctx *ctx, const char *target, unsigned flags, xio_list_fn fn,
                          void *ud, xio_error *err);

/**
 * Deletes one snapshot of the page blob at `target`: the one named `id`, or, when
 * `id` is NULL, the one `target` names itself (TARGET?snapshot=ID). The blob and
 * its other snapshots stay. One Delete Blob request, traced as XIOTypeDeleteFile.
 * Errors: XIO_EINVAL (no snapshot named, or two different ones), XIO_EUNSUPPORTED
 * (local files), XIO_ENOTFOUND (no such snapshot), credential and storage errors.
 */
xio_err xio_snapshot_delete(xio_ctx *ctx, const char *target, const char *id, xio_error *err);

/* ---------------------------------------------------------- async I/O ---- */

typedef enum xio_io_op {
  XIO_IO_READ,
  XIO_IO_WRITE,
  XIO_IO_ZERO, /* offset, length, init (CLEAR or ZERO) */
  XIO_IO_FLUSH
} xio_io_op;

typedef struct xio_io xio_io;
typedef void (*xio_io_done_fn)(xio_io *io, void *ud);

/**
 * An asynchronous request. The caller owns the struct and fills the request fields;
 * it must stay valid, untouched, until completion. A completed request (its callback
 * running or returned, or xio_io_poll/xio_io_wait saw it complete) may be submitted
 * again as it is, from its own callback too: submit resets result, transferred and
 * error. `done` (may be NULL) runs once,
 * on an I/O or worker thread, and may free or reuse the request; without it, poll
 * with xio_io_poll() or wait with xio_io_wait(). A request with a callback counts as
 * complete just before its callback runs, so do not free a request you wait on while
 * its callback may still be using it. Flush and close wait for callbacks to return.
 */
struct xio_io {
  /* request */
  xio_io_op op;
  uint64_t offset;
  size_t length;
  void *buf;     /* READ: destination; WRITE: source (const in effect) */
  xio_init init; /* ZERO */
  xio_io_done_fn done;
  void *ud;
  /* result, valid after completion */
  xio_err result;
  size_t transferred; /* bytes read or written */
  xio_error error;
  /* Reserved: the file layer's record of the request (its file, whether it has
   * completed) from submit on. Never read or write it; it keeps xio_io's size. */
  void *reserved_[3];
};

/**
 * Submits `io` on `f`. Reads and writes inside the file go fully asynchronous, split
 * into requests issued concurrently (writes of at most 4 MiB, reads of at most
 * 8 MiB on page blobs). On a file opened XIO_OPEN_LEASE a write joins the file's
 * write queue (see xio_file_open) and completes, with its own callback, once the
 * request that carried its bytes is acknowledged; overlapping writes reach storage in
 * the order they were submitted. Returns XIO_OK when submitted
 * (the result then comes with completion), or an error when the request was refused
 * at once (io->done is then not called). A request that needs no storage request
 * (empty, or a read at the end of the file) completes before submit returns.
 * A write past the end first grows the file, and an unaligned write first reads its
 * edge sectors (on a file not opened with XIO_OPEN_LEASE, also writes them back, each on
 * condition that the file is unchanged, retried with backoff when it is not): both
 * block the caller for that step, and from a completion callback they are refused
 * with XIO_EINVAL.
 */
xio_err xio_file_submit(xio_file *f, xio_io *io, xio_error *err);

/** 1 when `io` has completed. Polling does not hurry a write held in the write queue
 *  for combining: it goes when the window passes (or use xio_io_wait). */
int xio_io_poll(const xio_io *io);

/** Waits for `io` to complete and returns its result; a write held in the write queue
 *  is sent at once. */
xio_err xio_io_wait(xio_io *io);

#ifdef __cplusplus
}
#endif
#endif /* XIO_XIO_H */
