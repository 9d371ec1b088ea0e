/*
 * scheme_tls_test.c - a URL whose scheme is not what its port speaks fails after one
 * try, saying which the port speaks. http:// to the emulator serving HTTPS: the
 * server closes the connection without a word, and a look at the port (a TLS hello)
 * finds TLS. https:// to a plain-http server that answers the hello with a 400, as
 * Node's http server (Azurite's) does. And the command line's hint names the https://
 * URL to use.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clirun.h"
#include "test.h"
#include "tlsfix.h"

TEST(plain_http_to_the_tls_emulator_fails_at_once) {
  tls_engine t;
  xio_error e;
  char url[512], http[520];
  tls_engine_setup(&t, tls_ca_file());
  tls_container_url(url, sizeof url);
  ASSERT_EQ(strncmp(url, "https://", 8), 0);
  snprintf(http, sizeof http, "http://%s", url + 8);
  xio_blob_target *cont = tls_target(&t, http);
  ASSERT_ERR(xio_blob_create_container(t.engine, cont, 0, &e), XIO_ETRANSPORT, &e);
  ASSERT_STR_EQ(xio_reason_name(e.reason), "XIO_REASON_SPEAKS_HTTPS");
  ASSERT_CONTAINS(e.message, "this endpoint speaks https, not http");
  ASSERT_EQ(e.retries, 0);
  ASSERT_EQ(tls_tries_made(&t), 1);
  xio_blob_target_free(cont);
  cont = tls_target(&t, url); /* the https:// URL of the same container works */
  ASSERT_OK(xio_blob_create_container(t.engine, cont, 0, &e), &e);
  xio_blob_target_free(cont);
  tls_engine_teardown(&t);
}

/* A plain-http server on loopback that answers whatever comes on each connection
 * with "400 Bad Request" and closes, as Node's http server answers a TLS hello. */
typedef struct plain400 {
  int fd, port, answered;
  pthread_t thread;
} plain400;

static void *plain400_main(void *arg) {
  plain400 *s = arg;
  static const char answer[] = "HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n";
  int c;
  while ((c = accept(s->fd, NULL, NULL)) >= 0) {
    char buf[4096];
    if (recv(c, buf, sizeof buf, 0) > 0 &&
        send(c, answer, sizeof answer - 1, MSG_NOSIGNAL) == (ssize_t)sizeof answer - 1)
      __atomic_add_fetch(&s->answered, 1, __ATOMIC_SEQ_CST);
    shutdown(c, SHUT_WR);
    while (recv(c, buf, sizeof buf, 0) > 0) {
    }
    close(c);
  }
  return NULL;
}

static void plain400_start(plain400 *s) {
  struct sockaddr_in a = {0};
  socklen_t len = sizeof a;
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  s->answered = 0;
  s->fd = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT(s->fd >= 0);
  ASSERT_EQ(bind(s->fd, (struct sockaddr *)&a, sizeof a), 0);
  ASSERT_EQ(listen(s->fd, 8), 0);
  ASSERT_EQ(getsockname(s->fd, (struct sockaddr *)&a, &len), 0);
  s->port = ntohs(a.sin_port);
  ASSERT_EQ(pthread_create(&s->thread, NULL, plain400_main, s), 0);
}

static void plain400_stop(plain400 *s) {
  shutdown(s->fd, SHUT_RDWR); /* ends the accept */
  pthread_join(s->thread, NULL);
  close(s->fd);
}

TEST(tls_to_a_plain_http_server_fails_at_once) {
  tls_engine t;
  plain400 s;
  xio_error e;
  char url[512];
  tls_engine_setup(&t, tls_ca_file());
  plain400_start(&s);
  snprintf(url, sizeof url, "https://127.0.0.1:%d/devstoreaccount1/plain400", s.port);
  xio_blob_target *cont = tls_target(&t, url);
  ASSERT_ERR(xio_blob_create_container(t.engine, cont, 0, &e), XIO_ETRANSPORT, &e);
  ASSERT_STR_EQ(xio_reason_name(e.reason), "XIO_REASON_SPEAKS_HTTP");
  ASSERT_CONTAINS(e.message, "this endpoint speaks http, not https");
  ASSERT_EQ(tls_tries_made(&t), 1);
  ASSERT_EQ(__atomic_load_n(&s.answered, __ATOMIC_SEQ_CST), 1);
  xio_blob_target_free(cont);
  plain400_stop(&s);
  tls_engine_teardown(&t);
}

TEST(cli_plain_http_to_the_tls_emulator_names_https) {
  clirun r = {0};
  char container[64], url[512], http[520], hint[600];
  clirun_container(container, sizeof container);
  clirun_url(container, NULL, url, sizeof url);
  ASSERT_EQ(strncmp(url, "https://", 8), 0);
  snprintf(http, sizeof http, "http://%s", url + 8);
  snprintf(hint, sizeof hint, "\nhint: this endpoint speaks https, not http: use %s\n", url);
  XIO(&r, "ls", http);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "this endpoint speaks https, not http");
  ASSERT_CONTAINS(r.err, hint);
  ASSERT_EQ(clirun_trace_events(&r, "xio_failed_request"), 0);
  ASSERT_EQ(clirun_trace_events(&r, "xio_send_complete"), 1);
  clirun_free(&r);
}
