/*
 * size.c - fuzz target: sizes as people write them (xio_size_parse: digits and an
 * optional binary suffix, as the CLI's --size and the samples take them).
 * Properties: a size is taken exactly when the text is digits and a known suffix
 * whose value fits 64 bits, and then equals that value computed the slow way; a
 * refused size leaves the output alone and has a message that does not quote the
 * text.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <xio/xio.h>

#include "fuzz.h"

/* The size `text` means, computed in 128 bits; 0 when it is not one (or too big). */
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = xio__fuzz_text(data, size);
  uint64_t got = 12345;
  unsigned __int128 want = 0;
  xio_error err;
  xio_error_clear(&err);
  xio_err rc = xio_size_parse(text, &got, &err);
  int ok = expected_size(text, &want);
  FUZZ_CHECK(rc == (ok ? XIO_OK : XIO_EINVAL));
  if (ok) FUZZ_CHECK(got == (uint64_t)want);
  if (!ok) {
    FUZZ_CHECK(got == 12345 && err.message[0]);
    if (strlen(text) >= 8) /* shorter ones may be words of the message */
      FUZZ_CHECK(strstr(err.message, text) == NULL);
  }
  free(text);
  return 0;
}
