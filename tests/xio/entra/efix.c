/*
 * efix.c - the Entra ID integration tests' fixture (see efix.h).
 */
#define _GNU_SOURCE
#include "efix.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "standin.h"
#include "test.h"
#include "util.h"
#include <xio/url_int.h>

static void on_trace(const xio_trace_event *ev, void *ud) {
  efix *f = ud;
  char *line = xio_trace_event_json(ev);
  if (line && (standin_has_token(line) || strstr(line, "sig=")))
    FAIL("a secret appears in a trace event: %s", line);
  /* The token requests go through the context's engine too, but they reach no storage:
   * no event of the trace is one (it would have no request type of the list). */
  if ((unsigned)ev->request_type >= XIO_REQ_COUNT)
    FAIL("a request that reaches no storage was traced: %s", line ? line : ev->file_path);
  xio_free(line);
  if (strcmp(ev->event, "xio_send_complete") != 0) return; /* a refused try: its request counts */
  atomic_fetch_add(&f->requests, 1);
  /* Opening with create looks first (404) and creates the container on a second 404. */
  if (strcmp(ev->result, "ok") != 0 && strcmp(ev->result, "XIO_ENOTFOUND") != 0)
    atomic_fetch_add(&f->failures, 1);
}

static const char *ca(void) {
  const char *c = getenv("XIO_TEST_CA_FILE");
  if (!c || !*c) FAIL("XIO_TEST_CA_FILE is not set: run through ctest (azurite_oauth fixture)");
  return c;
}

void efix_name(efix *f) {
  char name[64];
  memset(f, 0, sizeof *f);
  test_unique_name(name, sizeof name, "entra");
  snprintf(f->container_url, sizeof f->container_url, "%s/%s", test_account_url(), name);
}

void efix_setup(efix *f, const xio_ctx_options *o) {
  xio_error e;
  if (!f->container_url[0]) efix_name(f);
  f->ctx = NULL;
  atomic_store(&f->requests, 0);
  atomic_store(&f->failures, 0);
  xio_ctx_options opts = o ? *o : xio_ctx_options_default();
  opts.ca_file = ca();
  opts.trace = on_trace;
  opts.trace_ud = f;
  ASSERT_OK(xio_ctx_new(&opts, &f->ctx, &e), &e);
}

void efix_teardown(efix *f) {
  xio_ctx_free(f->ctx);
  f->ctx = NULL;
}

void efix_fixture_file(const char *name, char *out, size_t size) {
  const char *c = ca(), *slash = strrchr(c, '/');
  int n = snprintf(out, size, "%.*s/%s", slash ? (int)(slash - c) : 1, slash ? c : ".", name);
  if (n < 0 || (size_t)n >= size) FAIL("the path of %s does not fit", name);
  FILE *f = fopen(out, "r");
  if (!f) FAIL("the fixture made no %s", out);
  fclose(f);
}

void efix_blob(const efix *f, const char *name, char *out, size_t size) {
  snprintf(out, size, "%s/%s", f->container_url, name);
}

void efix_create_container(const efix *f) {
  char url[600];
  xio_ctx_options o = xio_ctx_options_default();
  o.use_environment = 0;
  o.connection_string = test_dev_connection_string();
  o.ca_file = ca();
  xio_ctx *ctx;
  xio_file *file;
  xio_error e;
  ASSERT_OK(xio_ctx_new(&o, &ctx, &e), &e);
  efix_blob(f, "placeholder.mdf", url, sizeof url);
  xio_open_options oo = xio_open_options_default();
  oo.flags = XIO_OPEN_CREATE;
  oo.size = 512;
  ASSERT_OK(xio_file_open(ctx, url, &oo, &file, &e), &e);
  ASSERT_OK(xio_file_close(file, &e), &e);
  xio_ctx_free(ctx);
}

char *efix_container_sas(const efix *f, const char *perms, time_t expiry, int wrong_key) {
  xio_auth_url u;
  xio_error e;
  unsigned char *key;
  size_t n;
  ASSERT_OK(xio_auth_url_parse(f->container_url, &u, &e), &e);
  ASSERT_OK(xio_auth_base64_decode(XIO_AUTH_DEV_KEY, &key, &n, &e), &e);
  if (wrong_key) key[0] ^= 0x5a;
  xio_auth_sas_options o = xio_auth_sas_options_default();
  o.permissions = perms;
  o.expiry = expiry;
  char *tok;
  ASSERT_OK(xio_auth_sas_generate_service(u.account, key, n, u.container, NULL, &o, &tok, &e), &e);
  xio_auth_secret_free(key, n);
  xio_auth_url_clear(&u);
  return tok;
}

typedef struct sink {
  char *buf;
  size_t size, len;
} sink;

static size_t on_body(char *p, size_t size, size_t n, void *ud) {
  sink *s = ud;
  size_t len = size * n;
  if (s->buf && s->len + 1 < s->size) {
    size_t take = len < s->size - 1 - s->len ? len : s->size - 1 - s->len;
    memcpy(s->buf + s->len, p, take);
    s->len += take;
    s->buf[s->len] = '\0';
  }
  return len;
}

long efix_raw(const char *method, const char *url, const char *const *headers, const void *body,
              size_t len, char *resp, size_t resp_size) {
  CURL *c = curl_easy_init();
  struct curl_slist *h = curl_slist_append(NULL, "x-ms-version: 2025-11-05");
  for (size_t i = 0; headers && headers[i]; i++)
    h = curl_slist_append(h, headers[i]);
  h = curl_slist_append(h, "Content-Type:");
  h = curl_slist_append(h, "Expect:");
  sink s = {resp, resp_size, 0};
  if (resp && resp_size) resp[0] = '\0';
  curl_easy_setopt(c, CURLOPT_URL, url);
  curl_easy_setopt(c, CURLOPT_CAINFO, ca());
  curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
  curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &s);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 10000L);
  if (strcmp(method, "PUT") == 0) {
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body ? body : "");
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
  }
  if (strcmp(method, "HEAD") == 0) curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
  CURLcode rc = curl_easy_perform(c);
  long status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  curl_slist_free_all(h);
  curl_easy_cleanup(c);
  if (rc != CURLE_OK) FAIL("%s %s: %s", method, "(url)", curl_easy_strerror(rc));
  return status;
}
