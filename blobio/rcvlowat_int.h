/*
 * rcvlowat_int.h - plain HTTP reads taken in batches (rcvlowat.c): the table of
 * the sockets libcurl opens through the engine, and the low-water mark a transfer
 * sets on its own socket while a body of known length arrives. Internal.
 */
#ifndef XIO_BLOB_RCVLOWAT_INT_H
#define XIO_BLOB_RCVLOWAT_INT_H

#include <stdatomic.h>

#include <curl/curl.h>

#include "call_int.h"

/* The sockets libcurl opened through the engine, so that a transfer can find its
 * own (rcvlowat.c). Used on the I/O thread only. */
#define XIO_BLOB_SOCK_KEY 128
typedef struct xio__blob_sock {
  int fd;
  char key[XIO_BLOB_SOCK_KEY]; /* "local-ip port > peer-ip port"; "" until read */
} xio__blob_sock;

typedef struct xio__blob_socks {
  xio__blob_sock *v;
  int n, cap;
  /* Plain HTTP response body pieces libcurl handed over shorter than its 16 KiB
   * write size: it hands each read from the socket over in such pieces, so about
   * one per read. */
  atomic_ulong short_pieces;
  atomic_ulong raised;   /* tries whose socket's low-water mark went above 1 */
  atomic_ulong restored; /* ... and was put back to 1 */
} xio__blob_socks;

/** What a test may count of batched reads. */
typedef struct xio__blob_socks_counts {
  unsigned long short_pieces, raised, restored;
} xio__blob_socks_counts;

/** The engine's counts of batched reads; any thread. */
void xio__blob_engine_socks_counts(xio_blob_engine *e, xio__blob_socks_counts *out);

/** Makes `easy` open and close its sockets through table `s`, which must outlive
 *  every connection of the multi handle (free it after curl_multi_cleanup).
 *  Errors: libcurl's, when it refuses the options. */
CURLcode xio__blob_socks_attach(xio__blob_socks *s, CURL *easy);

/** Frees the table (not the sockets: libcurl closes those). */
void xio__blob_socks_free(xio__blob_socks *s);

/** The table's counts; any thread. */
void xio__blob_socks_get_counts(xio__blob_socks *s, xio__blob_socks_counts *out);

/** Counts `len` more response body bytes of the current try and, on plain HTTP with
 *  a known Content-Length, sets its socket's SO_RCVLOWAT to what is still to come
 *  (capped), so that poll wakes once per batch (rcvlowat.c). Never fails: a mark
 *  that cannot be set is simply not set. */
void xio__blob_rcvlowat_body(xio_blob_call *c, size_t len);

/** At the end of a try: puts the socket's low-water mark back to 1 if the try
 *  raised it, so the connection's next response is not held back. */
void xio__blob_rcvlowat_end(xio_blob_call *c);

#endif
