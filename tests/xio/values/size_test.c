/*
 * size_test.c - xio_size_parse: every binary suffix, the largest sizes that fit,
 * and each kind of bad text refused with its reason and the output left alone.
 */
#include <inttypes.h>
#include <string.h>

#include <xio/xio.h>

#include "test.h"

TEST(size_parse_takes_binary_suffixes) {
  static const struct {
    const char *text;
    uint64_t bytes;
  } cases[] = {
      {"0", 0},
      {"4096", 4096},
      {"512B", 512},
      {"4K", 4096},
      {"4k", 4096},
      {"2KB", 2048},
      {"2KiB", 2048},
      {"3M", 3ull << 20},
      {"64mib", 64ull << 20},
      {"1G", 1ull << 30},
      {"4GB", 4ull << 30},
      {"1T", 1ull << 40},
      {"8TiB", 8ull << 40},
      {"16777215T", 16777215ull << 40},
      {"18446744073709551615", UINT64_MAX},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    uint64_t v = 1;
    xio_error e;
    ASSERT_OK(xio_size_parse(cases[i].text, &v, &e), &e);
    if (v != cases[i].bytes)
      FAIL("'%s': %" PRIu64 " != %" PRIu64, cases[i].text, v, cases[i].bytes);
  }
}

TEST(size_parse_refuses_bad_text_with_the_reason) {
  static const struct {
    const char *text, *reason;
  } cases[] = {
      {"", "not a number"},
      {"abc", "not a number"},
      {" 1G", "not a number"},
      {"+4K", "not a number"},
      {"-5", "negative"},
      {"1.5G", "fractions"},
      {"1,5G", "fractions"},
      {"12Q", "unknown unit"},
      {"1 G", "unknown unit"},
      {"0x10", "unknown unit"},
      {"4KK", "unknown unit"},
      {"1P", "unknown unit"},
      {"18446744073709551616", "too large"},
      {"99999999999999999999", "too large"},
      {"16777216T", "too large"},
      {"17179869184G", "too large"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    uint64_t v = 7;
    xio_error e;
    xio_err rc = xio_size_parse(cases[i].text, &v, &e);
    if (rc != XIO_EINVAL) FAIL("'%s': %s, wanted XIO_EINVAL", cases[i].text, xio_err_name(rc));
    ASSERT_CONTAINS(e.message, cases[i].reason);
    ASSERT_U64_EQ(v, 7); /* untouched on failure */
  }
}

TEST(size_parse_refuses_null) {
  uint64_t v = 0;
  xio_error e;
  ASSERT_ERR(xio_size_parse(NULL, &v, &e), XIO_EINVAL, &e);
  ASSERT_ERR(xio_size_parse("4K", NULL, &e), XIO_EINVAL, &e);
}
