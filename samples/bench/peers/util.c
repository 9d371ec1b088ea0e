/*
 * util.c - what the xio-peers subcommands share: the context they open, argument
 * parsing, error printing and quantiles.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>

#include "peers.h"

xio_err peers_ctx(int depth, xio_ctx **out, xio_error *err) {
  xio_ctx_options o = xio_ctx_options_default();
  o.max_in_flight = depth;
  return xio_ctx_new(&o, out, err);
}

int peers_size_arg(const char *name, const char *text, uint64_t *out) {
  xio_error e;
  char msg[300];
  if (!text) {
    fprintf(stderr, "xio-peers: %s needs a value\n", name);
    return -1;
  }
  if (xio_size_parse(text, out, &e) == XIO_OK) return 0;
  fprintf(stderr, "xio-peers: %s '%s': %s\n", name, text, xio_error_format(&e, msg, sizeof msg));
  return -1;
}

int peers_fail(const char *what, const xio_error *e) {
  char msg[1200];
  fprintf(stderr, "xio-peers: %s: %s\n", what, xio_error_format(e, msg, sizeof msg));
  return 1;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double peers_quantile(double *v, uint64_t n, double q) {
  if (n == 0) return 0;
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  uint64_t i = (uint64_t)(q * (double)(n - 1) + 0.5);
  return v[i < n ? i : n - 1];
}
