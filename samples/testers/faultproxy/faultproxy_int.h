/*
 * faultproxy_int.h - what the files of the fault proxy share, never installed:
 *   http.c     HTTP/1.1 on sockets: buffers, waits, reading and framing requests and
 *              responses, forwarding one request to the upstream;
 *   conn.c     the proxy's life: listening, the acceptor, one thread per client
 *              connection that reads, admits and serves each request;
 *   faults.c   scripted and random faults: choosing one for a request, applying it;
 *   records.c  what the proxy saw (records) and counted (stats), and its observer;
 *   checksums.c the front's CRC-64 answers to reads that ask for one.
 * Every function here is thread-safe in the sense of faultproxy.h: state shared
 * between connection threads lives in struct faultproxy under its mutexes.
 */
#ifndef XIO_FAULTPROXY_INT_H
#define XIO_FAULTPROXY_INT_H

#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "faultproxy.h"

#define TICK_MS 50
/* Deadlines against slow clients (what nginx's client_header_timeout and Apache's
 * mod_reqtimeout header=, body=20,MinRate=500 give): a connection idle IDLE_MS
 * between requests, or before its first, is closed; a request's head must be whole
 * HEAD_MS after its first byte (both defaults: faultproxy_set_deadlines); a body may
 * take BODY_GRACE_MS, and then must come at BODY_MIN_RATE bytes/s on average. */
#define IDLE_MS       30000
#define HEAD_MS       10000
#define BODY_GRACE_MS 20000
#define BODY_MIN_RATE 500
/* With every slot taken, a connection idle IDLE_GRACE_MS (not one just accepted), or
 * whose head has been coming HEAD_GRACE_MS, may be cut to make room. */
#define IDLE_GRACE_MS 250
#define HEAD_GRACE_MS 1000
#define IO_TIMEOUT_MS 30000 /* longest wait for the rest of a message */
#define MAX_HEAD      (64u * 1024)
#define MAX_BODY      (64u * 1024 * 1024)

/* One scripted fault and its uses left. */
typedef struct slot {
  faultproxy_fault f; /* strings point at the copies below */
  char *method, *match, *error_code;
  int skipped;
  int left;
} slot;

/* What the front knows of one blob: its size, as seen in the requests that set it,
 * and its throttling buckets. */
typedef struct blob_entry {
  char path[512];    /* "/account/container/blob", "" when the entry is free */
  int64_t size;      /* -1: not seen */
  double req_tokens; /* throttling: requests left in the bucket */
  double byte_tokens;
  int64_t refilled_us; /* when the buckets were last refilled */
  int64_t used_us;     /* last use, to pick an entry to recycle */
} blob_entry;

#define FRONT_BLOBS 1024

/* One range of a page list: <PageRange> (clear 0) or <ClearRange> (clear 1). */
typedef struct prange {
  uint64_t start, end;
  int clear;
} prange;

/* What the front remembers of snapshots and the changes after them (diffs.c). */
typedef struct diffs diffs;

/* A diff the front answers: the ranges changed (malloc'd, sorted), and the target's
 * size and ETag. */
typedef struct diff_answer {
  prange *ranges;
  size_t n;
  int64_t size;
  char etag[64];
} diff_answer;

/* The throttling buckets of the account. */
typedef struct bucket {
  double req_tokens, byte_tokens;
  int64_t refilled_us;
} bucket;

/* The front's state (front.c, fidelity.c, throttle.c), under the proxy's mu. */
typedef struct front {
  faultproxy_profile prof;
  bucket account;
  uint64_t over; /* answers over a target so far, for prof.timeout_every */
  blob_entry blobs[FRONT_BLOBS];
  diffs *diffs;    /* NULL when it could not be made: diffs answer as Azurite does */
  int64_t born_us; /* second 0 of the timeline */
  faultproxy_second timeline[FAULTPROXY_TIMELINE_S]; /* the throttle's counts */
} front;

/* An answer of the front's own making, in Azure's shape. */
typedef struct refusal {
  int status;
  char code[64];
  char message[160];
  char detail[320]; /* extra XML elements after <Message>, or "" */
} refusal;

/* Where a client connection is (conn.phase). The acceptor, when every slot is taken,
 * may move an IDLE or HEAD connection to CUT (compare-and-swap, so never one that has
 * moved on); its thread's waits then end and it closes the connection. */
enum {
  CONN_IDLE,    /* waiting for a request's first byte: keep-alive, or a new connection */
  CONN_HEAD,    /* reading a request's head */
  CONN_BODY,    /* reading its body */
  CONN_SERVING, /* the request is admitted: answering it */
  CONN_CUT      /* cut by the acceptor to make room */
};

/* One client connection and its thread. */
typedef struct conn {
  faultproxy *p;
  int no;
  int fd;
  pthread_t thread;
  atomic_int phase;         /* CONN_* */
  _Atomic int64_t since_us; /* when it entered its phase */
  atomic_int done;          /* the thread has finished: join it */
} conn;

struct faultproxy {
  int lfd;
  char endpoint[64];
  struct sockaddr_storage up_addr;
  socklen_t up_len;
  atomic_int stop;
  atomic_int head_ms, idle_ms; /* faultproxy_set_deadlines */
  pthread_t acceptor;
  pthread_mutex_t mu;
  slot faults[FAULTPROXY_MAX_FAULTS]; /* under mu */
  int nfaults;                        /* under mu */
  faultproxy_record *records;         /* under mu */
  int nrecords;                       /* under mu */
  int next_no;                        /* under mu */
  faultproxy_rates rates;             /* under mu */
  int rates_on;                       /* under mu */
  faultproxy_stats stats;             /* under mu */
  front *front;                       /* under mu; NULL: no fidelity front ("none") */
  faultproxy_observer observer;       /* under obs_mu */
  void *observer_ud;
  pthread_mutex_t obs_mu;            /* one observer call at a time, in the order of the counts */
  conn *conns[FAULTPROXY_MAX_CONNS]; /* acceptor thread only, then free */
  int nconns;                        /* open (or not yet joined) connections */
  int conns_made;                    /* connections over the proxy's life */
};

/* The fault chosen for one request, copied out of its slot. */
typedef struct action {
  faultproxy_kind kind;
  int rule; /* the random fault's faultproxy_rule, -1 when scripted or none */
  int stall_ms, status, retry_after_ms, retry_after_s;
  char code[64];
} action;

/* A growable byte buffer. */
typedef struct buf {
  char *d;
  size_t n, cap;
} buf;

/* Where one request or response lies at the start of a buffer. */
typedef struct msg {
  size_t head_len; /* start line and headers, with the blank line */
  size_t body_len; /* bytes of body as framed (raw chunks for chunked) */
  size_t total;    /* head_len + body_len */
  int status;      /* responses: the status code */
  int until_close; /* responses: the body ran to the end of the connection */
} msg;

/* What a connection thread knows of the request it serves. */
typedef struct request {
  msg m;
  char method[16];
  int is_head;
  int client_close; /* "Connection: close" */
  int no;           /* the proxy's request number */
  int rec;          /* index in the record, -1 when the record is full */
} request;

/** 1 once faultproxy_free has begun: every wait ends. */
static inline int faultproxy__stopping(faultproxy *p) { return atomic_load(&p->stop); }

/* ------------------------------------------------------------ http.c ---- */

/** Microseconds on the monotonic clock. */
int64_t faultproxy__now_us(void);

/** Closes `fd` so that the peer sees a reset (RST), not an orderly end. */
void faultproxy__reset_close(int fd);

/** Drops the first `k` bytes of `b`, keeping what follows (a pipelined message). */
void faultproxy__buf_consume(buf *b, size_t k);

/** Waits for `events` on `fd` in TICK_MS slices: 1 ready, 0 timed out after `ms`,
 *  -1 when the proxy is stopping or poll fails. */
int faultproxy__wait_fd(faultproxy *p, int fd, short events, int ms);

/** Reads what `fd` has into `b`, waiting until `end_us` (monotonic, faultproxy__now_us)
 *  at most. A client connection's `phase` (NULL for none) ends the wait once it is
 *  CONN_CUT. >0 bytes read, 0 at the end of the stream, -1 on error, timeout, cut,
 *  stop or a message too large. */
ssize_t faultproxy__fill(faultproxy *p, int fd, buf *b, int64_t end_us, const atomic_int *phase);

/** Sends all `n` bytes: 0, or -1 if the peer went away, it timed out or the proxy is
 *  stopping. */
int faultproxy__send_all(faultproxy *p, int fd, const char *d, size_t n);

/** Copies the value of header `name` (case-insensitive) of the head `h` (`len`
 *  bytes) into `out`, trimmed and cut to fit: 1 if found, else 0 and "". */
int faultproxy__header(const char *h, size_t len, const char *name, char *out, size_t size);

/** Reads until `b` holds a whole head, by `end_us` at most (`phase` as for
 *  faultproxy__fill); sets m->head_len. 1 done, 0 the peer closed before a byte,
 *  -1 error, deadline missed or cut. */
int faultproxy__read_head(faultproxy *p, int fd, buf *b, msg *m, int64_t end_us,
                          const atomic_int *phase);

/** Reads until `b` holds at least `want` bytes: 0, or -1 on error or early end. */
int faultproxy__read_to(faultproxy *p, int fd, buf *b, size_t want);

/** Parses the request line and framing of the head in `b` into `r`: 0, or -1 when
 *  refused (malformed, a chunked body, a body over MAX_BODY). */
int faultproxy__parse_request(const buf *b, request *r);

/** Copies the request target (path and query) of the head in `b`. */
void faultproxy__request_target(const buf *b, size_t head_len, char *out, size_t size);

/** Sends the request in `in` to a fresh upstream connection and reads the whole
 *  final response into `out` (framed in `resp`): 0, or -1 the upstream failed. */
int faultproxy__exchange(faultproxy *p, const buf *in, const request *r, buf *out, msg *resp);

/* ------------------------------------------------------------ faults.c ---- */

/** Under mu: the first matching scripted fault with uses left (spent once), else the
 *  random fault drawn for the request, copied into `a` (kind NONE for none). */
void faultproxy__pick_fault(faultproxy *p, const faultproxy_record *rec, action *a);

/** Answers with the service error `a` describes, of the proxy's own making:
 *  0, or -1 when the client is gone. */
int faultproxy__send_status(faultproxy *p, int fd, const request *r, const action *a, int no);

/** Holds a stalled request `ms`: 1 when the client is still there afterwards, 0 when
 *  it hung up or the proxy is stopping. */
int faultproxy__hold(faultproxy *p, int fd, int ms);

/** Sends the response's head and half its body, then ends the connection in order. */
void faultproxy__send_torn(faultproxy *p, int fd, const buf *resp, const msg *m, const action *a);

/* ------------------------------------------------------------ records.c ---- */

/** Numbers and records the request in `b`, counts it and chooses its fault. */
void faultproxy__admit(faultproxy *p, const buf *b, request *r, int conn_no, action *a);

/** Notes the service's answer (status 0: none) and when the client was answered. */
void faultproxy__note_answer(faultproxy *p, const request *r, int status, const char *code);

/** Tells the observer the counts have changed (call without mu held). */
void faultproxy__notify(faultproxy *p);

/** Counts a random fault as applied (scripted ones show in the records). */
void faultproxy__count_fault(faultproxy *p, const action *a);

/* ------------------------------------------------------------ fidelity.c ---- */
/* (faultproxy__front_answer lives in answers.c) */

/** Before a request is forwarded: 1 with `out` filled when the front answers it in
 *  the service's place (a limit of Azure's, or over the profile's targets: counted),
 *  else 0. */
int faultproxy__front_refuse(faultproxy *p, const buf *in, const request *r, refusal *out);

/** Fills `out` with a refusal (status, Azure's error code and message) and returns 1,
 *  so a check can `return faultproxy__refuse(...)`. */
int faultproxy__refuse(refusal *out, int status, const char *code, const char *message);

/** After the service answered: makes the response in `up` (framed by `m`) what Azure
 *  would send (pages of Get Page Ranges, the byte-order mark on XML bodies) and notes
 *  what it says of blob sizes. On a failure to rewrite, the response stays as it was. */
void faultproxy__front_answer(faultproxy *p, const buf *in, const request *r, buf *up, msg *m);

/** Sends `f` as the service would: status, x-ms-error-code, an XML error body with the
 *  BOM and Azure's RequestId/Time lines, no retry hint. 0, or -1 client gone. */
int faultproxy__send_refusal(faultproxy *p, int fd, const request *r, const refusal *f);

/** The value of query parameter `name` of `target`, percent-decoded, into `out`:
 *  1 found, 0 not ("" then). */
int faultproxy__query(const char *target, const char *name, char *out, size_t size);

/* ------------------------------------------------------------ diffs.c ---- */

/** A new, empty memory of snapshots (the clock read now marks which snapshot ids
 *  predate it), or NULL out of memory. */
diffs *faultproxy__diffs_new(void);

/** Frees `d` and all it holds; NULL is fine. */
void faultproxy__diffs_free(diffs *d);

/** Under mu: notes what the successful answer in `up` (framed by `m`) to the request
 *  in `in` says of a blob's pages, size, ETag and snapshots. Others are ignored. */
void faultproxy__diffs_note(diffs *d, const buf *in, const request *r, const char *target,
                            const buf *up, const msg *m);

/** Under mu: the diff a Get Page Ranges with prevsnapshot (`target`: its path and
 *  query) asks for, over the whole target, whose size and ETag the service's own
 *  answer gave (`seen_size` -1 and `seen_etag` "" when it gave none: the front's are
 *  used): 0 with `out` filled (out->ranges the caller's to free), or 1 with the
 *  refusal to send in `no`: Azure's answers
 *  (400 InvalidQueryParameterValue, 400 PreviousSnapshotCannotBeNewer, 404
 *  BlobNotFound, 409 PreviousSnapshotNotFound, 409 BlobOverwritten), or 501
 *  APINotImplemented naming the snapshot when the front did not see it made. */
int faultproxy__diffs_answer(diffs *d, const char *target, int64_t seen_size, const char *seen_etag,
                             diff_answer *out, refusal *no);

/** Under mu: the snapshots of blob `path` the front saw made and not deleted. */
size_t faultproxy__diffs_count(diffs *d, const char *path);

/** Frees a front and what it holds; NULL is fine. */
void faultproxy__front_free(front *f);

/* ------------------------------------------------------------ checksums.c ---- */

/** The CRC-64/NVME of `n` bytes at `data` (x-ms-content-crc64 before base64). */
uint64_t faultproxy__crc64(const void *data, size_t n);

/** After the service answered a Get Blob that asked for x-ms-range-get-content-crc64:
 *  adds x-ms-content-crc64, the CRC-64 of the body in `up`, as Azure answers it
 *  (Azurite does not). Any other answer, or one the front cannot read whole (chunked,
 *  over 4 MiB), stays as it was; so does this one when memory runs out. */
void faultproxy__front_read_checksum(const buf *in, const request *r, buf *up, msg *m);

/* ------------------------------------------------------------ throttle.c ---- */

/** Under mu: the entry of blob `path` (made, or recycled from the least recently
 *  used, when new). Never NULL. */
blob_entry *faultproxy__blob(front *f, const char *path, int64_t now_us);

/** The seconds of its rate a throttling bucket of profile `pr` holds. */
double faultproxy__burst_s(const faultproxy_profile *pr);

/** Under mu: takes one request and `bytes` from the blob's and the account's buckets;
 *  1 with a 503 ServerBusy in `out` when either is spent, else 0. */
int faultproxy__throttle(front *f, const char *path, uint64_t bytes, refusal *out);

#endif
