/*
 * trust_tls_test.c - the system's CAs, judged against the emulator serving HTTPS
 * with a certificate from the test CA, the system store pointed at test files by
 * SSL_CERT_FILE and SSL_CERT_DIR: a CA found in the directory is used without the
 * bundle ever being parsed; a CA only in the bundle is trusted, the bundle parsed
 * once when the first chain needs it; a bundle holding another CA of the same name
 * gets the chain refused, once, for that CA's signature.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/pem.h>
#include <openssl/x509.h>

#include <xio/blob.h>

#include "scratch.h"
#include "test.h"
#include "tls_int.h"
#include "tlsfix.h"

/* The system store of the engines made next: bundle `file`, directory `dir`. */
static void system_store(const char *file, const char *dir) {
  ASSERT_EQ(setenv("SSL_CERT_FILE", file, 1), 0);
  ASSERT_EQ(setenv("SSL_CERT_DIR", dir, 1), 0);
}

/* A fresh directory holding `ca_file`'s certificate as OpenSSL's hashed
 * directories do: named by its subject's hash, "HHHHHHHH.0". */
static void hashed_dir(const char *ca_file, char *dir, size_t size) {
  char path[600];
  test_scratch_dir(dir, size, "trust-dir");
  FILE *in = fopen(ca_file, "r");
  ASSERT(in != NULL);
  X509 *ca = PEM_read_X509(in, NULL, NULL, NULL);
  fclose(in);
  ASSERT(ca != NULL);
  snprintf(path, sizeof path, "%s/%08lx.0", dir, X509_subject_name_hash(ca));
  FILE *out = fopen(path, "w");
  ASSERT(out != NULL);
  ASSERT_EQ(PEM_write_X509(out, ca), 1);
  ASSERT_EQ(fclose(out), 0);
  X509_free(ca);
}

/* Creates a fresh container through `t`, which must succeed. */
static void create_container(tls_engine *t) {
  xio_error e;
  char url[512];
  tls_container_url(url, sizeof url);
  xio_blob_target *cont = tls_target(t, url);
  ASSERT_OK(xio_blob_create_container(t->engine, cont, 0, &e), &e);
  xio_blob_target_free(cont);
}

TEST(trust_system_directory_without_the_bundle) {
  char dir[512], missing[600];
  tls_engine t;
  xio__blob_tls_counts n;
  hashed_dir(tls_ca_file(), dir, sizeof dir);
  snprintf(missing, sizeof missing, "%s/no-such-bundle.pem", dir);
  system_store(missing, dir);
  tls_engine_setup(&t, NULL);
  create_container(&t);
  create_container(&t);
  xio__blob_engine_tls_counts(t.engine, &n);
  ASSERT_EQ(n.system_ca_loads, 0); /* the directory had the CA: no bundle read */
  ASSERT_EQ(n.private_ca_loads, 0);
  ASSERT_EQ(tls_tries_made(&t), 2);
  tls_engine_teardown(&t);
}

TEST(trust_system_bundle_parsed_once_when_a_chain_needs_it) {
  char empty[512];
  tls_engine t, again;
  xio__blob_tls_counts n;
  test_scratch_dir(empty, sizeof empty, "trust-empty");
  system_store(tls_ca_file(), empty);
  tls_engine_setup(&t, NULL);
  xio__blob_engine_tls_counts(t.engine, &n);
  ASSERT_EQ(n.system_ca_loads, 0); /* not before a chain needs it */
  create_container(&t);
  xio__blob_engine_tls_counts(t.engine, &n);
  ASSERT_EQ(n.system_ca_loads, 1);
  ASSERT_EQ(n.full_handshakes, 1);
  ASSERT_EQ(tls_tries_made(&t), 1); /* trusted in the first handshake, not on a retry */
  create_container(&t);
  xio__blob_engine_tls_counts(t.engine, &n);
  ASSERT_EQ(n.system_ca_loads, 1);

  /* Each engine has its own store: the next parses the bundle for itself. */
  tls_engine_setup(&again, NULL);
  create_container(&again);
  xio__blob_engine_tls_counts(again.engine, &n);
  ASSERT_EQ(n.system_ca_loads, 1);
  tls_engine_teardown(&again);
  tls_engine_teardown(&t);
}

/* other-ca.pem has the test CA's very subject name and another key: the bundle
 * offers an issuer by name, and only its signature check refuses it. */
TEST(trust_system_bundle_with_another_ca_is_refused_once) {
  char empty[512], other[512];
  tls_engine t;
  xio__blob_tls_counts n;
  test_scratch_dir(empty, sizeof empty, "trust-empty");
  tls_fixture_file("other-ca.pem", other, sizeof other);
  system_store(other, empty);
  tls_engine_setup(&t, NULL);
  char url[512];
  tls_container_url(url, sizeof url);
  /* The reason with every CA at hand. */
  tls_expect_refused(&t, url, XIO_REASON_TLS_UNTRUSTED, "signature failure");
  xio__blob_engine_tls_counts(t.engine, &n);
  ASSERT_EQ(n.system_ca_loads, 1);
  tls_engine_teardown(&t);
}

/* The directory's CA of that name is the wrong one; the bundle has the right one. */
TEST(trust_system_bundle_completes_what_the_directory_cannot) {
  char dir[512], other[512];
  tls_engine t;
  xio__blob_tls_counts n;
  tls_fixture_file("other-ca.pem", other, sizeof other);
  hashed_dir(other, dir, sizeof dir);
  system_store(tls_ca_file(), dir);
  tls_engine_setup(&t, NULL);
  create_container(&t);
  xio__blob_engine_tls_counts(t.engine, &n);
  ASSERT_EQ(n.system_ca_loads, 1);
  tls_engine_teardown(&t);
}
