/*
 * format_test.c - the formatters every sample prints with (samples/common): sizes
 * with three significant digits and no "1024 GiB" from rounding, durations from
 * microseconds to hours, speed-ups with thousands separators, and "-" where nothing
 * was measured.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "samples_common.h"
#include "test.h"

#define KiB 1024ull
#define MiB (1024 * KiB)
#define GiB (1024 * MiB)
#define TiB (1024 * GiB)

TEST(sizes_have_three_significant_digits) {
  static const struct {
    uint64_t bytes;
    const char *text;
  } cases[] = {
      {0, "0 B"},
      {512, "512 B"},
      {1023, "1023 B"},
      {KiB, "1.00 KiB"},
      {1536, "1.50 KiB"},
      {64 * KiB, "64.0 KiB"},
      {8 * MiB, "8.00 MiB"},
      {512 * MiB, "512 MiB"},
      {GiB, "1.00 GiB"},
      {1073741824ull - 1, "1.00 GiB"},
      {100 * GiB, "100 GiB"},
      {TiB - 8 * MiB, "1.00 TiB"}, /* not "1024 GiB" */
      {TiB, "1.00 TiB"},
      {8 * TiB, "8.00 TiB"},
      {2048 * TiB, "2.00 PiB"},
  };
  char buf[SAMPLES_FMT_LEN];
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    ASSERT_STR_EQ(samples_fmt_size(cases[i].bytes, buf, sizeof buf), cases[i].text);
}

TEST(durations_pick_their_unit) {
  static const struct {
    double secs;
    const char *text;
  } cases[] = {
      {0, "0 us"},      {850e-6, "850 us"}, {3.2e-3, "3.20 ms"}, {12.6e-3, "12.6 ms"},
      {4.85, "4.85 s"}, {99.5, "99.50 s"},  {150, "2.5 min"},    {3 * 3600.0, "3.0 h"},
      {17640, "4.9 h"}, {-1, "-"},          {INFINITY, "-"},     {NAN, "-"},
  };
  char buf[SAMPLES_FMT_LEN];
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    ASSERT_STR_EQ(samples_fmt_secs(cases[i].secs, buf, sizeof buf), cases[i].text);
}

TEST(ratios_are_grouped_to_three_figures) {
  static const struct {
    double ratio;
    const char *text;
  } cases[] = {
      {1.8, "1.8x"},           {42.4, "42x"}, {531.4, "531x"}, {9420.4, "9,420x"}, {5623, "5,620x"},
      {8821455, "8,820,000x"}, {0, "-"},      {-3, "-"},       {INFINITY, "-"},    {NAN, "-"},
  };
  char buf[SAMPLES_FMT_LEN];
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
    ASSERT_STR_EQ(samples_fmt_ratio(cases[i].ratio, buf, sizeof buf), cases[i].text);
}

TEST(formatters_truncate_to_the_buffer) {
  char small[6];
  memset(small, 'x', sizeof small);
  ASSERT_STR_EQ(samples_fmt_size(512 * MiB, small, sizeof small), "512 M");
  ASSERT_STR_EQ(samples_fmt_ratio(8821455, small, sizeof small), "8,820");
}

TEST(clock_is_monotonic) {
  double a = samples_now(), b = samples_now();
  ASSERT(a > 0);
  ASSERT(b >= a);
}
