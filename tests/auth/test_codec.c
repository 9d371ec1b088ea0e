/*
 * test_codec.c - base64, HMAC-SHA256 and blob-name path encoding.
 */
#include "auth_test.h"
#include "util.h"

TEST(base64_rfc4648_vectors) {
  static const char *plain[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
  static const char *enc[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
  for (size_t i = 0; i < 7; i++) {
    char out[16];
    ASSERT_EQ(xio_auth_base64_encode(plain[i], strlen(plain[i]), out), strlen(enc[i]));
    ASSERT_STR_EQ(out, enc[i]);
    unsigned char *dec = NULL;
    size_t n = 99;
    xio_error e;
    xio_error_clear(&e);
    ASSERT_OK(xio_auth_base64_decode(enc[i], &dec, &n, &e), &e);
    ASSERT_EQ(n, strlen(plain[i]));
    ASSERT_MEM_EQ(dec, plain[i], n);
    xio_auth_secret_free(dec, n);
  }
}

TEST(base64_round_trip) {
  unsigned char data[300];
  char text[4 * ((sizeof data + 2) / 3) + 1];
  for (size_t n = 0; n <= sizeof data; n += (n < 10 ? 1 : 37)) {
    test_fill_random(data, n, n + 1);
    size_t len = xio_auth_base64_encode(data, n, text);
    ASSERT_EQ(len, 4 * ((n + 2) / 3));
    ASSERT_EQ(strlen(text), len);
    unsigned char *back = NULL;
    size_t back_len = 0;
    xio_error e;
    xio_error_clear(&e);
    ASSERT_OK(xio_auth_base64_decode(text, &back, &back_len, &e), &e);
    ASSERT_EQ(back_len, n);
    ASSERT_MEM_EQ(back, data, n);
    xio_auth_secret_free(back, back_len);
  }
}

TEST(base64_dev_key) {
  size_t n = 0;
  unsigned char *key = dev_key(&n);
  char again[89];
  xio_auth_base64_encode(key, n, again);
  ASSERT_STR_EQ(again, XIO_AUTH_DEV_KEY);
  xio_auth_secret_free(key, n);
}

TEST(base64_rejects_bad_input) {
  static const char *bad[] = {"Zg=",  "Zg",   "Zg==Zm8=", "Z===", "====", "Zm9v\n",    "Zm9v YmFy",
                              "Zm$v", "Zm9-", "Zm9_",     "=Zm9", "Zm=v", "Zm9\nYmFy", "Zm9 YmFy"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    unsigned char *out = (unsigned char *)"x";
    size_t n = 7;
    xio_error e;
    xio_error_clear(&e);
    if (xio_auth_base64_decode(bad[i], &out, &n, &e) != XIO_EPARSE)
      FAIL("\"%s\" was accepted", bad[i]);
    ASSERT_EQ(e.code, XIO_EPARSE);
    ASSERT(out == NULL);
    ASSERT_EQ(n, 0);
  }
}

TEST(hmac_vector) {
  unsigned char *key = NULL;
  size_t n = 0;
  char sig[45];
  ASSERT_OK(xio_auth_base64_decode("YmFy", &key, &n, NULL), NULL);
  ASSERT_OK(xio_auth_hmac_sha256_base64(key, n, "foobarzoo", 9, sig), NULL);
  ASSERT_STR_EQ(sig, "h5U0ATVX6SpbFX1H6GNuxIMeXXCILLoIvhflPtuQZ30=");
  ASSERT_OK(xio_auth_hmac_sha256_base64(key, n, "foobarzo", 8, sig), NULL);
  ASSERT(strcmp(sig, "h5U0ATVX6SpbFX1H6GNuxIMeXXCILLoIvhflPtuQZ30=") != 0);
  xio_auth_secret_free(key, n);
}

TEST(hmac_rejects_empty_key) {
  char sig[45] = "unchanged";
  ASSERT_EQ(xio_auth_hmac_sha256_base64((const unsigned char *)"k", 0, "m", 1, sig), XIO_EINVAL);
  ASSERT_STR_EQ(sig, "");
  ASSERT_EQ(xio_auth_hmac_sha256_base64(NULL, 4, "m", 1, sig), XIO_EINVAL);
  ASSERT_EQ(xio_auth_hmac_sha256_base64((const unsigned char *)"k", 1, NULL, 1, sig), XIO_EINVAL);
  ASSERT_OK(xio_auth_hmac_sha256_base64((const unsigned char *)"k", 1, NULL, 0, sig), NULL);
  ASSERT_EQ(strlen(sig), 44);
}

TEST(encode_path_blob_names) {
  char *p = xio_auth_encode_path("dir/sub dir/file #1?.mdf");
  ASSERT_STR_EQ(p, "dir/sub%20dir/file%20%231%3F.mdf");
  free(p);
  p = xio_auth_encode_path("a+b=c&d%e~f_g-h.i");
  ASSERT_STR_EQ(p, "a%2Bb%3Dc%26d%25e~f_g-h.i");
  free(p);
  p = xio_auth_encode_path("caf\xc3\xa9");
  ASSERT_STR_EQ(p, "caf%C3%A9");
  free(p);
  p = xio_auth_encode_path("");
  ASSERT_STR_EQ(p, "");
  free(p);
}

TEST(host_loopback) {
  static const char *yes[] = {"localhost", "LOCALHOST", "127.0.0.1",         "127.1.2.3",
                              "::1",       "[::1]",     "[0:0:0:0:0:0:0:1]", "[::ffff:127.0.0.1]"};
  static const char *no[] = {
      "128.0.0.1",        "10.0.0.1", "::2", "[::]", "example.com", "localhost.example.com",
      "127.0.0.1.nip.io", "",         "[::1"};
  for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
    if (!xio_auth_host_is_loopback(yes[i])) FAIL("%s is loopback", yes[i]);
  for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
    if (xio_auth_host_is_loopback(no[i])) FAIL("%s is not loopback", no[i]);
  ASSERT(!xio_auth_host_is_loopback(NULL));
}

TEST(host_link_local) {
  static const char *yes[] = {"169.254.169.254", "169.254.0.1", "[fe80::1]", "fe80::1",
                              "[febf::1]"};
  static const char *no[] = {"169.253.169.254",
                             "170.254.0.1",
                             "127.0.0.1",
                             "[fec0::1]",
                             "[::1]",
                             "localhost",
                             "169.254.169.254.example.com",
                             "",
                             "[fe80::1"};
  for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
    if (!xio_auth_host_is_link_local(yes[i])) FAIL("%s is link-local", yes[i]);
  for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
    if (xio_auth_host_is_link_local(no[i])) FAIL("%s is not link-local", no[i]);
  ASSERT(!xio_auth_host_is_link_local(NULL));
}
