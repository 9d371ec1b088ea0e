/*
 * session_tls_test.c - what an engine's TLS connections share, counted against the
 * emulator serving HTTPS: the private CA file is parsed once per engine however
 * many connections it opens (and the system bundle, which no chain here needs,
 * never), and new connections resume a TLS session whichever
 * libcurl handle made it, instead of a full handshake each. Another engine shares
 * nothing: its first connection is a full handshake again.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xio/blob.h>

#include "blob_sync_test_util.h"
#include "test.h"
#include "tls_int.h"
#include "tlsfix.h"
#include "util.h"

#define KiB    1024u
#define NREADS 8
#define READ   (1024 * KiB) /* long enough on the wire that all NREADS overlap */

typedef struct reads {
  tls_batch done;
  xio_blob_call *call[NREADS];
  unsigned char buf[NREADS][READ];
} reads;

/* NREADS reads of `blob` submitted at once, so that the engine runs them on as
 * many connections; each must start with `data`. */
static void read_at_once(tls_engine *t, xio_blob_target *blob, const unsigned char *data) {
  xio_error e;
  reads *r = calloc(1, sizeof *r);
  ASSERT(r != NULL);
  pthread_mutex_init(&r->done.mu, NULL);
  pthread_cond_init(&r->done.cv, NULL);
  for (int i = 0; i < NREADS; i++)
    ASSERT_OK(xio_blob_call_read(blob, 0, r->buf[i], READ, NULL, &r->call[i], &e), &e);
  for (int i = 0; i < NREADS; i++)
    xio_blob_submit(t->engine, r->call[i], tls_batch_done, &r->done);
  tls_batch_wait(&r->done, NREADS);
  for (int i = 0; i < NREADS; i++) {
    ASSERT_OK(xio_blob_call_result(r->call[i], &e), &e);
    ASSERT_MEM_EQ(r->buf[i], data, 4 * KiB);
    xio_blob_call_free(r->call[i]);
  }
  pthread_cond_destroy(&r->done.cv);
  pthread_mutex_destroy(&r->done.mu);
  free(r);
}

/* A blob of READ bytes in a fresh container whose first 4 KiB are `data`. */
static xio_blob_target *make_blob(tls_engine *t, unsigned char *data) {
  xio_error e;
  xio_blob_target *blob = tls_new_blob(t, "sessions.mdf", READ);
  test_fill_random(data, 4 * KiB, 7);
  ASSERT_OK(xio_blob_put_page(t->engine, blob, 0, data, 4 * KiB, NULL, &e), &e);
  return blob;
}

TEST(tls_sessions_resumed_and_ca_parsed_once) {
  tls_engine t;
  xio__blob_tls_counts n;
  unsigned char data[4 * KiB];
  tls_engine_setup(&t, tls_ca_file());
  xio__blob_engine_tls_counts(t.engine, &n);
  ASSERT_EQ(n.private_ca_loads, 1); /* checked and parsed when the engine starts */
  ASSERT_EQ(n.system_ca_loads, 0);  /* not before the first TLS connection */
  ASSERT_EQ(n.contexts, 0);

  xio_blob_target *blob = make_blob(&t, data);
  xio__blob_engine_tls_counts(t.engine, &n);
  ASSERT_EQ(n.contexts, 1); /* one keep-alive connection for calls one at a time */
  ASSERT_EQ(n.full_handshakes, 1);

  /* The reads at once run on new connections, each made by a libcurl handle that
   * never connected before: with a session cache per handle, every one of them
   * would be a full handshake. With the engine's shared cache they resume the
   * session of the first connection - all of them, as a rule, but under a heavily
   * loaded machine or ThreadSanitizer some have been seen to start their
   * handshake before libcurl had stored the first connection's TLS 1.3 ticket. */
  read_at_once(&t, blob, data);
  xio__blob_engine_tls_counts(t.engine, &n);
  if (n.contexts < 3) FAIL("%lu TLS connections for reads at once, wanted several", n.contexts);
  ASSERT_EQ(n.full_handshakes + n.resumed, n.contexts);
  if (n.resumed < 1) FAIL("none of %lu TLS connections resumed a session", n.contexts);
  ASSERT_EQ(n.private_ca_loads, 1);
  ASSERT_EQ(n.system_ca_loads, 0); /* the private CA completes every chain */

  /* Another engine trusts on its own and resumes nothing of the first's. */
  tls_engine other;
  xio_error e;
  xio_blob_props p;
  tls_engine_setup(&other, tls_ca_file());
  xio_blob_target *again = tls_target(&other, xio_blob_target_safe_url(blob));
  ASSERT_OK(xio_blob_get_properties(other.engine, again, NULL, &p, &e), &e);
  xio__blob_engine_tls_counts(other.engine, &n);
  ASSERT_EQ(n.contexts, 1);
  ASSERT_EQ(n.full_handshakes, 1);
  ASSERT_EQ(n.resumed, 0);
  xio_blob_target_free(again);
  tls_engine_teardown(&other);

  xio_blob_target_free(blob);
  tls_engine_teardown(&t);
}
