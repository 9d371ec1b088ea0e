/*
 * stats.c - the statistics of a set of samples: sorting, nearest-rank quantiles,
 * and the min / median / max every growth measurement reports.
 */
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

void bench_sort(double *v, size_t n) {
  if (n > 1) qsort(v, n, sizeof *v, cmp_double);
}

double bench_quantile(const double *sorted, size_t n, double p) {
  if (n == 0) return 0;
  if (p <= 0) return sorted[0];
  if (p >= 1) return sorted[n - 1];
  size_t rank = (size_t)(p * (double)n + 0.999999); /* nearest rank, 1-based */
  if (rank < 1) rank = 1;
  if (rank > n) rank = n;
  return sorted[rank - 1];
}

/* The median of sorted v: the middle one, or the mean of the middle two. */
static double median(const double *v, size_t n) {
  if (n == 0) return 0;
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void bench_summarize(const double *v, size_t n, double *min, double *med, double *max) {
  double tmp[BENCH_MAX_RUNS];
  if (n > BENCH_MAX_RUNS) n = BENCH_MAX_RUNS;
  memcpy(tmp, v, n * sizeof *v);
  bench_sort(tmp, n);
  *min = n ? tmp[0] : 0;
  *max = n ? tmp[n - 1] : 0;
  *med = median(tmp, n);
}
