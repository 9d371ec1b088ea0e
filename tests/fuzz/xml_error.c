/*
 * xml_error.c - fuzz target: the service's XML error body (xio__blob_xml_error),
 * read into buffers of the sizes the classifier uses and into tiny ones.
 * Properties: code and message are terminated within their buffers, the message is
 * one line, the code is trimmed (then cut to size), a truncated answer is a prefix of the full one
 * that does not end inside a UTF-8 sequence, and a failure leaves both empty.
 */
#include <string.h>

#include "fuzz.h"
#include "xml_int.h"

/* 1 when `s` does not end with an incomplete UTF-8 sequence cut by truncation. */
static int ends_whole(const char *s) {
  size_t n = strlen(s), i = n, cont = 0;
  while (i > 0 && ((unsigned char)s[i - 1] & 0xC0) == 0x80)
    i--, cont++;
  if (i == 0) return cont == 0;
  unsigned char lead = (unsigned char)s[i - 1];
  size_t want = lead >= 0xF0 ? 3 : lead >= 0xE0 ? 2 : lead >= 0xC0 ? 1 : 0;
  return want == cont;
}

static int is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

static void read_into(const uint8_t *data, size_t size, size_t csize, size_t msize, char *code,
                      char *msg, xio_err *rc) {
  memset(code, 'X', csize);
  memset(msg, 'X', msize);
  *rc = xio__blob_xml_error((const char *)data, size, code, csize, msg, msize);
  FUZZ_CHECK(memchr(code, 0, csize) && memchr(msg, 0, msize));
  FUZZ_CHECK(*rc == XIO_OK || *rc == XIO_EPARSE || *rc == XIO_ENOMEM);
  if (*rc != XIO_OK) FUZZ_CHECK(code[0] == '\0' && msg[0] == '\0');
  FUZZ_CHECK(!strchr(msg, '\n') && !strchr(msg, '\r'));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char code[64], msg[400], tcode[4], tmsg[7];
  xio_err rc, trc;
  read_into(data, size, sizeof code, sizeof msg, code, msg, &rc);
  size_t n = strlen(code);
  if (n) FUZZ_CHECK(!is_space(code[0]));
  if (n && n < sizeof code - 1) FUZZ_CHECK(!is_space(code[n - 1])); /* trimmed, not cut */
  read_into(data, size, sizeof tcode, sizeof tmsg, tcode, tmsg, &trc);
  FUZZ_CHECK(trc == rc);
  FUZZ_CHECK(strncmp(code, tcode, strlen(tcode)) == 0 && strncmp(msg, tmsg, strlen(tmsg)) == 0);
  if (strlen(code) >= sizeof tcode) FUZZ_CHECK(ends_whole(tcode));
  if (strlen(msg) >= sizeof tmsg) FUZZ_CHECK(ends_whole(tmsg));
  return 0;
}
