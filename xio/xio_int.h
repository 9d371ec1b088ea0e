/*
 * xio_int.h - inside the file layer: the context, the file base struct every
 * backend embeds first, the backend method table, and the sub-requests through
 * which the generic layer (io.c, file.c) drives a backend.
 *
 * The split follows SQLite's sqlite3_io_methods and Redis's rio: a backend does
 * only storage I/O, one request at a time; splitting into <= max_request pieces,
 * bounds and alignment checks, growth before writes past the end, read-modify-write
 * of unaligned edges, sticky errors and the per-file API counters live in the
 * generic layer. Every storage request of either backend ends in one completion
 * hook, xio__request_done, which alone emits its trace event and counts it in the
 * file's statistics: a page-blob request passes it from the engine (every call the
 * engine completes does, whoever sent it), a local one from the local backend's
 * one runner of system calls.
 */
#ifndef XIO_XIO_INT_H
#define XIO_XIO_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include <xio/blob.h> /* the page-blob backend's REST calls; never in xio.h */
#include <xio/url_int.h>
#include <xio/xio.h>

#include "tracked_int.h"

typedef struct xio_backend xio_backend;
typedef struct xio__sub xio__sub;

/* ------------------------------------------------------------ requests ---- */

/**
 * What a storage request is for: how its trace event names it and which file counts
 * it. A page-blob request carries it as its call's tag (xio__send, xio__submit); a
 * call without one is traced all the same, by its operation and log-safe URL.
 */
typedef struct xio__req {
  xio_request_type type;
  xio_file *file; /* the file whose statistics count it, or NULL */
  uint64_t offset, length;
  /** What the finished call means to the file layer where that is not its result
   *  (a pinned read refused by If-Match: XIO_ECHANGED); NULL: its result. */
  xio_err (*judge)(const xio_blob_call *c, const struct xio__req *r);
  /** A "not found" answer the caller expects and handles (the open that looks before
   *  it creates, the first try of a create in a missing container): NULL, none; "",
   *  any XIO_ENOTFOUND; else only with this service error code. Such an answer is no
   *  failure: traced with result "ok" (its status and code kept), not counted in
   *  xio_file_stats.failures. */
  const char *expect_missing;
} xio__req;

/** How a storage request ended. */
typedef struct xio__outcome {
  const char *path;       /* log-safe; traced when the request counts on no file */
  int http_status;        /* 0: local, or no response */
  const char *error_code; /* service code, or NULL / "" */
  const char *request_id; /* "" when none */
  const char *client_request_id;
  int64_t duration_us;
  int retries;
  xio_err result;
} xio__outcome;

/** 1 when `o` is the not-found answer `r` expects (xio__req.expect_missing). */
int xio__outcome_expected(const xio__req *r, const xio__outcome *o);

/** The completion hook: every storage request of either backend comes here once,
 *  when it ends, and nothing else emits xio_send_complete or counts requests. Emits
 *  the event and adds the request to r->file's statistics (requests, retries,
 *  failures, stall time by type) when it names a file. Any thread. */
void xio__request_done(xio_ctx *ctx, const xio__req *r, const xio__outcome *o);

/** The engine's hooks (the context sets them when it starts its engine, with itself
 *  as their user data, see trace.c): each call the engine completes goes to
 *  xio__request_done; each try that failed and is sent again becomes an
 *  xio_failed_request event, and each try answered with a throttling answer counts
 *  in its file's statistics. */
void xio__trace_call_done(const xio_blob_call *c, void *ctx);
void xio__trace_try_done(const xio_blob_try_info *t, void *ctx);

/** Sends `c`, tagged with `r` (borrowed until the call completes), on the context's
 *  engine and waits for it (send.c). Returns the call's result, detail in `err`:
 *  storage errors, and XIO_EINVAL on the engine's I/O thread, where it cannot wait. */
xio_err xio__send(xio_ctx *ctx, xio_blob_call *c, const xio__req *r, xio_error *err);

/** As xio__send, and when the service answers that the call's container is missing,
 *  creates it and sends `c` once more (xio_blob_send_in_container); errors as
 *  xio__send's. */
xio_err xio__send_in_container(xio_ctx *ctx, xio_blob_call *c, const xio__req *r, xio_error *err);

/** Submits `c`, tagged with `r` (borrowed until the call completes), on the context's
 *  engine; `done(c, ud)` runs on the I/O thread once it completes. */
void xio__submit(xio_ctx *ctx, xio_blob_call *c, const xio__req *r, xio_blob_done_fn done,
                 void *ud);

/* ---------------------------------------------------------------- subs ---- */

typedef enum xio__sub_op { XIO__SUB_READ, XIO__SUB_WRITE, XIO__SUB_CLEAR } xio__sub_op;

/** The stored file's version (a page blob's ETag), as a conditional sub uses it. */
typedef struct xio__version {
  char tag[80]; /* "" until a READ with XIO__SUB_VERSION_OUT fills it */
  int changed;  /* set by a WRITE with XIO__SUB_IF_VERSION that found another version */
} xio__version;

/* Sub flags (xio__sub.flags). A backend whose alignment is more than 1 honours both:
 * the generic layer fences read-modify-writes across clients with them.
 * VERSION_OUT (READ): stores in `version->tag` the file's version the data read
 *   belongs to.
 * IF_VERSION (WRITE): writes only if the file's version is still `version->tag`;
 *   else writes nothing, sets `version->changed` and completes with XIO_ECONFLICT. */
#define XIO__SUB_VERSION_OUT 0x1u
#define XIO__SUB_IF_VERSION  0x2u

/**
 * One storage-sized piece of an xio_io: at most the backend's max_request bytes for
 * READ and WRITE (any length for CLEAR). WRITE with `zeroing` set writes zeros for
 * an init policy and is traced as XIOTypeZeroFile. The backend completes it with
 * xio__sub_done exactly once, from any thread.
 */
struct xio__sub {
  xio__sub_op op;
  xio_file *file;
  uint64_t offset;
  size_t length;         /* READ/WRITE bytes */
  uint64_t clear_length; /* CLEAR bytes */
  void *buf;             /* READ into / WRITE from */
  int zeroing;
  unsigned flags;        /* XIO__SUB_* */
  xio__version *version; /* with a flag: the caller's, valid until the sub completes */
  struct xio__io_state *owner;
  void *backend_data; /* the backend's own, e.g. its blob call */
  xio__req req;       /* what its storage request is for, filled by the backend */
};

/** Completes a sub with its result; `detail` may be NULL on success; `transferred`
 *  bytes were read or written. */
void xio__sub_done(xio__sub *s, xio_err result, const xio_error *detail, size_t transferred);

/* ------------------------------------------------------------- backend ---- */

/**
 * A backend: version 1. Methods marked (sync) run on the caller's thread with the
 * file's size lock held; (async) methods start one storage request and return at
 * once, completing it later with xio__sub_done.
 */
struct xio_backend {
  int version;
  const char *name;   /* "pageblob", "local" */
  size_t alignment;   /* 512 (writes must cover whole sectors) or 1 */
  size_t max_request; /* largest WRITE/ZERO sub (4 MiB for page blobs: Put Page's limit) */
  size_t max_read;    /* largest READ sub when reads are not checked (8 MiB for page
                         blobs: see backend_pageblob.c) */

  /** (sync) Opens or creates `target` per `opts` (flags already checked) and returns a
   *  file whose base struct the backend filled with xio__file_init. A created file has
   *  opts->size bytes that read as zero; `*created` tells whether it was created (the
   *  generic layer then applies the init policy). Errors: XIO_ENOTFOUND, XIO_EEXIST,
   *  XIO_EBUSY (exclusive and held elsewhere), storage errors. */
  xio_err (*open)(xio_ctx *ctx, const char *target, const xio_open_options *opts, xio_file **out,
                  int *created, xio_error *err);

  /** (async) READ, WRITE or CLEAR of one sub. */
  void (*submit)(xio_file *f, xio__sub *s);

  /** (sync) Sets the stored size to `size` (logical; the backend rounds up to its own
   *  granularity and records the logical size if it differs). New bytes read as zero. */
  xio_err (*resize)(xio_file *f, uint64_t size, xio_error *err);

  /** (sync) Makes written data durable (local: fsync; page blob: nothing to do). */
  xio_err (*sync)(xio_file *f, xio_error *err);

  /** (sync) Releases what the open took (lease, descriptor) and frees the file. */
  xio_err (*close)(xio_file *f, xio_error *err);

  /** (sync) Deletes `target` per `how` (XIO__REMOVE_*): its snapshots too with
   *  XIO__REMOVE_SNAPSHOTS, else a file that has snapshots stays (XIO_ECONFLICT,
   *  service code SnapshotsPresent); with XIO__REMOVE_IF_EXISTS a missing file is
   *  an expected answer (traced "ok"), still returned as XIO_ENOTFOUND. */
  xio_err (*remove)(xio_ctx *ctx, const char *target, unsigned how, xio_error *err);

  /** (sync) Appends the allocated ranges of [0, logical size) to `out`, each storage
   *  request traced as XIO_REQ_RANGES. */
  xio_err (*ranges)(xio_file *f, xio_ranges *out, xio_error *err);

  /** (sync) Takes a read-only point-in-time copy; its id goes to `id` (`size` bytes),
   *  traced as XIO_REQ_SNAPSHOT. Errors: XIO_EUNSUPPORTED where the backend has none. */
  xio_err (*snapshot)(xio_file *f, char *id, size_t size, xio_error *err);

  /** (sync) Fills the backend's fields of `out` (all but backend, kind and size) from
   *  the storage, a request traced as XIO_REQ_GET_SIZE where it makes one. */
  xio_err (*stat)(xio_file *f, xio_file_info *out, xio_error *err);

  /** (sync) Acts on the lease of `target` (a request checked by the generic layer),
   *  traced as XIO_REQ_LEASE. Errors: XIO_EUNSUPPORTED where the backend has none. */
  xio_err (*lease)(xio_ctx *ctx, const char *target, const xio_lease_request *req,
                   xio_lease_result *out, xio_error *err);

  /** (sync) Records f->kind (already set by the generic layer) with the stored file.
   *  NULL where the backend cannot (the generic layer answers XIO_EUNSUPPORTED). */
  xio_err (*set_kind)(xio_file *f, xio_error *err);

  /** (sync) Records f->incomplete (already set by the generic layer) with the stored
   *  file. NULL where the backend cannot (XIO_EUNSUPPORTED). */
  xio_err (*set_incomplete)(xio_file *f, xio_error *err);

  /** (sync) Appends the ranges of [0, logical size) written since snapshot `since` to
   *  `written` and those cleared since to `cleared` (may be NULL), each storage request
   *  traced as XIO_REQ_RANGES. Errors: XIO_EUNSUPPORTED where the backend keeps no
   *  snapshots. */
  xio_err (*ranges_diff)(xio_file *f, const char *since, xio_ranges *written, xio_ranges *cleared,
                         xio_error *err);

  /** What one request costs, in bytes of transfer: a flush joins held runs whose gaps
   *  are smaller, where one read and one write of the whole span cost less than a
   *  request per run (flush.c). 0: requests cost nothing beside their bytes (never
   *  join). */
  size_t request_bytes;

  /** The largest READ sub the storage checks end to end (page blobs: 4 MiB, the
   *  largest range the service answers a transactional checksum for); 0: every read
   *  is checked, or none is. While the context checks reads (its checksum is not
   *  XIO_CHECKSUM_NONE), reads are split at this size, so that no byte reaches the
   *  engine without the storage's word for it. */
  size_t max_checked_read;
};

#define XIO__REMOVE_SNAPSHOTS 0x1 /* backend remove: with the file's snapshots */
#define XIO__REMOVE_IF_EXISTS 0x2 /* backend remove: a missing file is expected */

extern const xio_backend xio__pageblob_backend;
extern const xio_backend xio__local_backend;

/** Splits `url` into a copy without its snapshot= query parameter (`*base`, which
 *  keeps every other parameter, a SAS included) and that parameter's decoded value
 *  (`*id`, NULL when absent). Both malloc'd (release `*base` with
 *  xio_auth_secret_free: it may hold a SAS). Errors: XIO_EINVAL (two snapshot
 *  parameters), XIO_EPARSE (a bad escape in the id), XIO_ENOMEM. (target_parts.c) */
xio_err xio__target_split_snapshot(const char *url, char **base, char **id, xio_error *err);

/** The path a local target names: a path as is, or a file:// URL (host empty or
 *  localhost) with its %XX escapes decoded. `*out` is malloc'd. Errors: XIO_EPARSE
 *  (naming the target), XIO_ENOMEM. (target_parts.c) */
xio_err xio__target_local_path(const char *target, char **out, xio_error *err);

/** Picks the backend for a target by xio_target_classify: http(s):// URLs go to page
 *  blobs, paths and file:// URLs to the local backend; NULL for any other scheme. */
const xio_backend *xio__backend_for(const char *target);

/* ---------------------------------------------------------------- file ---- */

/* ------------------------------- pending writes (pending.c and its neighbours) ---- */

#define XIO__KNOWN_SECTORS 8 /* partial sectors an exclusive handle remembers */

typedef struct xio__run xio__run;

/** The writes of a file not yet acknowledged by storage, and what its handle knows
 *  of the file's sectors (pending.c). One map of pending runs by offset holds both
 *  kinds of unsent run, told apart by their policy: runs held until a flush
 *  (xio_file_hold: byte-exact, disjoint, sent at a flush, the commit range last) and
 *  the open queued run (a file held alone: aligned, sent when its combining window
 *  passes or someone waits). Runs leave the map when they close, into the send
 *  list, in the order they closed, and stay there until acknowledged. */
typedef struct xio__pending {
  int enabled;        /* opened XIO_OPEN_LEASE and writable */
  pthread_mutex_t mu; /* everything below */
  xio__run **map;     /* unsent runs by start offset */
  size_t n, cap;
  xio__run *open; /* the queued run in the map that writes may still join, or NULL */
  xio__run *out;  /* closed runs, in the order they closed: due, then in flight */
  uint64_t held_bytes;
  uint64_t commit_off, commit_end; /* [off, end) of held bytes sent last; empty: none */
  uint64_t zero_from;              /* every byte from here on reads as zero, or holds nothing the
                                      engine relies on (xio_file_forget_from) */
  uint64_t gen; /* counts the writes queued, to notice one made during a read-back */
  int batches;  /* flushes turning held runs into queued ones: no window sends */
  unsigned clock;
  struct xio__sector {
    uint64_t offset;
    int used;
    unsigned stamp;
    char *data; /* one sector */
  } known[XIO__KNOWN_SECTORS];
  /* under the context's window lock (window.c) */
  int armed;
  int64_t deadline_us;
  struct xio_file *next_armed;
} xio__pending;

/** Sets up / releases the pending writes of a new file (after its flags and size are
 *  set). */
void xio__pending_init(xio_file *f);
void xio__pending_release(xio_file *f);

/** Records a checked held write (file.c checked the arguments), merged into the held
 *  runs it overlaps or touches, the newest bytes winning. Errors: XIO_ENOMEM. */
xio_err xio__pending_hold(xio_file *f, uint64_t off, const void *buf, size_t len, xio_error *err);

/** Copies the held bytes that fall in [off, off+len) over `buf`: what an engine's
 *  read must see (io.c, through f->overlay_held). */
void xio__pending_overlay(xio_file *f, uint64_t off, void *buf, size_t len);

/** Queues the write `st` (begun on `f`, no subs) of its io's range from `src`, merging
 *  it into the open run where it can; reads back an edge sector only where nothing is
 *  known of it (blocking). On error nothing was queued and `st` is still the
 *  caller's. Errors: XIO_ENOMEM, storage errors of a read-back. */
xio_err xio__pending_write(xio_file *f, struct xio__io_state *st, const void *src, xio_error *err);

/** Sends the held runs and waits for them: all of them, the commit range's last once
 *  the rest is acknowledged (`keep_commit` 0), or every held byte outside the commit
 *  range, which stays held (`keep_commit` 1). On success what was sent is no longer
 *  held; on failure nothing is forgotten. Errors: as xio_file_write. */
xio_err xio__pending_flush(xio_file *f, int keep_commit, xio_error *err);

/** Sends every queued run of `f` as soon as the order of writes allows. Any thread;
 *  never waits. Nothing on a file without a queue. */
void xio__pending_kick(xio_file *f);

/** 1 when no run is queued or in flight. */
int xio__pending_idle(xio_file *f);

/** Forgets what the handle knows of the sectors in [from, to) (a zeroing: `zeros`
 *  1, whole sectors there now read as zero). */
void xio__pending_forget(xio_file *f, uint64_t from, uint64_t to, int zeros);

/** The file shrank to `size`: sectors past it are known no more. */
void xio__pending_shrunk(xio_file *f, uint64_t size);

/** The file reads as zeros everywhere (just created). */
void xio__pending_all_zero(xio_file *f);

/** Takes the file off the window's timer (close, after the queue drained). */
void xio__pending_disarm(xio_file *f);

/** The context's combining window in microseconds (<0: none, send at once). */
int xio__ctx_combine_window_us(const xio_ctx *ctx);

/* The base struct: first member of every backend's file struct. */
struct xio_file {
  const xio_backend *backend;
  xio_ctx *ctx;
  /* Wired by file.c when the file is made, so that the I/O floor (io.c) reaches the
   * parts above it without naming them: sends the queued runs now (a wait or a
   * flush needs them on the wire: window.c), and overlays held bytes on an
   * engine's read (pending.c). */
  void (*send_queued)(xio_file *f);
  void (*overlay_held)(xio_file *f, uint64_t off, void *buf, size_t len);
  char *path; /* log-safe */
  xio_kind kind;
  int incomplete; /* marked as holding an unfinished transfer (read by the backend's open) */
  unsigned flags;
  pthread_mutex_t size_mu; /* serializes size changes */
  _Atomic uint64_t size;   /* logical size */
  pthread_mutex_t io_mu;   /* in-flight count and the sticky error */
  pthread_cond_t io_cv;
  int inflight;
  xio_err sticky; /* first failure since the last flush */
  xio_error sticky_detail;
  pthread_mutex_t rmw_mu; /* sector ranges under read-modify-write */
  pthread_cond_t rmw_cv;
  struct xio__rlock *rmw_locked;
  struct xio__io_state *flush_waiting; /* async flushes waiting for in-flight I/O */
  struct xio__lease *lease;            /* the lease an exclusive open holds, or NULL */
  struct {
    _Atomic uint64_t reads, writes, bytes_read, bytes_written, bytes_cleared, bytes_zero_written,
        requests, retries, failures, stall_read_us, stall_write_us, stall_other_us, rmw_conflicts,
        throttled, read_requests, write_requests, zero_requests, readback_requests;
  } stats;
  xio__pending pend;           /* writes not yet acknowledged, known sectors (pending.c) */
  xio__tracked_node open_node; /* in the context's set of open files */
};

/* ------------------------------------------------------------ io.c ---- */

/** A job for the local workers. */
typedef struct xio__job {
  void (*run)(struct xio__job *job);
  struct xio__job *next;
} xio__job;

/** A locked sector range [first, end) of a file (read-modify-write). */
typedef struct xio__rlock {
  uint64_t first, end;
  struct xio__rlock *next;
} xio__rlock;

/** Waits until no locked range overlaps `l`'s, then locks it. */
void xio__rlock_acquire(xio_file *f, xio__rlock *l);
/** Unlocks `l`; may be called from any thread. */
void xio__rlock_release(xio_file *f, xio__rlock *l);

/** The state of one submitted xio_io: its subs, the first failure, the count of
 *  subs still out, and what to release when it completes. */
typedef struct xio__io_state {
  xio_io *io;
  xio_file *file;
  _Atomic int pending;
  _Atomic size_t transferred;
  pthread_mutex_t mu; /* first failure */
  xio_err first;
  xio_error detail;
  size_t report_len; /* transferred to report on success (RMW), or 0 */
  void *tmp;         /* owned buffer freed at completion (RMW), or NULL */
  xio__rlock lock;   /* held until completion when lock_held */
  int lock_held;
  int internal;  /* not an API call: counts no read/write */
  int no_sticky; /* a failure the submitter handles (a conditional write it retries): not
                    recorded as the file's sticky error */
  struct xio__io_state *next_flush;
  struct xio__io_state *next_member; /* in its run (queue.c) */
  xio__job job; /* finishing or flushing on a worker: no allocation, so it cannot fail */
  int nsubs, cap;
  xio__sub subs[];
} xio__io_state;

/** Allocates the state of `io` on `f` with room for `nsubs` subs, counting the io as
 *  in flight on the file. Errors: XIO_ENOMEM. */
xio_err xio__io_begin(xio_file *f, xio_io *io, int nsubs, xio__io_state **out, xio_error *err);

/** Adds a sub to `st`. */
xio__sub *xio__io_add(xio__io_state *st, xio__sub_op op, uint64_t offset, size_t length, void *buf);

/** Hands every sub of `st` to the backend; the io completes when the last finishes
 *  (at once, on this thread, when there are none). */
void xio__io_launch(xio__io_state *st);

/** Completes `st` at once with `rc` (nothing was sent). */
void xio__io_fail(xio__io_state *st, xio_err rc, const xio_error *detail);

/** Completes `st`, which has no subs, with `rc` (XIO_OK: `detail` may be NULL) on a
 *  worker rather than on this thread: for an io whose requests the submitter made
 *  itself (fenced edge sectors), so that its callback runs where every completion
 *  of a request that was sent does. */
void xio__io_finish_elsewhere(xio__io_state *st, xio_err rc, const xio_error *detail);

/** Queues an async flush: it completes once every I/O in flight on the file has. */
void xio__io_flush(xio_file *f, xio__io_state *st);

/** Initializes the base of a new file. Errors: XIO_ENOMEM. */
xio_err xio__file_init(xio_file *f, const xio_backend *b, xio_ctx *ctx, const char *path,
                       xio_kind kind, unsigned flags, uint64_t size);

/** Releases what xio__file_init took (not `f` itself). */
void xio__file_release(xio_file *f);

/* ------------------------------------------------------------- context ---- */

/** Queues `job` for a worker thread. */
void xio__ctx_run(xio_ctx *ctx, xio__job *job);

/** 1 when the calling thread is one of the context's I/O or worker threads. */
int xio__ctx_on_io_thread(xio_ctx *ctx);

/** A 4 MiB buffer of zeros shared by every zero-writing request (read-only). */
const void *xio__ctx_zeros(const xio_ctx *ctx);
size_t xio__ctx_zeros_len(const xio_ctx *ctx);

/** The context's options (copied at creation; no strings: see ctx.c). */
const xio_ctx_options *xio__ctx_options(const xio_ctx *ctx);

/** The context's REST engine (borrowed, lives as long as the context). */
xio_blob_engine *xio__ctx_engine(xio_ctx *ctx);

/**
 * Makes a blob target for `url` with the credential the context resolves for it
 * before every request (creds.c, <xio/credentials.h>): a SAS in the URL, else one
 * set through the API, the credential file's longest matching prefix, the
 * connection string, AZURE_STORAGE_ACCOUNT/KEY, AZURE_STORAGE_SAS_TOKEN (for that
 * account), else for https an Entra ID token, else anonymous. The caller frees
 * `*out`. Errors: those of xio_blob_target_new, and of getting a token.
 */
xio_err xio__ctx_blob_target(xio_ctx *ctx, const char *url, xio_blob_target **out, xio_error *err);

/** XIO_OK when the calling process is the one that made `ctx`; in a child forked
 *  from it (which has none of its threads) XIO_EINVAL, with a message that names
 *  fork, before anything is touched. One getpid(). */
xio_err xio__ctx_check_process(const xio_ctx *ctx, xio_error *err);

/** The context's set of open files: a file adds its open_node once opened and
 *  removes it on close; xio_ctx_free closes the files still in it. */
xio__tracked *xio__ctx_open_files(xio_ctx *ctx);

/* Lease keeper (lease.c): renews the leases of exclusively opened page blobs. */
typedef enum xio__lease_state {
  XIO__LEASE_HELD = 0,
  XIO__LEASE_REFUSED, /* the service refused a request carrying it */
  XIO__LEASE_EXPIRED  /* unrenewed for a whole duration, as the lease clock counts */
} xio__lease_state;

typedef struct xio__lease xio__lease;
struct xio__lease {
  xio_file *file;
  xio_blob_target *target; /* borrowed from the file */
  char id[64];
  _Atomic int lost;           /* xio__lease_state; never goes back to HELD */
  _Atomic int64_t expires_us; /* lease clock: from here on the service may end it */
  int64_t due_us;             /* lease clock: next renewal, under the keeper's lock */
  int confirming;             /* xio_file_lease_confirm is renewing it (keeper's lock) */
  int renewing;               /* the keeper's renewal is on its way (keeper's lock) */
  int64_t renew_sent_us;      /* lease clock: when that renewal was sent */
  xio__req renew_req;         /* its tag, alive until it completes */
  xio__lease *next;
};

/** The context's lease clock (xio_ctx_options.lease_clock), microseconds. */
int64_t xio__lease_now(const xio_ctx *ctx);

/** Starts renewing `l` (file and target set), acquired by a request sent at
 *  `sent_us` on the lease clock. */
void xio__lease_keep(xio_ctx *ctx, xio__lease *l, int64_t sent_us);

/** Stops renewing `l` (waits if a renewal of it is under way). */
void xio__lease_forget(xio_ctx *ctx, xio__lease *l);

/** 1 while requests may go out under `l`; 0 once it is lost, marking it EXPIRED
 *  when the lease clock has passed its expiry. Any thread; never blocks. */
int xio__lease_valid(xio__lease *l);

/** Marks `l` lost for `why` unless it is lost already (the first reason stays). */
void xio__lease_lose(xio__lease *l, xio__lease_state why);

/** Waits for `io` to complete on this thread (sending its write queue run first when
 *  it waits in one) and returns its result: what xio_io_wait does, for the layer's own
 *  requests (io.c). */
xio_err xio__io_wait(xio_io *io);

/* ------------------------------------------- pieces and internal requests (plan.c) ---- */

/** How many pieces of at most `piece` bytes cover `len` bytes. */
int xio__count_pieces(uint64_t len, size_t piece);

/** Cuts [off, off+len) of `buf` into subs of `st` of at most `piece` bytes (each from
 *  `buf` itself when `zeroing`: a buffer of zeros sent again and again). */
void xio__add_pieces(xio__io_state *st, xio__sub_op op, uint64_t off, uint64_t len, char *buf,
                     size_t piece, int zeroing);

/** Launches internal request `st` (of `io`) and waits for it on this thread; its error
 *  into `err`. */
xio_err xio__wait_internal(xio__io_state *st, xio_io *io, xio_error *err);

/** The largest read request of `f`: a checked range at most, while reads are checked. */
size_t xio__read_piece(const xio_file *f);

/** Reads [off, off+n) of `f` into buf on this thread, clamped to the logical size
 *  (the rest is left alone), as an internal request. Errors: storage. */
xio_err xio__read_internal(xio_file *f, uint64_t off, void *buf, size_t n, xio_error *err);

/** Makes [off, end) (aligned for the backend) read as zero with CLEAR or ZERO, as an
 *  internal request waited for on this thread. Errors: storage. */
xio_err xio__zero_internal(xio_file *f, uint64_t off, uint64_t end, xio_init how, xio_error *err);

/** XIO_ELIMIT for a size past XIO_FILE_MAX_SIZE (`what` names the operation). */
xio_err xio__check_max_size(const char *what, uint64_t size, xio_error *err);

/** Grows `f` to at least `end` bytes (new bytes read as zero); nothing when it is that
 *  large already. Errors: XIO_ELIMIT past XIO_FILE_MAX_SIZE, the backend's resize. */
xio_err xio__grow_to(xio_file *f, uint64_t end, xio_error *err);

/* ---------------------------------------- what requests become (rw.c) ---- */

/** 1 on the engine's I/O thread (a completion callback), where nothing may block. */
int xio__in_callback(const xio_file *f);

/** XIO_EINVAL: `what` would block, and it was asked from a completion callback. */
xio_err xio__refuse_in_callback(xio_file *f, const char *what, xio_error *err);

/** XIO_EREADONLY when `f` was opened read-only ("cannot WHAT PATH"). */
xio_err xio__check_writable(xio_file *f, const char *what, xio_error *err);

/** XIO_EALIGN for a range not aligned for the backend, unless `f` takes unaligned
 *  writes. */
xio_err xio__check_aligned(xio_file *f, uint64_t off, uint64_t len, const char *what,
                           xio_error *err);

/** Sends the queued writes and waits until nothing is in flight on `f`. */
void xio__wait_idle(xio_file *f);

/** Submits `io` (op, range and buffer already checked for presence; the process
 *  checked): a read, a write, a zero or a flush, as xio_file_submit documents. */
xio_err xio__rw_submit(xio_file *f, xio_io *io, xio_error *err);

/** Grows (zeroing per `init`, already resolved) or shrinks `f` to `size` under its
 *  size lock. Errors: storage. */
xio_err xio__rw_resize(xio_file *f, uint64_t size, xio_init init, xio_error *err);

#endif
