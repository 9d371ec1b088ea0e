/*
 * tls_readahead.c - TLS connections that read ahead: one read from the socket
 * takes what it holds, many records at a time, and the engine drives on the
 * transfers whose records wait in that buffer rather than on the socket.
 *
 * Left to itself, OpenSSL takes each record off the socket in two reads, its
 * 5-byte header and then its body: two system calls per 16 KiB of a download, and
 * on loopback each also does the peer's TCP work. OpenSSL's own read-ahead does
 * not help: for every record it moves the unread rest of its buffer to the front
 * (to align the payload), so the larger the buffer the more it copies, more than
 * the system calls it saves. So each connection gets, as its handshake starts
 * (tls.c's info callback), a buffering BIO of READ_BUFFER bytes in front of
 * libcurl's own, which it keeps to its end: OpenSSL still reads a header and then
 * a body, from the buffer, and the buffer refills with one read of the socket.
 * libcurl 7.88 sets its BIOs once and never reads them back, so it does not
 * notice.
 *
 * libcurl reads a transfer while the socket polls readable or SSL_pending() is
 * non-zero, and neither sees records in the buffer. When one read took the last
 * bytes the socket had (the end of a response, or a peer slower than we are),
 * libcurl would wait in epoll for a socket with nothing more to say while the rest
 * of the response sits in the buffer, until the try timed out. So after each
 * round of the I/O thread the engine asks here, for each running transfer, whether
 * bytes wait (in the buffer, or in OpenSSL's) while the last read did not stop for
 * want of bytes from the socket (SSL_want_read(): then what is buffered is only
 * part of a record, and epoll will say when the rest comes). If so, pausing and at
 * once unpausing its receiving makes libcurl mark the connection to be read
 * without asking the socket ("the data might've been read off the socket
 * already") and sets the transfer due at once, and the engine runs the transfers
 * that are due (events.c).
 */
#include <openssl/bio.h>
#include <openssl/ssl.h>

#include "tls_int.h"

/* What one read from the socket may take at most, per connection. */
#define READ_BUFFER (256 * 1024)

/* A buffering BIO goes in front of the connection's read BIO. Anything already
 * read stays where it is, so this may happen at any point between two reads. */
void xio__blob_tls_add_read_buffer(xio__blob_tls *t, SSL *ssl) {
  BIO *next = SSL_get_rbio(ssl);
  if (!next || BIO_method_type(next) == BIO_TYPE_BUFFER) return;
  BIO *buf = BIO_new(BIO_f_buffer());
  if (!buf) return;
  if (BIO_set_read_buffer_size(buf, READ_BUFFER) != 1 || !BIO_up_ref(next)) {
    BIO_free(buf);
    return;
  }
  /* The chain holds the reference just taken; SSL_set0_rbio drops the SSL's old
   * one (libcurl's BIO stays the write BIO with a reference of its own). */
  BIO_push(buf, next);
  SSL_set0_rbio(ssl, buf);
  atomic_fetch_add(&t->read_buffers, 1);
}

/* Whether OpenSSL may decrypt something for libcurl without the socket. */
static int bytes_wait(SSL *ssl) {
  if (!SSL_is_init_finished(ssl) || SSL_want_read(ssl)) return 0;
  return SSL_has_pending(ssl) || BIO_ctrl_pending(SSL_get_rbio(ssl)) > 0;
}

int xio__blob_tls_redrive(xio__blob_tls *t, CURL *easy, SSL *ssl) {
  if (!bytes_wait(ssl)) return 0;
  /* Unpausing is what marks the connection to be read. Either call fails only for
   * want of memory in libcurl's socket records, which leaves them unusable: the
   * engine then abandons the multi handle (engine.c). */
  if (curl_easy_pause(easy, CURLPAUSE_RECV) != CURLE_OK) return -1;
  if (curl_easy_pause(easy, CURLPAUSE_CONT) != CURLE_OK) return -1;
  atomic_fetch_add(&t->redrives, 1);
  return 1;
}
