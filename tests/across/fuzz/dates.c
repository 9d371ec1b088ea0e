/*
 * dates.c - fuzz target: the two time formats (ISO 8601 as SAS st/se and the CLI
 * write it, RFC 1123 as x-ms-date carries it). The input is parsed as ISO 8601;
 * its first 8 bytes are also taken as a time_t to format. Properties: a parsed time
 * formats back to text that parses to the same time; any time formats to exactly
 * 20 (ISO) and 29 (RFC 1123) characters of the fixed shape; a time from 1970 to
 * 9999 round-trips through ISO 8601.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <xio/auth.h>

#include "fuzz.h"

/* 1 when `s` has the shape of `shape`, where '9' stands for a digit and 'A' for a
 * letter. */
static int has_shape(const char *s, const char *shape) {
  for (; *shape; s++, shape++) {
    int ok = *shape == '9'   ? *s >= '0' && *s <= '9'
             : *shape == 'A' ? (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')
                             : *s == *shape;
    if (!ok) return 0;
  }
  return *s == '\0';
}

static void check_rfc1123(time_t t) {
  static const char *const days[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static const char *const months = "JanFebMarAprMayJunJulAugSepOctNovDec";
  char buf[30];
  FUZZ_CHECK(xio_auth_format_rfc1123(t, buf) == buf && strlen(buf) == 29);
  FUZZ_CHECK(has_shape(buf, "AAA, 99 AAA 9999 99:99:99 GMT"));
  int day = 0, month = 0;
  for (int i = 0; i < 7; i++)
    day |= strncmp(buf, days[i], 3) == 0;
  for (int i = 0; i < 12; i++)
    month |= strncmp(buf + 8, months + 3 * i, 3) == 0;
  FUZZ_CHECK(day && month);
}

static void check_iso(time_t t) {
  char buf[21];
  FUZZ_CHECK(xio_auth_format_iso8601(t, buf) == buf);
  FUZZ_CHECK(has_shape(buf, "9999-99-99T99:99:99Z"));
  time_t back = 0;
  if (t >= 0 && t <= 253402300799) /* 9999-12-31T23:59:59Z */
    FUZZ_CHECK(xio_auth_parse_iso8601(buf, &back, NULL) == XIO_OK && back == t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = xio__fuzz_text(data, size);
  time_t t = 0;
  xio_error err;
  xio_error_clear(&err);
  xio_err rc = xio_auth_parse_iso8601(text, &t, &err);
  if (rc == XIO_OK) {
    char buf[21];
    time_t back = 0;
    xio_auth_format_iso8601(t, buf);
    if (t >= 0) FUZZ_CHECK(xio_auth_parse_iso8601(buf, &back, NULL) == XIO_OK && back == t);
    check_rfc1123(t);
  } else {
    FUZZ_CHECK(rc == XIO_EPARSE && err.message[0]);
  }
  if (size >= sizeof(int64_t)) {
    int64_t raw;
    memcpy(&raw, data, sizeof raw);
    check_iso((time_t)raw);
    check_rfc1123((time_t)raw);
  }
  free(text);
  return 0;
}
