/*
 * size.c - sizes as people write them: decimal digits with an optional binary
 * suffix ("4096", "4K", "64MiB", "1T"), parsed whole or refused with the reason.
 */
#include <strings.h>

#include "xio/xio.h"
#include <xio/error_int.h>

static int is_digit(char ch) { return ch >= '0' && ch <= '9'; }

/* Reads the decimal digits at *p into *v. Returns 0, or -1 on overflow. */
static int read_digits(const char **p, uint64_t *v) {
  *v = 0;
  for (; is_digit(**p); (*p)++) {
    uint64_t d = (uint64_t)(**p - '0');
    if (*v > (UINT64_MAX - d) / 10) return -1;
    *v = *v * 10 + d;
  }
  return 0;
}

/* The binary shift a suffix stands for, or -1 when it is not a size suffix. */
static int suffix_shift(const char *suffix) {
  static const struct {
    const char *names[3];
    int shift;
  } units[] = {
      {{"", "B", "B"}, 0},      {{"K", "KB", "KiB"}, 10}, {{"M", "MB", "MiB"}, 20},
      {{"G", "GB", "GiB"}, 30}, {{"T", "TB", "TiB"}, 40},
  };
  for (size_t u = 0; u < sizeof units / sizeof *units; u++)
    for (int k = 0; k < 3; k++)
      if (strcasecmp(suffix, units[u].names[k]) == 0) return units[u].shift;
  return -1;
}

xio_err xio_size_parse(const char *text, uint64_t *out, xio_error *err) {
  if (!text || !out) return xio_error_set(err, XIO_EINVAL, "no size given");
  const char *p = text;
  uint64_t v;
  if (*p == '-') return xio_error_set(err, XIO_EINVAL, "a size cannot be negative");
  if (!is_digit(*p)) return xio_error_set(err, XIO_EINVAL, "not a number");
  if (read_digits(&p, &v) != 0) return xio_error_set(err, XIO_EINVAL, "too large");
  if (*p == '.' || *p == ',')
    return xio_error_set(err, XIO_EINVAL, "fractions are not taken (write 1536M rather than 1.5G)");
  int shift = suffix_shift(p);
  if (shift < 0) return xio_error_set(err, XIO_EINVAL, "unknown unit (use K, M, G or T)");
  if (shift > 0 && v > (UINT64_MAX >> shift)) return xio_error_set(err, XIO_EINVAL, "too large");
  *out = v << shift;
  return XIO_OK;
}
