/*
 * tlsserver.h - a tiny TLS server inside the test process, for checks that Azurite
 * cannot serve: it listens on 127.0.0.1 (a port the kernel picks), completes TLS
 * handshakes with the certificate and key it was given, and counts what it saw.
 * It never answers a request; a client that gets as far as sending one is what the
 * tests want to rule out (a refused server must not receive the signed request).
 */
#ifndef XIO_TEST_TLSSERVER_H
#define XIO_TEST_TLSSERVER_H

typedef struct tlsserver tlsserver;

/** Starts serving `cert_file` and `key_file` (PEM). Fails the test on error. */
tlsserver *tlsserver_start(const char *cert_file, const char *key_file);

/** The port it listens on. */
int tlsserver_port(const tlsserver *s);

/** Connections accepted so far. */
int tlsserver_connections(tlsserver *s);

/** Connections on which the client sent request bytes after the handshake. */
int tlsserver_requests(tlsserver *s);

/** Stops the server thread and frees everything. `s` may be NULL. */
void tlsserver_free(tlsserver *s);

#endif
