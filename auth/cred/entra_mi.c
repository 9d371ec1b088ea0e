/*
 * entra_mi.c - managed identity tokens over HTTP with libcurl: the endpoint that App
 * Service, Container Apps and similar hosts name in IDENTITY_ENDPOINT (api-version
 * 2019-08-01, the secret IDENTITY_HEADER sent as X-IDENTITY-HEADER), and the Azure
 * instance metadata service (api-version 2018-02-01, "Metadata: true"). Short
 * timeouts: a host without the service answers nothing, and the metadata probe must
 * not hold up the first request for long. Proxies are never used (both endpoints are
 * local to the machine). The answer body is wiped once read.
 * Part of libxio_auth's credentials and signing (auth/cred/).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>
#include <openssl/crypto.h>

#include "entra_int.h"

#define MAX_ANSWER      (64u << 10)
#define IMDS_CONNECT_MS 1000

typedef struct answer {
  char buf[MAX_ANSWER];
  size_t len;
  int overflow;
} answer;

static size_t on_body(char *p, size_t size, size_t n, void *ud) {
  answer *a = ud;
  size_t len = size * n;
  if (a->len + len >= sizeof a->buf) {
    a->overflow = 1;
    return 0;
  }
  memcpy(a->buf + a->len, p, len);
  a->len += len;
  return len;
}

static char *encode(const char *s) {
  char *out = NULL;
  return xio_auth_pct_encode(s, NULL, &out, NULL) == XIO_OK ? out : NULL;
}

/* endpoint?api-version=V&resource=R[&client_id=C] (malloc'd). */
static char *token_url(const char *endpoint, const char *version, const char *resource,
                       const char *client_id) {
  char *r = encode(resource), *c = client_id ? encode(client_id) : NULL;
  size_t n = strlen(endpoint) + strlen(version) + (r ? strlen(r) : 0) + (c ? strlen(c) : 0) + 64;
  char *url = r && (c || !client_id) ? xio_malloc(n) : NULL;
  if (url)
    snprintf(url, n, "%s%sapi-version=%s&resource=%s%s%s", endpoint,
             strchr(endpoint, '?') ? "&" : "?", version, r, c ? "&client_id=" : "", c ? c : "");
  xio_free(r);
  xio_free(c);
  return url;
}

static struct curl_slist *headers(const xio__entra_env *env, int imds) {
  char line[1024];
  if (imds) return curl_slist_append(NULL, "Metadata: true");
  snprintf(line, sizeof line, "X-IDENTITY-HEADER: %s",
           env->identity_header ? env->identity_header : "");
  struct curl_slist *l = curl_slist_append(NULL, line);
  OPENSSL_cleanse(line, sizeof line);
  return l;
}

static void wipe_list(struct curl_slist *l) {
  for (struct curl_slist *p = l; p; p = p->next)
    OPENSSL_cleanse(p->data, strlen(p->data));
  curl_slist_free_all(l);
}

static CURLcode perform(const xio__entra_env *env, int imds, const char *url, answer *a,
                        long *status, char errbuf[CURL_ERROR_SIZE]) {
  CURL *easy = curl_easy_init();
  if (!easy) return CURLE_OUT_OF_MEMORY;
  struct curl_slist *h = headers(env, imds);
  long timeout = env->timeout_ms > 0 ? env->timeout_ms : 10000;
  curl_easy_setopt(easy, CURLOPT_URL, url);
  curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(easy, CURLOPT_NOPROXY, "*");
  curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(easy, CURLOPT_HTTPHEADER, h);
  curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS,
                   imds && timeout > IMDS_CONNECT_MS ? (long)IMDS_CONNECT_MS : timeout);
  curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, timeout);
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, a);
  curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, errbuf);
  errbuf[0] = '\0';
  CURLcode rc = h ? curl_easy_perform(easy) : CURLE_OUT_OF_MEMORY;
  curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, status);
  curl_easy_cleanup(easy);
  wipe_list(h);
  return rc;
}

static xio_err judge(CURLcode rc, long status, answer *a, const char *errbuf, time_t now,
                     xio_auth_token *out, char why[XIO__WHY_SIZE]) {
  if (rc != CURLE_OK) {
    snprintf(why, XIO__WHY_SIZE, "no answer (%s)", errbuf[0] ? errbuf : curl_easy_strerror(rc));
    return XIO_EAUTH;
  }
  if (status != 200) {
    snprintf(why, XIO__WHY_SIZE, "the endpoint answered HTTP %ld", status);
    return XIO_EAUTH;
  }
  a->buf[a->len] = '\0';
  xio_error e;
  xio_error_clear(&e);
  xio_err prc = xio_auth_token_parse_json(a->buf, now, out, &e);
  if (prc == XIO_OK) return XIO_OK;
  snprintf(why, XIO__WHY_SIZE, "%.150s", e.message);
  return prc == XIO_ENOMEM ? XIO_ENOMEM : XIO_EAUTH;
}

xio_err xio__entra_managed_identity(const xio__entra_env *env, int imds, const char *resource,
                                    xio_auth_token *out, char why[XIO__WHY_SIZE]) {
  const char *endpoint = imds ? env->imds_endpoint : env->identity_endpoint;
  if (!endpoint || !*endpoint) {
    snprintf(why, XIO__WHY_SIZE, "IDENTITY_ENDPOINT is not set");
    return XIO_ENOCRED;
  }
  char *url = token_url(endpoint, imds ? "2018-02-01" : "2019-08-01", resource, env->client_id);
  if (!url) return XIO_ENOMEM;
  answer *a = xio_calloc(1, sizeof *a);
  long status = 0;
  char errbuf[CURL_ERROR_SIZE];
  xio_err rc = XIO_ENOMEM;
  if (a) {
    CURLcode cc = perform(env, imds, url, a, &status, errbuf);
    rc = judge(cc, status, a, errbuf, env->now, out, why);
    OPENSSL_cleanse(a->buf, sizeof a->buf);
  }
  xio_free(a);
  xio_free(url);
  return rc;
}
