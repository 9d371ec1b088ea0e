/*
 * headlines.c - the sentences a reader wants first: for each backend and
 * operation, how much faster clear is than writing zeros, at the largest size
 * where zeros were really written and at the largest size overall (extrapolated),
 * with the requests each took.
 */
#include <string.h>

#include "bench.h"

static const char *short_op(const char *op) {
  if (strcmp(op, "create") == 0) return "creating";
  if (strcmp(op, "grow") == 0) return "growing by";
  return "zeroing";
}

/* The largest size with usable zero and clear rows; measured-only when `extrap` is 0. */
static int largest(const bench_report *rep, const char *backend, const char *op, int extrap,
                   const bench_row **zero, const bench_row **clear) {
  *zero = *clear = NULL;
  for (int i = rep->cfg->nsizes - 1; i >= 0; i--) {
    uint64_t s = rep->cfg->sizes[i];
    const bench_row *z = bench_results_find(rep->res, backend, op, "zero", s);
    const bench_row *c = bench_results_find(rep->res, backend, op, "clear", s);
    if (!bench_row_usable(z) || !bench_row_usable(c) || c->t_med <= 0 || z->extrapolated != extrap)
      continue;
    *zero = z, *clear = c;
    return 1;
  }
  return 0;
}

static void sentence(const char *backend, const char *op, const bench_row *z, const bench_row *c,
                     int md, FILE *out) {
  char size[32], r[32], tz[32], tc[32];
  double ratio = z->t_med / c->t_med;
  int faster = ratio >= 1;
  fprintf(out,
          "%s%s, %s %s: clear is %s %s than zero (%s vs %s%s; %llu vs %llu%s "
          "requests)\n",
          md ? "- " : "  ", strcmp(backend, "pageblob") ? "local file" : "page blob", short_op(op),
          samples_fmt_size(z->size, size, sizeof size),
          samples_fmt_ratio(faster ? ratio : 1 / ratio, r, sizeof r), faster ? "faster" : "slower",
          samples_fmt_secs(c->t_med, tc, sizeof tc), samples_fmt_secs(z->t_med, tz, sizeof tz),
          z->extrapolated ? ", zero extrapolated" : "", (unsigned long long)c->req.total,
          (unsigned long long)z->req.total, z->extrapolated ? " extrapolated" : "");
}

void bench_headlines(const bench_report *rep, int md, FILE *out) {
  const char *backends[2] = {"pageblob", "local"};
  for (int b = 0; b < 2; b++)
    for (int o = 0; o < 3; o++) {
      const bench_row *z, *c;
      const char *op = bench_growth_ops[o];
      if (largest(rep, backends[b], op, 0, &z, &c)) sentence(backends[b], op, z, c, md, out);
      if (largest(rep, backends[b], op, 1, &z, &c)) sentence(backends[b], op, z, c, md, out);
    }
}
