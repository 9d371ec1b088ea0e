/*
 * endpoint.c - the emulator endpoint a sample program is pointed at, as the programs
 * that add the account themselves (the demo, the benchmark) want it.
 *
 * `xio emulator start` prints the account's URL (http://127.0.0.1:PORT/devstoreaccount1)
 * and exports it as XIO_BLOB_ENDPOINT; a user may also give the bare endpoint. Both
 * name the same emulator, so the account's segment and trailing slashes are taken off
 * here, once, rather than nesting the account twice.
 */
#include <string.h>

#include <xio/auth.h>

#include "samples_common.h"

size_t samples_bare_endpoint(char *ep) {
  size_t n = strlen(ep), a = strlen("/" XIO_AUTH_DEV_ACCOUNT);
  while (n > 0 && ep[n - 1] == '/')
    ep[--n] = '\0';
  if (n > a && strcmp(ep + n - a, "/" XIO_AUTH_DEV_ACCOUNT) == 0) ep[n -= a] = '\0';
  return n;
}
