/*
 * test_pct.c - the base's percent codec (xio_auth_pct_encode / _decode), the one
 * every xio library uses: round trips over every byte, which characters stay as
 * they are, and the malformed escapes the decoder refuses.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xio/base.h>
#include <xio/url_int.h>

#include "test.h"

static char *enc(const char *s, const char *keep) {
  char *out = NULL;
  xio_error e;
  ASSERT_OK(xio_auth_pct_encode(s, keep, &out, &e), &e);
  return out;
}

static char *dec(const char *s) {
  char *out = NULL;
  xio_error e;
  ASSERT_OK(xio_auth_pct_decode(s, strlen(s), &out, &e), &e);
  return out;
}

TEST(pct_round_trip_every_byte) {
  char all[256];
  for (int i = 1; i < 256; i++)
    all[i - 1] = (char)i;
  all[255] = '\0';
  char *e = enc(all, NULL);
  ASSERT_EQ(strlen(e), 66 + 3 * (255 - 66)); /* 66 unreserved bytes stay single */
  char *d = dec(e);
  ASSERT_STR_EQ(d, all);
  free(e);
  free(d);
}

TEST(pct_unreserved_and_reserved) {
  char *e = enc("AZaz09-._~", NULL);
  ASSERT_STR_EQ(e, "AZaz09-._~");
  free(e);
  e = enc(" !#$&'()*+,/:;=?@[]%", NULL);
  ASSERT_STR_EQ(e, "%20%21%23%24%26%27%28%29%2A%2B%2C%2F%3A%3B%3D%3F%40%5B%5D%25");
  free(e);
  e = enc("db/a b+c", "/");
  ASSERT_STR_EQ(e, "db/a%20b%2Bc");
  free(e);
  e = enc("\xc3\xa9", NULL); /* UTF-8 e-acute: each byte, uppercase hex */
  ASSERT_STR_EQ(e, "%C3%A9");
  free(e);
  e = enc(NULL, NULL);
  ASSERT_STR_EQ(e, "");
  free(e);
}

TEST(pct_decode_cases) {
  char *d = dec("a%2fb%2Fc+d%7e");
  ASSERT_STR_EQ(d, "a/b/c+d~"); /* either hex case; '+' is a plus, not a space */
  free(d);
  d = dec("");
  ASSERT_STR_EQ(d, "");
  free(d);
  char *out = NULL;
  xio_error e;
  ASSERT_OK(xio_auth_pct_decode("ab%41cd", 5, &out, &e), &e); /* only the first n bytes */
  ASSERT_STR_EQ(out, "abA");
  free(out);
}

TEST(pct_decode_rejects_bad_escapes) {
  static const char *bad[] = {"%", "%4", "a%zz", "%g0", "%0g", "x%00y", "ends%2"};
  static const size_t offset[] = {0, 0, 1, 0, 0, 1, 4};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    char *out = (char *)"untouched";
    xio_error e;
    ASSERT_ERR(xio_auth_pct_decode(bad[i], strlen(bad[i]), &out, &e), XIO_EPARSE, &e);
    ASSERT(out == NULL);
    char want[32];
    snprintf(want, sizeof want, "offset %zu", offset[i]);
    ASSERT_CONTAINS(e.message, want);
  }
  char *out = NULL;
  xio_error e;
  ASSERT_ERR(xio_auth_pct_decode("%41", 2, &out, &e), XIO_EPARSE, &e); /* escape cut by n */
  ASSERT_ERR(xio_auth_pct_decode(NULL, 3, &out, &e), XIO_EINVAL, &e);
}

TEST(pct_decode_never_quotes_the_text) {
  const char *secret = "sig=s3cr3tValue%zz";
  char *out = NULL;
  xio_error e;
  ASSERT_ERR(xio_auth_pct_decode(secret, strlen(secret), &out, &e), XIO_EPARSE, &e);
  ASSERT_NOT_CONTAINS(e.message, "s3cr3t");
}
