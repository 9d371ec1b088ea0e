/*
 * tlsserver.c - a tiny TLS server inside the test process (see tlsserver.h): one
 * thread that polls a listening socket, accepts, runs the handshake with bounded
 * socket timeouts, reads whatever the client sends (slowly, and answers, when
 * started slow), and closes.
 */
#define _GNU_SOURCE
#include "tlsserver.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "test.h"

struct tlsserver {
  SSL_CTX *ctx;
  int fd;
  int port;
  pthread_t thread;
  atomic_int stop;
  atomic_int connections;
  atomic_int requests;
  atomic_int answered;
  int chunk, pause_us; /* slow: body bytes per read, and the pause after each */
};

static void pause_us(int us) {
  struct timespec ts = {us / 1000000, (long)(us % 1000000) * 1000};
  nanosleep(&ts, NULL);
}

/* Reads one request, headers at once and then the body `chunk` bytes a time with a
 * pause before each, and answers 201, counted before it is sent (the client may
 * look at the count as soon as it has the answer); not when the client went away
 * first. */
static void read_slowly(tlsserver *s, SSL *ssl) {
  char head[8192], *body = malloc((size_t)s->chunk);
  size_t got = 0;
  char *end = NULL;
  while (body && !end && got < sizeof head - 1) {
    int n = SSL_read(ssl, head + got, (int)(sizeof head - 1 - got));
    if (n <= 0) break;
    got += (size_t)n;
    head[got] = '\0';
    end = strstr(head, "\r\n\r\n");
  }
  const char *cl = end ? strcasestr(head, "\r\ncontent-length:") : NULL;
  long long left = cl ? atoll(cl + 17) - (long long)(got - (size_t)(end + 4 - head)) : -1;
  while (left > 0) {
    pause_us(s->pause_us);
    int n = SSL_read(ssl, body, left < s->chunk ? (int)left : s->chunk);
    if (n <= 0) break;
    left -= n;
  }
  free(body);
  static const char answer[] = "HTTP/1.1 201 Created\r\nContent-Length: 0\r\n"
                               "Connection: close\r\n\r\n";
  if (left != 0) return;
  atomic_fetch_add(&s->answered, 1);
  SSL_write(ssl, answer, sizeof answer - 1);
}

/* The client is in this process: its end of connection `c` is the socket whose
 * own address is c's peer. Giving it the smallest send buffer makes every write
 * of more than a few KiB find it full. */
static void shrink_client_send_buffer(int c) {
  struct sockaddr_in peer, self;
  socklen_t pl = sizeof peer;
  int small = 1;
  if (getpeername(c, (struct sockaddr *)&peer, &pl) != 0) return;
  for (int fd = 0; fd < 4096; fd++) {
    socklen_t sl = sizeof self;
    if (fd == c || getsockname(fd, (struct sockaddr *)&self, &sl) != 0 || sl != pl) continue;
    if (self.sin_port == peer.sin_port && self.sin_addr.s_addr == peer.sin_addr.s_addr)
      setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &small, sizeof small);
  }
}

/* One connection: handshake, then wait briefly for a request. */
static void serve_one(tlsserver *s, int c) {
  struct timeval tv = {s->chunk ? 10 : 1, 0};
  setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  if (s->chunk) shrink_client_send_buffer(c); /* before the client can send a request */
  SSL *ssl = SSL_new(s->ctx);
  if (ssl && SSL_set_fd(ssl, c) == 1 && SSL_accept(ssl) == 1) {
    char buf[4096];
    if (s->chunk) {
      atomic_fetch_add(&s->requests, 1);
      read_slowly(s, ssl);
    } else if (SSL_read(ssl, buf, sizeof buf) > 0) {
      atomic_fetch_add(&s->requests, 1);
    }
  }
  SSL_free(ssl);
  ERR_clear_error();
}

static void *serve(void *ud) {
  tlsserver *s = ud;
  while (!atomic_load(&s->stop)) {
    struct pollfd p = {s->fd, POLLIN, 0};
    if (poll(&p, 1, 50) <= 0) continue;
    int c = accept(s->fd, NULL, NULL);
    if (c < 0) continue;
    atomic_fetch_add(&s->connections, 1);
    serve_one(s, c);
    close(c);
  }
  return NULL;
}

/* A slow server's small receive buffer (set before listen, so accepted sockets
 * have it): the client's bytes back up into its own socket. */
#define SLOW_RCVBUF (16 * 1024)

static int listen_loopback(int *port, int slow) {
  int fd = socket(AF_INET, SOCK_STREAM, 0), rcvbuf = SLOW_RCVBUF;
  if (fd >= 0 && slow) setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
  struct sockaddr_in a;
  socklen_t len = sizeof a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 16) != 0 ||
      getsockname(fd, (struct sockaddr *)&a, &len) != 0)
    FAIL("tlsserver: cannot listen on 127.0.0.1");
  *port = ntohs(a.sin_port);
  return fd;
}

static tlsserver *start(const char *cert_file, const char *key_file, int chunk, int pause) {
  /* The client hangs up as soon as it refuses the certificate: the server's next
   * write must fail with EPIPE, not end the test process with SIGPIPE. */
  struct sigaction ignore;
  memset(&ignore, 0, sizeof ignore);
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ignore, NULL);
  tlsserver *s = calloc(1, sizeof *s);
  if (!s) FAIL("out of memory");
  s->chunk = chunk;
  s->pause_us = pause;
  s->ctx = SSL_CTX_new(TLS_server_method());
  if (!s->ctx || SSL_CTX_use_certificate_chain_file(s->ctx, cert_file) != 1 ||
      SSL_CTX_use_PrivateKey_file(s->ctx, key_file, SSL_FILETYPE_PEM) != 1)
    FAIL("tlsserver: cannot load %s and %s", cert_file, key_file);
  s->fd = listen_loopback(&s->port, chunk > 0);
  if (pthread_create(&s->thread, NULL, serve, s) != 0) FAIL("tlsserver: no thread");
  return s;
}

tlsserver *tlsserver_start(const char *cert_file, const char *key_file) {
  return start(cert_file, key_file, 0, 0);
}

tlsserver *tlsserver_start_slow(const char *cert_file, const char *key_file, int chunk,
                                int pause_us) {
  if (chunk <= 0) FAIL("tlsserver: a slow server reads at least a byte at a time");
  return start(cert_file, key_file, chunk, pause_us);
}

int tlsserver_answered(tlsserver *s) { return atomic_load(&s->answered); }

int tlsserver_port(const tlsserver *s) { return s->port; }

int tlsserver_connections(tlsserver *s) { return atomic_load(&s->connections); }

int tlsserver_requests(tlsserver *s) { return atomic_load(&s->requests); }

void tlsserver_free(tlsserver *s) {
  if (!s) return;
  atomic_store(&s->stop, 1);
  pthread_join(s->thread, NULL);
  close(s->fd);
  SSL_CTX_free(s->ctx);
  free(s);
}
