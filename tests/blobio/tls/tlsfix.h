/*
 * tlsfix.h - what the TLS tests share: the HTTPS emulator's private CA and the other
 * files its fixture made (azurite.sh start-tls), and a blobio engine that records
 * every try it makes, so a test can tell a final failure from a retried one; and a
 * count of the calls submitted at once that have completed.
 */
#ifndef XIO_TEST_TLSFIX_H
#define XIO_TEST_TLSFIX_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <xio/blob.h>

/** The private CA the HTTPS emulator's certificate is signed by (XIO_TEST_CA_FILE);
 *  fails the test when unset. */
const char *tls_ca_file(void);

/** `out` = the fixture's file `name` beside the CA ("other-ca.pem",
 *  "wrong-host.pem", "wrong-host.key"); fails the test when it does not exist. */
void tls_fixture_file(const char *name, char *out, size_t size);

#define TLS_MAX_TRIES 16

/** What the engine's on_try hook saw. Read it after the call has completed. */
typedef struct tls_tries {
  int n; /* tries made */
  int will_retry[TLS_MAX_TRIES];
  int attempt[TLS_MAX_TRIES];
  int http_status[TLS_MAX_TRIES];
  char transport_error[TLS_MAX_TRIES][256];
} tls_tries;

typedef struct tls_engine {
  xio_blob_engine *engine;
  xio_auth_cred cred; /* the dev account's shared key */
  tls_tries *tries;   /* malloc'd: the I/O thread writes it */
} tls_engine;

/**
 * Starts an engine trusting `ca_file` besides the system store (NULL: the system
 * store only), with the default 3 retries but short delays (so a failure that is
 * wrongly retried shows as extra tries, not as a slow test), recording each try.
 * Its checksum is MD5, the one Azurite (the TLS emulator, with no front) answers on
 * reads.
 */
void tls_engine_setup(tls_engine *t, const char *ca_file);

/** As tls_engine_setup, with each try bounded by `try_timeout_ms` and at most
 *  `max_retries` retries. */
void tls_engine_setup_tries(tls_engine *t, const char *ca_file, int try_timeout_ms,
                            int max_retries);

/** As tls_engine_setup_tries; `plain_tls` is the engine option of that name. */
void tls_engine_setup_with(tls_engine *t, const char *ca_file, int try_timeout_ms, int max_retries,
                           int plain_tls);

/** As tls_engine_setup_with, with the engine's transactional checksum `checksum`
 *  (the others use MD5, the one Azurite answers on reads). */
void tls_engine_setup_checksum(tls_engine *t, const char *ca_file, int try_timeout_ms,
                               int max_retries, int plain_tls, xio_blob_checksum checksum);

/** 1 when the running libcurl gets the engine's TLS read-ahead and record gathering
 *  (xio__blob_tls_rewire_supported). */
int tls_rewired(void);

/** Ends the test as skipped, saying why, when the running libcurl gets plain TLS
 *  connections: for tests that count what the read-ahead and gathering do. */
void tls_require_rewired(void);

/** The tries the engine of `t` reported so far, over all its calls. */
int tls_tries_made(tls_engine *t);

void tls_engine_teardown(tls_engine *t);

/** A target for `url` with the dev account's credential (free it). */
xio_blob_target *tls_target(tls_engine *t, const char *url);

/** An empty page blob `name` of `size` bytes in a fresh container, made through
 *  `t` (free it). Fails the test on error. */
xio_blob_target *tls_new_blob(tls_engine *t, const char *name, uint64_t size);

/** `out` = "<endpoint>/devstoreaccount1/<fresh container name>". */
void tls_container_url(char *out, size_t size);

/**
 * Sends Create Container for `url` through `t` and asserts a final certificate
 * failure: XIO_ETRANSPORT with reason `reason` (which check refused the server), no
 * HTTP status, a message from libcurl that mentions the certificate (and `also`
 * when not NULL), no retry, exactly one try.
 */
void tls_expect_refused(tls_engine *t, const char *url, xio_reason reason, const char *also);

/** Counts the completions of calls submitted with xio_blob_submit(e, call,
 *  tls_batch_done, &batch). Initialize with TLS_BATCH_INIT. */
typedef struct tls_batch {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int done;
} tls_batch;

#define TLS_BATCH_INIT                                                                             \
  { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0 }

/** The completion callback: counts one more call done (`ud` is the tls_batch). */
void tls_batch_done(xio_blob_call *c, void *ud);

/** Waits until `n` calls of `b` have completed. */
void tls_batch_wait(tls_batch *b, int n);

#endif
