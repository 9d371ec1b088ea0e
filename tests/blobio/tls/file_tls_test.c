/*
 * file_tls_test.c - the file layer over HTTPS: a context trusts the emulator's
 * private CA through xio_ctx_options.ca_file, or, with use_environment, through
 * XIO_CA_BUNDLE; the option wins over the environment; a context that reads no
 * CA cannot open the file, and says why.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xio/xio.h>

#include "test.h"
#include "tlsfix.h"
#include "util.h"

#define KiB 1024u

/* Only what each test sets: nothing the caller's environment brings in. */
static void clean_environment(void) {
  static const char *const names[] = {"XIO_CA_BUNDLE",          "XIO_TRACE",
                                      "XIO_CREDENTIALS",        "AZURE_STORAGE_CONNECTION_STRING",
                                      "AZURE_STORAGE_ACCOUNT",  "AZURE_STORAGE_KEY",
                                      "AZURE_STORAGE_SAS_TOKEN"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    unsetenv(names[i]);
}

static xio_ctx *new_ctx(const char *ca_file, int use_environment) {
  xio_error e;
  xio_ctx *ctx = NULL;
  xio_ctx_options o = xio_ctx_options_default();
  o.use_environment = use_environment;
  o.connection_string = test_dev_connection_string();
  o.ca_file = ca_file;
  o.retry.base_delay_ms = 10;
  o.retry.max_delay_ms = 50;
  ASSERT_OK(xio_ctx_new(&o, &ctx, &e), &e);
  return ctx;
}

static void file_url(char *out, size_t size) {
  char name[64];
  test_unique_name(name, sizeof name, "tlsfile");
  snprintf(out, size, "%s/%s/db.mdf", test_account_url(), name);
}

/* Creates a file, writes a few pages, reads them back byte for byte. */
static void round_trip(xio_ctx *ctx) {
  xio_error e;
  char url[512];
  file_url(url, sizeof url);
  ASSERT_CONTAINS(url, "https://");
  xio_open_options oo = xio_open_options_default();
  oo.flags = XIO_OPEN_CREATE;
  oo.size = 256 * KiB;
  xio_file *f = NULL;
  ASSERT_OK(xio_file_open(ctx, url, &oo, &f, &e), &e);
  unsigned char data[16 * KiB], back[16 * KiB];
  size_t got = 0;
  test_fill_random(data, sizeof data, 7);
  ASSERT_OK(xio_file_write(f, 8 * KiB, data, sizeof data, &e), &e);
  ASSERT_OK(xio_file_read(f, 8 * KiB, back, sizeof back, &got, &e), &e);
  ASSERT_EQ(got, sizeof back);
  ASSERT_MEM_EQ(back, data, sizeof data);
  xio_file_stats st;
  xio_file_get_stats(f, &st);
  ASSERT_EQ(st.retries, 0);
  ASSERT_EQ(st.failures, 0);
  ASSERT_OK(xio_file_close(f, &e), &e);
}

/* Opening (creating) a file fails on the certificate, once, and the file layer
 * hands on the reason: a chain not trusted here. */
static void expect_refused(xio_ctx *ctx) {
  xio_error e;
  char url[512];
  file_url(url, sizeof url);
  xio_open_options oo = xio_open_options_default();
  oo.flags = XIO_OPEN_CREATE;
  oo.size = 64 * KiB;
  xio_file *f = NULL;
  ASSERT_ERR(xio_file_open(ctx, url, &oo, &f, &e), XIO_ETRANSPORT, &e);
  ASSERT(f == NULL);
  ASSERT_CONTAINS(e.message, "certificate");
  ASSERT_STR_EQ(xio_reason_name(e.reason), "XIO_REASON_TLS_UNTRUSTED");
  ASSERT_EQ(e.retries, 0);
  ASSERT_EQ(e.http_status, 0);
}

TEST(file_ca_file_option) {
  clean_environment();
  xio_ctx *ctx = new_ctx(tls_ca_file(), 0);
  round_trip(ctx);
  xio_ctx_free(ctx);
}

TEST(file_without_ca_is_refused) {
  clean_environment();
  xio_ctx *ctx = new_ctx(NULL, 1);
  expect_refused(ctx);
  xio_ctx_free(ctx);
}

TEST(file_ca_bundle_environment) {
  clean_environment();
  ASSERT_EQ(setenv("XIO_CA_BUNDLE", tls_ca_file(), 1), 0);
  xio_ctx *ctx = new_ctx(NULL, 1);
  round_trip(ctx);
  xio_ctx_free(ctx);
}

/* use_environment = 0 means the environment is not read, XIO_CA_BUNDLE included. */
TEST(file_ca_bundle_ignored_without_use_environment) {
  clean_environment();
  ASSERT_EQ(setenv("XIO_CA_BUNDLE", tls_ca_file(), 1), 0);
  xio_ctx *ctx = new_ctx(NULL, 0);
  expect_refused(ctx);
  xio_ctx_free(ctx);
}

/* The option is what the caller asked for: XIO_CA_BUNDLE does not add to it (as
 * curl's --cacert overrides CURL_CA_BUNDLE). */
TEST(file_ca_file_option_wins_over_environment) {
  char other[512];
  clean_environment();
  tls_fixture_file("other-ca.pem", other, sizeof other);
  ASSERT_EQ(setenv("XIO_CA_BUNDLE", tls_ca_file(), 1), 0);
  xio_ctx *ctx = new_ctx(other, 1);
  expect_refused(ctx);
  xio_ctx_free(ctx);
}
