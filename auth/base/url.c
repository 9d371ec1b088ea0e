/*
 * url.c - takes a blob service URL apart: scheme, host, port, account, container,
 * blob, the encoded path as sent on the wire, and the raw query (which may hold a
 * SAS and is never quoted in a message), and the query-stripped form messages
 * print; what a URL may not carry (dot segments, stray query parameters) is
 * url_strict.c's. Virtual-host style takes the account from the first host label;
 * path style (IP literals and dotless hosts such as localhost, as Azurite serves)
 * takes it from the first path segment.
 * Part of libxio_auth's shared base (auth/base/), used by every xio library.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xio/alloc.h>

#include "base_int.h"

#define MAX_BLOB_NAME 1024

static xio_err oom(xio_error *err) {
  return xio_error_set(err, XIO_ENOMEM, "out of memory parsing a URL");
}

/* "http://" or "https://" (any case): sets u->scheme and advances *p. */
static xio_err parse_scheme(const char **p, xio_auth_url *u, xio_error *err) {
  const char *s = *p;
  size_t n = xio__auth_ncasecmp(s, "https://", 8) == 0  ? 5
             : xio__auth_ncasecmp(s, "http://", 7) == 0 ? 4
                                                        : 0;
  if (!n) return xio_error_set(err, XIO_EPARSE, "URL scheme must be http or https");
  if (!(u->scheme = xio__auth_lower_str(xio__auth_strndup(s, n)))) return oom(err);
  *p = s + n + 3;
  return XIO_OK;
}

static int host_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.';
}

/* The end of the host in [s, end): past "]" for IPv6, else the first ':'. */
static const char *host_end(const char *s, const char *end) {
  if (*s == '[') {
    const char *close = memchr(s, ']', (size_t)(end - s));
    return close ? close + 1 : NULL;
  }
  const char *colon = memchr(s, ':', (size_t)(end - s));
  return colon ? colon : end;
}

static xio_err parse_port(const char *s, const char *end, int *port, xio_error *err) {
  long v = 0;
  if (s == end) return xio_error_set(err, XIO_EPARSE, "URL port is empty");
  for (; s < end; s++) {
    if (*s < '0' || *s > '9' || (v = v * 10 + (*s - '0')) > 65535)
      return xio_error_set(err, XIO_EPARSE, "URL port is not a number in 1..65535");
  }
  if (v == 0) return xio_error_set(err, XIO_EPARSE, "URL port is not a number in 1..65535");
  *port = (int)v;
  return XIO_OK;
}

static int valid_host(const char *h) {
  if (h[0] == '[') return xio__auth_host_is_ipv6(h);
  if (!h[0] || h[0] == '.' || h[0] == '-') return 0;
  for (; *h; h++)
    if (!host_char(*h)) return 0;
  return 1;
}

/* host[:port] up to the path; sets host, port, path_style and advances *p. */
static xio_err parse_authority(const char **p, xio_auth_url *u, xio_error *err) {
  const char *s = *p, *end = s + strcspn(s, "/?#");
  if (memchr(s, '@', (size_t)(end - s)))
    return xio_error_set(err, XIO_EPARSE, "URL must not carry user information");
  const char *he = host_end(s, end);
  if (he == s) return xio_error_set(err, XIO_EPARSE, "URL host is missing");
  if (!he) return xio_error_set(err, XIO_EPARSE, "URL host is not valid");
  if (!(u->host = xio__auth_lower_str(xio__auth_strndup(s, (size_t)(he - s))))) return oom(err);
  if (!valid_host(u->host)) return xio_error_set(err, XIO_EPARSE, "URL host is not valid");
  if (he < end) {
    if (*he != ':') return xio_error_set(err, XIO_EPARSE, "URL host is not valid");
    xio_err rc = parse_port(he + 1, end, &u->port, err);
    if (rc != XIO_OK) return rc;
  }
  u->path_style = u->host[0] == '[' || xio__auth_host_is_ipv4(u->host) || !strchr(u->host, '.');
  *p = end;
  return XIO_OK;
}

static int is_hex(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Characters a path may carry unencoded (RFC 3986 pchar and '/'). */
static int path_char(char c) {
  return xio__auth_is_unreserved(c) || (c && strchr("!$&'()*+,;=:@/", c));
}

xio_err xio__auth_path_normalize(const char *s, size_t n, char **out, xio_error *err) {
  static const char hex[] = "0123456789ABCDEF";
  const char *end = s + n;
  xio__auth_buf b;
  xio__auth_buf_init(&b);
  xio__auth_buf_putc(&b, '/');
  if (s < end && *s == '/') s++;
  for (; s < end; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '%' && !(end - s >= 3 && is_hex(s[1]) && is_hex(s[2])))
      return xio__auth_buf_free(&b),
             xio_error_set(err, XIO_EPARSE, "URL path has a malformed %% escape");
    if (c == '%') {
      char esc[3] = {'%', xio__auth_upper(s[1]), xio__auth_upper(s[2])};
      xio__auth_buf_add(&b, esc, 3);
      s += 2;
    } else if (path_char((char)c)) {
      xio__auth_buf_putc(&b, (char)c);
    } else {
      char esc[3] = {'%', hex[c >> 4], hex[c & 15]};
      xio__auth_buf_add(&b, esc, 3);
    }
  }
  *out = xio__auth_buf_take(&b);
  return *out ? XIO_OK : oom(err);
}

static xio_err normalize_path(const char *s, const char *end, char **out, xio_error *err) {
  return xio__auth_path_normalize(s, (size_t)(end - s), out, err);
}

/* Decodes the segment [s, s+n) into *out; `what` names it in messages. */
static xio_err decode(const char *s, size_t n, const char *what, char **out, xio_error *err) {
  xio_err rc = xio_auth_pct_decode(s, n, out, NULL);
  if (rc == XIO_ENOMEM) return oom(err);
  if (rc != XIO_OK) return xio_error_set(err, XIO_EPARSE, "URL %s has a bad %% escape", what);
  return XIO_OK;
}

static xio_err check_account(const char *a, xio_error *err) {
  size_t n = strlen(a);
  if (n == 0 || n > 63)
    return xio_error_set(err, XIO_EPARSE, "URL account name is missing or too long");
  for (size_t i = 0; i < n; i++)
    if (!host_char(a[i]) || a[i] == '.')
      return xio_error_set(err, XIO_EPARSE,
                           "URL account name may hold only letters, digits and dashes");
  return XIO_OK;
}

/* The account: the first path segment (path style) or the first host label.
 * Advances *rest past the account segment for path style. */
static xio_err take_account(xio_auth_url *u, const char **rest, xio_error *err) {
  xio_err rc;
  if (u->path_style) {
    size_t n = strcspn(*rest, "/");
    if (n == 0) return xio_error_set(err, XIO_EPARSE, "path-style URL has no account in its path");
    rc = decode(*rest, n, "account", &u->account, err);
    *rest += n + ((*rest)[n] == '/');
  } else {
    u->account = xio__auth_strndup(u->host, strcspn(u->host, "."));
    rc = u->account ? XIO_OK : oom(err);
  }
  return rc != XIO_OK ? rc : check_account(u->account, err);
}

/* Container and blob from the path after the account. */
static xio_err take_names(xio_auth_url *u, const char *rest, xio_error *err) {
  size_t n = strcspn(rest, "/");
  if (n == 0) return XIO_OK; /* an account URL */
  xio_err rc = decode(rest, n, "container name", &u->container, err);
  if (rc == XIO_OK) rc = xio_auth_check_container_name(u->container, err);
  if (rc != XIO_OK || rest[n] != '/' || rest[n + 1] == '\0') return rc;
  rc = decode(rest + n + 1, strlen(rest + n + 1), "blob name", &u->blob, err);
  if (rc == XIO_OK && strlen(u->blob) > MAX_BLOB_NAME)
    return xio_error_set(err, XIO_EPARSE, "blob name is longer than %d characters", MAX_BLOB_NAME);
  return rc;
}

static xio_err make_endpoint(xio_auth_url *u, xio_error *err) {
  xio__auth_buf b;
  char port[16];
  xio__auth_buf_init(&b);
  xio__auth_buf_puts(&b, u->scheme);
  xio__auth_buf_puts(&b, "://");
  xio__auth_buf_puts(&b, u->host);
  if (u->port) {
    snprintf(port, sizeof port, ":%d", u->port);
    xio__auth_buf_puts(&b, port);
  }
  if (u->path_style) {
    size_t n = strcspn(u->path + 1, "/"); /* the account segment as encoded */
    xio__auth_buf_add(&b, u->path, n + 1);
  }
  if (!(u->endpoint = xio__auth_buf_take(&b))) return oom(err);
  return XIO_OK;
}

static xio_err parse(const char *url, xio_auth_url *u, xio_error *err) {
  const char *p = url;
  xio_err rc = parse_scheme(&p, u, err);
  if (rc == XIO_OK) rc = parse_authority(&p, u, err);
  if (rc != XIO_OK) return rc;
  const char *path_end = p + strcspn(p, "?#");
  if (*path_end == '?') {
    size_t qn = strcspn(path_end + 1, "#");
    if (qn && !(u->query = xio__auth_strndup(path_end + 1, qn))) return oom(err);
  }
  rc = normalize_path(p, path_end, &u->path, err);
  if (rc == XIO_OK) rc = xio__auth_check_dot_segments(u->path, err);
  const char *rest = u->path ? u->path + 1 : "";
  if (rc == XIO_OK) rc = take_account(u, &rest, err);
  if (rc == XIO_OK) rc = take_names(u, rest, err);
  if (rc == XIO_OK) rc = xio__auth_check_query(u->query, err);
  if (rc == XIO_OK) rc = make_endpoint(u, err);
  return rc;
}

xio_err xio_auth_url_parse(const char *url, xio_auth_url *out, xio_error *err) {
  if (!out) return xio_error_set(err, XIO_EINVAL, "no URL to fill");
  memset(out, 0, sizeof *out);
  if (!url) return xio_error_set(err, XIO_EINVAL, "URL is NULL");
  xio_err rc = parse(url, out, err);
  if (rc == XIO_OK) return rc;
  xio_auth_url_clear(out);
  xio__auth_operation(err, "ParseUrl");
  if (err && !err->target[0]) {
    /* Cut at the first '&', ';' or '=' too: a SAS pasted after '&' instead of '?',
     * or given where a URL belongs, is no query, but still a secret. */
    char *safe = xio_auth_url_strip_query(url);
    if (safe) safe[strcspn(safe, "&;=")] = '\0';
    xio_error_set_target(err, safe);
    xio_free(safe);
  }
  return rc;
}

void xio_auth_url_clear(xio_auth_url *u) {
  if (!u) return;
  xio_free(u->scheme);
  xio_free(u->host);
  xio_free(u->account);
  xio_free(u->container);
  xio_free(u->blob);
  xio_free(u->endpoint);
  xio_free(u->path);
  xio__auth_str_free(u->query);
  memset(u, 0, sizeof *u);
}

size_t xio__auth_userinfo_len(const char *s) {
  size_t end = 0, at = 0;
  while (s[end] && !strchr("/?#;\"'<>", s[end]) && !xio__auth_is_space(s[end])) {
    if (s[end] == '@') at = end + 1;
    end++;
  }
  return at;
}

char *xio_auth_url_strip_query(const char *url) {
  if (!url) return NULL;
  xio__auth_buf b;
  xio__auth_buf_init(&b);
  xio__auth_buf_puts(&b, "");
  const char *p = url, *end = url + strcspn(url, "?#");
  const char *sep = strstr(url, "://");
  if (sep && sep < end) {
    xio__auth_buf_add(&b, url, (size_t)(sep - url) + 3);
    p = sep + 3 + xio__auth_userinfo_len(sep + 3);
  }
  xio__auth_buf_add(&b, p, (size_t)(end - p));
  return xio__auth_buf_take(&b);
}
