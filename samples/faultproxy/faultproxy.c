/*
 * faultproxy.c - the fault-injecting HTTP/1.1 proxy of faultproxy.h.
 *
 * One acceptor thread takes connections on 127.0.0.1 and starts one thread per
 * connection. A connection thread reads one request at a time from its client,
 * numbers and records it, picks the first scripted fault that matches, and serves it:
 * usually by opening a fresh connection to the upstream, sending the request there,
 * reading the whole framed response and passing it back. A fresh upstream connection
 * per request keeps the proxy free of stale keep-alive connections to the service;
 * client connections stay alive, as the client under test expects.
 *
 * A request that no scripted fault claims may get a random one (faultproxy_set_rates),
 * drawn from its request number and the seed; what was applied is counted by kind.
 * Every wait is a poll() of at most TICK_MS that also checks the stop flag, so
 * faultproxy_free ends every thread promptly. Finished connection threads are
 * joined when the next connection arrives, so a long-running proxy stays bounded.
 */
#define _GNU_SOURCE
#include "faultproxy.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define TICK_MS       50
#define IDLE_MS       30000 /* a client connection idle this long is closed */
#define IO_TIMEOUT_MS 30000 /* longest wait for the rest of a message */
#define MAX_HEAD      (64u * 1024)
#define MAX_BODY      (64u * 1024 * 1024)

typedef struct slot {
  faultproxy_fault f; /* strings point at the copies below */
  char *method, *match, *error_code;
  int skipped;
  int left;
} slot;

typedef struct conn {
  faultproxy *p;
  int no;
  int fd;
  pthread_t thread;
  atomic_int done; /* the thread has finished: join it */
} conn;

struct faultproxy {
  int lfd;
  char endpoint[64];
  struct sockaddr_storage up_addr;
  socklen_t up_len;
  atomic_int stop;
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

/* ------------------------------------------------------------ basics ---- */

static int64_t now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int stopping(faultproxy *p) { return atomic_load(&p->stop); }

/* Closes `fd` so that the peer sees a reset (RST), not an orderly end. */
static void reset_close(int fd) {
  struct linger l = {1, 0};
  setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
  close(fd);
}

/* Makes room for `extra` more bytes. 0 on success, -1 past MAX_HEAD+MAX_BODY or ENOMEM. */
static int buf_reserve(buf *b, size_t extra) {
  if (b->n + extra > MAX_HEAD + MAX_BODY) return -1;
  if (b->n + extra <= b->cap) return 0;
  size_t cap = b->cap ? b->cap : 16384;
  while (cap < b->n + extra)
    cap *= 2;
  char *d = realloc(b->d, cap);
  if (!d) return -1;
  b->d = d;
  b->cap = cap;
  return 0;
}

/* Drops the first `k` bytes, keeping what follows (a pipelined next message). */
static void buf_consume(buf *b, size_t k) {
  if (k >= b->n) {
    b->n = 0;
    return;
  }
  memmove(b->d, b->d + k, b->n - k);
  b->n -= k;
}

/* Waits for `events` on `fd` in TICK_MS slices. 1 ready, 0 timed out after `ms`,
 * -1 when the proxy is stopping. */
static int wait_fd(faultproxy *p, int fd, short events, int ms) {
  int64_t end = now_us() + (int64_t)ms * 1000;
  for (;;) {
    if (stopping(p)) return -1;
    int64_t left = (end - now_us()) / 1000;
    if (left <= 0) return 0;
    struct pollfd pfd = {fd, events, 0};
    int r = poll(&pfd, 1, left < TICK_MS ? (int)left : TICK_MS);
    if (r > 0) return 1;
    if (r < 0 && errno != EINTR) return -1;
  }
}

/* Reads what `fd` has into `b`, waiting up to `ms`. >0 bytes read, 0 at the end of
 * the stream, -1 on error, timeout, stop or a message too large. */
static ssize_t fill(faultproxy *p, int fd, buf *b, int ms) {
  if (buf_reserve(b, 65536) != 0) return -1;
  int64_t end = now_us() + (int64_t)ms * 1000;
  for (;;) {
    int64_t left = (end - now_us()) / 1000;
    if (left <= 0 || wait_fd(p, fd, POLLIN, (int)left) != 1) return -1;
    ssize_t r = recv(fd, b->d + b->n, b->cap - b->n, MSG_DONTWAIT);
    if (r > 0) b->n += (size_t)r;
    if (r >= 0) return r;
    if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK) return -1;
  }
}

/* Sends all `n` bytes, never blocking past a poll slice. 0 on success, -1 if the
 * peer went away, it timed out or the proxy is stopping. */
static int send_all(faultproxy *p, int fd, const char *d, size_t n) {
  while (n) {
    if (wait_fd(p, fd, POLLOUT, IO_TIMEOUT_MS) != 1) return -1;
    ssize_t w = send(fd, d, n, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (w < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
    if (w <= 0) return -1;
    d += w;
    n -= (size_t)w;
  }
  return 0;
}

static uint64_t fnv1a(const char *s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
  return h;
}

/* ------------------------------------------------------------ parsing ---- */

static const char *find_crlf(const char *s, size_t n) {
  for (size_t i = 0; i + 1 < n; i++)
    if (s[i] == '\r' && s[i + 1] == '\n') return s + i;
  return NULL;
}

static const char *find_blank_line(const char *s, size_t n) {
  for (size_t i = 0; i + 3 < n; i++)
    if (memcmp(s + i, "\r\n\r\n", 4) == 0) return s + i;
  return NULL;
}

/* Copies the value of header `name` (case-insensitive) from the head `h` of `len`
 * bytes into `out`, trimmed and truncated to fit. 1 if found, else 0 and "". */
static int header(const char *h, size_t len, const char *name, char *out, size_t size) {
  size_t nl = strlen(name);
  const char *end = h + len, *line = find_crlf(h, len);
  out[0] = '\0';
  while (line && (line += 2) < end) {
    const char *eol = find_crlf(line, (size_t)(end - line));
    if (!eol || eol == line) return 0;
    if ((size_t)(eol - line) > nl && line[nl] == ':' && strncasecmp(line, name, nl) == 0) {
      const char *v = line + nl + 1, *ve = eol;
      while (v < ve && (*v == ' ' || *v == '\t'))
        v++;
      while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t'))
        ve--;
      size_t k = (size_t)(ve - v) < size - 1 ? (size_t)(ve - v) : size - 1;
      memcpy(out, v, k);
      out[k] = '\0';
      return 1;
    }
    line = eol;
  }
  return 0;
}

/* Content-Length of a head: 1 and *out when present and valid, 0 when absent,
 * -1 when malformed or over MAX_BODY. */
static int content_length(const char *h, size_t len, size_t *out) {
  char v[32];
  if (!header(h, len, "Content-Length", v, sizeof v)) return 0;
  char *end;
  errno = 0;
  unsigned long long n = strtoull(v, &end, 10);
  if (errno || end == v || *end || v[0] == '-' || n > MAX_BODY) return -1;
  *out = (size_t)n;
  return 1;
}

static int is_chunked(const char *h, size_t len) {
  char v[64];
  return header(h, len, "Transfer-Encoding", v, sizeof v) && strcasestr(v, "chunked");
}

/* Reads until `b` holds a complete head; sets m->head_len. The first byte may take
 * `first_ms` (an idle keep-alive connection), the rest IO_TIMEOUT_MS. 1 done, 0 the
 * peer closed before a byte, -1 error. */
static int read_head(faultproxy *p, int fd, buf *b, msg *m, int first_ms) {
  const char *blank;
  while (!(blank = find_blank_line(b->d ? b->d : "", b->n))) {
    if (b->n > MAX_HEAD) return -1;
    ssize_t r = fill(p, fd, b, b->n ? IO_TIMEOUT_MS : first_ms);
    if (r == 0 && b->n == 0) return 0;
    if (r <= 0) return -1;
  }
  m->head_len = (size_t)(blank - b->d) + 4;
  return 1;
}

/* Reads until `b` holds at least `want` bytes. 0 done, -1 error or early end. */
static int read_to(faultproxy *p, int fd, buf *b, size_t want) {
  while (b->n < want)
    if (fill(p, fd, b, IO_TIMEOUT_MS) <= 0) return -1;
  return 0;
}

/* Reads a line ending at or after `pos`; returns the offset of its CRLF, or -1. */
static long read_line(faultproxy *p, int fd, buf *b, size_t pos) {
  const char *crlf;
  while (!(crlf = find_crlf(b->d + pos, b->n - pos))) {
    if (b->n - pos > 4096 || fill(p, fd, b, IO_TIMEOUT_MS) <= 0) return -1;
  }
  return (long)(crlf - b->d);
}

/* Frames a chunked body starting at m->head_len, reading as needed. Chunks and
 * trailers stay as they came: the proxy passes them through. 0 done, -1 error. */
static int read_chunked(faultproxy *p, int fd, buf *b, msg *m) {
  size_t pos = m->head_len;
  for (;;) {
    long eol = read_line(p, fd, b, pos);
    if (eol < 0) return -1;
    char *end;
    unsigned long long size = strtoull(b->d + pos, &end, 16);
    if (end == b->d + pos || size > MAX_BODY) return -1;
    pos = (size_t)eol + 2;
    if (size == 0) break;
    if (read_to(p, fd, b, pos + (size_t)size + 2) != 0) return -1;
    pos += (size_t)size + 2;
  }
  for (;;) { /* trailers, up to the blank line */
    long eol = read_line(p, fd, b, pos);
    if (eol < 0) return -1;
    int blank = (size_t)eol == pos;
    pos = (size_t)eol + 2;
    if (blank) break;
  }
  m->body_len = pos - m->head_len;
  return 0;
}

/* Reads a close-delimited body: everything until the upstream ends the stream. */
static int read_until_close(faultproxy *p, int fd, buf *b, msg *m) {
  ssize_t r;
  while ((r = fill(p, fd, b, IO_TIMEOUT_MS)) > 0) {
  }
  if (r < 0) return -1;
  m->body_len = b->n - m->head_len;
  m->until_close = 1;
  return 0;
}

static int parse_status(const char *h, size_t len) {
  if (len < 12 || strncmp(h, "HTTP/1.", 7) != 0) return -1;
  char *end;
  long s = strtol(h + 9, &end, 10);
  return (end == h + 12 && s >= 100 && s <= 599) ? (int)s : -1;
}

/* Reads one whole response (status line to last body byte) from the upstream into
 * `b`. `is_head`: the request was HEAD, so no body follows. 0 done, -1 error. */
static int read_response(faultproxy *p, int fd, buf *b, int is_head, msg *m) {
  memset(m, 0, sizeof *m);
  if (read_head(p, fd, b, m, IO_TIMEOUT_MS) != 1) return -1;
  if ((m->status = parse_status(b->d, m->head_len)) < 0) return -1;
  size_t cl = 0;
  int has_cl = content_length(b->d, m->head_len, &cl);
  int rc = 0;
  if (is_head || m->status < 200 || m->status == 204 || m->status == 304)
    m->body_len = 0;
  else if (is_chunked(b->d, m->head_len))
    rc = read_chunked(p, fd, b, m);
  else if (has_cl == 1)
    rc = read_to(p, fd, b, m->head_len + cl), m->body_len = cl;
  else if (has_cl == 0)
    rc = read_until_close(p, fd, b, m);
  else
    rc = -1;
  m->total = m->head_len + m->body_len;
  return rc;
}

/* Parses the request line and framing of the head in `b`. 0 ok, -1 refused. */
static int parse_request(const buf *b, request *r) {
  const char *sp = memchr(b->d, ' ', r->m.head_len);
  size_t ml = sp ? (size_t)(sp - b->d) : 0;
  if (!ml || ml >= sizeof r->method) return -1;
  memcpy(r->method, b->d, ml);
  r->method[ml] = '\0';
  r->is_head = strcmp(r->method, "HEAD") == 0;
  char v[32];
  r->client_close =
      header(b->d, r->m.head_len, "Connection", v, sizeof v) && strcasecmp(v, "close") == 0;
  if (is_chunked(b->d, r->m.head_len)) {
    fprintf(stderr, "faultproxy: refusing a chunked request body\n");
    return -1;
  }
  size_t cl = 0;
  if (content_length(b->d, r->m.head_len, &cl) < 0) return -1;
  r->m.body_len = cl;
  r->m.total = r->m.head_len + cl;
  return 0;
}

/* Copies the request target (between the two spaces of the request line). */
static void request_target(const buf *b, size_t head_len, char *out, size_t size) {
  const char *eol = find_crlf(b->d, head_len);
  const char *s = memchr(b->d, ' ', head_len);
  const char *e = s ? memchr(s + 1, ' ', (size_t)(eol - s - 1)) : NULL;
  out[0] = '\0';
  if (!s || !e) return;
  size_t k = (size_t)(e - s - 1) < size - 1 ? (size_t)(e - s - 1) : size - 1;
  memcpy(out, s + 1, k);
  out[k] = '\0';
}

/* ------------------------------------------------------ faults, records ---- */

static int slot_matches(slot *s, const faultproxy_record *rec) {
  const faultproxy_fault *f = &s->f;
  if (s->left <= 0) return 0;
  if (f->method && strcmp(f->method, rec->method) != 0) return 0;
  if (f->match && !strstr(rec->target, f->match)) return 0;
  if (f->request_no && f->request_no != rec->no) return 0;
  if (f->kind == FAULTPROXY_CORRUPT_BODY && rec->body_len == 0) return 0;
  if (s->skipped < f->skip) {
    s->skipped++;
    return 0;
  }
  return 1;
}

/* Under mu: the random fault of rule `rule` as an action. */
static void random_fault(const faultproxy_rates *r, int rule, action *a) {
  static const faultproxy_kind kinds[FAULTPROXY_NRULES] = {
      FAULTPROXY_STATUS,        FAULTPROXY_STATUS, FAULTPROXY_RESET,
      FAULTPROXY_LOST_RESPONSE, FAULTPROXY_TORN,   FAULTPROXY_STALL};
  a->rule = rule;
  a->kind = kinds[rule];
  a->stall_ms = r->stall_ms > 0 ? r->stall_ms : 3000;
  if (rule == FAULTPROXY_RULE_503) {
    a->status = 503;
    a->retry_after_ms = r->retry_after_ms > 0 ? r->retry_after_ms : 1000;
    a->retry_after_s = (a->retry_after_ms + 999) / 1000;
    snprintf(a->code, sizeof a->code, "ServerBusy");
  } else if (rule == FAULTPROXY_RULE_500) {
    a->status = 500;
    snprintf(a->code, sizeof a->code, "OperationTimedOut");
  }
}

/* Under mu: the first matching scripted fault with uses left, spent once, copied to
 * `a`; else the random fault drawn for the request, if any. */
static void pick_fault(faultproxy *p, const faultproxy_record *rec, action *a) {
  memset(a, 0, sizeof *a);
  a->rule = -1;
  for (int i = 0; i < p->nfaults; i++) {
    slot *s = &p->faults[i];
    if (!slot_matches(s, rec)) continue;
    s->left--;
    a->kind = s->f.kind;
    a->stall_ms = s->f.stall_ms;
    a->status = s->f.status;
    a->retry_after_ms = s->f.retry_after_ms;
    a->retry_after_s = s->f.retry_after_s;
    snprintf(a->code, sizeof a->code, "%s", s->f.error_code ? s->f.error_code : "ServerBusy");
    return;
  }
  int rule = p->rates_on ? faultproxy_rates_draw(&p->rates, (uint64_t)rec->no) : -1;
  if (rule >= 0) random_fault(&p->rates, rule, a);
}

/* Tells the observer the counts have changed: before the client is answered, so a
 * client that has its answer can read counts that include it. */
static void notify(faultproxy *p) {
  pthread_mutex_lock(&p->obs_mu);
  if (p->observer) {
    faultproxy_stats now;
    faultproxy_stats_get(p, &now);
    p->observer(&now, p->observer_ud);
  }
  pthread_mutex_unlock(&p->obs_mu);
}

/* Counts a random fault as applied (scripted ones are seen in the records). */
static void count_fault(faultproxy *p, const action *a) {
  if (a->rule < 0) return;
  pthread_mutex_lock(&p->mu);
  p->stats.injected[a->rule]++;
  pthread_mutex_unlock(&p->mu);
  notify(p);
}

/* Fills a record from the request head in `b`. */
static void describe(const buf *b, const request *r, int conn_no, faultproxy_record *rec) {
  char auth[1024];
  memset(rec, 0, sizeof *rec);
  rec->conn = conn_no;
  snprintf(rec->method, sizeof rec->method, "%s", r->method);
  request_target(b, r->m.head_len, rec->target, sizeof rec->target);
  header(b->d, r->m.head_len, "x-ms-client-request-id", rec->client_request_id,
         sizeof rec->client_request_id);
  header(b->d, r->m.head_len, "x-ms-date", rec->date, sizeof rec->date);
  header(b->d, r->m.head_len, "x-ms-range", rec->range, sizeof rec->range);
  rec->has_auth = header(b->d, r->m.head_len, "Authorization", auth, sizeof auth);
  rec->auth_fingerprint = rec->has_auth ? fnv1a(auth) : 0;
  memset(auth, 0, sizeof auth);
  rec->body_len = r->m.body_len;
  rec->received_us = now_us();
}

/* Numbers and records the request, and chooses its fault. */
static void admit(faultproxy *p, const buf *b, request *r, int conn_no, action *a) {
  faultproxy_record rec;
  describe(b, r, conn_no, &rec);
  pthread_mutex_lock(&p->mu);
  rec.no = r->no = ++p->next_no;
  p->stats.requests++;
  pick_fault(p, &rec, a);
  rec.fault = a->kind;
  r->rec = p->nrecords < FAULTPROXY_MAX_RECORDS ? p->nrecords++ : -1;
  if (r->rec >= 0) p->records[r->rec] = rec;
  pthread_mutex_unlock(&p->mu);
  notify(p);
}

/* Notes the service's answer (status 0: none) and the time the client was answered. */
static void note_answer(faultproxy *p, const request *r, int status, const char *code) {
  pthread_mutex_lock(&p->mu);
  if (r->rec >= 0) {
    faultproxy_record *rec = &p->records[r->rec];
    if (status) rec->upstream_status = status;
    if (code) snprintf(rec->upstream_error, sizeof rec->upstream_error, "%s", code);
    rec->answered_us = now_us();
  }
  pthread_mutex_unlock(&p->mu);
}

/* ------------------------------------------------------------ serving ---- */

static const char *reason(int status) {
  switch (status) {
  case 400: return "Bad Request";
  case 403: return "Forbidden";
  case 404: return "Not Found";
  case 408: return "Request Timeout";
  case 409: return "Conflict";
  case 412: return "Precondition Failed";
  case 429: return "Too Many Requests";
  case 500: return "Internal Server Error";
  case 502: return "Bad Gateway";
  case 503: return "Service Unavailable";
  case 504: return "Gateway Timeout";
  default: return "Injected";
  }
}

/* Answers with a service error of the proxy's own making. 0 ok, -1 client gone. */
static int send_status(faultproxy *p, int fd, const request *r, const action *a, int no) {
  char body[512], head[1024], hints[128] = "";
  int bl = snprintf(body, sizeof body,
                    "<?xml version=\"1.0\" encoding=\"utf-8\"?><Error><Code>%s</Code>"
                    "<Message>Injected by faultproxy for request %d.</Message></Error>",
                    a->code, no);
  int hl = 0;
  if (a->retry_after_ms > 0)
    hl += snprintf(hints, sizeof hints, "x-ms-retry-after-ms: %d\r\n", a->retry_after_ms);
  if (a->retry_after_s > 0)
    snprintf(hints + hl, sizeof hints - (size_t)hl, "Retry-After: %d\r\n", a->retry_after_s);
  int n = snprintf(head, sizeof head,
                   "HTTP/1.1 %d %s\r\nContent-Type: application/xml\r\nContent-Length: %d\r\n"
                   "x-ms-error-code: %s\r\nx-ms-request-id: faultproxy-%d\r\n%s\r\n",
                   a->status, reason(a->status), bl, a->code, no, hints);
  note_answer(p, r, a->status, a->code);
  count_fault(p, a);
  if (send_all(p, fd, head, (size_t)n) != 0) return -1;
  return r->is_head ? 0 : send_all(p, fd, body, (size_t)bl);
}

/* Holds a stalled request for `ms`. 1 when the client is still there afterwards, 0
 * when it hung up (or the proxy is stopping). */
static int hold(faultproxy *p, int fd, int ms) {
  int64_t end = now_us() + (int64_t)ms * 1000;
  int watch = 1;
  while (!stopping(p)) {
    int64_t left = (end - now_us()) / 1000;
    if (left <= 0) return 1;
    int slice = left < TICK_MS ? (int)left : TICK_MS;
    if (!watch) {
      poll(NULL, 0, slice);
      continue;
    }
    struct pollfd pfd = {fd, POLLIN, 0};
    if (poll(&pfd, 1, slice) <= 0) continue;
    char c;
    ssize_t r = recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) continue;
    if (r <= 0) return 0; /* hung up */
    watch = 0;            /* bytes waiting (a next request): stop watching, keep holding */
  }
  return 0;
}

/* A new connection to the upstream, connected within IO_TIMEOUT_MS; -1 on failure.
 * The socket stays non-blocking: every read and write polls first. */
static int connect_upstream(faultproxy *p) {
  int fd = socket(p->up_addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return -1;
  int err = 0;
  socklen_t len = sizeof err;
  if (connect(fd, (struct sockaddr *)&p->up_addr, p->up_len) != 0 &&
      (errno != EINPROGRESS || wait_fd(p, fd, POLLOUT, IO_TIMEOUT_MS) != 1 ||
       getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0 || err != 0)) {
    if (err) errno = err;
    close(fd);
    return -1;
  }
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

/* Sends the request in `in` to a fresh upstream connection and reads the whole
 * response into `out`. 0 done, -1 the upstream failed. */
static int exchange(faultproxy *p, const buf *in, const request *r, buf *out, msg *resp) {
  int up = connect_upstream(p);
  if (up < 0) {
    fprintf(stderr, "faultproxy: cannot connect to the upstream: %s\n", strerror(errno));
    return -1;
  }
  out->n = 0;
  int rc = send_all(p, up, in->d, r->m.total);
  if (rc == 0) rc = read_response(p, up, out, r->is_head, resp);
  while (rc == 0 && resp->status < 200) { /* an interim 1xx: read on to the final one */
    buf_consume(out, resp->total);
    rc = read_response(p, up, out, r->is_head, resp);
  }
  close(up);
  if (rc != 0 && !stopping(p)) fprintf(stderr, "faultproxy: the upstream failed mid-exchange\n");
  return rc;
}

/* Sends the response headers and half the body (at least one byte short), then
 * ends the connection in order: the client sees a body cut short of its length. */
static void send_torn(faultproxy *p, int fd, const buf *resp, const msg *m, const action *a) {
  size_t half = m->body_len / 2;
  count_fault(p, a);
  send_all(p, fd, resp->d, m->head_len + half);
  shutdown(fd, SHUT_WR);
}

/* Forwards a request and passes back the response, or applies LOST_RESPONSE / TORN.
 * 1: keep the client connection, 0: it has been (or must be) closed. */
static int forward(faultproxy *p, int fd, buf *in, const request *r, const action *a) {
  buf up = {0};
  msg resp;
  int keep = 0;
  if (a->kind == FAULTPROXY_CORRUPT_BODY && r->m.body_len)
    in->d[r->m.head_len + r->m.body_len / 2] ^= 0x5A;
  if (exchange(p, in, r, &up, &resp) == 0) {
    char code[64];
    header(up.d, resp.head_len, "x-ms-error-code", code, sizeof code);
    note_answer(p, r, resp.status, code);
    if (a->kind == FAULTPROXY_LOST_RESPONSE) count_fault(p, a);
    /* A response without a body cannot be torn: it goes out whole, and the
     * connection stays open as after any other response. */
    if (a->kind == FAULTPROXY_TORN && resp.body_len)
      send_torn(p, fd, &up, &resp, a);
    else if (a->kind != FAULTPROXY_LOST_RESPONSE)
      keep = send_all(p, fd, up.d, resp.total) == 0 && !resp.until_close && !r->client_close;
  }
  free(up.d);
  return keep;
}

/* Serves one admitted request. 1: keep the client connection, 0: close it; *fd is
 * set to -1 when the connection was already closed with a reset. */
static int serve(faultproxy *p, int *fd, buf *in, const request *r, const action *a) {
  switch (a->kind) {
  case FAULTPROXY_RESET:
    note_answer(p, r, 0, NULL);
    count_fault(p, a);
    reset_close(*fd);
    *fd = -1;
    return 0;
  case FAULTPROXY_STATUS: return send_status(p, *fd, r, a, r->no) == 0 && !r->client_close;
  case FAULTPROXY_STALL:
    count_fault(p, a);
    if (!hold(p, *fd, a->stall_ms)) return 0;
    return forward(p, *fd, in, r, a);
  default: {
    int keep = forward(p, *fd, in, r, a);
    if (a->kind == FAULTPROXY_LOST_RESPONSE) {
      reset_close(*fd);
      *fd = -1;
    }
    return keep;
  }
  }
}

/* Reads one request into `in`. 1 ready, 0 the client closed or idled out, -1 error. */
static int read_request(faultproxy *p, int fd, buf *in, request *r) {
  memset(r, 0, sizeof *r);
  int rc = read_head(p, fd, in, &r->m, IDLE_MS);
  if (rc != 1) return rc;
  if (parse_request(in, r) != 0) return -1;
  return read_to(p, fd, in, r->m.total) == 0 ? 1 : -1;
}

static void *conn_main(void *arg) {
  conn *c = arg;
  faultproxy *p = c->p;
  buf in = {0};
  int fd = c->fd;
  for (;;) {
    request r;
    action a;
    int rc = read_request(p, fd, &in, &r);
    if (rc < 0) {
      reset_close(fd);
      fd = -1;
    }
    if (rc != 1) break;
    admit(p, &in, &r, c->no, &a);
    int keep = serve(p, &fd, &in, &r, &a);
    buf_consume(&in, r.m.total);
    if (!keep) break;
  }
  if (fd >= 0) close(fd);
  free(in.d);
  atomic_store(&c->done, 1);
  return NULL;
}

/* ------------------------------------------------------------ acceptor ---- */

/* Joins and frees the connections whose threads have finished. */
static void reap_conns(faultproxy *p) {
  int k = 0;
  for (int i = 0; i < p->nconns; i++) {
    conn *c = p->conns[i];
    if (atomic_load(&c->done)) {
      pthread_join(c->thread, NULL);
      free(c);
    } else {
      p->conns[k++] = c;
    }
  }
  p->nconns = k;
}

static void start_conn(faultproxy *p, int fd) {
  reap_conns(p);
  conn *c = p->nconns < FAULTPROXY_MAX_CONNS ? calloc(1, sizeof *c) : NULL;
  if (!c) {
    reset_close(fd);
    return;
  }
  c->p = p;
  c->fd = fd;
  c->no = ++p->conns_made;
  atomic_init(&c->done, 0);
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (pthread_create(&c->thread, NULL, conn_main, c) != 0) {
    reset_close(fd);
    free(c);
    return;
  }
  p->conns[p->nconns++] = c;
}

static void *acceptor_main(void *arg) {
  faultproxy *p = arg;
  for (;;) {
    int r = wait_fd(p, p->lfd, POLLIN, 1000);
    if (r < 0) break;
    if (r == 0) continue;
    int fd = accept4(p->lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd >= 0) start_conn(p, fd);
  }
  return NULL;
}

/* ------------------------------------------------------------ public ---- */

/* Resolves "http://HOST:PORT" into p->up_addr. 0 ok, -1 malformed or unknown. */
static int set_upstream(faultproxy *p, const char *url) {
  char host[256], port[16];
  if (strncmp(url, "http://", 7) != 0) return -1;
  const char *h = url + 7, *colon = strrchr(h, ':');
  if (!colon || colon == h || (size_t)(colon - h) >= sizeof host) return -1;
  memcpy(host, h, (size_t)(colon - h));
  host[colon - h] = '\0';
  size_t pl = strcspn(colon + 1, "/");
  if (pl == 0 || pl >= sizeof port || strspn(colon + 1, "0123456789") != pl) return -1;
  memcpy(port, colon + 1, pl);
  port[pl] = '\0';
  struct addrinfo hints = {0}, *ai = NULL;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICSERV;
  if (getaddrinfo(host, port, &hints, &ai) != 0 || !ai) return -1;
  memcpy(&p->up_addr, ai->ai_addr, ai->ai_addrlen);
  p->up_len = ai->ai_addrlen;
  freeaddrinfo(ai);
  return 0;
}

/* Binds 127.0.0.1 on a kernel-picked port and listens; fills p->endpoint. */
static int listen_loopback(faultproxy *p) {
  struct sockaddr_in a = {0};
  socklen_t len = sizeof a;
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  p->lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (p->lfd < 0 || bind(p->lfd, (struct sockaddr *)&a, sizeof a) != 0 || listen(p->lfd, 64) != 0 ||
      getsockname(p->lfd, (struct sockaddr *)&a, &len) != 0)
    return -1;
  snprintf(p->endpoint, sizeof p->endpoint, "http://127.0.0.1:%d", ntohs(a.sin_port));
  return 0;
}

faultproxy *faultproxy_start(const char *upstream) {
  faultproxy *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->lfd = -1;
  pthread_mutex_init(&p->mu, NULL);
  pthread_mutex_init(&p->obs_mu, NULL);
  atomic_init(&p->stop, 0);
  const char *why = NULL;
  if (!upstream || set_upstream(p, upstream) != 0)
    why = "bad upstream address";
  else if (!(p->records = calloc(FAULTPROXY_MAX_RECORDS, sizeof *p->records)))
    why = "no memory";
  else if (listen_loopback(p) != 0)
    why = strerror(errno);
  else if (pthread_create(&p->acceptor, NULL, acceptor_main, p) != 0)
    why = "no thread";
  if (!why) return p;
  fprintf(stderr, "faultproxy: cannot start: %s\n", why);
  if (p->lfd >= 0) close(p->lfd);
  free(p->records);
  pthread_mutex_destroy(&p->mu);
  pthread_mutex_destroy(&p->obs_mu);
  free(p);
  return NULL;
}

static void free_slot(slot *s) {
  free(s->method);
  free(s->match);
  free(s->error_code);
  memset(s, 0, sizeof *s);
}

void faultproxy_free(faultproxy *p) {
  if (!p) return;
  atomic_store(&p->stop, 1);
  pthread_join(p->acceptor, NULL);
  for (int i = 0; i < p->nconns; i++) {
    pthread_join(p->conns[i]->thread, NULL);
    free(p->conns[i]);
  }
  close(p->lfd);
  faultproxy_clear_faults(p);
  free(p->records);
  pthread_mutex_destroy(&p->mu);
  pthread_mutex_destroy(&p->obs_mu);
  free(p);
}

const char *faultproxy_endpoint(const faultproxy *p) { return p->endpoint; }

/* strdup of NULL is NULL; *ok drops to 0 on ENOMEM. */
static char *dup_or_null(const char *s, int *ok) {
  char *d = s ? strdup(s) : NULL;
  if (s && !d) *ok = 0;
  return d;
}

int faultproxy_add(faultproxy *p, const faultproxy_fault *f) {
  slot s = {0};
  int ok = 1;
  s.f = *f;
  s.f.method = s.method = dup_or_null(f->method, &ok);
  s.f.match = s.match = dup_or_null(f->match, &ok);
  s.f.error_code = s.error_code = dup_or_null(f->error_code, &ok);
  s.left = f->times > 0 ? f->times : 1;
  pthread_mutex_lock(&p->mu);
  if (ok && p->nfaults < FAULTPROXY_MAX_FAULTS)
    p->faults[p->nfaults++] = s;
  else
    ok = 0;
  pthread_mutex_unlock(&p->mu);
  if (!ok) free_slot(&s);
  return ok ? 0 : -1;
}

void faultproxy_clear_faults(faultproxy *p) {
  pthread_mutex_lock(&p->mu);
  for (int i = 0; i < p->nfaults; i++)
    free_slot(&p->faults[i]);
  p->nfaults = 0;
  pthread_mutex_unlock(&p->mu);
}

int faultproxy_pending(faultproxy *p) {
  int n = 0;
  pthread_mutex_lock(&p->mu);
  for (int i = 0; i < p->nfaults; i++)
    n += p->faults[i].left;
  pthread_mutex_unlock(&p->mu);
  return n;
}

int faultproxy_count(faultproxy *p) {
  pthread_mutex_lock(&p->mu);
  int n = p->nrecords;
  pthread_mutex_unlock(&p->mu);
  return n;
}

int faultproxy_record_get(faultproxy *p, int i, faultproxy_record *out) {
  pthread_mutex_lock(&p->mu);
  int ok = i >= 0 && i < p->nrecords;
  if (ok) *out = p->records[i];
  pthread_mutex_unlock(&p->mu);
  return ok ? 0 : -1;
}

void faultproxy_forget(faultproxy *p) {
  pthread_mutex_lock(&p->mu);
  p->nrecords = 0;
  pthread_mutex_unlock(&p->mu);
}

void faultproxy_set_rates(faultproxy *p, const faultproxy_rates *r) {
  pthread_mutex_lock(&p->mu);
  p->rates_on = r != NULL;
  if (r) p->rates = *r;
  pthread_mutex_unlock(&p->mu);
}

void faultproxy_set_observer(faultproxy *p, faultproxy_observer fn, void *ud) {
  pthread_mutex_lock(&p->obs_mu);
  p->observer = fn;
  p->observer_ud = ud;
  pthread_mutex_unlock(&p->obs_mu);
}

void faultproxy_stats_get(faultproxy *p, faultproxy_stats *out) {
  pthread_mutex_lock(&p->mu);
  *out = p->stats;
  pthread_mutex_unlock(&p->mu);
}

const char *faultproxy_kind_name(faultproxy_kind k) {
  static const char *const names[] = {"NONE",  "RESET",  "LOST_RESPONSE", "TORN",
                                      "STALL", "STATUS", "CORRUPT_BODY"};
  return (unsigned)k < sizeof names / sizeof *names ? names[k] : "?";
}
