/*
 * tls_coalesce.c - TLS connections that write many records per system call: an
 * upload's full records gather in a buffer in front of libcurl's write BIO and go
 * to the socket together.
 *
 * OpenSSL hands each record to its write BIO on its own, and libcurl's BIO sends
 * each at once: one send per 16 KiB of a request body, and on loopback each send
 * also does the peer's TCP receive work. Gathering up to GATHER_BUFFER bytes cuts
 * the sends of an upload about tenfold and its client CPU with them, the extra copy
 * into the buffer included (measured: docs/benchmarks/design.md#tls-coalesce).
 *
 * Only full records (as long as TLS allows one to be) gather: a shorter write ends
 * what the caller had to say (request headers, the end of a body, a handshake
 * message), so it goes out at once, after whatever was gathered before it. A body
 * that ends on a full record leaves it in the buffer; the engine flushes every
 * running transfer's buffer after each round of its I/O thread, and when the
 * socket cannot take it all, tries again after a short wait (xio__blob_tls_flush:
 * what the epoll set watches a socket for is libcurl's to say, and once a body is
 * written libcurl waits for the response, not for room to write). What is
 * gathered always goes out before anything written after it, so the stream is the
 * same as unbuffered; the buffer is only a longer socket buffer. It is allocated
 * by the first full record, so connections that only download never have one.
 * Short of memory, writes go straight through.
 */
#include <string.h>

#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/ssl.h>

#include <xio/alloc.h>

#include "tls_int.h"

/* What gathers before it is sent. Larger buffers do no better: the copy into them
 * leaves the cache (docs/benchmarks/design.md#tls-coalesce). */
#define GATHER_BUFFER (256 * 1024)

/* A write of at least this length is a full record (16 KiB of payload and its
 * framing); a shorter one ends what the caller is writing now. */
#define FULL_RECORD (16 * 1024)

typedef struct gather {
  xio__blob_tls *t;
  char *buf;       /* GATHER_BUFFER bytes, allocated by the first full record */
  size_t len, off; /* bytes held; of which already sent */
} gather;

static CRYPTO_ONCE method_once = CRYPTO_ONCE_STATIC_INIT;
static BIO_METHOD *method; /* made once per process, never freed, as OpenSSL's own */
static int method_type;

/* Sends [off, len) of the buffer to the next BIO: 1 when all of it went, 0 when the
 * next BIO took only part or none (its retry flags are copied to `b`), -1 on a
 * failure of the connection. */
static int drain(BIO *b, gather *g) {
  while (g->off < g->len) {
    int r = BIO_write(BIO_next(b), g->buf + g->off, (int)(g->len - g->off));
    if (r <= 0) {
      BIO_copy_next_retry(b);
      return BIO_should_retry(b) ? 0 : -1;
    }
    g->off += (size_t)r;
    atomic_fetch_add(&g->t->socket_writes, 1);
  }
  g->len = g->off = 0;
  return 1;
}

/* Passes `in` straight to the next BIO (nothing is held). */
static int write_through(BIO *b, gather *g, const char *in, int n) {
  int r = BIO_write(BIO_next(b), in, n);
  BIO_copy_next_retry(b);
  if (r > 0) atomic_fetch_add(&g->t->socket_writes, 1);
  return r;
}

static int gather_write(BIO *b, const char *in, int n) {
  gather *g = BIO_get_data(b);
  BIO_clear_retry_flags(b);
  if (n <= 0) return 0;
  /* Room first: what is held goes before anything else. */
  if (g->len > 0 && g->len + (size_t)n > GATHER_BUFFER) {
    int d = drain(b, g);
    if (d <= 0) return -1;
  }
  if (g->len == 0 && n < FULL_RECORD) return write_through(b, g, in, n);
  if (!g->buf && (size_t)n <= GATHER_BUFFER && (g->buf = xio_malloc(GATHER_BUFFER)))
    atomic_fetch_add(&g->t->write_buffers, 1);
  if (!g->buf || (size_t)n > GATHER_BUFFER) return write_through(b, g, in, n);
  memcpy(g->buf + g->len, in, (size_t)n);
  g->len += (size_t)n;
  atomic_fetch_add(&g->t->gathered_records, 1);
  /* The caller's last words go now; if the socket is full they are still taken,
   * and go with the engine's next flush. A failed connection fails the next
   * write or the response's read. */
  if (n < FULL_RECORD || g->len + FULL_RECORD > GATHER_BUFFER) (void)drain(b, g);
  BIO_clear_retry_flags(b);
  return n;
}

static long gather_ctrl(BIO *b, int cmd, long num, void *ptr) {
  gather *g = BIO_get_data(b);
  BIO *next = BIO_next(b);
  switch (cmd) {
  case BIO_CTRL_FLUSH:
    BIO_clear_retry_flags(b);
    if (drain(b, g) <= 0) return 0;
    return next ? BIO_ctrl(next, cmd, num, ptr) : 1;
  case BIO_CTRL_WPENDING:
    return (long)(g->len - g->off) + (next ? BIO_ctrl(next, cmd, num, ptr) : 0);
  default: return next ? BIO_ctrl(next, cmd, num, ptr) : 0;
  }
}

static int gather_create(BIO *b) {
  BIO_set_init(b, 1);
  return 1;
}

static int gather_destroy(BIO *b) {
  gather *g = BIO_get_data(b);
  if (g) xio_free(g->buf);
  xio_free(g);
  BIO_set_data(b, NULL);
  return 1;
}

static void make_method(void) {
  int type = BIO_get_new_index();
  BIO_METHOD *m = type == -1 ? NULL : BIO_meth_new(type | BIO_TYPE_FILTER, "xio record gather");
  if (!m) return;
  if (!BIO_meth_set_write(m, gather_write) || !BIO_meth_set_ctrl(m, gather_ctrl) ||
      !BIO_meth_set_create(m, gather_create) || !BIO_meth_set_destroy(m, gather_destroy)) {
    BIO_meth_free(m);
    return;
  }
  method_type = type | BIO_TYPE_FILTER;
  method = m;
}

/* Whether the method is made (every engine's I/O thread asks, so each sees it
 * made through the once). */
static int have_method(void) { return CRYPTO_THREAD_run_once(&method_once, make_method) && method; }

/* The gathering BIO of `ssl`, or NULL. */
static BIO *gather_bio(SSL *ssl) {
  BIO *w = SSL_get_wbio(ssl);
  return w && have_method() && BIO_method_type(w) == method_type ? w : NULL;
}

void xio__blob_tls_add_write_gather(xio__blob_tls *t, SSL *ssl) {
  BIO *next = SSL_get_wbio(ssl);
  if (!next || !have_method()) return;
  if (BIO_method_type(next) == method_type) return;
  gather *g = xio_calloc(1, sizeof *g);
  BIO *b = g ? BIO_new(method) : NULL;
  if (!b || !BIO_up_ref(next)) {
    BIO_free(b);
    xio_free(g);
    return;
  }
  g->t = t;
  BIO_set_data(b, g);
  /* The chain holds the reference just taken; SSL_set0_wbio drops the SSL's own
   * (and keeps OpenSSL's handshake buffer, if any, in front). */
  BIO_push(b, next);
  SSL_set0_wbio(ssl, b);
}

int xio__blob_tls_flush(SSL *ssl) {
  BIO *b = gather_bio(ssl);
  if (!b) return 0;
  gather *g = BIO_get_data(b);
  if (g->len == g->off || drain(b, g) != 0) return 0;
  atomic_fetch_add(&g->t->socket_waits, 1);
  return 1;
}
