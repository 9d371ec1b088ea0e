/*
 * endpoints.c - how clients reach a running emulator: the front (the proxy when there
 * is one, else Azurite), the development account's blob endpoint on it, and that
 * account's connection string. The connection string carries Azurite's well-known
 * development key: writing it for the caller is its point, and no other key is ever
 * written.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>

#include <xio/auth.h>

#include "emulator_int.h"

const char *xio_emulator_front_url(const xio_emulator_state *st) {
  return st->proxy.pid ? st->proxy_url : st->azurite_url;
}

void xio_emulator_blob_endpoint(const xio_emulator_state *st, char *out, size_t size) {
  snprintf(out, size, "%s/%s", xio_emulator_front_url(st), XIO_AUTH_DEV_ACCOUNT);
}

void xio_emulator_connection_string(const xio_emulator_state *st, char *out, size_t size) {
  snprintf(
      out, size, "DefaultEndpointsProtocol=http;AccountName=%s;AccountKey=%s;BlobEndpoint=%s/%s;",
      XIO_AUTH_DEV_ACCOUNT, XIO_AUTH_DEV_KEY, xio_emulator_front_url(st), XIO_AUTH_DEV_ACCOUNT);
}
