/*
 * efix.h - what the Entra ID integration tests share: a context on the emulator
 * that accepts bearer tokens (azurite_oauth), with its private CA, a trace recorder
 * that fails the test on any secret in an event, fresh container URLs, SAS tokens
 * signed with the dev key for rotation tests, and plain libcurl requests for checking
 * what the emulator itself accepts.
 */
#ifndef XIO_TEST_EFIX_H
#define XIO_TEST_EFIX_H

#include <stdatomic.h>
#include <stddef.h>
#include <time.h>

#include <xio/alloc.h>
#include <xio/credentials.h>
#include <xio/xio.h>

typedef struct efix {
  xio_ctx *ctx;
  char container_url[512]; /* https://127.0.0.1:PORT/devstoreaccount1/<fresh> */
  atomic_int requests;     /* trace events */
  atomic_int failures;     /* events whose result is neither ok nor XIO_ENOTFOUND */
} efix;

/** Zeroes `f` and gives it a fresh container name (not created). */
void efix_name(efix *f);

/** A context with `o` (NULL: defaults; the CA file and the trace callback are set
 *  here); the container name of efix_name (made here when `f` has none). */
void efix_setup(efix *f, const xio_ctx_options *o);
void efix_teardown(efix *f);

/** `out` = the fixture's file `name` beside its CA (XIO_TEST_CA_FILE): "server.pem",
 *  "server.key" (a certificate for 127.0.0.1 and localhost signed by that CA). Fails
 *  the test when it does not exist. */
void efix_fixture_file(const char *name, char *out, size_t size);

/** `out` = container URL + "/" + name. */
void efix_blob(const efix *f, const char *name, char *out, size_t size);

/** Creates the container of `f` with the dev key (through a context of its own). */
void efix_create_container(const efix *f);

/** A service SAS for the container of `f`, signed with the dev key, with
 *  `perms`, expiring at `expiry` (malloc'd). `wrong_key` signs with a changed key. */
char *efix_container_sas(const efix *f, const char *perms, time_t expiry, int wrong_key);

/** Sends `method` to `url` (with its SAS) with plain libcurl, trusting the test CA;
 *  `headers` NULL-terminated "Name: value" or NULL; returns the HTTP status. */
long efix_raw(const char *method, const char *url, const char *const *headers, const void *body,
              size_t len, char *resp, size_t resp_size);

#endif
