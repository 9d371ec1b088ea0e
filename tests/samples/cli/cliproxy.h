/*
 * cliproxy.h - the fault proxy (samples/testers/faultproxy) in front of Azurite for the
 * command-line tests, in the test's process. Targets addressed through it
 * (cliproxy_url) reach Azurite unchanged, except one request chosen by the test:
 *
 *  - held (cliproxy_hold): kept CLIPROXY_HOLD_MS before it is forwarded, so that
 *    the test can act while the command waits at a known point: change the local
 *    file it uploads, send it a signal, read its /proc entries. The test waits
 *    until the proxy has the request (cliproxy_wait), acts, and checks that the
 *    request was still held when it was done (cliproxy_check_held); or stalled
 *    (cliproxy_stall): held until the client gives up on it;
 *  - refused (cliproxy_refuse): answered with a service error instead of being
 *    forwarded, so that a command fails at a known request;
 *  - corrupted (cliproxy_corrupt): forwarded, and one byte in the middle of the
 *    response body flipped on its way back, headers untouched, as a body damaged
 *    between the service and the client would be.
 */
#ifndef XIO_TEST_CLIPROXY_H
#define XIO_TEST_CLIPROXY_H

#include <stddef.h>

#include "clirun.h"

/* How long the held request is kept: far more than a test needs to act, far less
 * than the client's 120 s per try (it must not give up on the request). */
#define CLIPROXY_HOLD_MS 5000

/** `out` = <account URL through the proxy>/container[/blob]; starts the proxy on
 *  first use (it runs until the test process exits). */
void cliproxy_url(const char *container, const char *blob, char *out, size_t size);

/** The environment of a run through the proxy: the dev account's connection
 *  string with the proxy as its blob endpoint (NULL-terminated, static). */
const char *const *cliproxy_env(void);

/** Runs xio (as XIO) with the credential of targets through the proxy. */
#define XIO_PROXIED(r, ...) XIO_ENV((r), CLIRUN_NO_CREDS, cliproxy_env(), __VA_ARGS__)

/** Starts xio in the background (as XIO_START) with that credential. */
#define XIO_START_PROXIED(b, flags, ...)                                                           \
  clirun_start_v((b), (flags) | CLIRUN_NO_CREDS, cliproxy_env(),                                   \
                 (const char *const[]){__VA_ARGS__, NULL})

/** Holds, for CLIPROXY_HOLD_MS, the request after the first `skip` whose method is `method`
 *  and whose path and query contain `match`; forgets what the proxy recorded so far
 *  and any hold not yet used. */
void cliproxy_hold(const char *method, const char *match, int skip);

/* How long a stalled request is kept (cliproxy_stall): a server that accepted it
 * and went silent, longer than any try of the client (120 s each, retried). */
#define CLIPROXY_STALL_MS 600000

/** Holds, as cliproxy_hold does, but for CLIPROXY_STALL_MS: the request is only ever
 *  dropped, when the client hangs up. */
void cliproxy_stall(const char *method, const char *match, int skip);

/** Answers the request after the first `skip` whose method is `method` and whose
 *  path and query contain `match` with HTTP `status` and service error `code`,
 *  without forwarding it; forgets as cliproxy_hold does. */
void cliproxy_refuse(const char *method, const char *match, int skip, int status, const char *code);

/** Flips a byte in the middle of the response body of the request after the first
 *  `skip` whose method is `method` and whose path and query contain `match`; forgets
 *  as cliproxy_hold does. */
void cliproxy_corrupt(const char *method, const char *match, int skip);

/** Waits until the proxy holds the request of cliproxy_hold and returns its record
 *  number; fails the test when the background run `b` ends first. */
int cliproxy_wait(const clirun_bg *b);

/** Fails the test unless record `no` (from cliproxy_wait) is still held: the proxy has
 *  not yet answered it. */
void cliproxy_check_held(int no);

#endif
