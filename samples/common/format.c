/*
 * format.c - sizes, durations and ratios written for people, the one set of
 * formatters the CLI, the demo and the benchmark print with.
 */
#include <math.h>
#include <stdio.h>

#include "samples_common.h"

char *samples_fmt_size(uint64_t bytes, char *buf, size_t n) {
  static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
  if (bytes < 1024) {
    snprintf(buf, n, "%u B", (unsigned)bytes);
    return buf;
  }
  double v = (double)bytes / 1024;
  int u = 0;
  while (v >= 1023.5 && u < 4) { /* 1023.9 GiB shows as 1.00 TiB, never "1024 GiB" */
    v /= 1024;
    u++;
  }
  /* three significant digits; the bounds keep rounding from adding a fourth */
  snprintf(buf, n, v < 9.995 ? "%.2f %s" : v < 99.95 ? "%.1f %s" : "%.0f %s", v, units[u]);
  return buf;
}

char *samples_fmt_secs(double s, char *buf, size_t n) {
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

/* Writes v with thousands separators: 9246000 -> "9,246,000". */
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

char *samples_fmt_ratio(double r, char *buf, size_t n) {
  if (!(r > 0) || isinf(r)) {
    snprintf(buf, n, "-");
  } else if (r < 10) {
    snprintf(buf, n, "%.1fx", r);
  } else {
    double scale = pow(10, floor(log10(r)) - 2);
    char g[40];
    grouped((uint64_t)(r < 1000 ? r + 0.5 : floor(r / scale + 0.5) * scale), g, sizeof g);
    snprintf(buf, n, "%sx", g);
  }
  return buf;
}
