/*
 * ctx_int.h - the context's insides, shared by the files that run its parts:
 * ctx.c (lifecycle), ctx_state.c (what the parts ask of it), creds.c (credentials), trace.c
 * (sinks), workers.c (local backend threads) and lease.c (the lease keeper). Internal.
 */
#ifndef XIO_CTX_INT_H
#define XIO_CTX_INT_H

#include <stdio.h>
#include <sys/types.h>

#include <xio/auth.h>

#include "xio_int.h"

#define XIO__CTX_ZEROS_LEN (4u << 20) /* the context's buffer of zeros */

typedef struct xio__creds {
  struct xio__credsrc *src; /* shared with the targets that use it (creds_int.h) */
} xio__creds;

typedef struct xio__workers {
  pthread_t *threads;
  int n;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  xio__job *head, *tail;
  int stopping;
} xio__workers;

/* The lease keeper (lease.c): a timer on the engine's I/O thread that sends each
 * lease's renewal when it is due, answered on that thread too. */
typedef struct xio__keeper {
  xio_blob_engine *engine; /* whose timer it is */
  xio_blob_timer timer;    /* armed for the next renewal, a second ahead at most */
  int started;
  pthread_mutex_t mu;
  pthread_cond_t cv; /* signalled when a renewal or a confirmation ends */
  xio__lease *leases;
} xio__keeper;

/* The write combiner (window.c): sends a file's queued writes once the combining
 * window has passed since the first of them was queued, from a timer on the
 * engine's I/O thread. */
typedef struct xio__combiner {
  xio_blob_engine *engine; /* whose timer it is */
  xio_blob_timer timer;    /* armed for the earliest window's end while files wait */
  int inited;
  pthread_mutex_t mu;
  pthread_cond_t cv; /* signalled when a file's send ends */
  xio_file *armed;   /* files with runs waiting for the window */
  xio_file *kicking; /* the file being sent right now, or NULL */
} xio__combiner;

struct xio_ctx {
  xio_ctx_options opts; /* strings below are owned copies */
  char *ca_file;
  xio_blob_engine *engine;
  xio__creds creds;
  FILE *trace_file; /* NULL: no file sink */
  int trace_file_owned;
  pthread_mutex_t trace_mu;
  xio__workers workers;
  xio__keeper keeper;
  xio__combiner combiner;
  xio__tracked open_files; /* files open in this context (tracked_int.h) */
  void *zeros;
  pid_t pid; /* the process that made it: its threads and leases live there only */
};

/** Loads credentials from the options and (when asked) the environment.
 *  Errors: XIO_EPARSE, XIO_EIO, XIO_ENOMEM. */
xio_err xio__creds_load(xio__creds *c, const xio_ctx_options *o, xio_error *err);
void xio__creds_free(xio__creds *c);

/** Gives the credentials the engine that sends their token requests (the
 *  managed identity's), once it has started. */
void xio__creds_set_engine(xio__creds *c, xio_blob_engine *engine);

/** Stops every token cache (each after the fetch it runs) and takes the engine
 *  away, before the engine stops: a target that outlives the context then gets
 *  XIO_ECLOSED when it needs a token. */
void xio__creds_stop_tokens(xio__creds *c);

/** Opens the trace file of the options / XIO_TRACE. Errors: XIO_EIO. */
xio_err xio__trace_open(xio_ctx *ctx, xio_error *err);
void xio__trace_close(xio_ctx *ctx);
/** Writes `line` (one JSON object, no newline) and a newline to the context's trace
 *  file, which must be open, under its lock, and flushes it: lines written from
 *  several threads never mix. Failures of the file are not reported (tracing never
 *  fails a request). */
void xio__trace_write_line(xio_ctx *ctx, const char *line);
/** The wall time of an event, in microseconds since the epoch (CLOCK_REALTIME). */
int64_t xio__trace_now_us(void);
/** Formats `us` (microseconds since the epoch) as a trace line's UTC timestamp,
 *  "2024-01-31T12:00:00.123456Z", in `out`. */
void xio__trace_timestamp(int64_t us, char out[64]);

/** Starts / stops the local workers. Errors: XIO_ENOMEM. */
xio_err xio__workers_start(xio__workers *w, int n, xio_error *err);
void xio__workers_stop(xio__workers *w);
int xio__workers_is_worker(const xio__workers *w);

/** Starts / stops the write combiner (its timer on the context's engine, which must
 *  outlive it). Cannot fail. */
xio_err xio__combiner_start(xio_ctx *ctx, xio_error *err);
void xio__combiner_stop(xio_ctx *ctx);

/** Starts / stops the lease keeper (its timer on the context's engine, which must
 *  outlive it; stopping waits for renewals on their way). Cannot fail. */
xio_err xio__keeper_start(xio_ctx *ctx, xio_error *err);
void xio__keeper_stop(xio_ctx *ctx);

#endif
