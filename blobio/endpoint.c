/*
 * endpoint.c - a target for a URL that is not a blob service's: the token endpoint
 * of a managed identity or of the instance metadata service. Its path and query are
 * sent as they are given (neither is a container or a SAS), and it carries no
 * credential. What may be sent is checked: http or https, a host name or an IP
 * literal, a port in 1..65535, no user information, and a path and query of
 * printable ASCII without spaces. Messages name the part that is wrong and never
 * quote the query; the log-safe URL stops before it.
 */
#define _DEFAULT_SOURCE /* inet_pton, strncasecmp */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <xio/alloc.h>

#include "call_int.h"

static xio_err bad(xio_error *err, const char *what) {
  return xio_error_set(err, XIO_EPARSE, "the token endpoint URL %s", what);
}

/* [p, end) is printable ASCII without spaces. */
static int printable(const char *p, const char *end) {
  for (; p < end; p++)
    if ((unsigned char)*p <= 0x20 || (unsigned char)*p >= 0x7f) return 0;
  return 1;
}

/* "[v6]" or a name of letters, digits, '-' and '.' (an IPv4 literal is one). */
static int valid_host(const char *h, size_t n) {
  char buf[64];
  unsigned char addr[16];
  if (n >= 2 && h[0] == '[' && h[n - 1] == ']') {
    if (n - 2 >= sizeof buf) return 0;
    memcpy(buf, h + 1, n - 2);
    buf[n - 2] = '\0';
    return inet_pton(AF_INET6, buf, addr) == 1;
  }
  if (n == 0 || h[0] == '.' || h[0] == '-') return 0;
  for (size_t i = 0; i < n; i++)
    if (!isalnum((unsigned char)h[i]) && h[i] != '-' && h[i] != '.') return 0;
  return 1;
}

static xio_err parse_port(const char *p, const char *end, int *port, xio_error *err) {
  long v = 0;
  if (p == end) return bad(err, "has an empty port");
  for (; p < end; p++)
    if (*p < '0' || *p > '9' || (v = v * 10 + (*p - '0')) > 65535)
      return bad(err, "has a port that is not a number in 1..65535");
  if (v == 0) return bad(err, "has a port that is not a number in 1..65535");
  *port = (int)v;
  return XIO_OK;
}

/* scheme://host[:port]: sets scheme, host (lowercased), port; *rest after it. */
static xio_err parse_origin(const char *url, xio_auth_url *u, const char **rest, xio_error *err) {
  size_t sn = strncasecmp(url, "https://", 8) == 0  ? 5
              : strncasecmp(url, "http://", 7) == 0 ? 4
                                                    : 0;
  if (!sn) return bad(err, "must start with http:// or https://");
  const char *a = url + sn + 3, *end = a + strcspn(a, "/?#");
  if (memchr(a, '@', (size_t)(end - a))) return bad(err, "must not carry user information");
  const char *colon = *a == '[' ? memchr(a, ']', (size_t)(end - a)) : a;
  colon = colon ? memchr(colon, ':', (size_t)(end - colon)) : NULL;
  const char *host_end = colon ? colon : end;
  if (!valid_host(a, (size_t)(host_end - a))) return bad(err, "has no valid host");
  xio_err rc = colon ? parse_port(colon + 1, end, &u->port, err) : XIO_OK;
  if (rc != XIO_OK) return rc;
  u->scheme = xio_strndup(url, sn);
  u->host = xio_strndup(a, (size_t)(host_end - a));
  if (!u->scheme || !u->host) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  for (char *p = u->scheme; *p; p++)
    *p = (char)tolower((unsigned char)*p);
  for (char *p = u->host; *p; p++)
    *p = (char)tolower((unsigned char)*p);
  *rest = end;
  return XIO_OK;
}

/* The path (default "/") and query of `rest`, up to a fragment. */
static xio_err parse_rest(const char *rest, xio_blob_target *t, xio_error *err) {
  const char *path_end = rest + strcspn(rest, "?#");
  const char *q = *path_end == '?' ? path_end + 1 : NULL;
  const char *q_end = q ? q + strcspn(q, "#") : NULL;
  if (!printable(rest, path_end)) return bad(err, "path has a space or a control character");
  if (q && !printable(q, q_end)) return bad(err, "query has a space or a control character");
  t->url.path = *rest == '/' ? xio_strndup(rest, (size_t)(path_end - rest)) : xio_strdup("/");
  if (q && q_end > q && !(t->extra_query = xio_strndup(q, (size_t)(q_end - q))))
    return xio_error_set(err, XIO_ENOMEM, "out of memory");
  return t->url.path ? XIO_OK : xio_error_set(err, XIO_ENOMEM, "out of memory");
}

/* origin = scheme://host[:port], safe_url = origin + path. */
static xio_err make_urls(xio_blob_target *t, xio_error *err) {
  char port[16] = "";
  if (t->url.port) snprintf(port, sizeof port, ":%d", t->url.port);
  size_t n = strlen(t->url.scheme) + strlen(t->url.host) + strlen(port) + 4;
  if ((t->origin = xio_malloc(n)))
    snprintf(t->origin, n, "%s://%s%s", t->url.scheme, t->url.host, port);
  n += strlen(t->url.path);
  if (t->origin && (t->safe_url = xio_malloc(n)))
    snprintf(t->safe_url, n, "%s%s", t->origin, t->url.path);
  t->cont_path = xio_strdup("");
  if (!t->origin || !t->safe_url || !t->cont_path)
    return xio_error_set(err, XIO_ENOMEM, "out of memory");
  return XIO_OK;
}

xio_err xio__blob_target_endpoint(const char *url, xio_blob_target **out, xio_error *err) {
  *out = NULL;
  if (!url) return xio_error_set(err, XIO_EINVAL, "no token endpoint URL given");
  xio_blob_target *t = xio_calloc(1, sizeof *t);
  if (!t) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  const char *rest = url;
  xio_err rc = parse_origin(url, &t->url, &rest, err);
  if (rc == XIO_OK) rc = parse_rest(rest, t, err);
  if (rc == XIO_OK) rc = make_urls(t, err);
  if (rc != XIO_OK) {
    xio_blob_target_free(t);
    return rc;
  }
  *out = t;
  return XIO_OK;
}
