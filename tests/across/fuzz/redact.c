/*
 * redact.c - fuzz target: redaction (xio_auth_redact) and query stripping
 * (xio_auth_url_strip_query) of any text. Properties: no value of a sig or
 * AccountKey parameter of the input shows in the redacted text, nor in that text
 * redacted again (which is never longer); a stripped URL has no '?' or '#', and
 * without a "://" before its query it is the input up to the query.
 */
#include <stdlib.h>
#include <string.h>

#include <xio/auth.h>
#include <xio/url_int.h>

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
  /* Redacting again may drop more (a '/' inside a redacted value no longer ends the
   * user information), never less. */
  char *again = xio_auth_redact(r);
  FUZZ_CHECK(again != NULL && strlen(again) <= strlen(r));
  xio__fuzz_no_secret(text, secrets, "?&;", again, NULL);
  free(again);
  free(r);
  check_strip(text);
  free(text);
  return 0;
}
