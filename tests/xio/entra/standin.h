/*
 * standin.h - stand-ins for the Entra ID token sources, for the tests: unsigned JWTs
 * that Azurite's `--oauth basic` accepts (audience https://storage.azure.com, issuer
 * https://sts.windows.net/TENANT/, nbf/iat a second ago, exp after `lifetime_s`),
 * and a managed identity endpoint on 127.0.0.1 (the App Service protocol, or the
 * instance metadata service's), over http or https, that mints them, counts what it
 * was asked and can answer 500 a given number of times. Only loopback is ever
 * listened on or contacted.
 */
#ifndef XIO_TEST_STANDIN_H
#define XIO_TEST_STANDIN_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

#define STANDIN_OID "6b2e6f7a-1c5d-4e8f-9a0b-1c2d3e4f5a6b"
#define STANDIN_TID "72f988bf-86f1-41af-91ab-2d7cd011db47"

/** Writes a fresh token (unique each call) living `lifetime_s` into `out`. */
void standin_jwt(char *out, size_t size, int lifetime_s);

/** The same for another audience (one the emulator refuses, for tests). */
void standin_jwt_for(char *out, size_t size, int lifetime_s, const char *audience);

/** 1 when `text` holds anything that looks like one of our tokens ("eyJ"). */
int standin_has_token(const char *text);

#define STANDIN_HEADER_SECRET "identity-header-secret-5d1f"

typedef struct standin_idserver {
  int fd, port;
  int imds;            /* answer as the metadata service (Metadata: true) */
  int lifetime_s;      /* of the tokens it mints */
  void *tls;           /* an SSL_CTX when serving https, else NULL */
  atomic_int fail;     /* answer 500 to this many requests more */
  atomic_int requests; /* requests received */
  atomic_int tokens;   /* tokens handed out */
  atomic_int bad;      /* requests that broke the protocol (header, version, resource) */
  char last_query[512];
  pthread_mutex_t mu;
  pthread_t thread;
  atomic_int stop;
} standin_idserver;

/** Starts an endpoint on 127.0.0.1 at a free port. */
void standin_idserver_start(standin_idserver *s, int imds, int lifetime_s);

/** The same over https, with the certificate and key in `cert_file`, `key_file`
 *  (PEM). A client that refuses the certificate is not counted as a request. */
void standin_idserver_start_tls(standin_idserver *s, int imds, int lifetime_s,
                                const char *cert_file, const char *key_file);

void standin_idserver_stop(standin_idserver *s);

/** "http://127.0.0.1:PORT/msi/token", or https:// when it serves TLS. */
void standin_idserver_url(const standin_idserver *s, char *out, size_t size);

/** The last query string received (copied). */
void standin_idserver_last_query(standin_idserver *s, char *out, size_t size);

/** The directory holding the stand-in `az` (tests/xio/entra), for PATH. */
const char *standin_az_dir(void);

/** Runs of the stand-in `az` logged in `log` (one line each). */
int standin_az_runs(const char *log);

/**
 * Puts the process environment in a known state for an Entra ID test: no storage
 * credential, no managed identity endpoint, no Entra ID method, the stand-in `az`
 * first on PATH when `with_az` (logging to `az_log`, which is emptied) or no `az`
 * at all, a DMI asset tag file that is not Azure's, and the metadata service
 * address on a loopback port nobody listens on, so that nothing can reach
 * 169.254.169.254 whatever the test does.
 */
void standin_env_reset(int with_az, const char *az_log);

/** A file in a fresh directory of this process: "<dir>/<name>". The directory is
 *  removed when the process exits. */
void standin_path(const char *name, char *out, size_t size);

/** Writes `text` to `path` atomically (a new file renamed over the old), readable by
 *  its owner alone (0600), as a credential file holding a secret must be. */
void standin_write_file(const char *path, const char *text);

#endif
