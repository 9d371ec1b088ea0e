/*
 * call_int.h - what a call is inside libxio_blob: the request to send (method,
 * target, query, headers, borrowed body or receive buffer), the state of its
 * current try, and its outcome. Builders (build.c) fill the request; the engine
 * (engine.c) runs tries through the transport (transport.c); results.c reads the
 * outcome. Internal to libxio_blob.
 */
#ifndef XIO_BLOB_CALL_INT_H
#define XIO_BLOB_CALL_INT_H

#include <curl/curl.h>
#include <stdint.h>

#include <xio/blob.h>
#include <xio/url_int.h>

#include "pacing_int.h"

/* A header list: owned name/value pairs in insertion order. */
typedef struct xio__blob_hdr {
  char *name;
  char *value;
} xio__blob_hdr;

typedef struct xio__blob_hdrs {
  xio__blob_hdr *v;
  size_t n;
  size_t cap;
} xio__blob_hdrs;

/** Appends a copy of name/value. Errors: XIO_ENOMEM. */
xio_err xio__blob_hdrs_add(xio__blob_hdrs *h, const char *name, const char *value);
/** First value whose name matches case-insensitively, or NULL. */
const char *xio__blob_hdrs_get(const xio__blob_hdrs *h, const char *name);
/** Frees every pair (values wiped); keeps the array for reuse. */
void xio__blob_hdrs_reset(xio__blob_hdrs *h);
/** Frees everything. */
void xio__blob_hdrs_free(xio__blob_hdrs *h);
/* Wipes every line of a libcurl header list, then frees it; NULL is fine. A request's
 * list holds its Authorization line (a Shared Key signature, valid for minutes and
 * replayable), so it must not linger in freed heap memory. */
void xio__blob_slist_free(struct curl_slist *l);

/* The target, as calls see it (target.c). */
struct xio_blob_target {
  xio_auth_url url;            /* parsed URL */
  char *origin;                /* scheme://host[:port] */
  char *cont_path;             /* encoded path of the container (with the account, path style) */
  char *safe_url;              /* origin + path, no query: what logs and errors show */
  xio_auth_cred cred;          /* owned copy */
  xio_blob_cred_source source; /* source.get non-NULL: the credential of each try */
  int has_sas;                 /* cred is a SAS that parsed */
  xio_auth_sas sas;            /* parsed SAS, for checks before sending */
  char *extra_query;           /* URL query that is not the credential (e.g. snapshot=), or NULL */
};

struct xio_blob_call {
  /* The request. */
  const char *operation; /* static: "PutPage" */
  const char *method;    /* static: "GET", "PUT", "HEAD", "DELETE" */
  const xio_blob_target *target;
  char *query;            /* operation query, e.g. "comp=page", or NULL */
  xio__blob_hdrs headers; /* request headers but date, version, ids, auth */
  const void *body;       /* borrowed request body, or NULL */
  size_t body_len;
  void *rbuf; /* borrowed receive buffer for a read, or NULL */
  size_t rbuf_len;
  int read_check;                /* the checksum a read asks for (readcheck_int.h) */
  int retryable;                 /* idempotent: may be sent again */
  int missing_ok_on_retry;       /* a 404 on a retry means an earlier try succeeded */
  int unleased_ok_on_retry;      /* a release: "no such lease" on a retry means the same */
  int throttle_counted;          /* throttling answers count among max_retries: a renewal,
                                    whose sender tries again on a schedule of its own */
  xio_err early;                 /* failure found at submit, reported by the I/O thread */
  int container_level;           /* addresses the container, not the blob */
  int service_level;             /* addresses the account (the blob service) at owned_path */
  char *owned_path;              /* the account's encoded path: "/ACCOUNT/" or "/" */
  char *owned_body;              /* a body the builder made (freed with the call) */
  xio_blob_target *owned_target; /* a target the builder made (token requests) */
  int foreign;                   /* not a storage request: no x-ms-date, x-ms-version */
  int no_proxy;                  /* never sent through a proxy */
  int link_local_ok;             /* plain http to a link-local host is allowed */
  int secret_body;               /* the response body is a secret: wiped when freed */
  int connect_timeout_ms;        /* 0: the engine's */
  int deadline_ms;               /* the whole call with its retries; 0: the engine's */
  int try_timeout_ms;            /* one try; 0: the engine's */
  int control;                   /* a lease action: never waits behind data (engine.c) */
  uint32_t need_perms;           /* SAS permission letters the operation needs, all of */
  uint32_t need_any;             /* ... and at least one of these */
  char client_request_id[37];
  const void *tag; /* the sender's, for the engine's hooks (borrowed) */

  /* The current try (transport.c). */
  int attempt;
  int paced_try;            /* attempt+1 of the try the pacer has scheduled (engine.c) */
  xio__pace_mark pace_mark; /* that try's place among those paced (pacing_int.h) */
  int throttle_retries;     /* retries after throttling answers in their budget */
  int64_t throttled_us;     /* the first throttling answer, 0: none yet */
  int64_t try_us;           /* when it started */
  int status;
  CURLcode curl_rc;
  long verify_result; /* OpenSSL's verdict on a refused certificate (X509_V_ERR_*), else 0 */
  int tls_got_http;   /* the server answered the TLS handshake in plain HTTP (tls.c) */
  char peer_ip[48];   /* the address a plain-http try that got no answer reached, else "" */
  long peer_port;     /* ... and its port */
  int origin_heard;   /* the engine has had an HTTP answer from this origin before */
  int speaks_tls;     /* that address answered a TLS hello in TLS (probe.c) */
  char curl_err[CURL_ERROR_SIZE];
  xio__blob_hdrs resp_headers;
  char *resp_body; /* body of errors and XML results */
  size_t resp_len;
  size_t resp_cap;
  size_t rbuf_got;
  int overflow;                  /* the response body did not fit */
  int oom;                       /* an allocation failed during the try (ours or libcurl's) */
  unsigned long refused;         /* the I/O thread's refused allocations as the try began */
  int sends;                     /* times libcurl sent this try's request (>1: it re-sent) */
  int resends;                   /* over all tries: the sends libcurl made again by itself */
  size_t body_seen;              /* response body bytes taken this try */
  struct xio__blob_socks *socks; /* the engine's sockets (rcvlowat.c), or NULL */
  int rcvlowat;                  /* >1: the low-water mark set on the try's socket (rcvlowat.c) */
  int rcvlowat_fd;               /* the try's socket once looked up, else -1 */
  CURL *easy;
  struct curl_slist *slist;
  char *full_url;          /* with the credential: never logged */
  xio_auth_cred auth;      /* the credential of this try, from the target's source */
  xio_auth_sas auth_sas;   /* auth.sas parsed ... */
  const char *auth_sas_of; /* ... when this is auth.sas; else NULL */
  int auth_refused;        /* the service refused `auth`: ask the source again */
  int auth_renewed;        /* sent again once after a refusal already */

  /* The outcome. */
  int finished;
  xio_err result;
  xio_error err;
  int64_t submit_us;
  int64_t done_us;
  int64_t deadline_us; /* 0: none */
  int64_t next_try_us;

  /* Completion. */
  xio_blob_done_fn done;
  void *ud;
  struct xio_blob_call *next; /* engine queues */
};

/** Allocates a call for `target` with operation, method and optional query
 *  (copied); generates its client request id. Errors: XIO_ENOMEM. */
xio_err xio__blob_call_new(const xio_blob_target *target, const char *operation, const char *method,
                           const char *query, xio_blob_call **out, xio_error *err);

/** Adds a request header to `c`, recording ENOMEM in *rc (left alone on success),
 *  so builders can add several and check once. */
void xio__blob_call_header(xio_blob_call *c, const char *name, const char *value, xio_err *rc);

/** Adds the lease / If-Match / If-None-Match headers of `cond` (may be NULL). */
void xio__blob_call_cond(xio_blob_call *c, const xio_blob_cond *cond, xio_err *rc);

/** Clears per-try state before a new try. */
void xio__blob_call_reset_try(xio_blob_call *c);

/** A target for `url`, an http(s) URL that is not a blob service's (a token
 *  endpoint): scheme, host, port, path and query taken as given, no credential, the
 *  log-safe URL without the query. Errors: XIO_EPARSE (names what is wrong, never
 *  quotes the query), XIO_ENOMEM. */
xio_err xio__blob_target_endpoint(const char *url, xio_blob_target **out, xio_error *err);

/** The encoded path of the account of `t`: "/ACCOUNT/" in path style, else "/"
 *  (malloc'd through xio_malloc; NULL on out-of-memory). */
char *xio__blob_target_account_path(const xio_blob_target *t);

/** The SAS a request to `t` would carry now (from the target, or from its credential
 *  source), malloc'd into *out (a secret: wipe it), or NULL when it has none.
 *  Errors: XIO_ENOMEM, the source's. */
xio_err xio__blob_target_sas(const xio_blob_target *t, char **out);

/** The credential the current try signs with: the source's, else the target's. */
const xio_auth_cred *xio__blob_call_cred(const xio_blob_call *c);

/** The encoded path the call addresses (blob, container or account). */
const char *xio__blob_call_path(const xio_blob_call *c);

#endif
