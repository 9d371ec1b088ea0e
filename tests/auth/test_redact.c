/*
 * test_redact.c - the log-safe forms of URLs, query strings, connection strings and
 * Authorization values.
 */
#include <stdio.h>
#include <stdlib.h>

#include "auth_test.h"

static void expect_redact(const char *in, const char *want) {
  char *out = xio_auth_redact(in);
  ASSERT_STR_EQ(out, want);
  free(out);
}

TEST(redact_sig_in_url) {
  expect_redact("https://a.blob.core.windows.net/c/b?sv=2020-12-06&sp=r&sig=abc%2Fdef%3D",
                "https://a.blob.core.windows.net/c/b?sv=2020-12-06&sp=r&sig=REDACTED");
  expect_redact("https://a.blob.core.windows.net/c/b?sig=abc&sp=r#frag",
                "https://a.blob.core.windows.net/c/b?sig=REDACTED&sp=r#frag");
  expect_redact("https://a.blob.core.windows.net/c/b", "https://a.blob.core.windows.net/c/b");
  expect_redact("", "");
  ASSERT(xio_auth_redact(NULL) == NULL);
}

TEST(redact_bare_token_and_mixed_case) {
  expect_redact("sv=2020-12-06&sig=abc", "sv=2020-12-06&sig=REDACTED");
  expect_redact("?SIG=abc&sv=1", "?SIG=REDACTED&sv=1");
  expect_redact("sig=abc", "sig=REDACTED");
  expect_redact("Sig=abc%3D", "Sig=REDACTED");
  /* names that merely end in "sig" are not secrets; a sig in a path is not a param */
  expect_redact("xsig=1&design=2", "xsig=1&design=2");
  expect_redact("https://h.example/c/sig=abc", "https://h.example/c/sig=abc");
}

TEST(redact_connection_string) {
  expect_redact("DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;"
                "AccountKey=" XIO_AUTH_DEV_KEY
                ";BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;",
                "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;"
                "AccountKey=REDACTED;BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;");
  expect_redact("accountkey=abc==", "accountkey=REDACTED");
  expect_redact("BlobEndpoint=https://a.example;SharedAccessSignature=sv=1&sig=abc%3D;X=1",
                "BlobEndpoint=https://a.example;SharedAccessSignature=sv=1&sig=REDACTED;X=1");
  expect_redact("SharedAccessSignature=sig=abc&sv=1", "SharedAccessSignature=sig=REDACTED&sv=1");
  expect_redact("SharedAccessSignature=?sig=abc", "SharedAccessSignature=?sig=REDACTED");
}

TEST(redact_userinfo) {
  expect_redact("https://user:pass@a.blob.core.windows.net/c/b?sig=x",
                "https://a.blob.core.windows.net/c/b?sig=REDACTED");
  expect_redact("BlobEndpoint=https://u:p@h.example/;AccountKey=k",
                "BlobEndpoint=https://h.example/;AccountKey=REDACTED");
  /* an '@' in the path is not userinfo */
  expect_redact("https://h.example/c/a@b", "https://h.example/c/a@b");
}

TEST(redact_in_text) {
  expect_redact("GET \"https://h.example/c/b?sp=r&sig=abc\" failed",
                "GET \"https://h.example/c/b?sp=r&sig=REDACTED\" failed");
  expect_redact("Authorization: SharedKey devstoreaccount1:kfVZ23XkzfybCTpsp1ipS1/rWZR9="
                " next",
                "Authorization: SharedKey devstoreaccount1:REDACTED next");
}

/* Scrubs a copy of `in` in place: it must read `want` (same length) after, with
 * `count` bytes overwritten. */
static void expect_scrub(const char *in, const char *want, size_t count) {
  char buf[512];
  snprintf(buf, sizeof buf, "%s", in);
  ASSERT_EQ(xio_auth_scrub(buf), count);
  ASSERT_STR_EQ(buf, want);
}

TEST(scrub_in_place) {
  expect_scrub("https://a.blob.core.windows.net/c/b?sv=2020-12-06&sp=r&sig=abc%2Fdef",
               "https://a.blob.core.windows.net/c/b?sv=2020-12-06&sp=r&sig=*********", 9);
  expect_scrub("url=http://127.0.0.1:1/a/c/b?SIG=xyz&sp=rw",
               "url=http://127.0.0.1:1/a/c/b?SIG=***&sp=rw", 3);
  expect_scrub("AccountName=a;AccountKey=k3y==;BlobEndpoint=http://h/a",
               "AccountName=a;AccountKey=*****;BlobEndpoint=http://h/a", 5);
  expect_scrub("SharedAccessSignature=sv=1&sig=s1g;X=1", "SharedAccessSignature=sv=1&sig=***;X=1",
               3);
  expect_scrub("https://u:pw@h.example/c/b", "https://****@h.example/c/b", 4);
  expect_scrub("Authorization: SharedKey acct:c2lnbmF0dXJl next",
               "Authorization: SharedKey acct:************ next", 12);
  /* nothing secret: untouched */
  expect_scrub("https://h.example/c/sig=abc?design=1", "https://h.example/c/sig=abc?design=1", 0);
  expect_scrub("/local/path", "/local/path", 0);
  expect_scrub("", "", 0);
  ASSERT_EQ(xio_auth_scrub(NULL), 0);
}

TEST(strip_query) {
  char *s = xio_auth_url_strip_query("https://a.blob.core.windows.net/c/b?sv=1&sig=abc");
  ASSERT_STR_EQ(s, "https://a.blob.core.windows.net/c/b");
  free(s);
  s = xio_auth_url_strip_query("http://127.0.0.1:1/devstoreaccount1/c/b#frag?x");
  ASSERT_STR_EQ(s, "http://127.0.0.1:1/devstoreaccount1/c/b");
  free(s);
  s = xio_auth_url_strip_query("https://u:pw@h.example/c?x");
  ASSERT_STR_EQ(s, "https://h.example/c");
  free(s);
  s = xio_auth_url_strip_query("/local/path/file.mdf");
  ASSERT_STR_EQ(s, "/local/path/file.mdf");
  free(s);
  ASSERT(xio_auth_url_strip_query(NULL) == NULL);
}
