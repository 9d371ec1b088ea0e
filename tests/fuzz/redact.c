/*
 * redact.c - fuzz target: redaction (xio_auth_redact) and query stripping
 * (xio_auth_url_strip_query) of any text. Properties: no value of a sig or
 * AccountKey parameter of the input shows in the redacted text;
 * redacting twice changes nothing more; a stripped URL has no '?' or '#', and
 * without a "://" before its query it is the input up to the query.
 */
#include <stdlib.h>
#include <string.h>

#include <xio/auth.h>

#include "fuzz.h"

/* A SharedAccessSignature is kept but for its sig, which the "sig" name covers. */
static const char *const secrets[] = {"sig", "AccountKey", NULL};

static void check_strip(const char *text) {
  char *s = xio_auth_url_strip_query(text);
  FUZZ_CHECK(s != NULL);
  FUZZ_CHECK(!strchr(s, '?') && !strchr(s, '#'));
  FUZZ_CHECK(strlen(s) <= strlen(text));
  const char *sep = strstr(text, "://");
  size_t keep = strcspn(text, "?#");
  if (!sep || (size_t)(sep - text) >= keep) FUZZ_CHECK(strncmp(s, text, keep) == 0 && !s[keep]);
  free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = xio__fuzz_text(data, size);
  char *r = xio_auth_redact(text);
  FUZZ_CHECK(r != NULL);
  xio__fuzz_no_secret(text, secrets, "?&;", r, NULL);
  char *again = xio_auth_redact(r);
  FUZZ_CHECK(again != NULL && strcmp(again, r) == 0);
  free(again);
  free(r);
  check_strip(text);
  free(text);
  return 0;
}
