/*
 * units.c - sizes and durations, parsed from the command line and printed for
 * people: binary suffixes for sizes ("4G" is 4 GiB), adaptive units for times.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static int suffix_shift(const char *s, int *shift) {
  char c = (char)toupper((unsigned char)*s);
  const char *units = "KMGTP";
  const char *p = c ? strchr(units, c) : NULL;
  *shift = p ? 10 * (int)(p - units + 1) : 0;
  if (p) s++;
  if (*s == 'i' || *s == 'I') s++;
  if (*s == 'b' || *s == 'B') s++;
  return *s == '\0' ? 0 : -1;
}

int bench_parse_size(const char *s, uint64_t *out) {
  if (!s || !isdigit((unsigned char)*s)) return -1;
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  int shift;
  if (errno || suffix_shift(end, &shift) != 0) return -1;
  if (shift && v > (UINT64_MAX >> shift)) return -1;
  *out = (uint64_t)v << shift;
  return 0;
}

char *bench_fmt_size(uint64_t bytes, char *buf, size_t n) {
  static const char *names[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  uint64_t v = bytes;
  while (u < 5 && v >= 1024 && v % 1024 == 0) {
    v /= 1024;
    u++;
  }
  if (v >= 1024 && u < 5) { /* not a round number: one decimal in the biggest unit */
    double d = (double)bytes;
    for (u = 0; u < 5 && d >= 1024; u++)
      d /= 1024;
    snprintf(buf, n, "%.1f %s", d, names[u]);
    return buf;
  }
  snprintf(buf, n, "%llu %s", (unsigned long long)v, names[u]);
  return buf;
}

char *bench_fmt_secs(double s, char *buf, size_t n) {
  if (!(s >= 0) || isinf(s))
    snprintf(buf, n, "-");
  else if (s < 1e-3)
    snprintf(buf, n, "%.0f us", s * 1e6);
  else if (s < 1e-2)
    snprintf(buf, n, "%.2f ms", s * 1e3);
  else if (s < 1)
    snprintf(buf, n, "%.1f ms", s * 1e3);
  else if (s < 100)
    snprintf(buf, n, "%.2f s", s);
  else if (s < 3 * 3600)
    snprintf(buf, n, "%.1f min", s / 60);
  else
    snprintf(buf, n, "%.1f h", s / 3600);
  return buf;
}

/* Writes v (>= 1) with thousands separators: 9246000 -> "9,246,000". */
static void grouped(uint64_t v, char *buf, size_t n) {
  char digits[32];
  int len = snprintf(digits, sizeof digits, "%llu", (unsigned long long)v);
  size_t o = 0;
  for (int i = 0; i < len && o + 2 < n; i++) {
    if (i && (len - i) % 3 == 0) buf[o++] = ',';
    buf[o++] = digits[i];
  }
  buf[o] = '\0';
}

char *bench_fmt_ratio(double r, char *buf, size_t n) {
  if (!(r > 0) || isinf(r)) {
    snprintf(buf, n, "-");
  } else if (r < 10) {
    snprintf(buf, n, "%.1fx", r);
  } else {
    /* three significant digits: the inputs are medians of noisy runs */
    double scale = pow(10, floor(log10(r)) - 2);
    char g[40];
    grouped((uint64_t)(r < 1000 ? r + 0.5 : floor(r / scale + 0.5) * scale), g, sizeof g);
    snprintf(buf, n, "%sx", g);
  }
  return buf;
}
