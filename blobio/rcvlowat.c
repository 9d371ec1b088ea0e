/*
 * rcvlowat.c - plain HTTP responses read in batches: while a response body of
 * known length is arriving, its socket polls readable only once LOWAT bytes of it
 * (or all that is left, when less) are there to read.
 *
 * A peer that sends a body in many small writes (the emulator assembling a read
 * from thousands of page ranges sends a segment per range) would otherwise wake the
 * I/O thread for each: a poll, a context switch and a recv of a few KiB, thousands
 * of times per read. SO_RCVLOWAT moves the wait into the kernel. As each piece of a
 * body arrives, the socket's low-water mark is set to what is still to come, capped
 * at LOWAT, so the mark is always bytes the peer is about to send and never holds
 * back the end of a response. Linux still reports the socket readable before the
 * mark when its receive window or memory runs short, and at end of stream; recv on
 * the non-blocking socket returns what is there whatever the mark. The mark goes
 * back to 1 when the body is complete and, should the try end any other way, when
 * it finishes, before the connection can carry another request (whose response
 * headers are of unknown length).
 *
 * libcurl 7.88 does not tell which socket a transfer is on while it runs
 * (CURLINFO_ACTIVESOCKET names the last connection the handle left behind, which
 * another handle may be using now), so the engine opens and closes libcurl's
 * sockets itself (CURLOPT_OPENSOCKETFUNCTION, CURLOPT_CLOSESOCKETFUNCTION) and
 * keeps them in a table; a transfer finds its own by the addresses and ports
 * libcurl reports for it.
 *
 * HTTPS connections are left alone: their bytes go through OpenSSL and the
 * read-ahead buffer (tls_readahead.c), which already takes many records per read.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <xio/alloc.h>

#include "rcvlowat_int.h"

/* The most a socket waits to gather before it polls readable. */
#define LOWAT (128 * 1024)

/* "ip port > ip port" of a sockaddr pair, or "" when either is not IP. */
static void key_of(const struct sockaddr_storage *l, const struct sockaddr_storage *r,
                   char out[XIO_BLOB_SOCK_KEY]) {
  char lip[INET6_ADDRSTRLEN], rip[INET6_ADDRSTRLEN];
  unsigned lport, rport;
  out[0] = '\0';
  if (l->ss_family != r->ss_family) return;
  if (l->ss_family == AF_INET) {
    const struct sockaddr_in *a = (const void *)l, *b = (const void *)r;
    inet_ntop(AF_INET, &a->sin_addr, lip, sizeof lip);
    inet_ntop(AF_INET, &b->sin_addr, rip, sizeof rip);
    lport = ntohs(a->sin_port), rport = ntohs(b->sin_port);
  } else if (l->ss_family == AF_INET6) {
    const struct sockaddr_in6 *a = (const void *)l, *b = (const void *)r;
    inet_ntop(AF_INET6, &a->sin6_addr, lip, sizeof lip);
    inet_ntop(AF_INET6, &b->sin6_addr, rip, sizeof rip);
    lport = ntohs(a->sin6_port), rport = ntohs(b->sin6_port);
  } else {
    return;
  }
  snprintf(out, XIO_BLOB_SOCK_KEY, "%s %u > %s %u", lip, lport, rip, rport);
}

/* libcurl's CURLOPT_OPENSOCKETFUNCTION: the socket it asked for, in the table. */
static curl_socket_t open_sock(void *ud, curlsocktype purpose, struct curl_sockaddr *a) {
  xio__blob_socks *s = ud;
  (void)purpose;
  int fd = socket(a->family, a->socktype | SOCK_CLOEXEC, a->protocol);
  if (fd < 0) return CURL_SOCKET_BAD;
  if (s->n == s->cap) {
    int cap = s->cap ? 2 * s->cap : 16;
    xio__blob_sock *v = xio_realloc(s->v, (size_t)cap * sizeof *v);
    if (!v) return fd; /* not in the table: its reads are simply not batched */
    s->v = v, s->cap = cap;
  }
  s->v[s->n++] = (xio__blob_sock){fd, ""};
  return fd;
}

/* libcurl's CURLOPT_CLOSESOCKETFUNCTION: out of the table, then closed. */
static int close_sock(void *ud, curl_socket_t fd) {
  xio__blob_socks *s = ud;
  for (int i = 0; i < s->n; i++)
    if (s->v[i].fd == fd) {
      s->v[i] = s->v[--s->n];
      break;
    }
  return close(fd);
}

CURLcode xio__blob_socks_attach(xio__blob_socks *s, CURL *easy) {
  CURLcode rc = curl_easy_setopt(easy, CURLOPT_OPENSOCKETFUNCTION, open_sock);
  if (rc == CURLE_OK) rc = curl_easy_setopt(easy, CURLOPT_OPENSOCKETDATA, s);
  if (rc == CURLE_OK) rc = curl_easy_setopt(easy, CURLOPT_CLOSESOCKETFUNCTION, close_sock);
  if (rc == CURLE_OK) rc = curl_easy_setopt(easy, CURLOPT_CLOSESOCKETDATA, s);
  return rc;
}

void xio__blob_socks_free(xio__blob_socks *s) {
  xio_free(s->v);
  s->v = NULL;
  s->n = s->cap = 0;
}

void xio__blob_socks_get_counts(xio__blob_socks *s, xio__blob_socks_counts *out) {
  out->short_pieces = atomic_load(&s->short_pieces);
  out->raised = atomic_load(&s->raised);
  out->restored = atomic_load(&s->restored);
}

/* The key of the connection `easy` is on, from what libcurl reports of it. */
static int transfer_key(CURL *easy, char out[XIO_BLOB_SOCK_KEY]) {
  char *lip = NULL, *rip = NULL;
  long lport = 0, rport = 0;
  if (curl_easy_getinfo(easy, CURLINFO_LOCAL_IP, &lip) != CURLE_OK ||
      curl_easy_getinfo(easy, CURLINFO_PRIMARY_IP, &rip) != CURLE_OK ||
      curl_easy_getinfo(easy, CURLINFO_LOCAL_PORT, &lport) != CURLE_OK ||
      curl_easy_getinfo(easy, CURLINFO_PRIMARY_PORT, &rport) != CURLE_OK || !lip || !rip ||
      !lip[0] || !rip[0])
    return 0;
  snprintf(out, XIO_BLOB_SOCK_KEY, "%s %ld > %s %ld", lip, lport, rip, rport);
  return 1;
}

/* The socket of the table whose connection `easy` is on, or -1. A socket's key is
 * read once, the first time it is looked for (by then it is connected). */
static int find_sock(xio__blob_socks *s, CURL *easy) {
  char want[XIO_BLOB_SOCK_KEY];
  if (!s || !transfer_key(easy, want)) return -1;
  for (int i = 0; i < s->n; i++) {
    xio__blob_sock *k = &s->v[i];
    if (!k->key[0]) {
      struct sockaddr_storage l, r;
      socklen_t ll = sizeof l, rl = sizeof r;
      memset(&l, 0, sizeof l), memset(&r, 0, sizeof r);
      if (getsockname(k->fd, (struct sockaddr *)&l, &ll) != 0 ||
          getpeername(k->fd, (struct sockaddr *)&r, &rl) != 0)
        continue; /* not connected yet */
      key_of(&l, &r, k->key);
    }
    if (strcmp(k->key, want) == 0) return k->fd;
  }
  return -1;
}

/* Sets the low-water mark of socket `fd` to `mark`; remembers it in `c`. */
static void set_mark(xio_blob_call *c, int fd, int mark) {
  if (setsockopt(fd, SOL_SOCKET, SO_RCVLOWAT, &mark, sizeof mark) != 0) return;
  if (!c->rcvlowat && mark > 1) atomic_fetch_add(&c->socks->raised, 1);
  if (c->rcvlowat && mark <= 1) atomic_fetch_add(&c->socks->restored, 1);
  c->rcvlowat = mark > 1 ? mark : 0;
}

void xio__blob_rcvlowat_body(xio_blob_call *c, size_t len) {
  c->body_seen += len;
  if (!c->socks) return;
  if (len < CURL_MAX_WRITE_SIZE) atomic_fetch_add(&c->socks->short_pieces, 1);
  curl_off_t total = -1;
  if (curl_easy_getinfo(c->easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &total) != CURLE_OK ||
      total <= 0)
    return;
  curl_off_t left = total - (curl_off_t)c->body_seen;
  int mark = left >= LOWAT ? LOWAT : left > 1 ? (int)left : 1;
  if (mark == (c->rcvlowat ? c->rcvlowat : 1)) return;
  if (c->rcvlowat_fd < 0) c->rcvlowat_fd = find_sock(c->socks, c->easy);
  if (c->rcvlowat_fd >= 0) set_mark(c, c->rcvlowat_fd, mark);
}

void xio__blob_rcvlowat_end(xio_blob_call *c) {
  /* Looked up anew: if the try's connection was closed, its descriptor may already
   * belong to another socket, and then it is not in the table under this key. */
  int fd = c->rcvlowat ? find_sock(c->socks, c->easy) : -1;
  if (fd >= 0) set_mark(c, fd, 1);
  c->rcvlowat = 0;
  c->rcvlowat_fd = -1;
  c->body_seen = 0;
}
