/*
 * connstr.c - fuzz target: Azure Storage connection strings
 * (xio_auth_connstr_parse). Properties: a parsed account has a blob endpoint that is
 * an http(s) URL without a trailing '/', a key when it names none of a SAS, and a
 * failure leaves the account cleared; no AccountKey or SharedAccessSignature value
 * shows in the error message.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <xio/auth.h>

#include "fuzz.h"

static void check_account(const xio_auth_account *a) {
  const char *ep = a->blob_endpoint;
  FUZZ_CHECK(ep != NULL);
  FUZZ_CHECK(strncasecmp(ep, "http://", 7) == 0 || strncasecmp(ep, "https://", 8) == 0);
  size_t n = strlen(ep);
  FUZZ_CHECK(n > 0 && ep[n - 1] != '/');
  FUZZ_CHECK(a->key || a->sas);
  FUZZ_CHECK(!a->key || a->key_len > 0);
  FUZZ_CHECK(!a->key || a->name);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const char *const secrets[] = {"AccountKey", "SharedAccessSignature", "sig", NULL};
  char *text = xio__fuzz_text(data, size);
  xio_auth_account a;
  xio_error err;
  memset(&a, 0xA5, sizeof a);
  xio_error_clear(&err);
  xio_err rc = xio_auth_connstr_parse(text, &a, &err);
  if (rc == XIO_OK) {
    check_account(&a);
  } else {
    FUZZ_CHECK(rc == XIO_EPARSE || rc == XIO_ENOMEM);
    FUZZ_CHECK(err.code == rc && err.message[0]);
    FUZZ_CHECK(!a.name && !a.key && !a.blob_endpoint && !a.sas && a.key_len == 0);
    xio__fuzz_no_secret(text, secrets, "?&;", err.message, NULL);
  }
  xio_auth_account_clear(&a);
  free(text);
  return 0;
}
