/*
 * xfix.h - fixtures for the file-layer tests: a context wired to the emulator's
 * dev account (or to nothing, for local files), a recorder of trace events, and
 * fresh file names on either backend.
 */
#ifndef XIO_TEST_XFIX_H
#define XIO_TEST_XFIX_H

#include <pthread.h>
#include <xio/xio.h>

#define XFIX_MAX_EVENTS 4096

typedef struct xfix_event {
  char event[32]; /* "xio_send_complete", ... */
  xio_request_type type;
  char path[512];
  char result[32];
  char error_code[64];
  uint64_t offset, length;
  int http_status;
  int retries;
  char request_id[128];
  char client_request_id[64];
} xfix_event;

typedef struct xfix_trace {
  pthread_mutex_t mu;
  int n;
  xfix_event *ev; /* XFIX_MAX_EVENTS of them */
  char *json;     /* every event as a JSON line, concatenated */
  size_t json_len;
} xfix_trace;

typedef struct xfix {
  xio_ctx *ctx;
  xfix_trace trace;
  char base[512]; /* container URL, or a temporary directory */
  int local;
} xfix;

/** Context with `opts` (NULL: defaults; trace and credentials are set here) on the
 *  page-blob backend (local = 0: a fresh container on the emulator) or the local
 *  backend (local = 1: a fresh temporary directory). */
void xfix_setup(xfix *fx, int local, const xio_ctx_options *opts);

/** The page-blob context of xfix_setup for the dev account at `endpoint` (a fault
 *  proxy in front of the emulator, say) instead of the emulator's own. */
void xfix_setup_at(xfix *fx, const char *endpoint, const xio_ctx_options *opts);

/** Frees the context and removes the temporary directory. */
void xfix_teardown(xfix *fx);

/** Writes the target for file `name` into `out`. */
void xfix_target(const xfix *fx, const char *name, char *out, size_t size);

/** Opens `url` on the fixture's context with `flags`, `kind` and `size` (the open
 *  options' fields; the rest default), failing the test on an error. */
xio_file *xfix_open_url(xfix *fx, const char *url, unsigned flags, xio_kind kind, uint64_t size);

/** The same for file `name` of the fixture (see xfix_target). */
xio_file *xfix_open(xfix *fx, const char *name, unsigned flags, xio_kind kind, uint64_t size);

/** Forgets the events recorded so far. */
void xfix_trace_reset(xfix *fx);

/** Number of recorded xio_send_complete events (storage requests) of `type` (e.g.
 *  XIO_REQ_ZERO). */
int xfix_count(xfix *fx, xio_request_type type);

/** Number of recorded events named `event` ("xio_send_complete", ...), any type. */
int xfix_count_event(xfix *fx, const char *event);

#endif
