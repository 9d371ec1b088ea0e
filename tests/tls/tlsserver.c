/*
 * tlsserver.c - a tiny TLS server inside the test process (see tlsserver.h): one
 * thread that polls a listening socket, accepts, runs the handshake with bounded
 * socket timeouts, reads whatever the client sends, and closes.
 */
#define _POSIX_C_SOURCE 200809L
#include "tlsserver.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
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
};

/* One connection: handshake, then wait briefly for a request. */
static void serve_one(tlsserver *s, int c) {
  struct timeval tv = {1, 0};
  setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  SSL *ssl = SSL_new(s->ctx);
  if (ssl && SSL_set_fd(ssl, c) == 1 && SSL_accept(ssl) == 1) {
    char buf[4096];
    if (SSL_read(ssl, buf, sizeof buf) > 0) atomic_fetch_add(&s->requests, 1);
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

static int listen_loopback(int *port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
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

tlsserver *tlsserver_start(const char *cert_file, const char *key_file) {
  /* The client hangs up as soon as it refuses the certificate: the server's next
   * write must fail with EPIPE, not end the test process with SIGPIPE. */
  struct sigaction ignore;
  memset(&ignore, 0, sizeof ignore);
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ignore, NULL);
  tlsserver *s = calloc(1, sizeof *s);
  if (!s) FAIL("out of memory");
  s->ctx = SSL_CTX_new(TLS_server_method());
  if (!s->ctx || SSL_CTX_use_certificate_chain_file(s->ctx, cert_file) != 1 ||
      SSL_CTX_use_PrivateKey_file(s->ctx, key_file, SSL_FILETYPE_PEM) != 1)
    FAIL("tlsserver: cannot load %s and %s", cert_file, key_file);
  s->fd = listen_loopback(&s->port);
  if (pthread_create(&s->thread, NULL, serve, s) != 0) FAIL("tlsserver: no thread");
  return s;
}

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
