/*
 * url.c - fuzz target: blob service URLs (xio_auth_url_parse), with the container
 * name check and the path encoder. Properties: a parsed URL re-serialises as
 * scheme://host[:port]path[?query] and that parses again to the very same parts; its
 * endpoint is the origin plus, path style, the account segment; a container name
 * passes the container rule; a failure leaves the struct zeroed and names a target
 * without a query. No sig value shows in a message or target.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xio/auth.h>
#include <xio/url_int.h>

#include "fuzz.h"

static const char *const secrets[] = {"sig", NULL};

static int same_str(const char *a, const char *b) {
  return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* scheme://host[:port]path[?query], malloc'd. */
static char *serialise(const xio_auth_url *u) {
  size_t n = strlen(u->scheme) + strlen(u->host) + strlen(u->path) +
             (u->query ? strlen(u->query) : 0) + 32;
  char *s = malloc(n), port[16] = "";
  if (!s) abort();
  if (u->port) snprintf(port, sizeof port, ":%d", u->port);
  snprintf(s, n, "%s://%s%s%s%s%s", u->scheme, u->host, port, u->path, u->query ? "?" : "",
           u->query ? u->query : "");
  return s;
}

static void check_same(const xio_auth_url *a, const xio_auth_url *b) {
  FUZZ_CHECK(same_str(a->scheme, b->scheme) && same_str(a->host, b->host));
  FUZZ_CHECK(a->port == b->port && a->path_style == b->path_style);
  FUZZ_CHECK(same_str(a->account, b->account) && same_str(a->container, b->container));
  FUZZ_CHECK(same_str(a->blob, b->blob) && same_str(a->endpoint, b->endpoint));
  FUZZ_CHECK(same_str(a->path, b->path) && same_str(a->query, b->query));
}

static void check_endpoint(const xio_auth_url *u) {
  char *s = serialise(u);
  size_t origin = strlen(s) - strlen(u->path) - (u->query ? strlen(u->query) + 1 : 0);
  FUZZ_CHECK(strncmp(u->endpoint, s, origin) == 0);
  const char *rest = u->endpoint + origin;
  if (u->path_style)
    FUZZ_CHECK(rest[0] == '/' && strncmp(u->path, rest, strlen(rest)) == 0 &&
               strchr(rest + 1, '/') == NULL);
  else
    FUZZ_CHECK(rest[0] == '\0');
  free(s);
}

static void check_parsed(const xio_auth_url *u) {
  FUZZ_CHECK(strcmp(u->scheme, "http") == 0 || strcmp(u->scheme, "https") == 0);
  FUZZ_CHECK(u->host[0] && u->account[0] && u->path[0] == '/');
  FUZZ_CHECK(u->port >= 0 && u->port <= 65535);
  FUZZ_CHECK(!u->blob || u->container);
  if (u->container) FUZZ_CHECK(xio_auth_check_container_name(u->container, NULL) == XIO_OK);
  if (u->blob) {
    char *enc = xio_auth_encode_path(u->blob);
    FUZZ_CHECK(enc != NULL);
    FUZZ_CHECK(strspn(enc, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
                           "-._~%/") == strlen(enc));
    free(enc);
  }
  (void)xio_auth_host_is_loopback(u->host);
  check_endpoint(u);
  char *again = serialise(u);
  xio_auth_url v;
  FUZZ_CHECK(xio_auth_url_parse(again, &v, NULL) == XIO_OK);
  check_same(u, &v);
  xio_auth_url_clear(&v);
  free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = xio__fuzz_text(data, size);
  xio_auth_url u;
  xio_error err;
  xio_error_clear(&err);
  xio_err rc = xio_auth_url_parse(text, &u, &err);
  if (rc == XIO_OK) {
    check_parsed(&u);
  } else {
    static const xio_auth_url zero;
    FUZZ_CHECK(rc == XIO_EPARSE || rc == XIO_ENOMEM);
    FUZZ_CHECK(err.code == rc && err.message[0]);
    FUZZ_CHECK(memcmp(&u, &zero, sizeof u) == 0);
    FUZZ_CHECK(!strchr(err.target, '?'));
    xio__fuzz_no_secret(text, secrets, "?&", err.message, NULL);
    xio__fuzz_no_secret(text, secrets, "?&", err.target, NULL);
  }
  xio_auth_url_clear(&u);
  free(text);
  return 0;
}
