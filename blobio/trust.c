/*
 * trust.c - the trust store one engine's TLS connections share, and how a server's
 * certificate chain is judged against it.
 *
 * The store holds the engine's private CA file, parsed when the engine starts, and
 * the system's CAs: libcurl's default CA directory and bundle, or SSL_CERT_DIR and
 * SSL_CERT_FILE when set (the names OpenSSL's own tools read). The directory is
 * looked up by subject name as a chain needs a certificate of it; nothing of it is
 * read before. The bundle, whose parse costs a short command much of its CPU
 * (docs/benchmarks/design.md#trust-bundle), is parsed only when a chain fails without it. Then,
 * once per engine, a store is made as libcurl would make it (the bundle, the private CA, the
 * directory last), the chain is verified again against it, and that verdict is the
 * chain's; new connections get that store from then on. A chain signed by the
 * private CA, or ending at a CA of the directory (a Debian system's bundle and
 * directory hold the same CAs), never costs the parse.
 *
 * Verification stays on, with the store flags libcurl would set (trusted first,
 * partial chains), and a chain is trusted exactly when it would be with every CA
 * loaded from the start. OpenSSL also checks the certificate against the URL's
 * host while it verifies the chain, so that its verify result names a certificate
 * issued for another name as such (libcurl checks the name again after the
 * handshake, by its own rules); no bundle can mend a wrong name, so such a
 * refusal never costs the parse.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include <xio/alloc.h>
#include <xio/error_int.h>

#include "tls_int.h"

static int reverified_index = -1;
static pthread_once_t index_once = PTHREAD_ONCE_INIT;

static void make_index(void) {
  reverified_index = X509_STORE_CTX_get_ex_new_index(0, NULL, NULL, NULL, NULL);
}

/* Parses the CA certificates of `path` into `store`, counting the parse; 1 when
 * it held any. */
static int load_file(X509_STORE *store, const char *path, atomic_ulong *count) {
  atomic_fetch_add(count, 1);
  int ok = X509_STORE_load_file(store, path) == 1;
  ERR_clear_error();
  return ok;
}

/* A store with the flags libcurl would set and the system's CA directory. */
static X509_STORE *new_store(const xio__blob_tls *t) {
  X509_STORE *s = X509_STORE_new();
  if (!s) return NULL;
  X509_STORE_set_flags(s, X509_V_FLAG_TRUSTED_FIRST | X509_V_FLAG_PARTIAL_CHAIN);
  if (t->system_dir && X509_STORE_load_path(s, t->system_dir) != 1) ERR_clear_error();
  return s;
}

/* Replaces the engine's store by one holding every CA, the system bundle parsed
 * first, once per engine, on the I/O thread. The contexts made so far keep the
 * store they had; new ones get this one. 0 when memory ran out (nothing changes:
 * chains are then judged without the bundle). */
static int load_bundle(xio__blob_tls *t) {
  if (t->bundle_loaded) return 1;
  X509_STORE *full = new_store(t);
  if (!full) return 0;
  if (t->system_file) (void)load_file(full, t->system_file, &t->system_ca_loads);
  if (t->ca_file) (void)load_file(full, t->ca_file, &t->private_ca_loads);
  X509_STORE_free(t->store);
  t->store = full;
  t->bundle_loaded = 1;
  return 1;
}

/* Verifies the chain of `failed` anew against `store`, with the same certificates
 * and parameters (purpose, depth, flags, names). A refusal's reason replaces the
 * first verification's: with every CA at hand it is the one that counts (another
 * CA's signature rather than a missing issuer). */
static int verify_again(X509_STORE_CTX *failed, X509_STORE *store) {
  X509_STORE_CTX *v = X509_STORE_CTX_new();
  int ok = v &&
           X509_STORE_CTX_init(v, store, X509_STORE_CTX_get0_cert(failed),
                               X509_STORE_CTX_get0_untrusted(failed)) == 1 &&
           X509_VERIFY_PARAM_set1(X509_STORE_CTX_get0_param(v),
                                  X509_STORE_CTX_get0_param(failed)) == 1 &&
           X509_verify_cert(v) == 1;
  if (v && !ok && X509_STORE_CTX_get_error(v) != X509_V_OK)
    X509_STORE_CTX_set_error(failed, X509_STORE_CTX_get_error(v));
  X509_STORE_CTX_free(v);
  return ok;
}

/* A failure of `ctx`'s chain, looked at again: 1 when the chain is trusted with the
 * bundle loaded. Once that verdict is in, OpenSSL's later complaints about the
 * same, incomplete, chain are passed over: the full chain was verified. */
static int trusted_with_bundle(X509_STORE_CTX *ctx) {
  pthread_once(&index_once, make_index);
  if (reverified_index < 0) return 0;
  if (X509_STORE_CTX_get_ex_data(ctx, reverified_index)) {
    X509_STORE_CTX_set_error(ctx, X509_V_OK);
    return 1;
  }
  SSL *ssl = X509_STORE_CTX_get_ex_data(ctx, SSL_get_ex_data_X509_STORE_CTX_idx());
  xio__blob_tls *t = ssl ? SSL_CTX_get_app_data(SSL_get_SSL_CTX(ssl)) : NULL;
  if (!t || !load_bundle(t)) return 0;
  if (X509_STORE_CTX_get0_store(ctx) == t->store) return 0; /* judged with every CA */
  int ok = verify_again(ctx, t->store);
  ERR_clear_error(); /* what the second verification queued is not this handshake's */
  if (!ok) return 0;
  if (X509_STORE_CTX_set_ex_data(ctx, reverified_index, (void *)1) != 1) return 0;
  X509_STORE_CTX_set_error(ctx, X509_V_OK);
  return 1;
}

/* OpenSSL's verdict on each certificate of the server's chain, after the bundle
 * had its chance (not for a certificate issued for another name, which no CA
 * mends). On a failure the thread's error queue is emptied first: it may
 * hold the low-level cause (a signature made by another key leaves "asn1 encoding
 * routines::EVP lib"), and libcurl judges a failed handshake by the earliest queued
 * error. With the queue empty that is OpenSSL's "certificate verify failed", which
 * libcurl reports as CURLE_PEER_FAILED_VERIFICATION with the reason in words ("SSL
 * certificate problem: certificate signature failure"): final, not retried. Left
 * as it was, the same refusal came out as CURLE_SSL_CONNECT_ERROR, a failure we
 * retry, with a message that never mentions the certificate. */
static int on_verify(int ok, X509_STORE_CTX *ctx) {
  int error = X509_STORE_CTX_get_error(ctx);
  int wrong_name = error == X509_V_ERR_HOSTNAME_MISMATCH || error == X509_V_ERR_IP_ADDRESS_MISMATCH;
  if (!ok && !wrong_name) ok = trusted_with_bundle(ctx);
  if (!ok) ERR_clear_error();
  return ok;
}

/* Has OpenSSL check the server's certificate against `host` as it verifies the
 * chain: an IP literal (IPv6 in brackets or not) against the certificate's IP
 * addresses, a name against its DNS names, a wildcard only as a whole first label,
 * as libcurl matches them. 0 when OpenSSL ran out of memory. */
static int expect_host(SSL_CTX *ctx, const char *host) {
  char name[256];
  unsigned char addr[16];
  size_t n = strlen(host);
  if (n >= 2 && host[0] == '[' && host[n - 1] == ']') host++, n -= 2;
  if (n > 1 && host[n - 1] == '.') n--;     /* the root's dot is not part of the name */
  if (n == 0 || n >= sizeof name) return 1; /* no such certificate name: libcurl refuses it */
  memcpy(name, host, n);
  name[n] = '\0';
  X509_VERIFY_PARAM *p = SSL_CTX_get0_param(ctx);
  if (inet_pton(AF_INET, name, addr) == 1 || inet_pton(AF_INET6, name, addr) == 1)
    return X509_VERIFY_PARAM_set1_ip_asc(p, name) == 1;
  X509_VERIFY_PARAM_set_hostflags(p, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
  return X509_VERIFY_PARAM_set1_host(p, name, n) == 1;
}

/* `name` from the environment, else libcurl's `fallback`; a copy, or NULL. */
static char *system_path(const char *name, const char *fallback, int *bad) {
  const char *v = secure_getenv(name);
  if (!v || !*v) v = fallback;
  if (!v) return NULL;
  char *copy = xio_strdup(v);
  if (!copy) *bad = 1;
  return copy;
}

xio_err xio__blob_trust_init(xio__blob_tls *t, const char *ca_file, xio_error *err) {
  const curl_version_info_data *v = curl_version_info(CURLVERSION_NOW);
  int bad = 0;
  t->ca_file = ca_file;
  t->system_file = system_path("SSL_CERT_FILE", v->cainfo, &bad);
  t->system_dir = system_path("SSL_CERT_DIR", v->capath, &bad);
  if (bad || !(t->store = new_store(t))) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  if (!ca_file) return XIO_OK;
  FILE *f = fopen(ca_file, "r");
  xio_err rc = XIO_OK;
  if (!f)
    rc = xio_error_set(err, XIO_EIO, "cannot open the CA file %s", ca_file);
  else if (fclose(f), !load_file(t->store, ca_file, &t->private_ca_loads))
    rc = xio_error_set(err, XIO_EPARSE, "the CA file %s holds no CA certificate (PEM)", ca_file);
  if (rc != XIO_OK) xio_error_set_reason(err, XIO_REASON_CA_FILE);
  return rc;
}

CURLcode xio__blob_trust_install(xio__blob_tls *t, SSL_CTX *ctx, const char *host) {
  if (host && !expect_host(ctx, host)) {
    ERR_clear_error();
    return CURLE_OUT_OF_MEMORY;
  }
  if (!SSL_CTX_get_verify_callback(ctx))
    SSL_CTX_set_verify(ctx, SSL_CTX_get_verify_mode(ctx), on_verify);
  else
    (void)load_bundle(t); /* libcurl's own callback knows nothing of a late bundle */
  if (!t->ca_file && !t->system_dir && (!t->system_file || access(t->system_file, R_OK) != 0))
    return CURLE_SSL_CACERT_BADFILE; /* nothing to trust: as libcurl would fail */
  SSL_CTX_set1_cert_store(ctx, t->store);
  return CURLE_OK;
}

void xio__blob_trust_free(xio__blob_tls *t) {
  X509_STORE_free(t->store);
  t->store = NULL;
  xio_free(t->system_file);
  xio_free(t->system_dir);
  t->system_file = t->system_dir = NULL;
}
