/*
 * xml_udk.c - fuzz target: the user delegation key in a Get User Delegation Key
 * answer (xio__blob_xml_udk). Properties: either every field of the key is there
 * and non-empty, or the call fails and leaves the key empty.
 */
#include <string.h>

#include <xio/entra.h>

#include "fuzz.h"
#include "xml_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  xio_auth_udk k;
  xio_error e;
  xio_error_clear(&e);
  xio_err rc = xio__blob_xml_udk((const char *)data, size, &k, &e);
  FUZZ_CHECK(rc == XIO_OK || rc == XIO_EPARSE || rc == XIO_ENOMEM);
  const char *fields[] = {k.oid, k.tid, k.start, k.expiry, k.service, k.version, k.value};
  for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
    FUZZ_CHECK(rc == XIO_OK ? fields[i] && fields[i][0] : fields[i] == NULL);
  /* The key's value is a secret: no message quotes it. */
  if (rc == XIO_OK) FUZZ_CHECK(!strstr(e.message, k.value));
  xio_auth_udk_clear(&k);
  FUZZ_CHECK(k.value == NULL);
  return 0;
}
