/*
 * cli_tls_test.c - the xio command line over HTTPS, run as a program: --cacert FILE
 * and XIO_CA_BUNDLE make it trust the emulator's private CA; without them it exits
 * 1 naming the certificate, with a hint to pass the CA and never one to turn
 * verification off; a certificate for another host name gets a hint of its own; a
 * --cacert that is not a CA file is named as such. --json names the reason of each
 * (XIO_REASON_TLS_UNTRUSTED, XIO_REASON_TLS_HOSTNAME, XIO_REASON_CA_FILE).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clirun.h"
#include "test.h"
#include "tlsfix.h"
#include "tlsserver.h"
#include "util.h"

/* No hint may suggest switching certificate checks off. */
static void expect_no_insecure_advice(const clirun *r) {
  ASSERT_NOT_CONTAINS(r->err, "--insecure");
  ASSERT_NOT_CONTAINS(r->err, "-k ");
  ASSERT_NOT_CONTAINS(r->err, "allow-insecure");
  ASSERT_NOT_CONTAINS(r->err, "disable");
  ASSERT_NOT_CONTAINS(r->err, "skip");
}

static void blob_url(const char *name, char *out, size_t size) {
  char container[64];
  clirun_container(container, sizeof container);
  clirun_url(container, name, out, size);
  ASSERT_CONTAINS(out, "https://127.0.0.1:");
}

TEST(cli_cacert_create) {
  clirun r = {0};
  char url[512];
  blob_url("b", url, sizeof url);
  XIO(&r, "--cacert", tls_ca_file(), "create", url, "--size", "1M");
  EXPECT_EXIT(&r, 0);
  XIO(&r, "--cacert", tls_ca_file(), "--json", "stat", url);
  EXPECT_EXIT(&r, 0);
  cJSON *j = clirun_json(&r);
  ASSERT(clirun_num(j, "size") == 1024 * 1024);
  cJSON_Delete(j);
  clirun_free(&r);
}

TEST(cli_without_cacert_is_refused) {
  clirun r = {0};
  char url[512];
  blob_url("b", url, sizeof url);
  XIO(&r, "create", url, "--size", "1M");
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "xio: create failed: ");
  ASSERT_CONTAINS(r.err, "certificate");
  ASSERT_CONTAINS(r.err, "\nhint: ");
  ASSERT_CONTAINS(r.err, "--cacert FILE");
  ASSERT_CONTAINS(r.err, "XIO_CA_BUNDLE");
  expect_no_insecure_advice(&r);
  ASSERT_STR_EQ(r.out, "");
  /* One try: the trace has exactly one event, failed, with no retry. */
  ASSERT_CONTAINS(r.trace, "\"retries\":0");
  ASSERT_NOT_CONTAINS(r.trace, "\"retries\":1");

  XIO(&r, "--json", "create", url, "--size", "1M");
  EXPECT_EXIT(&r, 1);
  cJSON *j = clirun_json(&r);
  const cJSON *e = cJSON_GetObjectItem(j, "error");
  ASSERT_STR_EQ(clirun_str(e, "code"), "XIO_ETRANSPORT");
  ASSERT_STR_EQ(clirun_str(e, "reason"), "XIO_REASON_TLS_UNTRUSTED");
  ASSERT_CONTAINS(clirun_str(e, "message"), "certificate");
  ASSERT_CONTAINS(clirun_str(e, "hint"), "--cacert FILE");
  cJSON_Delete(j);
  clirun_free(&r);
}

TEST(cli_ca_bundle_environment) {
  clirun r = {0};
  char url[512], env[600];
  blob_url("b", url, sizeof url);
  snprintf(env, sizeof env, "XIO_CA_BUNDLE=%s", tls_ca_file());
  const char *extra[] = {env, NULL};
  XIO_ENV(&r, 0, extra, "create", url, "--size", "1M");
  EXPECT_EXIT(&r, 0);
  XIO_ENV(&r, 0, extra, "stat", url);
  EXPECT_EXIT(&r, 0);
  clirun_free(&r);
}

TEST(cli_unrelated_cacert_is_refused) {
  clirun r = {0};
  char url[512], other[512];
  blob_url("b", url, sizeof url);
  tls_fixture_file("other-ca.pem", other, sizeof other);
  XIO(&r, "--cacert", other, "create", url, "--size", "1M");
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "certificate");
  ASSERT_CONTAINS(r.err, "hint: ");
  expect_no_insecure_advice(&r);
  clirun_free(&r);
}

TEST(cli_wrong_host_name_hint) {
  clirun r = {0};
  char cert[512], key[512], url[512];
  tls_fixture_file("wrong-host.pem", cert, sizeof cert);
  tls_fixture_file("wrong-host.key", key, sizeof key);
  tlsserver *s = tlsserver_start(cert, key);
  snprintf(url, sizeof url, "https://127.0.0.1:%d/devstoreaccount1/tls-wrong-host/b",
           tlsserver_port(s));
  XIO(&r, "--cacert", tls_ca_file(), "stat", url);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "host name");
  ASSERT_CONTAINS(r.err, "hint: the server's certificate is not for this host name");
  expect_no_insecure_advice(&r);
  XIO(&r, "--cacert", tls_ca_file(), "--json", "stat", url);
  EXPECT_EXIT(&r, 1);
  cJSON *j = clirun_json(&r);
  const cJSON *e = cJSON_GetObjectItem(j, "error");
  ASSERT_STR_EQ(clirun_str(e, "code"), "XIO_ETRANSPORT");
  ASSERT_STR_EQ(clirun_str(e, "reason"), "XIO_REASON_TLS_HOSTNAME");
  ASSERT_CONTAINS(clirun_str(e, "message"), "127.0.0.1");
  ASSERT_CONTAINS(clirun_str(e, "hint"), "not for this host name");
  cJSON_Delete(j);
  ASSERT_EQ(tlsserver_requests(s), 0);
  tlsserver_free(s);
  clirun_free(&r);
}

TEST(cli_cacert_not_a_ca_file) {
  clirun r = {0};
  char url[512], key[512], missing[600];
  blob_url("b", url, sizeof url);
  tls_fixture_file("wrong-host.key", key, sizeof key); /* PEM, but no certificate */
  XIO(&r, "--cacert", key, "create", url, "--size", "1M");
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, key);
  ASSERT_CONTAINS(r.err, "no CA certificate");
  XIO(&r, "--cacert", key, "--json", "create", url, "--size", "1M");
  EXPECT_EXIT(&r, 1);
  cJSON *j = clirun_json(&r);
  ASSERT_STR_EQ(clirun_str(cJSON_GetObjectItem(j, "error"), "reason"), "XIO_REASON_CA_FILE");
  cJSON_Delete(j);
  snprintf(missing, sizeof missing, "%s/no-such-ca.pem", clirun_dir());
  XIO(&r, "--cacert", missing, "create", url, "--size", "1M");
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, missing);
  clirun_free(&r);
}
