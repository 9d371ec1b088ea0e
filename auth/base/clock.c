/*
 * clock.c - the injectable clock and the two time formats Azure uses: RFC 1123 for
 * x-ms-date and ISO 8601 UTC for SAS st/se. Locale-free: names come from fixed tables
 * and numbers are read digit by digit.
 * Part of libxio_auth's shared base (auth/base/), used by every xio library.
 */
#define _DEFAULT_SOURCE /* timegm, gmtime_r */
#include <string.h>
#include <time.h>

#include "base_int.h"

/* 9999-12-31T23:59:59Z, the last time ISO 8601's four-digit year can write. */
#define MAX_ISO8601 ((time_t)253402300799)

time_t xio_auth_clock_now(const xio_auth_clock *clock) {
  if (clock && clock->now) return clock->now(clock->ud);
  return time(NULL);
}

int64_t xio_auth_monotonic_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* gmtime_r, or the epoch when `t` is out of range, so formatting never fails. */
static struct tm utc(time_t t) {
  struct tm tm;
  if (!gmtime_r(&t, &tm)) {
    time_t zero = 0;
    gmtime_r(&zero, &tm);
  }
  return tm;
}

/* Writes `v` (clamped to 0) as exactly `width` digits at `p`; returns the end. */
static char *put_num(char *p, int v, int width) {
  unsigned u = v < 0 ? 0u : (unsigned)v;
  for (int i = width - 1; i >= 0; i--, u /= 10)
    p[i] = (char)('0' + u % 10);
  return p + width;
}

/* Copies the text `s` to `p` without its NUL; returns the end. */
static char *put_text(char *p, const char *s) {
  while (*s)
    *p++ = *s++;
  return p;
}

char *xio_auth_format_rfc1123(time_t t, char buf[30]) {
  static const char days[7][4] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static const char months[12][4] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                     "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  struct tm tm = utc(t);
  char *p = put_text(buf, days[tm.tm_wday % 7]);
  p = put_num(put_text(p, ", "), tm.tm_mday, 2);
  p = put_text(put_text(p, " "), months[tm.tm_mon % 12]);
  p = put_num(put_text(p, " "), tm.tm_year + 1900, 4);
  p = put_num(put_text(p, " "), tm.tm_hour, 2);
  p = put_num(put_text(p, ":"), tm.tm_min, 2);
  p = put_num(put_text(p, ":"), tm.tm_sec, 2);
  memcpy(p, " GMT", 5);
  return buf;
}

char *xio_auth_format_iso8601(time_t t, char buf[21]) {
  struct tm tm = utc(t);
  char *p = put_num(buf, tm.tm_year + 1900, 4);
  p = put_num(put_text(p, "-"), tm.tm_mon + 1, 2);
  p = put_num(put_text(p, "-"), tm.tm_mday, 2);
  p = put_num(put_text(p, "T"), tm.tm_hour, 2);
  p = put_num(put_text(p, ":"), tm.tm_min, 2);
  p = put_num(put_text(p, ":"), tm.tm_sec, 2);
  memcpy(p, "Z", 2);
  return buf;
}

/* Reads exactly `n` decimal digits at *p into *out and advances *p. */
static int digits(const char **p, int n, int *out) {
  int v = 0;
  for (int i = 0; i < n; i++) {
    char c = (*p)[i];
    if (c < '0' || c > '9') return -1;
    v = v * 10 + (c - '0');
  }
  *p += n;
  *out = v;
  return 0;
}

static int expect(const char **p, char c) {
  if (**p != c) return -1;
  (*p)++;
  return 0;
}

static int days_in_month(int year, int month) {
  static const int days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  int leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return days[month - 1] + (month == 2 && leap);
}

/* YYYY-MM-DD into tm. */
static int parse_date(const char **p, struct tm *tm) {
  int y, m, d;
  if (digits(p, 4, &y) || expect(p, '-') || digits(p, 2, &m) || expect(p, '-') || digits(p, 2, &d))
    return -1;
  if (y < 1970 || m < 1 || m > 12 || d < 1 || d > days_in_month(y, m)) return -1;
  tm->tm_year = y - 1900;
  tm->tm_mon = m - 1;
  tm->tm_mday = d;
  return 0;
}

/* Thh:mm[:ss[.fff]] into tm. */
static int parse_time(const char **p, struct tm *tm) {
  int h, m, s = 0;
  if (expect(p, 'T') || digits(p, 2, &h) || expect(p, ':') || digits(p, 2, &m)) return -1;
  if (**p == ':' && (expect(p, ':') || digits(p, 2, &s))) return -1;
  if (**p == '.') {
    (*p)++;
    if (**p < '0' || **p > '9') return -1;
    while (**p >= '0' && **p <= '9')
      (*p)++; /* sub-second precision is dropped */
  }
  if (h > 23 || m > 59 || s > 59) return -1;
  tm->tm_hour = h;
  tm->tm_min = m;
  tm->tm_sec = s;
  return 0;
}

/* Z or +hh:mm / -hh:mm: the offset in seconds east of UTC into *off. */
static int parse_zone(const char **p, long *off) {
  int h, m;
  if (**p == 'Z') return (*p)++, *off = 0, 0;
  char sign = **p;
  if (sign != '+' && sign != '-') return -1;
  (*p)++;
  if (digits(p, 2, &h) || expect(p, ':') || digits(p, 2, &m) || h > 23 || m > 59) return -1;
  *off = (sign == '-' ? -1L : 1L) * (h * 3600L + m * 60L);
  return 0;
}

xio_err xio_auth_parse_iso8601(const char *text, time_t *out, xio_error *err) {
  struct tm tm;
  long off = 0;
  const char *p = text ? text : "";
  memset(&tm, 0, sizeof tm);
  int bad = parse_date(&p, &tm);
  if (!bad && *p) bad = parse_time(&p, &tm) || parse_zone(&p, &off) || *p != '\0';
  if (bad)
    return xio_error_set(err, XIO_EPARSE,
                         "not an ISO 8601 UTC time (want YYYY-MM-DD[Thh:mm[:ss]Z]): "
                         "\"%.40s\"",
                         text ? text : "(null)");
  time_t t = timegm(&tm);
  /* An offset can move a time written in 1970 or 9999 out of those years: such a
   * time could not be written back in this form. */
  if (t == (time_t)-1 || t - (time_t)off < 0 || t - (time_t)off > MAX_ISO8601)
    return xio_error_set(err, XIO_EPARSE, "time out of range (1970 to 9999 UTC): \"%.40s\"", text);
  *out = t - (time_t)off;
  return XIO_OK;
}
