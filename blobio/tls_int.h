/*
 * tls_int.h - what one engine's TLS connections share (tls.c): one trust store,
 * parsed once, handed by reference to every TLS context libcurl makes, and one
 * cache of TLS sessions, so that a new connection resumes a session instead of a
 * full handshake; each connection reads ahead, many TLS records per system call,
 * and the engine drives on the transfers whose records wait in that buffer
 * (tls_readahead.c); an upload's records go to the socket many per send
 * (tls_coalesce.c). tls.c finds a transfer's connection and gives it both; the two
 * know nothing of each other nor of tls.c. Internal to libxio_blob.
 */
#ifndef XIO_BLOB_TLS_INT_H
#define XIO_BLOB_TLS_INT_H

#include <curl/curl.h>
#include <pthread.h>
#include <stdatomic.h>

#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <xio/blob.h>

/** What a test may count: how often a CA file was parsed, and how connections
 *  were set up. */
typedef struct xio__blob_tls_counts {
  unsigned long private_ca_loads; /* the engine's ca_file parsed into the store */
  unsigned long system_ca_loads;  /* the system CA bundle parsed into the store */
  unsigned long contexts;         /* TLS contexts set up (one per new connection) */
  unsigned long full_handshakes;  /* handshakes that made a new session */
  unsigned long resumed;          /* handshakes that resumed a cached session */
  unsigned long read_buffers;     /* connections given their read-ahead buffer */
  unsigned long redrives;         /* transfers driven on for records read ahead */
  unsigned long write_buffers;    /* connections that gathered records to send */
  unsigned long gathered_records; /* records that went into such a buffer */
  unsigned long socket_writes;    /* writes to libcurl's BIO from the gathering BIOs */
  unsigned long socket_waits;     /* flushes that left records for the socket to take */
} xio__blob_tls_counts;

/** An engine's TLS state. The store is filled on the I/O thread only (the
 *  private CA before it starts, the system bundle when a chain first needs it);
 *  the counters may be read from any thread. */
typedef struct xio__blob_tls {
  X509_STORE *store;   /* the trusted CAs: the system's and the engine's ca_file */
  const char *ca_file; /* borrowed: the engine's copy, or NULL */
  char *system_file;   /* the system CA bundle (SSL_CERT_FILE or libcurl's), or NULL */
  char *system_dir;    /* the system CA directory (SSL_CERT_DIR or libcurl's), or NULL */
  int bundle_loaded;   /* the system bundle was parsed (or tried) */
  CURLSH *share;       /* the TLS session cache of every handle of the engine */
  pthread_mutex_t locks[CURL_LOCK_DATA_LAST];
  int locks_ready;
  atomic_ulong private_ca_loads, system_ca_loads, contexts, full_handshakes, resumed;
  atomic_ulong read_buffers, redrives;
  atomic_ulong write_buffers, gathered_records, socket_writes, socket_waits;
  int rewire; /* 1: connections get the read-ahead buffer and record gathering */
} xio__blob_tls;

/**
 * Whether the libcurl described by `v` suits the read-ahead buffer and the record
 * gathering (tls_readahead.c, tls_coalesce.c). Both put BIOs of their own around
 * the ones libcurl's OpenSSL backend gave a connection, which is sound only while
 * libcurl sets its BIOs once, at the handshake, and never reads them back, and
 * reads a connection only while its socket polls readable or SSL_pending() says so:
 * true of libcurl 7.88 (Debian 12's), checked in its lib/vtls/openssl.c; later
 * versions rework that backend. So 1 only for libcurl 7.88.x built on OpenSSL 3;
 * every other libcurl gets plain connections. Pure; never fails.
 */
int xio__blob_tls_rewire_supported(const curl_version_info_data *v);

/**
 * Sets up `t`: parses `ca_file` (may be NULL; borrowed, must outlive `t`) into a
 * fresh store and makes the session cache. Connections get the read-ahead buffer
 * and the record gathering unless `plain` is set or the running libcurl does not
 * suit them (xio__blob_tls_rewire_supported). A wrong path is reported here, naming
 * the file, not as a handshake failure later. Errors: XIO_EIO (ca_file cannot be
 * opened), XIO_EPARSE (it holds no PEM certificate), XIO_ENOMEM. On failure `t`
 * still needs xio__blob_tls_free.
 */
xio_err xio__blob_tls_init(xio__blob_tls *t, const char *ca_file, int plain, xio_error *err);

/** Releases the store and the session cache; `t` zeroed or initialized. */
void xio__blob_tls_free(xio__blob_tls *t);

/**
 * The trust half of xio__blob_tls_init (trust.c): a fresh store with the system's
 * CA directory (looked up as chains need it) and `ca_file` parsed into it, and the
 * system bundle's path (SSL_CERT_FILE / SSL_CERT_DIR override libcurl's defaults),
 * to be parsed the first time a chain cannot be completed without it. Errors as
 * xio__blob_tls_init's.
 */
xio_err xio__blob_trust_init(xio__blob_tls *t, const char *ca_file, xio_error *err);

/** Makes TLS context `ctx` use `t`'s store and judge chains against it, the system
 *  bundle given its chance on a failure, and the server's certificate against
 *  `host` (the URL's host; NULL: libcurl's own check after the handshake only), so
 *  that OpenSSL's verify result tells a certificate for another name
 *  (X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH) from an untrusted
 *  chain. CURLE_SSL_CACERT_BADFILE when there is nothing to trust at all (no
 *  ca_file, no CA directory, no readable bundle); CURLE_OUT_OF_MEMORY. */
CURLcode xio__blob_trust_install(xio__blob_tls *t, SSL_CTX *ctx, const char *host);

/** Releases the store and the paths (called by xio__blob_tls_free). */
void xio__blob_trust_free(xio__blob_tls *t);

/**
 * Sets on `easy` what makes its TLS connections use `t`: no CA file or directory
 * of libcurl's own (the store holds them), the SSL_CTX callback that installs the
 * store, and the shared session cache. Returns the first option libcurl refused.
 */
CURLcode xio__blob_tls_set_options(xio__blob_tls *t, CURL *easy);

/**
 * The OpenSSL connection of the transfer on `easy` (running in a multi handle, on
 * the I/O thread), with its read-ahead buffer and its write gathering put in front
 * of libcurl's BIOs if its handshake did not already (libcurl's own info callback
 * may have run instead of tls.c's), unless `t`'s connections stay plain. NULL for
 * plain HTTP, for a transfer with no connection yet, and for another TLS backend.
 */
SSL *xio__blob_tls_connection(xio__blob_tls *t, CURL *easy);

/** Puts a read-ahead buffer in front of the read BIO libcurl gave `ssl`, once
 *  (counted in t->read_buffers); short of memory `ssl` goes on unbuffered. */
void xio__blob_tls_add_read_buffer(xio__blob_tls *t, SSL *ssl);

/**
 * For the transfer on `easy` whose connection is `ssl` (xio__blob_tls_connection):
 * says whether records wait in its read-ahead buffer, read off the socket but not
 * yet asked for by libcurl, which only looks at the socket. If so, tells libcurl to
 * read that connection whatever the socket says and makes the transfer due
 * (curl_easy_pause), counts it in t->redrives and returns 1: the caller must then
 * run the transfers that are due (xio__blob_events_run_timers) without waiting. 0
 * when nothing could be decrypted now (a record only partly received waits for the
 * socket, as usual). -1 when libcurl failed (out of memory in its socket records):
 * the caller must abandon the multi handle.
 */
int xio__blob_tls_redrive(xio__blob_tls *t, CURL *easy, SSL *ssl);

/** Puts a gathering BIO in front of the write BIO libcurl gave `ssl`, once: full
 *  records then go to the socket many at a time. Short of memory `ssl` goes on
 *  writing each record at once. */
void xio__blob_tls_add_write_gather(xio__blob_tls *t, SSL *ssl);

/**
 * For a transfer's connection `ssl` (xio__blob_tls_connection; on the I/O thread,
 * after libcurl ran): sends what it gathered and has not sent. Returns 1 when the
 * socket could not take all of it (counted in t->socket_waits): the caller must
 * call this again soon, whatever libcurl waits for. 0 when nothing is left, also
 * for a connection that gathers nothing, and for a failed connection (libcurl then
 * sees the failure itself).
 */
int xio__blob_tls_flush(SSL *ssl);

/** A snapshot of the counters. */
void xio__blob_tls_get_counts(xio__blob_tls *t, xio__blob_tls_counts *out);

/** The counters of engine `e`'s TLS state (for tests). */
void xio__blob_engine_tls_counts(xio_blob_engine *e, xio__blob_tls_counts *out);

#endif
