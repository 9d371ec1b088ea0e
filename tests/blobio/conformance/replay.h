/*
 * replay.h - a loopback HTTP/1.1 server for the conformance tests: it answers the
 * requests it gets, in the order they come, with the response shapes it was given
 * (files under shapes/, each a response as the live service sent it: status line,
 * headers, body), and records what each request asked. Keep-alive, any number of
 * connections (one thread each), Content-Length request bodies.
 *
 * A shape file: lines starting with '#' first (what the shape is, where its facts
 * come from), then the status line, the headers, an empty line and the body, byte
 * for byte up to the file's last newline, which is not part of it. The server frames
 * the body itself: a shape with "Transfer-Encoding: chunked" goes out in two chunks;
 * any other gets a Content-Length of its body, except one with no body that names a
 * Content-Length of its own (a HEAD answer: the blob's size), which keeps it.
 */
#ifndef XIO_TEST_REPLAY_H
#define XIO_TEST_REPLAY_H

#define REPLAY_MAX_SHAPES 16

typedef struct replay replay;

/** What the server saw of one request. */
typedef struct replay_request {
  char method[16];
  char target[1024];  /* path and query as sent */
  char range[64];     /* x-ms-range, or "" */
  char lease_id[64];  /* x-ms-lease-id, or "" */
  int asked_crc64;    /* x-ms-range-get-content-crc64: true */
  int asked_md5;      /* x-ms-range-get-content-md5: true */
  int has_auth;       /* an Authorization header came */
  char client_id[64]; /* x-ms-client-request-id */
} replay_request;

/** Starts a server that answers with the shapes named in `names` (file names under
 *  the shapes directory, without ".http"), one per request, in order; a request past
 *  the last is answered 500 with no body and counted. Fails the test when a shape
 *  cannot be read or the socket cannot be made. */
replay *replay_start(const char *const *names, int n);

/** "http://127.0.0.1:PORT". */
const char *replay_endpoint(const replay *r);

/** Requests answered so far (a request past the shapes included). */
int replay_count(replay *r);

/** The `i`-th request (from 0); fails the test when there is none. */
replay_request replay_request_at(replay *r, int i);

/** Stops the server and frees it; `r` may be NULL. */
void replay_free(replay *r);

#endif
