/*
 * token_endpoint.c - fuzz target: the URL of a managed identity's token endpoint
 * (IDENTITY_ENDPOINT, XIO_IMDS_ENDPOINT), as xio_blob_call_token takes it apart.
 * Properties: it builds a call or fails with XIO_EPARSE (or XIO_ENOMEM); a call's
 * log-safe URL starts with http:// or https:// and holds no query, fragment, user
 * information, space or control character; a failure's message never quotes the
 * query.
 */
#include <string.h>

#include <xio/alloc.h>
#include <xio/blob.h>

#include "fuzz.h"

/* Printable ASCII without spaces. */
static int printable(const char *s) {
  for (; *s; s++)
    if ((unsigned char)*s <= 0x20 || (unsigned char)*s >= 0x7f) return 0;
  return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *url = xio__fuzz_text(data, size);
  xio_blob_token_request r = {.url = url, .header_name = "Metadata", .header_value = "true"};
  xio_blob_call *c = NULL;
  xio_error e;
  xio_error_clear(&e);
  xio_err rc = xio_blob_call_token(&r, &c, &e);
  FUZZ_CHECK(rc == XIO_OK || rc == XIO_EPARSE || rc == XIO_ENOMEM);
  if (rc == XIO_OK) {
    const char *safe = xio_blob_call_safe_url(c);
    FUZZ_CHECK(strncmp(safe, "http://", 7) == 0 || strncmp(safe, "https://", 8) == 0);
    FUZZ_CHECK(!strpbrk(safe, "?#@") && printable(safe));
  } else {
    FUZZ_CHECK(c == NULL && e.code == rc && e.message[0]);
    const char *q = strchr(url, '?');
    if (q && strlen(q + 1) >= 4) FUZZ_CHECK(!strstr(e.message, q + 1));
  }
  xio_blob_call_free(c);
  xio_free(url);
  return 0;
}
