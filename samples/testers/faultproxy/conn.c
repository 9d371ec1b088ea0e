/*
 * conn.c - the fault proxy's life and its connections (faultproxy.h). One acceptor
 * thread takes connections on 127.0.0.1 and starts one thread per connection. A
 * connection thread reads one request at a time from its client, has it admitted
 * (numbered, recorded, its fault chosen: records.c, faults.c) and serves it: usually
 * by forwarding it upstream and passing the response back (http.c). Client
 * connections stay alive, as the client under test expects. Every wait is a poll of
 * at most TICK_MS that also checks the stop flag, so faultproxy_free ends every
 * thread promptly; finished connection threads are joined when the next connection
 * arrives, so a long-running proxy stays bounded.
 *
 * Slow clients do not lock others out: an idle connection, a request's head and its
 * body each have a deadline (read_request), and when every slot is taken the
 * acceptor leaves new connections in the listen queue while it cuts an idle
 * connection, or one whose head trickles, to make room (make_room): each connection
 * says which phase it is in, and the acceptor cuts it only by a compare-and-swap
 * from a phase it may cut, so a request once read is always answered.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <unistd.h>

#include "faultproxy_int.h"

/* Forwards a request through the fidelity front and passes back the response, or
 * applies LOST_RESPONSE / TORN.
 * 1: keep the client connection, 0: it has been (or must be) closed. */
static int forward(faultproxy *p, int fd, buf *in, const request *r, const action *a) {
  buf up = {0};
  msg resp;
  refusal no;
  int keep = 0;
  if (a->kind == FAULTPROXY_CORRUPT_BODY && r->m.body_len)
    in->d[r->m.head_len + r->m.body_len / 2] ^= 0x5A;
  if (faultproxy__front_refuse(p, in, r, &no)) /* Azure's limits and targets */
    return faultproxy__send_refusal(p, fd, r, &no) == 0 && !r->client_close;
  if (faultproxy__exchange(p, in, r, &up, &resp) == 0) {
    char code[64];
    faultproxy__front_answer(p, in, r, &up, &resp);
    faultproxy__header(up.d, resp.head_len, "x-ms-error-code", code, sizeof code);
    faultproxy__note_answer(p, r, resp.status, code);
    if (a->kind == FAULTPROXY_LOST_RESPONSE) faultproxy__count_fault(p, a);
    if (a->kind == FAULTPROXY_CORRUPT_RESPONSE && resp.body_len)
      up.d[resp.head_len + resp.body_len / 2] ^= 0x5A;
    /* A response without a body cannot be torn: it goes out whole, and the
     * connection stays open as after any other response. */
    if (a->kind == FAULTPROXY_TORN && resp.body_len)
      faultproxy__send_torn(p, fd, &up, &resp, a);
    else if (a->kind != FAULTPROXY_LOST_RESPONSE)
      keep = faultproxy__send_all(p, fd, up.d, resp.total) == 0 && !resp.until_close &&
             !r->client_close;
  }
  free(up.d);
  return keep;
}

/* Serves one admitted request. 1: keep the client connection, 0: close it; *fd is
 * set to -1 when the connection was already closed with a reset. */
static int serve(faultproxy *p, int *fd, buf *in, const request *r, const action *a) {
  switch (a->kind) {
  case FAULTPROXY_RESET:
    faultproxy__note_answer(p, r, 0, NULL);
    faultproxy__count_fault(p, a);
    faultproxy__reset_close(*fd);
    *fd = -1;
    return 0;
  case FAULTPROXY_STATUS:
    return faultproxy__send_status(p, *fd, r, a, r->no) == 0 && !r->client_close;
  case FAULTPROXY_STALL:
    faultproxy__count_fault(p, a);
    if (!faultproxy__hold(p, *fd, a->stall_ms)) return 0;
    return forward(p, *fd, in, r, a);
  default: {
    int keep = forward(p, *fd, in, r, a);
    if (a->kind == FAULTPROXY_LOST_RESPONSE) {
      faultproxy__reset_close(*fd);
      *fd = -1;
    }
    return keep;
  }
  }
}

/* Moves `c` from phase `from` to `to`: 0, or -1 when the acceptor cut it first. */
static int enter(conn *c, int from, int to) {
  atomic_store(&c->since_us, faultproxy__now_us());
  return atomic_compare_exchange_strong(&c->phase, &from, to) ? 0 : -1;
}

/* Reads the body up to `want` bytes of `in`: each wait at most IO_TIMEOUT_MS, and
 * the whole at BODY_MIN_RATE on average once past BODY_GRACE_MS. 0, or -1. */
static int read_body(conn *c, buf *in, size_t want) {
  int64_t start = faultproxy__now_us();
  size_t first = in->n;
  while (in->n < want) {
    int64_t now = faultproxy__now_us();
    int64_t end =
        start + (int64_t)BODY_GRACE_MS * 1000 + (int64_t)(in->n - first) * 1000000 / BODY_MIN_RATE;
    if (end > now + (int64_t)IO_TIMEOUT_MS * 1000) end = now + (int64_t)IO_TIMEOUT_MS * 1000;
    if (faultproxy__fill(c->p, c->fd, in, end, &c->phase) <= 0) return -1;
  }
  return 0;
}

/* A TLS ClientHello (a handshake record, 0x16) where a request should start: a
 * client sent https:// to this plain-http port. Answered as Node's http server
 * (Azurite's own) answers it, 400 and close, so the client learns at once that the
 * port speaks plain http rather than waiting out its handshake's timeout. No
 * request: nothing is admitted, recorded or counted. 1 when it was one. */
static int refuse_tls_hello(conn *c, buf *in) {
  static const char answer[] = "HTTP/1.1 400 Bad Request\r\nConnection: close\r\n"
                               "Content-Length: 0\r\n\r\n";
  if (in->n == 0 || (unsigned char)in->d[0] != 0x16) return 0;
  if (faultproxy__send_all(c->p, c->fd, answer, sizeof answer - 1) == 0) {
    shutdown(c->fd, SHUT_WR);
    /* Until the client hangs up: closing with its bytes unread would reset the
     * connection, and a reset can discard the answer before the client reads it. */
    char sink[4096];
    while (faultproxy__wait_fd(c->p, c->fd, POLLIN, 1000) == 1 &&
           read(c->fd, sink, sizeof sink) > 0) {
    }
  }
  return 1;
}

/* Reads one request into `in`, moving `c` through its phases to CONN_SERVING.
 * 1 ready; 0 the client closed, stayed idle past the idle deadline or was cut while
 * idle (close in order); -1 error, a head not whole by its deadline, a body too slow,
 * or cut while its head came (reset). */
static int read_request(conn *c, buf *in, request *r) {
  faultproxy *p = c->p;
  memset(r, 0, sizeof *r);
  int64_t idle_end = atomic_load(&c->since_us) + (int64_t)atomic_load(&p->idle_ms) * 1000;
  if (in->n == 0 && faultproxy__fill(p, c->fd, in, idle_end, &c->phase) <= 0) return 0;
  if (refuse_tls_hello(c, in)) return 0;
  if (enter(c, CONN_IDLE, CONN_HEAD) != 0) return -1;
  int64_t head_end = faultproxy__now_us() + (int64_t)atomic_load(&p->head_ms) * 1000;
  if (faultproxy__read_head(p, c->fd, in, &r->m, head_end, &c->phase) != 1) return -1;
  if (faultproxy__parse_request(in, r) != 0 || enter(c, CONN_HEAD, CONN_BODY) != 0) return -1;
  if (read_body(c, in, r->m.total) != 0) return -1;
  return enter(c, CONN_BODY, CONN_SERVING) == 0 ? 1 : -1;
}

static void *conn_main(void *arg) {
  conn *c = arg;
  faultproxy *p = c->p;
  buf in = {0};
  int fd = c->fd;
  for (;;) {
    request r;
    action a;
    int rc = read_request(c, &in, &r);
    if (rc < 0) {
      faultproxy__reset_close(fd);
      fd = -1;
    }
    if (rc != 1) break;
    faultproxy__admit(p, &in, &r, c->no, &a);
    int keep = serve(p, &fd, &in, &r, &a);
    faultproxy__buf_consume(&in, r.m.total);
    if (!keep) break;
    enter(c, CONN_SERVING, CONN_IDLE); /* never cut while serving: it cannot fail */
  }
  if (fd >= 0) close(fd);
  free(in.d);
  atomic_store(&c->done, 1);
  return NULL;
}

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

/* The connection that can best go to make room, or NULL: the one idle longest
 * (between requests, or connected and silent), once that is IDLE_GRACE_MS (not one
 * just accepted, whose request is on its way), else the one whose head has been
 * coming longest, once that is HEAD_GRACE_MS (a client sends its head at once). Never
 * one reading a body or being served; none while an earlier cut is still ending. */
static conn *pick_victim(faultproxy *p, int *phase) {
  conn *best = NULL;
  int64_t now = faultproxy__now_us(), best_since = 0;
  for (int i = 0; i < p->nconns; i++) {
    conn *c = p->conns[i];
    int ph = atomic_load(&c->phase);
    int64_t since = atomic_load(&c->since_us);
    if (ph == CONN_CUT) return NULL;
    if (ph != CONN_IDLE && ph != CONN_HEAD) continue;
    if (now - since < (int64_t)(ph == CONN_IDLE ? IDLE_GRACE_MS : HEAD_GRACE_MS) * 1000) continue;
    if (best && (*phase < ph || (*phase == ph && best_since <= since))) continue;
    best = c;
    best_since = since;
    *phase = ph;
  }
  return best;
}

/* 1 when a new connection fits. Else 0, after cutting the connection that can best
 * go (pick_victim), if any: its slot frees once its thread has ended, and until then
 * new connections wait in the listen queue rather than being turned away. */
static int make_room(faultproxy *p) {
  reap_conns(p);
  if (p->nconns < FAULTPROXY_MAX_CONNS) return 1;
  int phase = CONN_IDLE;
  conn *c = pick_victim(p, &phase);
  if (c) atomic_compare_exchange_strong(&c->phase, &phase, CONN_CUT);
  return 0;
}

static void start_conn(faultproxy *p, int fd) {
  conn *c = calloc(1, sizeof *c);
  if (!c) {
    faultproxy__reset_close(fd);
    return;
  }
  c->p = p;
  c->fd = fd;
  c->no = ++p->conns_made;
  atomic_init(&c->phase, CONN_IDLE);
  atomic_init(&c->since_us, faultproxy__now_us());
  atomic_init(&c->done, 0);
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (pthread_create(&c->thread, NULL, conn_main, c) != 0) {
    faultproxy__reset_close(fd);
    free(c);
    return;
  }
  p->conns[p->nconns++] = c;
}

static void *acceptor_main(void *arg) {
  faultproxy *p = arg;
  for (;;) {
    int r = faultproxy__wait_fd(p, p->lfd, POLLIN, 1000);
    if (r < 0) break;
    if (r == 0) continue;
    if (!make_room(p)) { /* full: wait a tick for a slot, the client in the queue */
      struct timespec tick = {0, TICK_MS * 1000000L};
      nanosleep(&tick, NULL);
      continue;
    }
    int fd = accept4(p->lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd >= 0) start_conn(p, fd);
  }
  return NULL;
}

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
  atomic_init(&p->head_ms, HEAD_MS);
  atomic_init(&p->idle_ms, IDLE_MS);
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
  faultproxy__front_free(p->front);
  free(p->records);
  pthread_mutex_destroy(&p->mu);
  pthread_mutex_destroy(&p->obs_mu);
  free(p);
}

const char *faultproxy_endpoint(const faultproxy *p) { return p->endpoint; }

void faultproxy_set_deadlines(faultproxy *p, int head_ms, int idle_ms) {
  atomic_store(&p->head_ms, head_ms > 0 ? head_ms : HEAD_MS);
  atomic_store(&p->idle_ms, idle_ms > 0 ? idle_ms : IDLE_MS);
}
