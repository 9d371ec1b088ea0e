/*
 * token_json.c - fuzz target: the token answer of a managed identity endpoint or of
 * the Azure CLI (xio_auth_token_parse_json). Properties: the answer is a token with
 * text and an expiry, or an error with no token; a failure's message never quotes
 * the token text.
 */
#include <string.h>

#include <xio/alloc.h>
#include <xio/entra.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = xio__fuzz_text(data, size);
  xio_auth_token t;
  xio_error e;
  xio_error_clear(&e);
  xio_err rc = xio_auth_token_parse_json(text, 1000, &t, &e);
  FUZZ_CHECK(rc == XIO_OK || rc == XIO_EPARSE || rc == XIO_ENOMEM);
  if (rc == XIO_OK) {
    FUZZ_CHECK(t.value && t.value[0] && t.expires_on != 0);
    FUZZ_CHECK(xio__fuzz_contains(text, t.value, strlen(t.value)) || strchr(text, '\\'));
  } else {
    FUZZ_CHECK(t.value == NULL);
    FUZZ_CHECK(e.code == rc && e.message[0]);
    /* The messages name fields, never values: no quote from the input. */
    FUZZ_CHECK(!strchr(e.message, '"'));
  }
  xio_auth_token_clear(&t);
  FUZZ_CHECK(t.value == NULL);
  xio_free(text);
  return 0;
}
