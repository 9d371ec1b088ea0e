/*
 * values.c - the values options take: sizes with binary suffixes, bounded
 * integers, durations, points in time, file kinds, init policies and checksums. Each parser
 * accepts the whole text or nothing: garbage, a sign where none belongs, a fraction
 * or an overflow is a usage error (exit 2) whose message names the option and the
 * value.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"

/* The longest duration taken: about 100 years. */
#define MAX_DURATION_S (100ll * 366 * 24 * 3600)

static int is_digit(char ch) { return ch >= '0' && ch <= '9'; }

int cli_value_size(const cli *c, const char *opt, const char *text, uint64_t *out) {
  xio_error e;
  if (xio_size_parse(text, out, &e) == XIO_OK) return CLI_CONTINUE;
  return cli_usage_error(c, "bad %s '%s': %s", opt, text, e.message);
}

int cli_value_int(const cli *c, const char *opt, const char *text, long min, long max, int *out) {
  const char *digits = text[0] == '-' ? text + 1 : text;
  char *end = NULL;
  errno = 0;
  long v = is_digit(digits[0]) ? strtol(text, &end, 10) : 0;
  if (!is_digit(digits[0]) || *end != '\0')
    return cli_usage_error(c, "bad %s '%s': not a whole number", opt, text);
  if (errno == ERANGE || v < min || v > max || v < INT_MIN || v > INT_MAX)
    return cli_usage_error(c, "bad %s '%s': must be within %ld..%ld", opt, text, min, max);
  *out = (int)v;
  return CLI_CONTINUE;
}

/* Seconds per duration unit, or 0 when `u` is not one. */
static int64_t unit_seconds(const char *u) {
  if (strcmp(u, "") == 0 || strcmp(u, "s") == 0) return 1;
  if (strcmp(u, "m") == 0) return 60;
  if (strcmp(u, "h") == 0) return 3600;
  if (strcmp(u, "d") == 0) return 86400;
  if (strcmp(u, "w") == 0) return 7 * 86400;
  return 0;
}

static int not_a_duration(const cli *c, const char *opt, const char *text) {
  return cli_usage_error(c, "bad %s '%s': not a duration (like 30m, 1h, 7d)", opt, text);
}

int cli_value_duration(const cli *c, const char *opt, const char *text, int64_t *out) {
  /* A digit first, so strtoull takes no space, sign or prefix. */
  if (!is_digit(text[0])) return not_a_duration(c, opt, text);
  char *p;
  errno = 0;
  unsigned long long v = strtoull(text, &p, 10);
  if (errno == ERANGE) return not_a_duration(c, opt, text); /* past 2^64 - 1 */
  int64_t unit = unit_seconds(p);
  if (unit == 0)
    return cli_usage_error(c, "bad %s '%s': unknown unit (use s, m, h, d or w)", opt, text);
  if (v > (unsigned long long)(MAX_DURATION_S / unit))
    return cli_usage_error(c, "bad %s '%s': longer than 100 years", opt, text);
  *out = (int64_t)v * unit;
  return CLI_CONTINUE;
}

/* 1 when `text` starts like an ISO 8601 date (YYYY-). */
static int looks_like_date(const char *text) {
  for (int i = 0; i < 4; i++)
    if (!is_digit(text[i])) return 0;
  return text[4] == '-';
}

int cli_value_time(const cli *c, const char *opt, const char *text, time_t now, time_t *out) {
  if (looks_like_date(text)) {
    xio_error e;
    if (xio_auth_parse_iso8601(text, out, &e) == XIO_OK) return CLI_CONTINUE;
    return cli_usage_error(c,
                           "bad %s '%s': not an ISO 8601 UTC time (like "
                           "2030-01-31T12:00:00Z)",
                           opt, text);
  }
  int64_t d = 0;
  int r = cli_value_duration(c, opt, text, &d);
  if (r == CLI_CONTINUE) *out = now + (time_t)d;
  return r;
}

int cli_value_kind(const cli *c, const char *text, xio_kind *out) {
  if (!text) return CLI_CONTINUE;
  if (strcmp(text, "data") == 0)
    *out = XIO_KIND_DATA;
  else if (strcmp(text, "log") == 0)
    *out = XIO_KIND_LOG;
  else
    return cli_usage_error(c, "bad --kind '%s': use data or log", text);
  return CLI_CONTINUE;
}

int cli_value_init(const cli *c, const char *text, xio_init *out) {
  static const xio_init all[] = {XIO_INIT_NONE, XIO_INIT_ZERO, XIO_INIT_CLEAR};
  if (!text) return CLI_CONTINUE;
  for (size_t i = 0; i < sizeof all / sizeof *all; i++)
    if (strcmp(text, xio_init_name(all[i])) == 0) {
      *out = all[i];
      return CLI_CONTINUE;
    }
  return cli_usage_error(c, "bad --init '%s': use none, zero or clear", text);
}

int cli_value_checksum(const cli *c, const char *text, xio_checksum *out) {
  if (!text) return CLI_CONTINUE;
  if (strcmp(text, "crc64") == 0)
    *out = XIO_CHECKSUM_CRC64;
  else if (strcmp(text, "md5") == 0)
    *out = XIO_CHECKSUM_MD5;
  else if (strcmp(text, "none") == 0)
    *out = XIO_CHECKSUM_NONE;
  else
    return cli_usage_error(c, "bad --checksum '%s': use crc64, md5 or none", text);
  return CLI_CONTINUE;
}
