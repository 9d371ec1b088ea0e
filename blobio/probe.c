/*
 * probe.c - what a port speaks, asked when plain http to it got not one byte back.
 * A TLS server that reads an HTTP request closes the connection without a word
 * (Node's https server, so Azurite started with --cert; OpenSSL's), which looks
 * the same as a connection lost for a passing reason, so the retries would only
 * meet the same silence. So a TLS ClientHello, made by OpenSSL in memory, goes to
 * the address the try reached (its proxy's, when it went through one), and the
 * first five bytes of the answer tell: a TLS record header (a handshake or an
 * alert, version 3.x) is a TLS server. Nothing else is sent, no handshake is
 * finished and no certificate is looked at, so nothing is trusted on the strength
 * of it; it only picks the words of an error. The whole look is bounded by a
 * timeout. The engine asks only on a call's first try, for an origin it has never
 * had an answer from (classify.c says when).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/ssl.h>

#include "engine_int.h"

/* 1 for an IPv4 or IPv6 literal (never sent as a server name). */
static int is_ip_literal(const char *host) {
  unsigned char addr[16];
  char v6[64];
  if (inet_pton(AF_INET, host, addr) == 1) return 1;
  size_t n = strlen(host);
  if (n >= 2 && host[0] == '[' && host[n - 1] == ']' && n - 2 < sizeof v6) {
    memcpy(v6, host + 1, n - 2);
    v6[n - 2] = '\0';
    host = v6;
  }
  return inet_pton(AF_INET6, host, addr) == 1;
}

/* A ClientHello for `host` into `out`: its length, or 0 when OpenSSL made none. */
static size_t client_hello(const char *host, unsigned char *out, size_t size) {
  SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
  SSL *ssl = ctx ? SSL_new(ctx) : NULL;
  BIO *rb = BIO_new(BIO_s_mem()), *wb = BIO_new(BIO_s_mem());
  size_t n = 0;
  if (ssl && rb && wb) {
    SSL_set_bio(ssl, rb, wb); /* the SSL owns both from here */
    rb = wb = NULL;
    if (host && *host && !is_ip_literal(host)) SSL_set_tlsext_host_name(ssl, host);
    SSL_set_connect_state(ssl);
    (void)SSL_do_handshake(ssl); /* writes the hello, then wants to read */
    int k = BIO_read(SSL_get_wbio(ssl), out, (int)size);
    n = k > 0 ? (size_t)k : 0;
  }
  BIO_free(rb);
  BIO_free(wb);
  SSL_free(ssl);
  SSL_CTX_free(ctx);
  return n;
}

static int64_t now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Waits for `events` on `fd` until `end` (now_ms). 1 ready, 0 not. */
static int wait_for(int fd, short events, int64_t end) {
  for (;;) {
    int64_t left = end - now_ms();
    if (left <= 0) return 0;
    struct pollfd p = {fd, events, 0};
    int r = poll(&p, 1, (int)left);
    if (r > 0) return 1;
    if (r < 0 && errno != EINTR) return 0;
  }
}

/* A non-blocking socket connected to ip:port by `end`, or -1. */
static int connect_to(const char *ip, long port, int64_t end) {
  struct addrinfo hints, *ai = NULL;
  char serv[16];
  memset(&hints, 0, sizeof hints);
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV; /* no name lookup */
  snprintf(serv, sizeof serv, "%ld", port);
  if (getaddrinfo(ip, serv, &hints, &ai) != 0 || !ai) return -1;
  int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  int ok = fd >= 0 && (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0 || errno == EINPROGRESS);
  freeaddrinfo(ai);
  int soerr = 0;
  socklen_t len = sizeof soerr;
  ok = ok && wait_for(fd, POLLOUT, end) &&
       getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) == 0 && soerr == 0;
  if (ok) return fd;
  if (fd >= 0) close(fd);
  return -1;
}

/* Reads the first `n` bytes the peer sends, by `end`: 1 when all came. */
static int read_first(int fd, unsigned char *buf, size_t n, int64_t end) {
  size_t got = 0;
  while (got < n) {
    if (!wait_for(fd, POLLIN, end)) return 0;
    ssize_t k = recv(fd, buf + got, n - got, 0);
    if (k == 0 || (k < 0 && errno != EINTR && errno != EAGAIN)) return 0;
    if (k > 0) got += (size_t)k;
  }
  return 1;
}

int xio__blob_probe_tls(const char *ip, long port, const char *host, int timeout_ms) {
  unsigned char hello[4096], head[5];
  size_t n = client_hello(host, hello, sizeof hello);
  int64_t end = now_ms() + timeout_ms;
  int fd = n ? connect_to(ip, port, end) : -1;
  if (fd < 0) return 0;
  int tls = send(fd, hello, n, MSG_NOSIGNAL) == (ssize_t)n && read_first(fd, head, 5, end) &&
            (head[0] == 0x16 || head[0] == 0x15) && head[1] == 0x03;
  close(fd);
  return tls;
}
