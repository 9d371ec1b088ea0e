/*
 * size.c - fuzz target: the option values of the xio command line
 * (samples/xio/values.c, linked in): sizes with binary suffixes, whole numbers,
 * durations and points in time. The usage-error printer is replaced by one that
 * keeps the message, so nothing is printed. Properties: a size is taken exactly when
 * the text is digits and a known suffix whose value fits 64 bits, and then equals
 * that value; a duration is at most 100 years of the unit's seconds; a whole number
 * lies in its bounds; a rejected value names the option in its message.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "fuzz.h"

static char last_message[512];

/* Stands in for args.c's printer: records the message instead of printing it. */
int cli_usage_error(const cli *c, const char *fmt, ...) {
  va_list ap;
  (void)c;
  va_start(ap, fmt);
  vsnprintf(last_message, sizeof last_message, fmt, ap);
  va_end(ap);
  return CLI_USAGE;
}

/* The size `text` means, computed the slow way; 0 when it is not one (or too big). */
static int expected_size(const char *text, unsigned __int128 *out) {
  static const char *const suffix[] = {"",    "B", "B",  "K",   "KB", "KiB", "M",  "MB",
                                       "MiB", "G", "GB", "GiB", "T",  "TB",  "TiB"};
  static const int shift[] = {0, 0, 0, 10, 10, 10, 20, 20, 20, 30, 30, 30, 40, 40, 40};
  unsigned __int128 v = 0;
  size_t n = strspn(text, "0123456789");
  if (n == 0) return 0;
  for (size_t i = 0; i < n; i++) {
    v = v * 10 + (unsigned)(text[i] - '0');
    if (v > UINT64_MAX) return 0;
  }
  for (size_t k = 0; k < sizeof shift / sizeof *shift; k++)
    if (strcasecmp(text + n, suffix[k]) == 0) {
      *out = v << shift[k];
      return *out <= UINT64_MAX;
    }
  return 0;
}

static void check_size(const cli *c, const char *text) {
  uint64_t got = 12345;
  unsigned __int128 want = 0;
  int r = cli_value_size(c, "--size", text, &got);
  int ok = expected_size(text, &want);
  FUZZ_CHECK(r == (ok ? CLI_CONTINUE : CLI_USAGE));
  if (ok) FUZZ_CHECK(got == (uint64_t)want);
  if (!ok) FUZZ_CHECK(strstr(last_message, "--size") != NULL);
}

static void check_others(const cli *c, const char *text) {
  int i = 0;
  int64_t d = -1;
  time_t t = 0;
  if (cli_value_int(c, "--n", text, -5, 1000, &i) == CLI_CONTINUE)
    FUZZ_CHECK(i >= -5 && i <= 1000);
  else
    FUZZ_CHECK(strstr(last_message, "--n") != NULL);
  if (cli_value_duration(c, "--for", text, &d) == CLI_CONTINUE)
    FUZZ_CHECK(d >= 0 && d <= 100ll * 366 * 24 * 3600);
  else
    FUZZ_CHECK(strstr(last_message, "--for") != NULL);
  if (cli_value_time(c, "--expiry", text, 1700000000, &t) != CLI_CONTINUE)
    FUZZ_CHECK(strstr(last_message, "--expiry") != NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = xio__fuzz_text(data, size);
  cli c;
  memset(&c, 0, sizeof c);
  check_size(&c, text);
  check_others(&c, text);
  free(text);
  return 0;
}
