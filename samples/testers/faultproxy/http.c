/*
 * http.c - HTTP/1.1 for the fault proxy: growable buffers, polled socket reads and
 * writes that end when the proxy stops, framing of requests and responses
 * (Content-Length, chunked, close-delimited, bodiless), header lookup, and one
 * request forwarded to the upstream on a fresh connection with its whole response
 * read back. A fresh upstream connection per request keeps the proxy free of stale
 * keep-alive connections to the service. Nothing here knows of faults or records.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "faultproxy_int.h"

int64_t faultproxy__now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* Closes `fd` so that the peer sees a reset (RST), not an orderly end. */
void faultproxy__reset_close(int fd) {
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
void faultproxy__buf_consume(buf *b, size_t k) {
  if (k >= b->n) {
    b->n = 0;
    return;
  }
  memmove(b->d, b->d + k, b->n - k);
  b->n -= k;
}

/* Waits for `events` on `fd` in TICK_MS slices until `end_us`. 1 ready, 0 timed
 * out, -1 when the proxy is stopping, `phase` (when not NULL) is CONN_CUT, or poll
 * fails. */
static int wait_until(faultproxy *p, int fd, short events, int64_t end_us,
                      const atomic_int *phase) {
  for (;;) {
    if (faultproxy__stopping(p) || (phase && atomic_load(phase) == CONN_CUT)) return -1;
    int64_t left = (end_us - faultproxy__now_us()) / 1000;
    if (left <= 0) return 0;
    struct pollfd pfd = {fd, events, 0};
    int r = poll(&pfd, 1, left < TICK_MS ? (int)left : TICK_MS);
    if (r > 0) return 1;
    if (r < 0 && errno != EINTR) return -1;
  }
}

/* Waits for `events` on `fd` in TICK_MS slices. 1 ready, 0 timed out after `ms`,
 * -1 when the proxy is stopping. */
int faultproxy__wait_fd(faultproxy *p, int fd, short events, int ms) {
  return wait_until(p, fd, events, faultproxy__now_us() + (int64_t)ms * 1000, NULL);
}

/* Reads what `fd` has into `b`, waiting until `end_us`. >0 bytes read, 0 at the end
 * of the stream, -1 on error, timeout, cut, stop or a message too large. */
ssize_t faultproxy__fill(faultproxy *p, int fd, buf *b, int64_t end_us, const atomic_int *phase) {
  if (buf_reserve(b, 65536) != 0) return -1;
  for (;;) {
    if (wait_until(p, fd, POLLIN, end_us, phase) != 1) return -1;
    ssize_t r = recv(fd, b->d + b->n, b->cap - b->n, MSG_DONTWAIT);
    if (r > 0) b->n += (size_t)r;
    if (r >= 0) return r;
    if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK) return -1;
  }
}

/* faultproxy__fill waiting up to `ms`, for the upstream side. */
static ssize_t fill(faultproxy *p, int fd, buf *b, int ms) {
  return faultproxy__fill(p, fd, b, faultproxy__now_us() + (int64_t)ms * 1000, NULL);
}

/* Sends all `n` bytes, never blocking past a poll slice. 0 on success, -1 if the
 * peer went away, it timed out or the proxy is stopping. */
int faultproxy__send_all(faultproxy *p, int fd, const char *d, size_t n) {
  while (n) {
    if (faultproxy__wait_fd(p, fd, POLLOUT, IO_TIMEOUT_MS) != 1) return -1;
    ssize_t w = send(fd, d, n, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (w < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)) continue;
    if (w <= 0) return -1;
    d += w;
    n -= (size_t)w;
  }
  return 0;
}

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
int faultproxy__header(const char *h, size_t len, const char *name, char *out, size_t size) {
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
  if (!faultproxy__header(h, len, "Content-Length", v, sizeof v)) return 0;
  char *end;
  errno = 0;
  unsigned long long n = strtoull(v, &end, 10);
  if (errno || end == v || *end || v[0] == '-' || n > MAX_BODY) return -1;
  *out = (size_t)n;
  return 1;
}

static int is_chunked(const char *h, size_t len) {
  char v[64];
  return faultproxy__header(h, len, "Transfer-Encoding", v, sizeof v) && strcasestr(v, "chunked");
}

/* Reads until `b` holds a complete head, by `end_us` at most (a slowly trickled head
 * does not get a new wait per byte); sets m->head_len. 1 done, 0 the peer closed
 * before a byte, -1 error, deadline missed or cut. */
int faultproxy__read_head(faultproxy *p, int fd, buf *b, msg *m, int64_t end_us,
                          const atomic_int *phase) {
  const char *blank;
  while (!(blank = find_blank_line(b->d ? b->d : "", b->n))) {
    if (b->n > MAX_HEAD) return -1;
    ssize_t r = faultproxy__fill(p, fd, b, end_us, phase);
    if (r == 0 && b->n == 0) return 0;
    if (r <= 0) return -1;
  }
  m->head_len = (size_t)(blank - b->d) + 4;
  return 1;
}

/* Reads until `b` holds at least `want` bytes. 0 done, -1 error or early end. */
int faultproxy__read_to(faultproxy *p, int fd, buf *b, size_t want) {
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
    if (faultproxy__read_to(p, fd, b, pos + (size_t)size + 2) != 0) return -1;
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
  int64_t end = faultproxy__now_us() + (int64_t)IO_TIMEOUT_MS * 1000;
  if (faultproxy__read_head(p, fd, b, m, end, NULL) != 1) return -1;
  if ((m->status = parse_status(b->d, m->head_len)) < 0) return -1;
  size_t cl = 0;
  int has_cl = content_length(b->d, m->head_len, &cl);
  int rc = 0;
  if (is_head || m->status < 200 || m->status == 204 || m->status == 304)
    m->body_len = 0;
  else if (is_chunked(b->d, m->head_len))
    rc = read_chunked(p, fd, b, m);
  else if (has_cl == 1)
    rc = faultproxy__read_to(p, fd, b, m->head_len + cl), m->body_len = cl;
  else if (has_cl == 0)
    rc = read_until_close(p, fd, b, m);
  else
    rc = -1;
  m->total = m->head_len + m->body_len;
  return rc;
}

/* Parses the request line and framing of the head in `b`. 0 ok, -1 refused. */
int faultproxy__parse_request(const buf *b, request *r) {
  const char *sp = memchr(b->d, ' ', r->m.head_len);
  size_t ml = sp ? (size_t)(sp - b->d) : 0;
  if (!ml || ml >= sizeof r->method) return -1;
  memcpy(r->method, b->d, ml);
  r->method[ml] = '\0';
  r->is_head = strcmp(r->method, "HEAD") == 0;
  char v[32];
  r->client_close = faultproxy__header(b->d, r->m.head_len, "Connection", v, sizeof v) &&
                    strcasecmp(v, "close") == 0;
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
void faultproxy__request_target(const buf *b, size_t head_len, char *out, size_t size) {
  const char *eol = find_crlf(b->d, head_len);
  const char *s = memchr(b->d, ' ', head_len);
  const char *e = s ? memchr(s + 1, ' ', (size_t)(eol - s - 1)) : NULL;
  out[0] = '\0';
  if (!s || !e) return;
  size_t k = (size_t)(e - s - 1) < size - 1 ? (size_t)(e - s - 1) : size - 1;
  memcpy(out, s + 1, k);
  out[k] = '\0';
}

/* A new connection to the upstream, connected within IO_TIMEOUT_MS; -1 on failure.
 * The socket stays non-blocking: every read and write polls first. */
static int connect_upstream(faultproxy *p) {
  int fd = socket(p->up_addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return -1;
  int err = 0;
  socklen_t len = sizeof err;
  if (connect(fd, (struct sockaddr *)&p->up_addr, p->up_len) != 0 &&
      (errno != EINPROGRESS || faultproxy__wait_fd(p, fd, POLLOUT, IO_TIMEOUT_MS) != 1 ||
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
int faultproxy__exchange(faultproxy *p, const buf *in, const request *r, buf *out, msg *resp) {
  int up = connect_upstream(p);
  if (up < 0) {
    fprintf(stderr, "faultproxy: cannot connect to the upstream: %s\n", strerror(errno));
    return -1;
  }
  out->n = 0;
  int rc = faultproxy__send_all(p, up, in->d, r->m.total);
  if (rc == 0) rc = read_response(p, up, out, r->is_head, resp);
  while (rc == 0 && resp->status < 200) { /* an interim 1xx: read on to the final one */
    faultproxy__buf_consume(out, resp->total);
    rc = read_response(p, up, out, r->is_head, resp);
  }
  close(up);
  if (rc != 0 && !faultproxy__stopping(p))
    fprintf(stderr, "faultproxy: the upstream failed mid-exchange\n");
  return rc;
}
