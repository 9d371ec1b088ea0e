/*
 * test_credstore.c - credentials keyed by URL prefix: matching rules, the JSON file
 * forms, malformed files, misses, copies and wiping release.
 */
#define _DEFAULT_SOURCE /* strdup */
#include <stdlib.h>
#include <string.h>

#include "auth_test.h"

#define SAS_A "sv=2020-12-06&sp=rl&sr=c&sig=AAAA"
#define SAS_B "sv=2020-12-06&sp=rwl&sr=c&sig=BBBB"

static xio_auth_cred sas_cred(const char *sas) {
  xio_auth_cred c = {.kind = XIO_AUTH_CRED_SAS, .sas = (char *)sas};
  return c;
}

/* The SAS found for `url`, or NULL on XIO_ENOCRED (the test fails on other errors). */
static char *lookup_sas(const xio_auth_credstore *s, const char *url) {
  xio_auth_cred c;
  xio_error e;
  xio_error_clear(&e);
  xio_err rc = xio_auth_credstore_lookup(s, url, &c, &e);
  if (rc == XIO_ENOCRED) return NULL;
  ASSERT_OK(rc, &e);
  char *sas = c.sas ? strdup(c.sas) : strdup("(not a SAS)");
  xio_auth_cred_clear(&c);
  return sas;
}

static void expect_lookup(const xio_auth_credstore *s, const char *url, const char *want) {
  char *got = lookup_sas(s, url);
  if (!want && got) FAIL("%s: found %s, wanted no match", url, got);
  if (want) ASSERT_STR_EQ(got, want);
  free(got);
}

TEST(credstore_prefix_boundaries) {
  xio_auth_credstore *s = xio_auth_credstore_new();
  xio_auth_cred a = sas_cred(SAS_A), b = sas_cred(SAS_B);
  xio_error e;
  xio_error_clear(&e);
  ASSERT(s != NULL);
  ASSERT_OK(xio_auth_credstore_add(s, "https://a.blob.core.windows.net/db", &a, &e), &e);
  expect_lookup(s, "https://a.blob.core.windows.net/db/x.mdf", SAS_A);
  expect_lookup(s, "https://a.blob.core.windows.net/db", SAS_A);
  expect_lookup(s, "https://a.blob.core.windows.net/db/", SAS_A);
  expect_lookup(s, "https://a.blob.core.windows.net/dbx/y", NULL);
  expect_lookup(s, "https://a.blob.core.windows.net/d", NULL);
  expect_lookup(s, "http://a.blob.core.windows.net/db/x", NULL);
  expect_lookup(s, "https://b.blob.core.windows.net/db/x", NULL);
  /* a longer prefix wins over a shorter one, whatever the order of adding */
  ASSERT_OK(xio_auth_credstore_add(s, "https://a.blob.core.windows.net/db/logs/", &b, &e), &e);
  expect_lookup(s, "https://a.blob.core.windows.net/db/logs/l.ldf", SAS_B);
  expect_lookup(s, "https://a.blob.core.windows.net/db/logsx", SAS_A);
  xio_auth_credstore_free(s);
  xio_auth_credstore_free(NULL);
}

TEST(credstore_case_and_query) {
  xio_auth_credstore *s = xio_auth_credstore_new();
  xio_auth_cred a = sas_cred(SAS_A), b = sas_cred(SAS_B);
  xio_error e;
  xio_error_clear(&e);
  ASSERT_OK(xio_auth_credstore_add(s, "HTTPS://A.Blob.Core.Windows.NET/db", &a, &e), &e);
  expect_lookup(s, "https://a.blob.core.windows.net/db/x.mdf?sv=1&sig=x#f", SAS_A);
  expect_lookup(s, "https://A.BLOB.core.windows.net/db/x.mdf", SAS_A);
  expect_lookup(s, "https://a.blob.core.windows.net/DB/x.mdf", NULL); /* paths keep case */
  /* same prefix again replaces; encodings compare equal */
  ASSERT_OK(xio_auth_credstore_add(s, "https://a.blob.core.windows.net/db/", &b, &e), &e);
  expect_lookup(s, "https://a.blob.core.windows.net/db/x.mdf", SAS_B);
  ASSERT_OK(xio_auth_credstore_add(s, "https://a.blob.core.windows.net/db/my dir", &a, &e), &e);
  expect_lookup(s, "https://a.blob.core.windows.net/db/my%20dir/x.mdf", SAS_A);
  xio_auth_credstore_free(s);
}

TEST(credstore_account_endpoint_and_emulator) {
  xio_auth_credstore *s = xio_auth_credstore_new();
  size_t n = 0;
  unsigned char *key = dev_key(&n);
  xio_auth_cred k = {.kind = XIO_AUTH_CRED_SHARED_KEY,
                     .account = (char *)"devstoreaccount1",
                     .key = key,
                     .key_len = n};
  xio_auth_cred c;
  xio_error e;
  xio_error_clear(&e);
  ASSERT_OK(xio_auth_credstore_add(s, "http://127.0.0.1:10000/devstoreaccount1", &k, &e), &e);
  ASSERT_OK(xio_auth_credstore_lookup(s, "http://127.0.0.1:10000/devstoreaccount1/c/b", &c, &e),
            &e);
  ASSERT_EQ(c.kind, XIO_AUTH_CRED_SHARED_KEY);
  ASSERT_STR_EQ(c.account, "devstoreaccount1");
  ASSERT_EQ(c.key_len, n);
  ASSERT_MEM_EQ(c.key, key, n);
  ASSERT(c.key != key); /* a deep copy */
  xio_auth_cred_clear(&c);
  ASSERT(c.key == NULL && c.account == NULL && c.key_len == 0);
  expect_lookup(s, "http://127.0.0.1:10001/devstoreaccount1/c/b", NULL);
  xio_auth_credstore_free(s);
  xio_auth_secret_free(key, n);
}

TEST(credstore_miss_is_enocred) {
  xio_auth_credstore *s = xio_auth_credstore_new();
  xio_auth_cred c;
  xio_error e;
  xio_error_clear(&e);
  ASSERT_ERR(xio_auth_credstore_lookup(s, "https://a.blob.core.windows.net/c/b?sig=SECRET", &c, &e),
             XIO_ENOCRED, &e);
  ASSERT_CONTAINS(e.message, "https://a.blob.core.windows.net/c/b");
  ASSERT_NOT_CONTAINS(e.message, "SECRET");
  ASSERT_EQ(c.kind, XIO_AUTH_CRED_NONE);
  ASSERT_ERR(xio_auth_credstore_lookup(s, "not a url", &c, &e), XIO_ENOCRED, &e);
  xio_auth_credstore_free(s);
}

TEST(credstore_add_rejects_bad_prefix) {
  xio_auth_credstore *s = xio_auth_credstore_new();
  xio_auth_cred a = sas_cred(SAS_A);
  xio_error e;
  xio_error_clear(&e);
  ASSERT_ERR(xio_auth_credstore_add(s, "ftp://a.example/db", &a, &e), XIO_EINVAL, &e);
  ASSERT_ERR(xio_auth_credstore_add(s, "https:///db", &a, &e), XIO_EINVAL, &e);
  ASSERT_ERR(xio_auth_credstore_add(s, "https://a.example/db?sig=x", &a, &e), XIO_EINVAL, &e);
  ASSERT_ERR(xio_auth_credstore_add(s, "/local/db", &a, &e), XIO_EINVAL, &e);
  expect_lookup(s, "https://a.example/db/x", NULL);
  xio_auth_credstore_free(s);
}

TEST(credstore_json_forms) {
  const char *json =
      "{\"https://a.blob.core.windows.net/db\": \"?" SAS_A "\","
      " \"https://a.blob.core.windows.net/logs\": {\"sas\": \"" SAS_B "\"},"
      " \"https://k.blob.core.windows.net\": {\"account\": \"k\", \"key\": "
      "\"" XIO_AUTH_DEV_KEY "\"},"
      " \"http://127.0.0.1:10000/devstoreaccount1\": {\"connection_string\":"
      " \"UseDevelopmentStorage=true\"},"
      " \"https://s.blob.core.windows.net/c\": {\"connection_string\":"
      " \"BlobEndpoint=https://s.blob.core.windows.net;SharedAccessSignature=" SAS_B "\"}}";
  xio_auth_credstore *s = xio_auth_credstore_new();
  xio_auth_cred c;
  xio_error e;
  xio_error_clear(&e);
  ASSERT_OK(xio_auth_credstore_load_json(s, json, &e), &e);
  expect_lookup(s, "https://a.blob.core.windows.net/db/x.mdf", SAS_A);
  expect_lookup(s, "https://a.blob.core.windows.net/logs/x.ldf", SAS_B);
  expect_lookup(s, "https://s.blob.core.windows.net/c/x", SAS_B);
  ASSERT_OK(xio_auth_credstore_lookup(s, "https://k.blob.core.windows.net/c/b", &c, &e), &e);
  ASSERT_EQ(c.kind, XIO_AUTH_CRED_SHARED_KEY);
  ASSERT_STR_EQ(c.account, "k");
  ASSERT_EQ(c.key_len, 64);
  xio_auth_cred_clear(&c);
  ASSERT_OK(xio_auth_credstore_lookup(s, "http://127.0.0.1:10000/devstoreaccount1/c/b", &c, &e),
            &e);
  ASSERT_EQ(c.kind, XIO_AUTH_CRED_SHARED_KEY);
  ASSERT_STR_EQ(c.account, "devstoreaccount1");
  xio_auth_cred_clear(&c);
  xio_auth_credstore_free(s);
}

static void expect_json_error(const char *json, const char *needle, const char *secret) {
  xio_auth_credstore *s = xio_auth_credstore_new();
  xio_error e;
  char line[1600];
  xio_error_clear(&e);
  ASSERT_ERR(xio_auth_credstore_load_json(s, json, &e), XIO_EPARSE, &e);
  ASSERT_CONTAINS(e.message, needle);
  xio_error_format(&e, line, sizeof line);
  if (secret) ASSERT_NOT_CONTAINS(line, secret);
  /* all or nothing: a good entry before the bad one is not kept */
  expect_lookup(s, "https://good.blob.core.windows.net/c/b", NULL);
  xio_auth_credstore_free(s);
}

TEST(credstore_json_malformed) {
  expect_json_error("{\"https://good.blob.core.windows.net/c\": \"" SAS_A "\",", "JSON", NULL);
  expect_json_error("[\"" SAS_A "\"]", "JSON object", NULL);
  expect_json_error("{\"https://good.blob.core.windows.net/c\": \"" SAS_A "\","
                    " \"https://x.blob.core.windows.net/c\": 42}",
                    "https://x.blob.core.windows.net/c", NULL);
  expect_json_error("{\"https://good.blob.core.windows.net/c\": \"" SAS_A "\","
                    " \"https://x.blob.core.windows.net/c\": {\"account\": \"x\","
                    " \"key\": \"SECRETKEY!\"}}",
                    "key is not base64", "SECRETKEY");
  expect_json_error("{\"https://x.blob.core.windows.net/c\": {\"account\": \"x\"}}", "expected",
                    NULL);
  expect_json_error("{\"https://x.blob.core.windows.net/c\": \"sv=1&sp=r\"}", "no sig", NULL);
  expect_json_error("{\"https://x.blob.core.windows.net/c\": {\"connection_string\":"
                    " \"AccountName=x;AccountKey=SECRETKEY!\"}}",
                    "AccountKey", "SECRETKEY");
  expect_json_error("{\"c:/local\": \"" SAS_A "\"}", "URL prefix", NULL);
  expect_json_error("{\"https://x.blob.core.windows.net/c?sig=SECRETSIG\": \"" SAS_A "\"}",
                    "URL prefix", "SECRETSIG");
}

TEST(cred_copy_and_clear) {
  size_t n = 0;
  unsigned char *key = dev_key(&n);
  xio_auth_cred src = {.kind = XIO_AUTH_CRED_SHARED_KEY,
                       .account = (char *)"acct",
                       .key = key,
                       .key_len = n,
                       .sas = (char *)"sas"};
  xio_auth_cred dst;
  ASSERT_OK(xio_auth_cred_copy(&dst, &src), NULL);
  ASSERT_EQ(dst.kind, XIO_AUTH_CRED_SHARED_KEY);
  ASSERT(dst.account != src.account && dst.key != src.key && dst.sas != src.sas);
  ASSERT_STR_EQ(dst.account, "acct");
  ASSERT_STR_EQ(dst.sas, "sas");
  ASSERT_MEM_EQ(dst.key, key, n);
  xio_auth_cred_clear(&dst);
  ASSERT(dst.account == NULL && dst.key == NULL && dst.sas == NULL && dst.key_len == 0);
  ASSERT_EQ(dst.kind, XIO_AUTH_CRED_NONE);
  xio_auth_cred_clear(NULL);
  xio_auth_secret_free(key, n);
}
