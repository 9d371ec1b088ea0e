/*
 * tlsserver.h - a tiny TLS server inside the test process, for checks that Azurite
 * cannot serve: it listens on 127.0.0.1 (a port the kernel picks), completes TLS
 * handshakes with the certificate and key it was given, and counts what it saw.
 * Started plain, it never answers a request; a client that gets as far as sending
 * one is what the tests want to rule out (a refused server must not receive the
 * signed request). Started slow, it reads each request's body a little at a time
 * from a small receive buffer, with the client's send buffer (the client is in
 * this process) made as small as the kernel allows, so the client's socket stays
 * full; and answers 201.
 */
#ifndef XIO_TEST_TLSSERVER_H
#define XIO_TEST_TLSSERVER_H

typedef struct tlsserver tlsserver;

/** Starts serving `cert_file` and `key_file` (PEM). Fails the test on error. */
tlsserver *tlsserver_start(const char *cert_file, const char *key_file);

/** Starts a server that reads each request slowly: after the headers, a pause of
 *  `pause_us`, then `chunk` bytes of the body, and so on to its Content-Length;
 *  then it answers "201 Created" and closes. Fails the test on error. */
tlsserver *tlsserver_start_slow(const char *cert_file, const char *key_file, int chunk,
                                int pause_us);

/** Request bodies a slow server read whole and answered (counted as the answer
 *  goes out, before the client can have it). */
int tlsserver_answered(tlsserver *s);

/** The port it listens on. */
int tlsserver_port(const tlsserver *s);

/** Connections accepted so far. */
int tlsserver_connections(tlsserver *s);

/** Connections on which the client sent request bytes after the handshake. */
int tlsserver_requests(tlsserver *s);

/** Stops the server thread and frees everything. `s` may be NULL. */
void tlsserver_free(tlsserver *s);

#endif
