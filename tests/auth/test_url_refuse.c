/*
 * test_url_refuse.c - URLs the parser refuses because what would be signed or named
 * is not what would be sent: dot segments (libcurl and servers remove "a/../b", so a
 * request would reach blob "b" while xio names and signs "a/../b"), also written
 * with %2e or hidden behind an encoded slash, and query parameters that are neither
 * a SAS's nor snapshot= (a '?' typed unescaped in a blob name, a stray "?comp=list").
 */
#include <stdlib.h>

#include "auth_test.h"

/* Parses `url`, which must fail with XIO_EPARSE and a message holding `needle`,
 * leaving `u` cleared and no secret in the record. */
static void refused(const char *url, const char *needle) {
  xio_auth_url u;
  xio_error e;
  xio_error_clear(&e);
  xio_err rc = xio_auth_url_parse(url, &u, &e);
  if (rc != XIO_EPARSE) {
    if (rc == XIO_OK) xio_auth_url_clear(&u);
    FAIL("%.*s: returned %s, wanted XIO_EPARSE (%s)", (int)strcspn(url, "?"), url, xio_err_name(rc),
         e.message);
  }
  ASSERT_CONTAINS(e.message, needle);
  ASSERT_STR_EQ(e.operation, "ParseUrl");
  ASSERT(u.scheme == NULL && u.path == NULL && u.query == NULL);
  ASSERT_NOT_CONTAINS(e.message, "SECRET");
  ASSERT_NOT_CONTAINS(e.target, "SECRET");
}

static void accepted(const char *url) {
  xio_auth_url u;
  xio_error e;
  xio_error_clear(&e);
  ASSERT_OK(xio_auth_url_parse(url, &u, &e), &e);
  xio_auth_url_clear(&u);
}

TEST(url_dot_segments_refused) {
  const char *const bad[] = {
      "https://a.blob.core.windows.net/cc1/x/../y.mdf?sv=2022-11-02&sig=SECRET",
      "https://a.blob.core.windows.net/cc1/x/./y.mdf",
      "https://a.blob.core.windows.net/cc1/../cc2/y.mdf",
      "https://a.blob.core.windows.net/cc1/y/..",
      "https://a.blob.core.windows.net/cc1/y/.",
      "https://a.blob.core.windows.net/../cc1/y",
      "http://127.0.0.1:10000/devstoreaccount1/cc1/a/../b",
      "http://127.0.0.1:10000/devstoreaccount1/../other/cc1/b",
      /* percent-encoded dots are dots to a server that decodes before it resolves */
      "https://a.blob.core.windows.net/cc1/x/%2e%2e/y",
      "https://a.blob.core.windows.net/cc1/x/%2E./y",
      "https://a.blob.core.windows.net/cc1/x/.%2E/y",
      "https://a.blob.core.windows.net/cc1/x/%2e/y",
      /* a segment hidden behind an encoded slash, or a backslash (Azure reads '\' as '/') */
      "https://a.blob.core.windows.net/cc1/x%2F..%2Fy",
      "https://a.blob.core.windows.net/cc1/x%2f.%2fy",
      "https://a.blob.core.windows.net/cc1/x\\..\\y",
      "https://a.blob.core.windows.net/cc1/x%5C..%5Cy",
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
    refused(bad[i], "'.' or '..' path segment");
}

TEST(url_dots_inside_names_accepted) {
  accepted("https://a.blob.core.windows.net/cc1/db.mdf");
  accepted("https://a.blob.core.windows.net/cc1/.hidden/x.mdf");
  accepted("https://a.blob.core.windows.net/cc1/a..b/...x");
  accepted("https://a.blob.core.windows.net/cc1/x/...");
  accepted("https://a.blob.core.windows.net/cc1/x/%2e%2e%2e");
  accepted("http://127.0.0.1:10000/devstoreaccount1/cc1/v1.2/db..bak");
}

TEST(url_stray_query_refused) {
  refused("https://a.blob.core.windows.net/cc1/b?comp=list", "query parameter 'comp'");
  refused("https://a.blob.core.windows.net/cc1/b?comp=list", "%3F");
  refused("https://a.blob.core.windows.net/cc1/what?.mdf", "query parameter '.mdf'");
  refused("https://a.blob.core.windows.net/cc1/what?.mdf", "written %3F");
  refused("http://127.0.0.1:10000/devstoreaccount1/cc1/b?x=1", "query parameter 'x'");
  /* a SAS with a stray parameter among its own */
  refused("https://a.blob.core.windows.net/cc1/b?sv=2022-11-02&sp=r&restype=container&sig=SECRET",
          "query parameter 'restype'");
  refused("https://a.blob.core.windows.net/?comp=list", "query parameter 'comp'");
  /* a name that is no parameter name (it may be a key pasted in the wrong place) is
   * not quoted */
  refused("https://a.blob.core.windows.net/cc1/b?SECRETSECRETSECRETSECRETSECRETSECRET/+==",
          "a query parameter");
}

TEST(url_sas_and_snapshot_queries_accepted) {
  accepted("https://a.blob.core.windows.net/cc1/b?sv=2022-11-02&ss=b&srt=sco&sp=rwdlac"
           "&se=2099-01-01T00:00:00Z&st=2024-01-01T00:00:00Z&spr=https&sip=10.0.0.1&sig=x");
  accepted("https://a.blob.core.windows.net/cc1/b?sv=2022-11-02&sr=b&si=policy&sp=r&sig=x");
  accepted("https://a.blob.core.windows.net/cc1/b?skoid=o&sktid=t&skt=2024-01-01T00:00:00Z"
           "&ske=2099-01-01T00:00:00Z&sks=b&skv=2022-11-02&sv=2022-11-02&sr=b&sp=r&sig=x");
  accepted("https://a.blob.core.windows.net/cc1/b?sv=2022-11-02&sr=b&sp=r&ses=scope&sdd=1"
           "&saoid=a&suoid=u&scid=c&rscc=no-cache&rscd=x&rsce=gzip&rscl=en&rsct=text&sig=x");
  accepted("https://a.blob.core.windows.net/cc1/b?snapshot=2024-01-01T00:00:00.0000000Z");
  accepted("https://a.blob.core.windows.net/cc1/b?SV=2022-11-02&SP=r&SIG=x");
  accepted("https://a.blob.core.windows.net/cc1/b?");
  accepted("https://a.blob.core.windows.net/cc1/b?&");
  accepted("https://a.blob.core.windows.net/cc1/what%3F.mdf");
}
