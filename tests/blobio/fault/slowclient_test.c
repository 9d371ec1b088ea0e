/*
 * slowclient_test.c - slow clients cannot lock others out of the proxy (the
 * emulator's front): more connections than it has slots, each trickling a header
 * line now and then and never ending its head, still leave a normal client served
 * at its first try, and never become requests; and a head that trickles past its
 * deadline is cut although bytes keep coming.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "proxy_fixture.h"
#include "test.h"
#include "util.h"

#define TRICKLERS (FAULTPROXY_MAX_CONNS + 44)

/* Connections that each sent the start of a head and add a header line every
 * `every_ms`, from their own thread, until stopped. */
typedef struct trickle {
  int fd[TRICKLERS];
  int n;
  int every_ms;
  atomic_int stop;
  atomic_int cut; /* connections the proxy ended (send failed or it closed) */
  pthread_t thread;
} trickle;

static void sleep_ms(int ms) {
  struct timespec t = {ms / 1000, (long)(ms % 1000) * 1000000L};
  nanosleep(&t, NULL);
}

/* A blocking connection to the proxy (it queues in the listen backlog when the proxy
 * does not accept it yet). */
static int connect_proxy(pfx *p) {
  const char *ep = faultproxy_endpoint(p->proxy);
  struct sockaddr_in a = {0};
  a.sin_family = AF_INET;
  a.sin_port = htons((uint16_t)strtol(strrchr(ep, ':') + 1, NULL, 10));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT(fd >= 0);
  ASSERT_EQ(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
  return fd;
}

/* Sends `s` on `fd` without blocking: 0, or -1 when the proxy has ended the
 * connection (a byte from it, an orderly end or a reset all count). */
static int trickle_send(int fd, const char *s) {
  char c;
  ssize_t r = recv(fd, &c, 1, MSG_DONTWAIT);
  if (r >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) return -1;
  ssize_t w = send(fd, s, strlen(s), MSG_NOSIGNAL | MSG_DONTWAIT);
  return w < 0 && errno != EAGAIN && errno != EWOULDBLOCK ? -1 : 0;
}

static void *trickle_main(void *arg) {
  trickle *t = arg;
  while (!atomic_load(&t->stop)) {
    sleep_ms(t->every_ms);
    for (int i = 0; i < t->n; i++) {
      if (t->fd[i] < 0 || trickle_send(t->fd[i], "X-Trickle: 1\r\n") == 0) continue;
      close(t->fd[i]);
      t->fd[i] = -1;
      atomic_fetch_add(&t->cut, 1);
    }
  }
  return NULL;
}

/* Opens `n` connections to the proxy, each sending a request line and one header,
 * and starts trickling. */
static void trickle_start(trickle *t, pfx *p, int n, int every_ms) {
  memset(t, 0, sizeof *t);
  t->every_ms = every_ms;
  atomic_init(&t->stop, 0);
  atomic_init(&t->cut, 0);
  for (int i = 0; i < n; i++) {
    t->fd[i] = connect_proxy(p);
    t->n++;
    const char *start = "GET /devstoreaccount1/slow?comp=list HTTP/1.1\r\nHost: 127.0.0.1\r\n";
    ASSERT_EQ(send(t->fd[i], start, strlen(start), MSG_NOSIGNAL), (ssize_t)strlen(start));
  }
  ASSERT_EQ(pthread_create(&t->thread, NULL, trickle_main, t), 0);
}

static void trickle_stop(trickle *t) {
  atomic_store(&t->stop, 1);
  pthread_join(t->thread, NULL);
  for (int i = 0; i < t->n; i++)
    if (t->fd[i] >= 0) close(t->fd[i]);
}

/* More connections than the proxy has slots, each trickling its head: a normal
 * client connecting after them is still served, at its first try (the proxy makes
 * room by cutting a trickling head, leaving the newcomer in the listen queue
 * meanwhile, where it was turned away before), and no trickled head became a
 * request. */
TEST(trickled_heads_leave_room_for_a_new_client) {
  pfx p;
  xio_blob_engine_options o = pfx_options(&p);
  o.retry.max_retries = 0;        /* one try: served, not retried until it got through */
  o.retry.try_timeout_ms = 60000; /* only a hang ends it */
  pfx_setup(&p, &o);
  xio_error e;
  xio_blob_target *direct = pfx_direct_blob(&p, "served.mdf", 4096, 7);
  xio_blob_target *b = pfx_proxied(&p, "served.mdf", NULL, NULL);
  pfx_forget(&p); /* the blob's making, straight to Azurite */
  trickle t;
  trickle_start(&t, &p, TRICKLERS, 500);
  sleep_ms(1500); /* every slot taken, the rest queued, heads still trickling */
  xio_blob_props props;
  ASSERT_OK(xio_blob_get_properties(p.fx.engine, b, NULL, &props, &e), &e);
  ASSERT_U64_EQ(props.size, 4096);
  ASSERT_EQ(p.ntries, 1);
  /* The proxy admitted that request alone: a trickled head never became one. */
  ASSERT_EQ(faultproxy_count(p.proxy), 1);
  ASSERT_STR_EQ(pfx_record(&p, 0).method, "HEAD");
  ASSERT_EQ(pfx_record(&p, 0).upstream_status, 200);
  trickle_stop(&t);
  xio_blob_target_free(b);
  xio_blob_target_free(direct);
  pfx_teardown(&p);
}

/* A head that keeps trickling a line every 100 ms is cut at its deadline (here
 * 500 ms) rather than kept open for as long as bytes come; it never becomes a
 * request. The bound only catches a proxy that never cuts it. */
TEST(trickled_head_is_cut_at_its_deadline) {
  pfx p;
  xio_blob_engine_options o = pfx_options(&p);
  pfx_setup(&p, &o);
  faultproxy_set_deadlines(p.proxy, 500, 0);
  trickle t;
  trickle_start(&t, &p, 1, 100);
  for (int i = 0; i < 600 && atomic_load(&t.cut) == 0; i++) /* a minute at most */
    sleep_ms(100);
  ASSERT_EQ(atomic_load(&t.cut), 1);
  trickle_stop(&t);
  ASSERT_EQ(faultproxy_count(p.proxy), 0);
  pfx_teardown(&p);
}
