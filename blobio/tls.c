/*
 * tls.c - the TLS state one engine shares between its connections: the trust store
 * and the session cache.
 *
 * libcurl makes a new OpenSSL context for every connection and, left to itself,
 * parses its CA bundle into it each time (with a CA directory configured, as on
 * Debian, its own store cache does not apply): some 140 certificates of PEM
 * decoding per connection. Here one store per engine (trust.c) is handed to every
 * context by reference, and libcurl is told to load nothing itself.
 *
 * TLS sessions are kept in one libcurl share for all the engine's handles, so a new
 * connection resumes a session any handle made. Only the engine's I/O thread runs
 * transfers, but the share is locked anyway, as libcurl asks of any share.
 *
 * Each connection also reads ahead, many TLS records per read from the socket,
 * and the engine drives on transfers whose records wait in that buffer
 * (tls_readahead.c); and it gathers an upload's records into few sends
 * (tls_coalesce.c). Both rewire the BIOs libcurl gave the connection, so they are
 * used only with a libcurl known to allow it (xio__blob_tls_rewire_supported);
 * any other gets plain connections.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "call_int.h"
#include "tls_int.h"

/* Gives `ssl` its read-ahead buffer (tls_readahead.c) and its write gathering
 * (tls_coalesce.c), each once, unless its connections stay plain. */
static void rewire(xio__blob_tls *t, SSL *ssl) {
  if (!t->rewire) return;
  xio__blob_tls_add_read_buffer(t, ssl);
  xio__blob_tls_add_write_gather(t, ssl);
}

/* Gives each connection its read-ahead buffer and its write gathering as its
 * first handshake starts (libcurl has set its BIOs by then; OpenSSL passes its
 * own, writable, SSL), and counts each finished handshake as full or resumed.
 * OpenSSL 3 reports HANDSHAKE_DONE once per handshake, not for TLS 1.3 session
 * tickets after it. */
static void on_info(const SSL *ssl, int where, int ret) {
  (void)ret;
  if (!(where & (SSL_CB_HANDSHAKE_START | SSL_CB_HANDSHAKE_DONE))) return;
  xio__blob_tls *t = SSL_CTX_get_app_data(SSL_get_SSL_CTX(ssl));
  if (!t) return;
  if (where & SSL_CB_HANDSHAKE_START) {
    rewire(t, (SSL *)ssl);
    return;
  }
  if (SSL_session_reused(ssl))
    atomic_fetch_add(&t->resumed, 1);
  else
    atomic_fetch_add(&t->full_handshakes, 1);
}

SSL *xio__blob_tls_connection(xio__blob_tls *t, CURL *easy) {
  struct curl_tlssessioninfo *info = NULL;
  if (curl_easy_getinfo(easy, CURLINFO_TLS_SSL_PTR, &info) != CURLE_OK || !info) return NULL;
  if (info->backend != CURLSSLBACKEND_OPENSSL || !info->internals) return NULL;
  SSL *ssl = info->internals;
  rewire(t, ssl); /* in case libcurl's info callback ran instead of on_info */
  return ssl;
}

/* The host the transfer on `easy` connects to: its call's target's. */
static const char *host_of(CURL *easy) {
  xio_blob_call *c = NULL;
  if (curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&c) != CURLE_OK || !c) return NULL;
  return c->target->url.host;
}

/* Looks at the header of the first record the server sends on a new connection:
 * "HTTP/" there is a plain-HTTP server answering the ClientHello with an error
 * page, which OpenSSL reports only as a "wrong version number". The call whose
 * try is making the handshake (that of `arg`, the handle that set up the
 * connection, which drives it until the handshake ends) is told, so that the
 * failure is final and says so (classify.c). Then the callback takes itself off
 * the connection: later records are not looked at, and the handle, which may be
 * freed long before the connection, is never touched again. */
static void on_first_record(int write_p, int version, int content_type, const void *buf, size_t len,
                            SSL *ssl, void *arg) {
  (void)version;
  if (write_p || content_type != SSL3_RT_HEADER) return;
  xio_blob_call *c = NULL;
  if (len >= 5 && memcmp(buf, "HTTP/", 5) == 0 &&
      curl_easy_getinfo((CURL *)arg, CURLINFO_PRIVATE, (char **)&c) == CURLE_OK && c)
    c->tls_got_http = 1;
  SSL_set_msg_callback(ssl, NULL);
}

/* Sets up each TLS context libcurl makes (one per connection): the engine's store
 * and how chains and the host name are judged against it (trust.c), the callback
 * that gives connections their read-ahead buffer and counts handshakes, and the
 * one that tells a plain-HTTP server from a TLS one. */
static CURLcode on_ssl_ctx(CURL *easy, void *sslctx, void *ud) {
  SSL_CTX *ctx = sslctx;
  xio__blob_tls *t = ud;
  atomic_fetch_add(&t->contexts, 1);
  CURLcode rc = xio__blob_trust_install(t, ctx, host_of(easy));
  if (rc != CURLE_OK) return rc;
  SSL_CTX_set_app_data(ctx, t);
  if (!SSL_CTX_get_info_callback(ctx)) SSL_CTX_set_info_callback(ctx, on_info);
  SSL_CTX_set_msg_callback(ctx, on_first_record);
  SSL_CTX_set_msg_callback_arg(ctx, easy);
  return CURLE_OK;
}

static void share_lock(CURL *easy, curl_lock_data data, curl_lock_access access, void *ud) {
  (void)easy, (void)access;
  xio__blob_tls *t = ud;
  if ((unsigned)data < CURL_LOCK_DATA_LAST) pthread_mutex_lock(&t->locks[data]);
}

static void share_unlock(CURL *easy, curl_lock_data data, void *ud) {
  (void)easy;
  xio__blob_tls *t = ud;
  if ((unsigned)data < CURL_LOCK_DATA_LAST) pthread_mutex_unlock(&t->locks[data]);
}

static xio_err make_share(xio__blob_tls *t, xio_error *err) {
  for (int i = 0; i < CURL_LOCK_DATA_LAST; i++)
    pthread_mutex_init(&t->locks[i], NULL);
  t->locks_ready = 1;
  if (!(t->share = curl_share_init())) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  CURLSHcode rc = curl_share_setopt(t->share, CURLSHOPT_LOCKFUNC, share_lock);
  if (rc == CURLSHE_OK) rc = curl_share_setopt(t->share, CURLSHOPT_UNLOCKFUNC, share_unlock);
  if (rc == CURLSHE_OK) rc = curl_share_setopt(t->share, CURLSHOPT_USERDATA, t);
  if (rc == CURLSHE_OK)
    rc = curl_share_setopt(t->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
  if (rc == CURLSHE_NOMEM) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  if (rc != CURLSHE_OK)
    return xio_error_set(err, XIO_ETRANSPORT, "libcurl cannot share TLS sessions: %s",
                         curl_share_strerror(rc));
  return XIO_OK;
}

int xio__blob_tls_rewire_supported(const curl_version_info_data *v) {
  if (!v || (v->version_num >> 8) != 0x0758) return 0; /* 7.88.x */
  return v->ssl_version && strncmp(v->ssl_version, "OpenSSL/3.", 10) == 0;
}

xio_err xio__blob_tls_init(xio__blob_tls *t, const char *ca_file, int plain, xio_error *err) {
  memset(t, 0, sizeof *t);
  t->rewire = !plain && xio__blob_tls_rewire_supported(curl_version_info(CURLVERSION_NOW));
  xio_err rc = xio__blob_trust_init(t, ca_file, err);
  if (rc == XIO_OK) rc = make_share(t, err);
  return rc;
}

void xio__blob_tls_free(xio__blob_tls *t) {
  if (t->share) curl_share_cleanup(t->share);
  t->share = NULL;
  xio__blob_trust_free(t);
  if (t->locks_ready)
    for (int i = 0; i < CURL_LOCK_DATA_LAST; i++)
      pthread_mutex_destroy(&t->locks[i]);
  t->locks_ready = 0;
}

#define SET(easy, opt, val)                                                                        \
  do {                                                                                             \
    CURLcode r_ = curl_easy_setopt((easy), (opt), (val));                                          \
    if (bad == CURLE_OK) bad = r_;                                                                 \
  } while (0)

CURLcode xio__blob_tls_set_options(xio__blob_tls *t, CURL *easy) {
  CURLcode bad = CURLE_OK;
  SET(easy, CURLOPT_CAINFO, (char *)NULL);
  SET(easy, CURLOPT_CAPATH, (char *)NULL);
  SET(easy, CURLOPT_CA_CACHE_TIMEOUT, 0L);
  SET(easy, CURLOPT_SSL_CTX_FUNCTION, on_ssl_ctx);
  SET(easy, CURLOPT_SSL_CTX_DATA, (void *)t);
  SET(easy, CURLOPT_SHARE, t->share);
  return bad;
}

void xio__blob_tls_get_counts(xio__blob_tls *t, xio__blob_tls_counts *out) {
  out->private_ca_loads = atomic_load(&t->private_ca_loads);
  out->system_ca_loads = atomic_load(&t->system_ca_loads);
  out->contexts = atomic_load(&t->contexts);
  out->full_handshakes = atomic_load(&t->full_handshakes);
  out->resumed = atomic_load(&t->resumed);
  out->read_buffers = atomic_load(&t->read_buffers);
  out->redrives = atomic_load(&t->redrives);
  out->write_buffers = atomic_load(&t->write_buffers);
  out->gathered_records = atomic_load(&t->gathered_records);
  out->socket_writes = atomic_load(&t->socket_writes);
  out->socket_waits = atomic_load(&t->socket_waits);
}
