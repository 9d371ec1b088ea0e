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
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* Reads one request into `in`. 1 ready, 0 the client closed or idled out, -1 error. */
static int read_request(faultproxy *p, int fd, buf *in, request *r) {
  memset(r, 0, sizeof *r);
  int rc = faultproxy__read_head(p, fd, in, &r->m, IDLE_MS);
  if (rc != 1) return rc;
  if (faultproxy__parse_request(in, r) != 0) return -1;
  return faultproxy__read_to(p, fd, in, r->m.total) == 0 ? 1 : -1;
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
      faultproxy__reset_close(fd);
      fd = -1;
    }
    if (rc != 1) break;
    faultproxy__admit(p, &in, &r, c->no, &a);
    int keep = serve(p, &fd, &in, &r, &a);
    faultproxy__buf_consume(&in, r.m.total);
    if (!keep) break;
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

static void start_conn(faultproxy *p, int fd) {
  reap_conns(p);
  conn *c = p->nconns < FAULTPROXY_MAX_CONNS ? calloc(1, sizeof *c) : NULL;
  if (!c) {
    faultproxy__reset_close(fd);
    return;
  }
  c->p = p;
  c->fd = fd;
  c->no = ++p->conns_made;
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
