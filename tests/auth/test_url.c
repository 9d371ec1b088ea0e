/*
 * test_url.c - blob URLs: virtual-host and path style, encodings, endpoints, errors,
 * container name rules.
 */
#include <stdlib.h>

#include "auth_test.h"

static xio_auth_url parse_ok(const char *text) {
  xio_auth_url u;
  xio_error e;
  xio_error_clear(&e);
  ASSERT_OK(xio_auth_url_parse(text, &u, &e), &e);
  return u;
}

TEST(url_azure_virtual_host) {
  xio_auth_url u = parse_ok("https://myacct.blob.core.windows.net/dbs/data/main.mdf");
  ASSERT_STR_EQ(u.scheme, "https");
  ASSERT_STR_EQ(u.host, "myacct.blob.core.windows.net");
  ASSERT_EQ(u.port, 0);
  ASSERT_EQ(u.path_style, 0);
  ASSERT_STR_EQ(u.account, "myacct");
  ASSERT_STR_EQ(u.container, "dbs");
  ASSERT_STR_EQ(u.blob, "data/main.mdf");
  ASSERT_STR_EQ(u.endpoint, "https://myacct.blob.core.windows.net");
  ASSERT_STR_EQ(u.path, "/dbs/data/main.mdf");
  ASSERT(u.query == NULL);
  xio_auth_url_clear(&u);
  ASSERT(u.scheme == NULL && u.path == NULL);
  xio_auth_url_clear(NULL);
}

TEST(url_other_suffixes_and_case) {
  xio_auth_url u = parse_ok("HTTPS://MyAcct.Blob.Core.ChinaCloudAPI.cn:8443/c01/b?sv=1&sig=x");
  ASSERT_STR_EQ(u.scheme, "https");
  ASSERT_STR_EQ(u.host, "myacct.blob.core.chinacloudapi.cn");
  ASSERT_EQ(u.port, 8443);
  ASSERT_STR_EQ(u.account, "myacct");
  ASSERT_STR_EQ(u.endpoint, "https://myacct.blob.core.chinacloudapi.cn:8443");
  ASSERT_STR_EQ(u.query, "sv=1&sig=x");
  xio_auth_url_clear(&u);
  u = parse_ok("https://files.data.example.com/c01");
  ASSERT_STR_EQ(u.account, "files");
  ASSERT_STR_EQ(u.container, "c01");
  ASSERT(u.blob == NULL);
  xio_auth_url_clear(&u);
}

TEST(url_azurite_path_style) {
  xio_auth_url u = parse_ok("http://127.0.0.1:10000/devstoreaccount1/vectors/disk.mdf");
  ASSERT_EQ(u.path_style, 1);
  ASSERT_STR_EQ(u.host, "127.0.0.1");
  ASSERT_EQ(u.port, 10000);
  ASSERT_STR_EQ(u.account, "devstoreaccount1");
  ASSERT_STR_EQ(u.container, "vectors");
  ASSERT_STR_EQ(u.blob, "disk.mdf");
  ASSERT_STR_EQ(u.endpoint, "http://127.0.0.1:10000/devstoreaccount1");
  ASSERT_STR_EQ(u.path, "/devstoreaccount1/vectors/disk.mdf");
  xio_auth_url_clear(&u);
}

TEST(url_localhost_and_ipv6) {
  xio_auth_url u = parse_ok("http://localhost:41341/devstoreaccount1/c01/");
  ASSERT_EQ(u.path_style, 1);
  ASSERT_STR_EQ(u.account, "devstoreaccount1");
  ASSERT_STR_EQ(u.container, "c01");
  ASSERT(u.blob == NULL);
  ASSERT_STR_EQ(u.endpoint, "http://localhost:41341/devstoreaccount1");
  xio_auth_url_clear(&u);
  u = parse_ok("http://[::1]:10000/devstoreaccount1/c01/x");
  ASSERT_EQ(u.path_style, 1);
  ASSERT_STR_EQ(u.host, "[::1]");
  ASSERT_EQ(u.port, 10000);
  ASSERT_STR_EQ(u.account, "devstoreaccount1");
  ASSERT_STR_EQ(u.blob, "x");
  ASSERT_STR_EQ(u.endpoint, "http://[::1]:10000/devstoreaccount1");
  xio_auth_url_clear(&u);
  u = parse_ok("http://devbox/acct");
  ASSERT_EQ(u.path_style, 1);
  ASSERT_STR_EQ(u.account, "acct");
  ASSERT(u.container == NULL);
  ASSERT_STR_EQ(u.endpoint, "http://devbox/acct");
  xio_auth_url_clear(&u);
}

TEST(url_account_only) {
  xio_auth_url u = parse_ok("https://acct.blob.core.windows.net");
  ASSERT(u.container == NULL && u.blob == NULL);
  ASSERT_STR_EQ(u.path, "/");
  ASSERT_STR_EQ(u.endpoint, "https://acct.blob.core.windows.net");
  xio_auth_url_clear(&u);
  u = parse_ok("https://acct.blob.core.windows.net/?sv=2022-11-02&sig=x#frag");
  ASSERT(u.container == NULL);
  ASSERT_STR_EQ(u.query, "sv=2022-11-02&sig=x");
  xio_auth_url_clear(&u);
}

TEST(url_blob_names_with_slashes_and_spaces) {
  xio_auth_url u = parse_ok("https://a1.blob.core.windows.net/c01/dir%20a/sub/my%2Bfile.mdf");
  ASSERT_STR_EQ(u.blob, "dir a/sub/my+file.mdf");
  ASSERT_STR_EQ(u.path, "/c01/dir%20a/sub/my%2Bfile.mdf");
  xio_auth_url_clear(&u);
  /* characters that must be encoded are encoded; valid escapes are kept */
  u = parse_ok("https://a1.blob.core.windows.net/c01/dir a/file\"x\".mdf?snapshot=1");
  ASSERT_STR_EQ(u.blob, "dir a/file\"x\".mdf");
  ASSERT_STR_EQ(u.path, "/c01/dir%20a/file%22x%22.mdf");
  ASSERT_STR_EQ(u.query, "snapshot=1");
  xio_auth_url_clear(&u);
  u = parse_ok("https://a1.blob.core.windows.net/c01/a%2fb");
  ASSERT_STR_EQ(u.blob, "a/b");
  ASSERT_STR_EQ(u.path, "/c01/a%2Fb");
  xio_auth_url_clear(&u);
  u = parse_ok("https://a1.blob.core.windows.net/$root/top.mdf");
  ASSERT_STR_EQ(u.container, "$root");
  ASSERT_STR_EQ(u.blob, "top.mdf");
  xio_auth_url_clear(&u);
}

static void expect_url_error(const char *url, const char *needle) {
  xio_auth_url u;
  xio_error e;
  xio_error_clear(&e);
  ASSERT_ERR(xio_auth_url_parse(url, &u, &e), XIO_EPARSE, &e);
  ASSERT_CONTAINS(e.message, needle);
  ASSERT(u.scheme == NULL && u.host == NULL && u.path == NULL && u.query == NULL);
  ASSERT_STR_EQ(e.operation, "ParseUrl");
  ASSERT_NOT_CONTAINS(e.target, "sig=");
  ASSERT_NOT_CONTAINS(e.message, "SECRET");
}

TEST(url_errors) {
  expect_url_error("ftp://a.blob.core.windows.net/cc1/b", "scheme");
  expect_url_error("a.blob.core.windows.net/cc1/b", "scheme");
  expect_url_error("https:///c/b", "host");
  expect_url_error("https://a_b.example.com/c/b", "host");
  expect_url_error("https://user:SECRET@a.blob.core.windows.net/cc1/b", "user");
  expect_url_error("https://a.blob.core.windows.net:0/c/b", "port");
  expect_url_error("https://a.blob.core.windows.net:99999/c/b", "port");
  expect_url_error("https://a.blob.core.windows.net:x/c/b", "port");
  expect_url_error("http://[::1/devstoreaccount1/c", "host");
  expect_url_error("http://127.0.0.1:10000/", "account");
  expect_url_error("https://a.blob.core.windows.net/cc1/b%2", "escape");
  expect_url_error("https://a.blob.core.windows.net/cc1/b%00?sig=SECRET", "escape");
}

TEST(url_bad_container_names) {
  expect_url_error("https://a.blob.core.windows.net/Upper/b?sig=SECRET", "container name");
  expect_url_error("https://a.blob.core.windows.net/ab/b", "3-63");
  expect_url_error("http://127.0.0.1:1/devstoreaccount1/a--b/x", "consecutive");
  expect_url_error("https://a.blob.core.windows.net/-abc", "start and end");
  expect_url_error("https://a.blob.core.windows.net/a_b_c/x", "lowercase letters");
}

TEST(container_name_rules) {
  char max[64], over[65];
  memset(max, 'a', 63), max[63] = '\0';
  memset(over, 'b', 64), over[64] = '\0';
  const char *good[] = {"abc", "a-b-c", "0db", "db-2024-01", "$root", max};
  const char *bad[] = {"ab", "ABC", "a--b", "-ab", "ab-", "a_b", "a.b", "", "$logs", over};
  for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
    xio_error e;
    xio_error_clear(&e);
    ASSERT_OK(xio_auth_check_container_name(good[i], &e), &e);
  }
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    xio_error e;
    xio_error_clear(&e);
    if (xio_auth_check_container_name(bad[i], &e) != XIO_EPARSE)
      FAIL("\"%s\" was accepted", bad[i]);
    ASSERT_CONTAINS(e.message, "container name");
    ASSERT_EQ(e.reason, XIO_REASON_CONTAINER_NAME); /* what the CLI's hint follows */
  }
  ASSERT_EQ(xio_auth_check_container_name(NULL, NULL), XIO_EPARSE);
}
