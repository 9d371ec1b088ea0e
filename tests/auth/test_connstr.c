/*
 * test_connstr.c - connection strings: every documented key, the dev shorthand,
 * derived endpoints, malformed input, and that no message quotes a secret.
 */
#include <stdio.h>

#include "auth_test.h"

#define DEV_CONNSTR                                                                                \
  "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;"                                    \
  "AccountKey=" XIO_AUTH_DEV_KEY ";BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;"

static void assert_dev_key(const xio_auth_account *a) {
  size_t n = 0;
  unsigned char *key = dev_key(&n);
  ASSERT_EQ(a->key_len, n);
  ASSERT_MEM_EQ(a->key, key, n);
  xio_auth_secret_free(key, n);
}

TEST(connstr_full_dev) {
  xio_auth_account a;
  xio_error e;
  xio_error_clear(&e);
  ASSERT_OK(xio_auth_connstr_parse(DEV_CONNSTR, &a, &e), &e);
  ASSERT_STR_EQ(a.name, "devstoreaccount1");
  ASSERT_STR_EQ(a.blob_endpoint, "http://127.0.0.1:10000/devstoreaccount1");
  ASSERT(a.sas == NULL);
  assert_dev_key(&a);
  xio_auth_account_clear(&a);
  ASSERT(a.name == NULL && a.key == NULL && a.blob_endpoint == NULL && a.key_len == 0);
  xio_auth_account_clear(NULL);
}

TEST(connstr_derived_endpoint) {
  xio_auth_account a;
  xio_error e;
  xio_error_clear(&e);
  ASSERT_OK(xio_auth_connstr_parse("AccountName=myacct;AccountKey=" XIO_AUTH_DEV_KEY, &a, &e), &e);
  ASSERT_STR_EQ(a.blob_endpoint, "https://myacct.blob.core.windows.net");
  xio_auth_account_clear(&a);
  ASSERT_OK(xio_auth_connstr_parse("DefaultEndpointsProtocol=http;AccountName=myacct;"
                                   "AccountKey=" XIO_AUTH_DEV_KEY
                                   ";EndpointSuffix=core.chinacloudapi.cn",
                                   &a, &e),
            &e);
  ASSERT_STR_EQ(a.blob_endpoint, "http://myacct.blob.core.chinacloudapi.cn");
  xio_auth_account_clear(&a);
}

TEST(connstr_keys_case_insensitive_and_spacing) {
  xio_auth_account a;
  xio_error e;
  xio_error_clear(&e);
  ASSERT_OK(xio_auth_connstr_parse(" accountname = myacct ;;ACCOUNTKEY=" XIO_AUTH_DEV_KEY
                                   ";;defaultendpointsprotocol=HTTPS;",
                                   &a, &e),
            &e);
  ASSERT_STR_EQ(a.name, "myacct");
  ASSERT_STR_EQ(a.blob_endpoint, "https://myacct.blob.core.windows.net");
  assert_dev_key(&a);
  xio_auth_account_clear(&a);
}

TEST(connstr_blob_endpoint_explicit) {
  xio_auth_account a;
  xio_error e;
  xio_error_clear(&e);
  ASSERT_OK(xio_auth_connstr_parse("BlobEndpoint=https://files.example.com/;AccountName=x;"
                                   "AccountKey=" XIO_AUTH_DEV_KEY ";EndpointSuffix=ignored.example",
                                   &a, &e),
            &e);
  ASSERT_STR_EQ(a.blob_endpoint, "https://files.example.com");
  xio_auth_account_clear(&a);
}

TEST(connstr_sas_only) {
  xio_auth_account a;
  xio_error e;
  xio_error_clear(&e);
  ASSERT_OK(xio_auth_connstr_parse(
                "BlobEndpoint=https://acct.blob.core.windows.net;SharedAccessSignature="
                "?sv=2020-12-06&ss=b&srt=sco&sp=rl&se=2099-01-01T00%3A00%3A00Z&sig=abc%3D",
                &a, &e),
            &e);
  ASSERT(a.name == NULL);
  ASSERT(a.key == NULL);
  ASSERT_EQ(a.key_len, 0);
  ASSERT_STR_EQ(a.blob_endpoint, "https://acct.blob.core.windows.net");
  /* values may contain '=': only the first '=' of a segment splits */
  ASSERT_STR_EQ(a.sas, "sv=2020-12-06&ss=b&srt=sco&sp=rl&se=2099-01-01T00%3A00%3A00Z&sig=abc%3D");
  xio_auth_account_clear(&a);
}

TEST(connstr_dev_shorthand) {
  xio_auth_account a;
  xio_error e;
  xio_error_clear(&e);
  ASSERT_OK(xio_auth_connstr_parse("UseDevelopmentStorage=true", &a, &e), &e);
  ASSERT_STR_EQ(a.name, XIO_AUTH_DEV_ACCOUNT);
  ASSERT_STR_EQ(a.blob_endpoint, "http://127.0.0.1:10000/devstoreaccount1");
  assert_dev_key(&a);
  xio_auth_account_clear(&a);
  ASSERT_OK(xio_auth_connstr_parse("UseDevelopmentStorage=TRUE;BlobEndpoint="
                                   "http://127.0.0.1:41341/devstoreaccount1/",
                                   &a, &e),
            &e);
  ASSERT_STR_EQ(a.blob_endpoint, "http://127.0.0.1:41341/devstoreaccount1");
  xio_auth_account_clear(&a);
  ASSERT_ERR(xio_auth_connstr_parse("UseDevelopmentStorage=false", &a, &e), XIO_EPARSE, &e);
  ASSERT_CONTAINS(e.message, "UseDevelopmentStorage");
}

TEST(connstr_unknown_keys_ignored) {
  xio_auth_account a;
  xio_error e;
  xio_error_clear(&e);
  ASSERT_OK(xio_auth_connstr_parse("QueueEndpoint=https://q.example;AccountName=acct;"
                                   "FileEndpoint=x;AccountKey=" XIO_AUTH_DEV_KEY ";Whatever=a=b=c",
                                   &a, &e),
            &e);
  ASSERT_STR_EQ(a.name, "acct");
  ASSERT_STR_EQ(a.blob_endpoint, "https://acct.blob.core.windows.net");
  xio_auth_account_clear(&a);
}

/* Fails when any 12-character stretch of `secret` appears in `text`. */
static void assert_no_piece_of(const char *text, const char *secret) {
  size_t n = strlen(secret);
  for (size_t i = 0; i + 12 <= n || (i == 0 && n > 0); i++) {
    char piece[13];
    snprintf(piece, sizeof piece, "%.12s", secret + i);
    ASSERT_NOT_CONTAINS(text, piece);
  }
}

/* Parses `text`, expects XIO_EPARSE with `needle` in the message, an untouched-clear
 * `out`, and no trace of `secret` in the detail record. */
static void expect_parse_error(const char *text, const char *needle, const char *secret) {
  xio_auth_account a;
  xio_error e;
  char line[1600];
  xio_error_clear(&e);
  ASSERT_ERR(xio_auth_connstr_parse(text, &a, &e), XIO_EPARSE, &e);
  ASSERT_EQ(e.code, XIO_EPARSE);
  ASSERT_CONTAINS(e.message, needle);
  ASSERT(a.name == NULL && a.key == NULL && a.sas == NULL && a.blob_endpoint == NULL);
  if (secret) {
    xio_error_format(&e, line, sizeof line);
    assert_no_piece_of(line, secret);
    assert_no_piece_of(e.target, secret);
  }
}

TEST(connstr_malformed) {
  expect_parse_error("AccountName=a;AccountKey", "AccountKey", NULL);
  char text[200];
  snprintf(text, sizeof text, "AccountName=a;;%.40s;AccountKey=%s", XIO_AUTH_DEV_KEY,
           XIO_AUTH_DEV_KEY);
  expect_parse_error(text, "segment 3", XIO_AUTH_DEV_KEY);
  expect_parse_error("AccountName=a;" XIO_AUTH_DEV_KEY, /* "KEY==" splits: ignored */
                     "neither AccountKey", XIO_AUTH_DEV_KEY);
  expect_parse_error("AccountName=a;=x;AccountKey=" XIO_AUTH_DEV_KEY, "empty key", NULL);
  expect_parse_error("AccountKey=" XIO_AUTH_DEV_KEY, "AccountName", XIO_AUTH_DEV_KEY);
  expect_parse_error("AccountKey=" XIO_AUTH_DEV_KEY ";BlobEndpoint=https://h.example",
                     "without AccountName", XIO_AUTH_DEV_KEY);
  expect_parse_error("AccountName=acct", "neither AccountKey nor SharedAccessSignature", NULL);
  expect_parse_error("", "neither AccountName nor BlobEndpoint", NULL);
  expect_parse_error("AccountName=a;AccountKey=;", "AccountKey is empty", NULL);
  expect_parse_error("DefaultEndpointsProtocol=ftp;AccountName=a;AccountKey=" XIO_AUTH_DEV_KEY,
                     "DefaultEndpointsProtocol", XIO_AUTH_DEV_KEY);
  expect_parse_error("BlobEndpoint=ftp://h;SharedAccessSignature=sv=1&sig=SECRETSIG",
                     "BlobEndpoint", "SECRETSIG");
}

TEST(connstr_bad_key_not_quoted) {
  /* A key that is almost base64: the message names AccountKey, never the value. */
  char text[256], key[100];
  const char *dev = XIO_AUTH_DEV_KEY;
  snprintf(key, sizeof key, "%.40s*%s", dev, dev + 41);
  snprintf(text, sizeof text, "AccountName=acct;AccountKey=%s", key);
  expect_parse_error(text, "AccountKey", key);
  snprintf(text, sizeof text, "AccountName=acct;AccountKey=%.10s", XIO_AUTH_DEV_KEY);
  expect_parse_error(text, "AccountKey is not base64", XIO_AUTH_DEV_KEY);
}

TEST(connstr_error_sets_operation) {
  xio_auth_account a;
  xio_error e;
  xio_error_clear(&e);
  ASSERT_ERR(xio_auth_connstr_parse("AccountName=a", &a, &e), XIO_EPARSE, &e);
  ASSERT_STR_EQ(e.operation, "ParseConnectionString");
  ASSERT_ERR(xio_auth_connstr_parse(NULL, &a, &e), XIO_EINVAL, &e);
}
