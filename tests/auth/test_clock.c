/*
 * test_clock.c - the injectable clock and the RFC 1123 / ISO 8601 formats.
 */
#include "auth_test.h"

static time_t fixed_now(void *ud) { return *(const time_t *)ud; }

TEST(clock_injected) {
  time_t t = 951782400 + 86399; /* 2000-02-29T23:59:59Z */
  xio_auth_clock c = {fixed_now, &t};
  ASSERT_EQ(xio_auth_clock_now(&c), t);
  t += 1;
  ASSERT_EQ(xio_auth_clock_now(&c), 951868800);
}

TEST(clock_system_default) {
  time_t before = time(NULL);
  xio_auth_clock c = {NULL, NULL};
  time_t a = xio_auth_clock_now(NULL), b = xio_auth_clock_now(&c);
  ASSERT(a >= before && a <= time(NULL));
  ASSERT(b >= before && b <= time(NULL));
}

TEST(clock_format_rfc1123) {
  char buf[30];
  ASSERT_STR_EQ(xio_auth_format_rfc1123(T_2024, buf), VECTOR_DATE);
  ASSERT_STR_EQ(xio_auth_format_rfc1123(0, buf), "Thu, 01 Jan 1970 00:00:00 GMT");
  ASSERT_STR_EQ(xio_auth_format_rfc1123(951782400 + 86399, buf), "Tue, 29 Feb 2000 23:59:59 GMT");
  ASSERT_STR_EQ(xio_auth_format_rfc1123(1709164800 + 3723, buf), "Thu, 29 Feb 2024 01:02:03 GMT");
  ASSERT_EQ(strlen(buf), 29);
}

TEST(clock_format_iso8601) {
  char buf[21];
  ASSERT_STR_EQ(xio_auth_format_iso8601(T_2024, buf), "2024-01-01T00:00:00Z");
  ASSERT_STR_EQ(xio_auth_format_iso8601(T_2099, buf), "2099-01-01T00:00:00Z");
  ASSERT_STR_EQ(xio_auth_format_iso8601(1709164800 + 3723, buf), "2024-02-29T01:02:03Z");
  ASSERT_EQ(strlen(buf), 20);
}

TEST(clock_parse_iso8601_forms) {
  xio_error e;
  time_t t = 0;
  xio_error_clear(&e);
  ASSERT_OK(xio_auth_parse_iso8601("2024-01-01T00:00:00Z", &t, &e), &e);
  ASSERT_EQ(t, T_2024);
  ASSERT_OK(xio_auth_parse_iso8601("2024-01-01", &t, &e), &e);
  ASSERT_EQ(t, T_2024);
  ASSERT_OK(xio_auth_parse_iso8601("2024-02-29T01:02:03.1234567Z", &t, &e), &e);
  ASSERT_EQ(t, 1709164800 + 3723);
  ASSERT_OK(xio_auth_parse_iso8601("2024-02-29T01:02Z", &t, &e), &e);
  ASSERT_EQ(t, 1709164800 + 3720);
  ASSERT_OK(xio_auth_parse_iso8601("2024-01-01T02:00:00+02:00", &t, &e), &e);
  ASSERT_EQ(t, T_2024);
  ASSERT_OK(xio_auth_parse_iso8601("2000-02-29T23:59:59Z", &t, &e), &e);
  ASSERT_EQ(t, 951782400 + 86399);
  ASSERT_OK(xio_auth_parse_iso8601("2100-03-01T00:00:00Z", &t, &e), &e);
  ASSERT_EQ(t, 4107542400);
}

TEST(clock_round_trip) {
  char buf[21];
  xio_error e;
  xio_error_clear(&e);
  for (time_t t = 0; t < (time_t)4200000000; t += (time_t)86400 * 397 + 3607) {
    time_t back = -1;
    ASSERT_OK(xio_auth_parse_iso8601(xio_auth_format_iso8601(t, buf), &back, &e), &e);
    ASSERT_EQ(back, t);
  }
}

TEST(clock_parse_iso8601_rejects) {
  static const char *bad[] = {
      "",
      "2024-1-01",
      "2024-01-01T",
      "2024-01-01T00:00:00", /* a time needs a zone */
      "2024-01-01 00:00:00Z",
      "2024-13-01T00:00:00Z",
      "2024-00-10",
      "2023-02-29", /* not a leap year */
      "2100-02-29", /* centuries are not leap years, except every 400th */
      "2024-04-31",
      "2024-01-01T24:00:00Z",
      "2024-01-01T00:60:00Z",
      "2024-01-01T00:00:61Z",
      "2024-01-01T00:00:00.Z",
      "2024-01-01T00:00:00Zjunk",
      "2024-01-01T00:00:00+0200",
      "24-01-01",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    xio_error e;
    time_t t = 42;
    xio_error_clear(&e);
    if (xio_auth_parse_iso8601(bad[i], &t, &e) != XIO_EPARSE) FAIL("\"%s\" was accepted", bad[i]);
    ASSERT_EQ(e.code, XIO_EPARSE);
    ASSERT_CONTAINS(e.message, "ISO 8601");
    ASSERT_EQ(t, 42);
  }
  ASSERT_EQ(xio_auth_parse_iso8601(NULL, &(time_t){0}, NULL), XIO_EPARSE);
}
