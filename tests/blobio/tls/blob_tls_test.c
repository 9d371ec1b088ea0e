/*
 * blob_tls_test.c - the page-blob client over HTTPS against the emulator serving a
 * certificate from a private CA: with that CA as the engine's ca_file every
 * operation works (also on several connections at once); without it, with an
 * unrelated CA, or against a server whose certificate names another host, the
 * first try fails with the certificate named, is never retried, and no request
 * reaches the server. A ca_file that holds no certificate is refused up front.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xio/blob.h>

#include "blob_sync_test_util.h"
#include "test.h"
#include "tlsfix.h"
#include "tlsserver.h"
#include "util.h"

#define KiB    1024u
#define NREADS 8

typedef struct read_slot {
  xio_blob_call *call;
  unsigned char buf[8 * KiB];
} read_slot;

TEST(blob_round_trip_with_ca_file) {
  tls_engine t;
  xio_error e;
  char url[512], blob_url[600];
  tls_engine_setup(&t, tls_ca_file());
  tls_container_url(url, sizeof url);
  ASSERT_CONTAINS(url, "https://127.0.0.1:");
  xio_blob_target *cont = tls_target(&t, url);
  ASSERT_OK(xio_blob_create_container(t.engine, cont, 0, &e), &e);
  snprintf(blob_url, sizeof blob_url, "%s/disk.mdf", url);
  xio_blob_target *blob = tls_target(&t, blob_url);
  ASSERT_OK(xio_blob_create(t.engine, blob, 64 * KiB, NULL, 0, NULL, &e), &e);

  unsigned char data[12 * KiB], back[12 * KiB];
  test_fill_random(data, sizeof data, 42);
  ASSERT_OK(xio_blob_put_page(t.engine, blob, 4 * KiB, data, sizeof data, NULL, &e), &e);
  memset(back, 0xAA, sizeof back);
  ASSERT_OK(xio_blob_read(t.engine, blob, 4 * KiB, back, sizeof back, NULL, &e), &e);
  ASSERT_MEM_EQ(back, data, sizeof data);
  xio_blob_props p;
  ASSERT_OK(xio_blob_get_properties(t.engine, blob, NULL, &p, &e), &e);
  ASSERT_U64_EQ(p.size, 64 * KiB);

  /* Reads in flight at once open more TLS connections: the private CA must be
   * trusted on every one of them, not only on the first. */
  read_slot *slots = calloc(NREADS, sizeof *slots);
  tls_batch w = TLS_BATCH_INIT;
  ASSERT(slots != NULL);
  for (int i = 0; i < NREADS; i++) {
    size_t skip = (size_t)(i % 3) * 512;
    ASSERT_OK(
        xio_blob_call_read(blob, 4 * KiB + skip, slots[i].buf, 8 * KiB, NULL, &slots[i].call, &e),
        &e);
  }
  for (int i = 0; i < NREADS; i++)
    xio_blob_submit(t.engine, slots[i].call, tls_batch_done, &w);
  tls_batch_wait(&w, NREADS);
  for (int i = 0; i < NREADS; i++) {
    size_t skip = (size_t)(i % 3) * 512;
    ASSERT_OK(xio_blob_call_result(slots[i].call, &e), &e);
    ASSERT_EQ(xio_blob_call_retries(slots[i].call), 0);
    ASSERT_MEM_EQ(slots[i].buf, data + skip, 8 * KiB);
    xio_blob_call_free(slots[i].call);
  }
  free(slots);
  xio_blob_target_free(blob);
  xio_blob_target_free(cont);
  tls_engine_teardown(&t);
}

TEST(blob_without_ca_file_is_refused_once) {
  tls_engine t;
  char url[512];
  tls_engine_setup(&t, NULL); /* the system store only: it does not know the test CA */
  tls_container_url(url, sizeof url);
  tls_expect_refused(&t, url, XIO_REASON_TLS_UNTRUSTED, NULL);
  tls_engine_teardown(&t);
}

/* A CA with the very same subject name as the emulator's, but another key: only a
 * signature check tells them apart. */
TEST(blob_unrelated_ca_is_refused_once) {
  tls_engine t;
  char url[512], other[512];
  tls_fixture_file("other-ca.pem", other, sizeof other);
  tls_engine_setup(&t, other);
  tls_container_url(url, sizeof url);
  tls_expect_refused(&t, url, XIO_REASON_TLS_UNTRUSTED, NULL);
  tls_engine_teardown(&t);
}

/* A certificate signed by the trusted CA but issued for another host name: the
 * chain is fine, the name is not, and the reason says so (not an untrusted chain);
 * the message names the host. The signed request must never be sent. */
TEST(blob_wrong_host_name_is_refused_once) {
  tls_engine t;
  char cert[512], key[512], url[512];
  tls_fixture_file("wrong-host.pem", cert, sizeof cert);
  tls_fixture_file("wrong-host.key", key, sizeof key);
  tlsserver *s = tlsserver_start(cert, key);
  snprintf(url, sizeof url, "https://127.0.0.1:%d/devstoreaccount1/tls-wrong-host",
           tlsserver_port(s));
  tls_engine_setup(&t, tls_ca_file());
  tls_expect_refused(&t, url, XIO_REASON_TLS_HOSTNAME, "host name 127.0.0.1");
  ASSERT_EQ(tlsserver_connections(s), 1);
  ASSERT_EQ(tlsserver_requests(s), 0);
  tls_engine_teardown(&t);
  tlsserver_free(s);
}

/* The same server, trusted and named rightly, would have been reached: the refusal
 * above is the name check, not a server that cannot talk. Here the name matches
 * (localhost is in the emulator's certificate) and so does the CA. */
TEST(blob_localhost_name_is_accepted) {
  tls_engine t;
  xio_error e;
  char url[512];
  const char *ep = test_endpoint();
  const char *port = strrchr(ep, ':');
  ASSERT(port != NULL);
  tls_engine_setup(&t, tls_ca_file());
  snprintf(url, sizeof url, "https://localhost%s/devstoreaccount1/tls-localhost-%ld", port,
           (long)getpid());
  xio_blob_target *cont = tls_target(&t, url);
  ASSERT_OK(xio_blob_create_container(t.engine, cont, 1, &e), &e);
  xio_blob_target_free(cont);
  tls_engine_teardown(&t);
}

/* A rejected option must not take the caller's ca_file string with it: the engine
 * frees only its own copy (here the string lives on the stack). */
TEST(blob_bad_option_leaves_ca_file_alone) {
  char ca[512];
  xio_error e;
  xio_blob_engine *engine = NULL;
  snprintf(ca, sizeof ca, "%s", tls_ca_file());
  xio_blob_engine_options o = xio_blob_engine_options_default();
  o.ca_file = ca;
  o.max_in_flight = 0;
  ASSERT_ERR(xio_blob_engine_new(&o, &engine, &e), XIO_EINVAL, &e);
  ASSERT(engine == NULL);
  ASSERT_STR_EQ(ca, tls_ca_file());
}

/* A ca_file that cannot be read, or holds no certificate, is refused when the
 * engine starts, naming the file: not at the first https request as a handshake
 * failure ("error signaled by ssl ctx callback"). */
TEST(blob_ca_file_checked_at_start) {
  char key[512], missing[600];
  xio_error e;
  xio_blob_engine *engine = NULL;
  xio_blob_engine_options o = xio_blob_engine_options_default();
  tls_fixture_file("wrong-host.key", key, sizeof key); /* PEM, but a key */
  o.ca_file = key;
  ASSERT_ERR(xio_blob_engine_new(&o, &engine, &e), XIO_EPARSE, &e);
  ASSERT(engine == NULL);
  ASSERT_CONTAINS(e.message, key);
  ASSERT_CONTAINS(e.message, "no CA certificate");
  ASSERT_STR_EQ(xio_reason_name(e.reason), "XIO_REASON_CA_FILE");
  snprintf(missing, sizeof missing, "%s.missing", tls_ca_file());
  o.ca_file = missing;
  ASSERT_ERR(xio_blob_engine_new(&o, &engine, &e), XIO_EIO, &e);
  ASSERT(engine == NULL);
  ASSERT_CONTAINS(e.message, missing);
  ASSERT_STR_EQ(xio_reason_name(e.reason), "XIO_REASON_CA_FILE");
}
