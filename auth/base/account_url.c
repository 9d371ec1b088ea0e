/*
 * account_url.c - which URLs are an account's own, for a credential that is known
 * only by its account name (AZURE_STORAGE_ACCOUNT with AZURE_STORAGE_KEY or
 * AZURE_STORAGE_SAS_TOKEN). The name alone would match any host that begins with
 * it (ACCOUNT.evil.example), so the endpoint is matched instead: Azure's own
 * ACCOUNT.blob.core.windows.net, or an emulator's path-style URL on a loopback host
 * whose first path segment is the account. Other endpoints (another cloud, a custom
 * domain, an emulator on another machine) are named explicitly, by a connection
 * string or a credential file entry.
 * Part of libxio_auth's shared base (auth/base/), used by every xio library.
 */
#include <string.h>

#include "base_int.h"

#define AZURE_BLOB_SUFFIX ".blob.core.windows.net"

int xio_auth_url_of_account(const xio_auth_url *u, const char *account) {
  if (!u || !u->host || !u->account || !account || !*account) return 0;
  if (u->path_style)
    return xio_auth_host_is_loopback(u->host) && xio__auth_casecmp(u->account, account) == 0;
  size_t n = strlen(account);
  return xio__auth_ncasecmp(u->host, account, n) == 0 &&
         xio__auth_casecmp(u->host + n, AZURE_BLOB_SUFFIX) == 0;
}
