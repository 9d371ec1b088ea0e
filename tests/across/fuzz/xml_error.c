/*
 * xml_error.c - fuzz target: the service's XML error body (xio__blob_xml_error),
 * read into buffers of the sizes the classifier uses or into tiny ones.
 * Properties: code and message are terminated within their buffers, the message is
 * one line, the code is trimmed (then cut to size), a cut never ends inside a UTF-8
 * sequence, and a failure leaves both empty.
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
  /* One parse per input (they are slow): into the classifier's buffer sizes, or,
   * for inputs of odd length, into tiny ones that cut nearly every text. */
  char code[64], msg[400];
  int tiny = size & 1;
  size_t csize = tiny ? 4 : sizeof code, msize = tiny ? 7 : sizeof msg;
  xio_err rc;
  read_into(data, size, csize, msize, code, msg, &rc);
  size_t n = strlen(code);
  if (n) FUZZ_CHECK(!is_space(code[0]));
  /* Trimmed, unless cut: a cut backs off up to 3 bytes of a UTF-8 sequence. */
  if (n && n + 4 < csize) FUZZ_CHECK(!is_space(code[n - 1]));
  FUZZ_CHECK(ends_whole(code) && ends_whole(msg));
  return 0;
}
