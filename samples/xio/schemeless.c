/*
 * schemeless.c - a URL typed without its scheme. "127.0.0.1:10000/devstoreaccount1/c"
 * or "myaccount.blob.core.windows.net/c/b.mdf" is, by its text, a local path
 * (xio_target_classify), which would then fail as a missing file with a hint about
 * paths. When the text starts with what can only be a host and nothing of that
 * name exists here, the command refuses it before doing anything and names the URL
 * probably meant: http:// for a loopback host (the emulator serves plain http),
 * https:// for any other. A path whose first part exists locally stays a local
 * path, whatever it looks like.
 *
 * What can only be a host: a name of Azure Storage (ACCOUNT.blob.core.windows.net
 * and the other clouds' like it), an IP address or localhost with a port
 * (127.0.0.1:10000, [::1]:10000, localhost:10000), any other name with a port when a
 * path follows (azurite:10000/devstoreaccount1/...; "db:1" alone may be a file to
 * make), or an IP address followed by a path. The URL shown never carries the query, which may hold
 * a SAS: it says "(with its query)" instead.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "cli.h"

/* The host names of the blob service, in Azure's clouds and its DNS zone endpoints. */
static const char *const storage_suffixes[] = {
    ".core.windows.net", ".core.chinacloudapi.cn", ".core.usgovcloudapi.net",
    ".core.cloudapi.de", ".storage.azure.net",
};

static int ends_with(const char *s, size_t n, const char *suffix) {
  size_t k = strlen(suffix);
  return n > k && strncasecmp(s + n - k, suffix, k) == 0;
}

/* 1 for a DNS name: letters, digits, '-' and '.', not starting with '.' or '-'. */
static int is_dns_name(const char *s, size_t n) {
  if (n == 0 || s[0] == '.' || s[0] == '-') return 0;
  for (size_t i = 0; i < n; i++)
    if (!(s[i] == '.' || s[i] == '-' || (s[i] >= '0' && s[i] <= '9') ||
          ((s[i] | 0x20) >= 'a' && (s[i] | 0x20) <= 'z')))
      return 0;
  return 1;
}

/* 1 for an IPv4 address, or an IPv6 one in brackets. */
static int is_ip(const char *s, size_t n) {
  char text[64];
  unsigned char addr[16];
  if (n == 0 || n >= sizeof text) return 0;
  if (s[0] == '[' && s[n - 1] == ']') {
    memcpy(text, s + 1, n - 2);
    text[n - 2] = '\0';
    return inet_pton(AF_INET6, text, addr) == 1;
  }
  memcpy(text, s, n);
  text[n] = '\0';
  return inet_pton(AF_INET, text, addr) == 1;
}

/* The length of ":PORT" at the end of s[0..n) (1 to 5 digits), else 0. */
static size_t port_length(const char *s, size_t n) {
  size_t d = 0;
  while (d < n && s[n - 1 - d] >= '0' && s[n - 1 - d] <= '9')
    d++;
  return d >= 1 && d <= 5 && d < n && s[n - 1 - d] == ':' ? d + 1 : 0;
}

static int is_loopback(const char *host, size_t n) {
  return (n == 9 && strncasecmp(host, "localhost", 9) == 0) || ends_with(host, n, ".localhost") ||
         (n >= 4 && strncmp(host, "127.", 4) == 0) || (n == 5 && strncmp(host, "[::1]", 5) == 0);
}

/* Whether the first part of a path, s[0..n), can only be a host (see above); `more`:
 * a path follows it. */
static int only_a_host(const char *s, size_t n, int more, int *loopback) {
  size_t p = port_length(s, n), h = n - p;
  int storage = 0;
  for (size_t i = 0; i < sizeof storage_suffixes / sizeof *storage_suffixes; i++)
    storage |= ends_with(s, h, storage_suffixes[i]);
  int ip = is_ip(s, h);
  if (!ip && !is_dns_name(s, h)) return 0;
  *loopback = is_loopback(s, h);
  /* "db:1" alone may well be a file to make; "azurite:10000/devstoreaccount1/..." not. */
  return storage || (p > 0 && (ip || *loopback || more)) || (ip && more);
}

int cli_schemeless_url(const char *arg, char *out, size_t size) {
  size_t first = strcspn(arg, "/?"), end = strcspn(arg, "?");
  int loopback = 0;
  char head[300];
  struct stat st;
  if (first == 0 || first >= sizeof head) return 0;
  if (!only_a_host(arg, first, arg[first] == '/', &loopback)) return 0;
  memcpy(head, arg, first);
  head[first] = '\0';
  if (lstat(head, &st) == 0) return 0; /* it exists here: a local path */
  snprintf(out, size, "%s://%.*s%s", loopback ? "http" : "https", (int)end, arg,
           arg[end] ? " (with its query)" : "");
  return 1;
}
