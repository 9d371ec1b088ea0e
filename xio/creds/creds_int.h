/*
 * creds_int.h - the context's credential source, shared by creds.c (resolution per
 * request), creds_file.c (the watched credential file), creds_events.c (expiry
 * warnings) and creds_api.c (what the API changes at run time). One source per
 * context, counted by the targets that use it, so a target may outlive the calls
 * that made it. Internal.
 */
#ifndef XIO_CREDS_INT_H
#define XIO_CREDS_INT_H

#include <pthread.h>
#include <sys/types.h>
#include <time.h>

#include <xio/alloc.h>
#include <xio/credentials.h>
#include <xio/entra_sources.h>

#include "xio_int.h"

/* The credential file, as last loaded, and what it looked like then. */
typedef struct xio__credfile {
  char *path;
  dev_t dev;
  ino_t ino;
  off_t size;
  mode_t mode;
  struct timespec mtime;
  unsigned flags;     /* of xio_cred_file_load: XIO_CRED_FILE_ALLOW_EXPOSED or 0 */
  int64_t checked_ms; /* monotonic time of the last look */
  xio_auth_credstore *store;
} xio__credfile;

/* Loads `path` into `f` (the first time: a failure fails the context), with the
 * flags of xio_cred_file_load (the environment is read here, once). Errors: those of
 * xio_cred_file_load. */
xio_err xio__credfile_open(xio__credfile *f, const char *path, unsigned flags, xio_error *err);

/* Looks at the file when `force` or recheck_ms have passed since the last look, and
 * re-reads it when its size, mode, time or inode changed (always when forced). Returns 1
 * when it was reloaded, 0 when not, -1 when a changed file did not load (the old
 * entries stay; `err` says why). */
int xio__credfile_refresh(xio__credfile *f, int recheck_ms, int force, xio_error *err);

void xio__credfile_free(xio__credfile *f);

#define XIO__MAX_TOKEN_CACHES 8
#define XIO__MAX_WARNED       32

typedef struct xio__token_cache {
  xio_auth_entra_method method;
  char *client_id;
  xio_entra_tokens *tokens;
  int retired; /* the options changed: kept until the end, not used */
} xio__token_cache;

typedef struct xio__credsrc {
  pthread_mutex_t mu;
  int refs;
  xio_ctx *ctx; /* for the trace file; NULL until a target is made, and after */
  xio_auth_clock clock;
  int use_environment;
  int has_file;
  xio__credfile file;
  xio_auth_credstore *api; /* xio_ctx_set_credential, or NULL */
  xio_auth_account conn;   /* connection string (blob_endpoint NULL: none) */
  const char *conn_label;
  char *env_account;
  unsigned char *env_key;
  size_t env_key_len;
  char *env_sas;
  xio_entra_options entra;      /* the callback; the rest from the environment */
  xio_blob_engine *engine;      /* the context's: sends the token requests; NULL
                                   before it starts and once the context closes */
  xio_auth_entra_method method; /* for URLs without another credential */
  char *client_id;
  xio__token_cache caches[XIO__MAX_TOKEN_CACHES];
  int ncaches;
  unsigned gen; /* changes whenever a resolution may have: file, API, method */
  xio_cred_options watch;
  struct {
    char label[160];
    time_t expiry;
  } warned[XIO__MAX_WARNED];
  int nwarned;
} xio__credsrc;

/* The Entra ID token cache for method/client_id, made on first use; under src->mu.
 * Errors: XIO_ECLOSED (the context has no engine: not started, or closed),
 * XIO_ENOMEM (also when every slot is taken). */
xio_err xio__creds_tokens(xio__credsrc *s, xio_auth_entra_method method, const char *client_id,
                          xio_entra_tokens **out, xio_error *err);

/* A target for `url` whose credential the context's source resolves before every
 * request; `entra_only` makes it always an Entra ID token. Gets a needed token first
 * (on this thread). Errors: those of the resolution and of xio_entra_tokens_get. */
xio_err xio__creds_target(xio_ctx *ctx, const char *url, int entra_only, xio_blob_target **out,
                          xio_error *err);

/* Emits `ev` to the event callback and the trace file. Takes nothing locked. */
void xio__creds_emit(xio__credsrc *s, const xio_cred_event *ev);

/* Emits XIO_CRED_EXPIRING for a SAS (from `label`) expiring at `expiry` used on
 * `url`, when that is within the warning time and was not warned about yet. Takes
 * src->mu itself. */
void xio__creds_warn_sas(xio__credsrc *s, const char *url, const char *label, time_t expiry);

/* Emits XIO_CRED_FILE_ERROR with the message of `e`. */
void xio__creds_file_error(xio__credsrc *s, const char *url, const xio_error *e);

#endif
