/*
 * host.c - what kind of host a URL names: an IP literal (v4 or [v6]), a dotless name,
 * a loopback or link-local address. Decides path-style addressing and whether plain
 * http stays on the machine.
 * Part of libxio_auth's shared base (auth/base/), used by every xio library.
 */
#define _DEFAULT_SOURCE /* inet_pton */
#include <arpa/inet.h>
#include <string.h>

#include "base_int.h"

/* Copies `host` without IPv6 brackets into `buf`; returns 0, or -1 when it is too long.
 */
static int unbracket(const char *host, char *buf, size_t size) {
  size_t n = strlen(host);
  if (n >= 2 && host[0] == '[' && host[n - 1] == ']') host++, n -= 2;
  if (n >= size) return -1;
  memcpy(buf, host, n);
  buf[n] = '\0';
  return 0;
}

int xio__auth_host_is_ipv4(const char *host) {
  unsigned char addr[4];
  return host && inet_pton(AF_INET, host, addr) == 1;
}

int xio__auth_host_is_ipv6(const char *host) {
  unsigned char addr[16];
  char buf[64];
  return host && unbracket(host, buf, sizeof buf) == 0 && inet_pton(AF_INET6, buf, addr) == 1;
}

int xio_auth_host_is_loopback(const char *host) {
  unsigned char a[16];
  char buf[64];
  if (!host || unbracket(host, buf, sizeof buf) != 0) return 0;
  if (xio__auth_casecmp(buf, "localhost") == 0 || xio__auth_casecmp(buf, "localhost.") == 0)
    return 1;
  if (inet_pton(AF_INET, buf, a) == 1) return a[0] == 127;
  if (inet_pton(AF_INET6, buf, a) != 1) return 0;
  static const unsigned char loop6[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  static const unsigned char mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  if (memcmp(a, loop6, 16) == 0) return 1;
  return memcmp(a, mapped, 12) == 0 && a[12] == 127; /* ::ffff:127.x.y.z */
}

int xio_auth_host_is_link_local(const char *host) {
  unsigned char a[16];
  char buf[64];
  if (!host || unbracket(host, buf, sizeof buf) != 0) return 0;
  if (inet_pton(AF_INET, buf, a) == 1) return a[0] == 169 && a[1] == 254;
  return inet_pton(AF_INET6, buf, a) == 1 && a[0] == 0xfe && (a[1] & 0xc0) == 0x80;
}
