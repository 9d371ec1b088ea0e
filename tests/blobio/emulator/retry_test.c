/*
 * retry_test.c - what is retried and how: transport failures with backoff until
 * the retry budget or the deadline runs out, non-idempotent calls sent once, and a
 * body the service rejects for its checksum sent again; and the engine's hooks: each
 * try reported with its result, each call completed once through the completion
 * hook with its tag, whether it failed, was refused unsent or was canceled.
 */
#define _DEFAULT_SOURCE
#include <arpa/inet.h>
#include <pthread.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "call_int.h"
#include "fixture.h"
#include "test.h"
#include "util.h"

typedef struct tries {
  int n;
  int attempts[16];
  int will_retry[16];
} tries;

static void record_try(const xio_blob_try_info *info, void *ud) {
  tries *t = ud;
  if (t->n < 16) {
    t->attempts[t->n] = info->attempt;
    t->will_retry[t->n] = info->will_retry;
  }
  t->n++;
}

/* A loopback port with nothing listening on it. */
static int dead_port(void) {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {0};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT(bind(s, (struct sockaddr *)&a, sizeof a) == 0);
  socklen_t len = sizeof a;
  ASSERT(getsockname(s, (struct sockaddr *)&a, &len) == 0);
  close(s);
  return ntohs(a.sin_port);
}

static xio_blob_target *dead_target(void) {
  char url[256];
  xio_error e;
  xio_blob_target *t = NULL;
  snprintf(url, sizeof url, "http://127.0.0.1:%d/devstoreaccount1/cont/b.mdf", dead_port());
  ASSERT_OK(xio_blob_target_new(url, NULL, &t, &e), &e);
  return t;
}

/* An engine that records each try in `t`, with the given retry policy. */
static xio_blob_engine *counting_engine(tries *t, int max_retries, int base_delay_ms,
                                        int deadline_ms) {
  xio_blob_engine_options o = xio_blob_engine_options_default();
  o.retry.max_retries = max_retries;
  o.retry.base_delay_ms = base_delay_ms;
  o.retry.deadline_ms = deadline_ms;
  o.on_try = record_try;
  o.on_try_ud = t;
  xio_blob_engine *eng = NULL;
  xio_error e;
  ASSERT_OK(xio_blob_engine_new(&o, &eng, &e), &e);
  return eng;
}

TEST(transport_errors_are_retried_then_reported) {
  tries t = {0};
  xio_blob_engine *eng = counting_engine(&t, 2, 10, 0);
  xio_error e;
  xio_blob_target *b = dead_target();
  xio_blob_props p;
  ASSERT_ERR(xio_blob_get_properties(eng, b, NULL, &p, &e), XIO_ETRANSPORT, &e);
  ASSERT_EQ(e.retries, 2);
  ASSERT_EQ(e.http_status, 0);
  ASSERT(e.message[0] != '\0');
  ASSERT(e.client_request_id[0] != '\0');
  ASSERT_EQ(t.n, 3);
  for (int i = 0; i < 3; i++)
    ASSERT_EQ(t.attempts[i], i);
  ASSERT(t.will_retry[0] && t.will_retry[1] && !t.will_retry[2]);
  xio_blob_target_free(b);
  xio_blob_engine_free(eng);
}

TEST(deadline_stops_retries) {
  tries t = {0};
  xio_blob_engine *eng = counting_engine(&t, 10, 400, 300);
  xio_error e;
  xio_blob_target *b = dead_target();
  xio_blob_props p;
  ASSERT_ERR(xio_blob_get_properties(eng, b, NULL, &p, &e), XIO_ETRANSPORT, &e);
  ASSERT_EQ(t.n, 1); /* the first backoff (>= 320 ms) would pass the deadline */
  xio_blob_target_free(b);
  xio_blob_engine_free(eng);
}

TEST(lease_acquire_without_proposed_id_is_sent_once) {
  tries t = {0};
  xio_blob_engine *eng = counting_engine(&t, 3, 5, 0);
  xio_error e;
  xio_blob_target *b = dead_target();
  xio_blob_lease_args a = {XIO_BLOB_LEASE_ACQUIRE, NULL, NULL, -1, 0};
  char id[64];
  ASSERT_ERR(xio_blob_lease(eng, b, &a, id, &e), XIO_ETRANSPORT, &e);
  ASSERT_EQ(t.n, 1);
  t.n = 0;
  char proposed[37];
  ASSERT_OK(xio_blob_new_uuid(proposed, &e), &e);
  a.proposed_id = proposed; /* now an acquire can be repeated safely */
  ASSERT_ERR(xio_blob_lease(eng, b, &a, id, &e), XIO_ETRANSPORT, &e);
  ASSERT_EQ(t.n, 4);
  xio_blob_target_free(b);
  xio_blob_engine_free(eng);
}

TEST(checksum_rejected_by_service_is_retried) {
  fixture fx;
  tries t = {0};
  xio_error e;
  xio_blob_engine_options o = xio_blob_engine_options_default();
  o.retry.max_retries = 1;
  o.retry.base_delay_ms = 5;
  o.on_try = record_try;
  o.on_try_ud = &t;
  fixture_setup(&fx, &o);
  xio_blob_target *b = fixture_page_blob(&fx, "crc.mdf", 65536);
  char page[4096];
  test_fill_random(page, sizeof page, 11);
  xio_blob_call *c = NULL;
  ASSERT_OK(xio_blob_call_put_page(b, 0, page, sizeof page, 0, NULL, &c, &e), &e);
  xio_err rc = XIO_OK;
  /* The CRC of an empty body: wrong for this one, as if the bytes changed in flight. */
  xio__blob_call_header(c, "x-ms-content-crc64", "AAAAAAAAAAA=", &rc);
  ASSERT_OK(rc, &e);
  t.n = 0;
  ASSERT_ERR(xio_blob_send(fx.engine, c, &e), XIO_ECHECKSUM, &e);
  ASSERT_EQ(e.http_status, 400);
  ASSERT_STR_EQ(e.service_code, "Crc64Mismatch");
  ASSERT_EQ(t.n, 2);
  ASSERT_EQ(xio_blob_call_retries(c), 1);
  xio_blob_call_free(c);
  /* Nothing was written. */
  xio_ranges r = {0};
  ASSERT_OK(xio_blob_get_ranges(fx.engine, b, 0, 0, 0, &r, &e), &e);
  ASSERT_EQ(r.n, 0);
  xio_ranges_clear(&r);
  xio_blob_target_free(b);
  fixture_teardown(&fx);
}

TEST(insecure_remote_http_is_refused) {
  xio_blob_engine *eng;
  xio_error e;
  ASSERT_OK(xio_blob_engine_new(NULL, &eng, &e), &e);
  xio_blob_target *b = NULL;
  ASSERT_OK(xio_blob_target_new("http://example.blob.core.windows.net/cont/b.mdf", NULL, &b, &e),
            &e);
  xio_blob_props p;
  ASSERT_ERR(xio_blob_get_properties(eng, b, NULL, &p, &e), XIO_EINSECURE, &e);
  ASSERT_EQ(e.http_status, 0);
  ASSERT_STR_EQ(xio_reason_name(e.reason), "XIO_REASON_HTTP_REMOTE");
  xio_blob_target_free(b);
  xio_blob_engine_free(eng);
}

/* What the engine's hooks saw. */
typedef struct hooks {
  pthread_mutex_t mu;
  int tries, completions;
  xio_err try_results[8];
  int64_t try_us[8];
  const xio_blob_call *try_calls[8];
  const void *try_tags[8];
  const xio_blob_call *completed[8];
  const void *completed_tags[8];
  int completed_finished[8]; /* the call's result was final when the hook ran */
  xio_err completed_results[8];
} hooks;

static void hook_try(const xio_blob_try_info *info, void *ud) {
  hooks *h = ud;
  pthread_mutex_lock(&h->mu);
  if (h->tries < 8) {
    h->try_results[h->tries] = info->result;
    h->try_us[h->tries] = info->duration_us;
    h->try_calls[h->tries] = info->call;
    h->try_tags[h->tries] = xio_blob_call_tag(info->call);
  }
  h->tries++;
  pthread_mutex_unlock(&h->mu);
}

static void hook_complete(const xio_blob_call *c, void *ud) {
  hooks *h = ud;
  pthread_mutex_lock(&h->mu);
  if (h->completions < 8) {
    h->completed[h->completions] = c;
    h->completed_tags[h->completions] = xio_blob_call_tag(c);
    h->completed_finished[h->completions] = c->finished;
    h->completed_results[h->completions] = xio_blob_call_result(c, NULL);
  }
  h->completions++;
  pthread_mutex_unlock(&h->mu);
}

static xio_blob_engine *hooked_engine(hooks *h, int max_retries, int base_delay_ms) {
  xio_blob_engine_options o = xio_blob_engine_options_default();
  o.retry.max_retries = max_retries;
  o.retry.base_delay_ms = base_delay_ms;
  o.on_try = hook_try;
  o.on_try_ud = h;
  o.on_complete = hook_complete;
  o.on_complete_ud = h;
  xio_blob_engine *eng = NULL;
  xio_error e;
  ASSERT_OK(xio_blob_engine_new(&o, &eng, &e), &e);
  return eng;
}

TEST(every_call_passes_the_completion_hook_once) {
  hooks h;
  memset(&h, 0, sizeof h);
  pthread_mutex_init(&h.mu, NULL);
  xio_blob_engine *eng = hooked_engine(&h, 2, 5);
  xio_error e;
  static const int tag = 1;
  /* Tried three times, then failed: three tries, one completion, with its tag. */
  xio_blob_target *dead = dead_target();
  xio_blob_call *c = NULL;
  ASSERT_OK(xio_blob_call_get_properties(dead, NULL, &c, &e), &e);
  xio_blob_call_set_tag(c, &tag);
  ASSERT(xio_blob_call_tag(c) == &tag);
  ASSERT_ERR(xio_blob_send(eng, c, &e), XIO_ETRANSPORT, &e);
  ASSERT_EQ(h.tries, 3);
  for (int i = 0; i < 3; i++) {
    ASSERT_EQ(h.try_results[i], XIO_ETRANSPORT);
    ASSERT(h.try_us[i] >= 0);
    ASSERT(h.try_calls[i] == c);
    ASSERT(h.try_tags[i] == &tag);
  }
  ASSERT_EQ(h.completions, 1);
  ASSERT(h.completed[0] == c && h.completed_tags[0] == &tag);
  ASSERT(h.completed_finished[0]);
  ASSERT_EQ(h.completed_results[0], XIO_ETRANSPORT);
  ASSERT_U64_EQ(xio_blob_engine_completed(eng), 1);
  xio_blob_call_free(c);
  /* Refused before anything is sent: no try, one completion, without a tag. */
  xio_blob_target *remote = NULL;
  ASSERT_OK(
      xio_blob_target_new("http://example.blob.core.windows.net/cont/b.mdf", NULL, &remote, &e),
      &e);
  ASSERT_OK(xio_blob_call_get_properties(remote, NULL, &c, &e), &e);
  ASSERT_ERR(xio_blob_send(eng, c, &e), XIO_EINSECURE, &e);
  ASSERT_EQ(h.tries, 3);
  ASSERT_EQ(h.completions, 2);
  ASSERT(h.completed[1] == c && h.completed_tags[1] == NULL);
  ASSERT_EQ(h.completed_results[1], XIO_EINSECURE);
  ASSERT_U64_EQ(xio_blob_engine_completed(eng), 2);
  xio_blob_call_free(c);
  xio_blob_target_free(remote);
  xio_blob_target_free(dead);
  xio_blob_engine_free(eng);
  pthread_mutex_destroy(&h.mu);
}

static void note_done(xio_blob_call *c, void *ud) {
  (void)c;
  *(int *)ud = 1;
}

TEST(a_call_canceled_by_freeing_the_engine_passes_the_hook) {
  hooks h;
  memset(&h, 0, sizeof h);
  pthread_mutex_init(&h.mu, NULL);
  xio_blob_engine *eng = hooked_engine(&h, 3, 60000); /* its retry waits a minute */
  xio_error e;
  xio_blob_target *dead = dead_target();
  xio_blob_call *c = NULL;
  ASSERT_OK(xio_blob_call_get_properties(dead, NULL, &c, &e), &e);
  int done = 0;
  xio_blob_submit(eng, c, note_done, &done);
  for (int i = 0; i < 1000; i++) { /* at most 10 s for the first try to fail */
    pthread_mutex_lock(&h.mu);
    int n = h.tries;
    pthread_mutex_unlock(&h.mu);
    if (n) break;
    usleep(10000);
  }
  ASSERT_EQ(h.tries, 1);
  ASSERT_EQ(h.completions, 0); /* waiting for its retry */
  xio_blob_engine_free(eng);
  ASSERT_EQ(h.completions, 1);
  ASSERT(h.completed[0] == c);
  ASSERT_EQ(h.completed_results[0], XIO_ECANCELED);
  ASSERT(done);
  xio_blob_call_free(c);
  xio_blob_target_free(dead);
  pthread_mutex_destroy(&h.mu);
}
