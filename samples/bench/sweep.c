/*
 * sweep.c - leaving no data behind in a --target container: every blob a run makes
 * there starts with one prefix (xio-bench-PID-), so deleting what the run made is a
 * listing by that prefix and a delete of each blob found, repeated until a listing
 * finds none. It runs at the end of the run, and from a thread of its own when
 * SIGINT or SIGTERM arrives mid-run (both are blocked in every other thread, so the
 * signal reaches only that thread, which may use the file layer freely). From then
 * on no new blob is named (bench_target_file holds the measuring thread), and the
 * sweep is repeated so that a request already under way cannot leave its blob.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

#define SWEEP_ROUNDS 5

static atomic_int stopping; /* set by the sweeper: no new blob may be named */

void bench_sweep_hold(void) {
  while (atomic_load(&stopping))
    pause(); /* until the sweeper exits the process */
}

void bench_sweep_prefix(char *out, size_t n) { snprintf(out, n, "xio-bench-%ld-", (long)getpid()); }

/* The names a listing found. */
typedef struct names {
  char **v;
  size_t n, cap;
} names;

static int collect(const xio_list_entry *e, void *ud) {
  names *l = ud;
  if (e->snapshot) return 0; /* deleted with their blob */
  if (l->n == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 64;
    char **v = realloc(l->v, cap * sizeof *v);
    if (!v) return 1;
    l->v = v, l->cap = cap;
  }
  return (l->v[l->n] = strdup(e->name)) ? (l->n++, 0) : 1;
}

static void names_free(names *l) {
  for (size_t i = 0; i < l->n; i++)
    free(l->v[i]);
  free(l->v);
  memset(l, 0, sizeof *l);
}

/* Deletes blob `name` of the container (URL with its query). */
static xio_err delete_one(xio_ctx *ctx, const char *container_url, const char *name,
                          xio_error *err) {
  char *url = NULL;
  xio_err rc = xio_target_blob_url(container_url, name, &url, err);
  if (rc == XIO_OK) rc = xio_file_delete(ctx, url, err);
  if (url) xio_auth_secret_free(url, strlen(url));
  return rc == XIO_ENOTFOUND ? XIO_OK : rc;
}

long bench_sweep(xio_ctx *ctx, const char *container_url, const char *prefix, xio_error *err) {
  long deleted = 0;
  for (int round = 0; round < SWEEP_ROUNDS; round++) {
    names l = {0};
    xio_list_options o = xio_list_options_default();
    o.prefix = prefix;
    xio_err rc = xio_list(ctx, container_url, &o, collect, &l, err);
    for (size_t i = 0; rc == XIO_OK && i < l.n; i++)
      if ((rc = delete_one(ctx, container_url, l.v[i], err)) == XIO_OK) deleted++;
    size_t found = l.n;
    names_free(&l);
    if (rc != XIO_OK) return -1;
    if (found == 0) return deleted;
  }
  xio_error_set(err, XIO_ECONFLICT, "blobs under %s kept appearing while deleting them", prefix);
  return -1;
}

static const char *sweep_url; /* set once by bench_sweep_arm, before the thread starts */

/* Waits for SIGINT/SIGTERM, deletes what the run made and exits. */
static void *sweeper(void *arg) {
  sigset_t *set = arg;
  int sig = 0;
  if (sigwait(set, &sig) != 0) return NULL;
  atomic_store(&stopping, 1);
  fprintf(stderr, "\nxio-bench: %s: deleting what this run made in the target container\n",
          sig == SIGINT ? "interrupted" : "terminated");
  xio_ctx_options o = xio_ctx_options_default();
  xio_ctx *ctx = NULL;
  xio_error e;
  xio_error_clear(&e);
  char prefix[96], msg[600];
  bench_sweep_prefix(prefix, sizeof prefix);
  long n = xio_ctx_new(&o, &ctx, &e) == XIO_OK ? bench_sweep(ctx, sweep_url, prefix, &e) : -1;
  /* A request of the measurement under way may still create its blob: sweep again
   * after it had time to land (no new blob is named meanwhile). */
  for (int i = 0; i < 3 && n >= 0; i++) {
    struct timespec ts = {0, 300 * 1000 * 1000};
    nanosleep(&ts, NULL);
    long more = bench_sweep(ctx, sweep_url, prefix, &e);
    n = more < 0 ? -1 : n + more;
  }
  if (n >= 0)
    fprintf(stderr, "xio-bench: deleted %ld blob%s under %s\n", n, n == 1 ? "" : "s", prefix);
  else
    fprintf(stderr, "xio-bench: clean-up failed, blobs under %s may be left: %s\n", prefix,
            xio_error_format(&e, msg, sizeof msg));
  /* The run's own context is still in use by the main thread: exit without tearing
   * it down, as the signal's default action would. */
  _exit(128 + sig);
}

int bench_sweep_arm(const char *container_url) {
  static sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  if (pthread_sigmask(SIG_BLOCK, &set, NULL) != 0) return -1;
  sweep_url = container_url;
  pthread_t t;
  if (pthread_create(&t, NULL, sweeper, &set) != 0) return -1;
  pthread_detach(t);
  return 0;
}
