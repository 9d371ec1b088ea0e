/*
 * cli_entra_test.c - the xio command line with Entra ID tokens alone (no key, no
 * SAS in the environment): every command with a stand-in managed identity endpoint,
 * and with a stand-in `az`; `xio sas --as-user`, whose SAS then works with no other
 * credential for exactly its permissions; the warning before a SAS from the
 * credential file expires. No token, header secret, key or signature appears in any
 * output (clirun checks keys and signatures, these tests the tokens).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clirun.h"
#include "efix.h"
#include "standin.h"
#include "test.h"
#include "util.h"

static char ca_env[600];

static const char *const *env(void) {
  static const char *e[2];
  snprintf(ca_env, sizeof ca_env, "XIO_CA_BUNDLE=%s", getenv("XIO_TEST_CA_FILE"));
  e[0] = ca_env;
  e[1] = NULL;
  return e;
}

/* Runs xio with tokens only and checks that no token left the process. */
#define RUN(r, want, ...)                                                                          \
  do {                                                                                             \
    XIO_ENV((r), CLIRUN_NO_CREDS, env(), __VA_ARGS__);                                             \
    EXPECT_EXIT((r), (want));                                                                      \
    no_tokens(r);                                                                                  \
  } while (0)

static void no_tokens(const clirun *r) {
  const char *texts[3] = {r->out, r->err, r->trace};
  for (int i = 0; i < 3; i++)
    if (standin_has_token(texts[i]) || strstr(texts[i], STANDIN_HEADER_SECRET))
      FAIL("a token or the identity header appears in the output:\n%s", texts[i]);
}

/* Every command on one blob; returns how many runs needed a token. */
static int every_command(void) {
  char cont[64], url[600], url2[600], local[512], back[512];
  clirun r = {0};
  clirun_container(cont, sizeof cont);
  clirun_url(cont, "cli.ldf", url, sizeof url);
  clirun_url(cont, "copy.mdf", url2, sizeof url2);
  clirun_path("src.bin", local, sizeof local);
  clirun_path("back.bin", back, sizeof back);
  char data[8192];
  memset(data, 0x42, sizeof data);
  clirun_write_file(local, data, sizeof data);
  RUN(&r, 0, "create", url, "--size", "1M", "--kind", "log");
  RUN(&r, 0, "grow", url, "--size", "2M");
  RUN(&r, 0, "zero", url, "--offset", "0", "--length", "512");
  RUN(&r, 0, "--json", "stat", url);
  cJSON *st = clirun_json(&r);
  ASSERT_EQ((long)clirun_num(st, "size"), 2L << 20);
  cJSON_Delete(st);
  RUN(&r, 0, "ranges", url);
  RUN(&r, 0, "snapshot", url);
  RUN(&r, 0, "--quiet", "lease", "acquire", url, "--duration", "15");
  char id[64];
  snprintf(id, sizeof id, "%.*s", (int)strcspn(r.out, "\r\n"), r.out);
  ASSERT_EQ(strlen(id), 36u);
  RUN(&r, 0, "lease", "renew", url, "--lease-id", id);
  RUN(&r, 0, "lease", "release", url, "--lease-id", id);
  RUN(&r, 0, "lease", "acquire", url, "--duration", "15");
  RUN(&r, 0, "lease", "break", url, "--break-period", "0");
  RUN(&r, 0, "put", local, url2);
  RUN(&r, 0, "get", url2, back);
  RUN(&r, 0, "rm", url2);
  RUN(&r, 0, "rm", url, "--with-snapshots");
  clirun_free(&r);
  return 15;
}

TEST(cli_every_command_with_managed_identity) {
  standin_env_reset(0, NULL);
  standin_idserver mi;
  char url[128];
  standin_idserver_start(&mi, 0, 3600);
  standin_idserver_url(&mi, url, sizeof url);
  setenv("IDENTITY_ENDPOINT", url, 1);
  setenv("IDENTITY_HEADER", STANDIN_HEADER_SECRET, 1);
  int runs = every_command();
  /* One token per run (each run is a new process), asked for as the protocol says. */
  ASSERT_EQ(atomic_load(&mi.tokens), runs);
  ASSERT_EQ(atomic_load(&mi.bad), 0);
  standin_idserver_stop(&mi);
}

/* A managed identity endpoint over https, its certificate from the test CA: the
 * token request trusts what the storage requests trust, --cacert (or
 * XIO_CA_BUNDLE); without it the token is refused at the handshake, and the
 * message says so. */
TEST(cli_managed_identity_over_https_with_cacert) {
  char cert[512], key[512], url[128], cont[64], blob[600];
  const char *ca = getenv("XIO_TEST_CA_FILE");
  standin_env_reset(0, NULL);
  efix_fixture_file("server.pem", cert, sizeof cert);
  efix_fixture_file("server.key", key, sizeof key);
  standin_idserver mi;
  standin_idserver_start_tls(&mi, 0, 3600, cert, key);
  standin_idserver_url(&mi, url, sizeof url);
  setenv("IDENTITY_ENDPOINT", url, 1);
  setenv("IDENTITY_HEADER", STANDIN_HEADER_SECRET, 1);
  clirun r = {0};
  clirun_container(cont, sizeof cont);
  clirun_url(cont, "mi-tls.mdf", blob, sizeof blob);
  XIO_ENV(&r, CLIRUN_NO_CREDS, NULL, "--cacert", ca, "create", blob, "--size", "64K");
  EXPECT_EXIT(&r, 0);
  no_tokens(&r);
  RUN(&r, 0, "stat", blob); /* XIO_CA_BUNDLE */
  ASSERT_EQ(atomic_load(&mi.tokens), 2);
  XIO_ENV(&r, CLIRUN_NO_CREDS, NULL, "stat", blob);
  EXPECT_EXIT(&r, 1);
  no_tokens(&r);
  ASSERT_CONTAINS(r.err, "managed identity (IDENTITY_ENDPOINT): no answer (SSL certificate");
  ASSERT_CONTAINS(r.err, "hint: no Entra ID token");
  ASSERT_EQ(atomic_load(&mi.requests), 2);
  clirun_free(&r);
  standin_idserver_stop(&mi);
}

TEST(cli_every_command_with_azure_cli) {
  char log[512];
  standin_path("az.log", log, sizeof log);
  standin_env_reset(1, log);
  int runs = every_command();
  ASSERT_EQ(standin_az_runs(log), runs);
}

TEST(cli_without_any_token_source_says_what_was_tried) {
  char log[512], cont[64], url[600];
  standin_path("az.log", log, sizeof log);
  standin_env_reset(1, log);
  setenv("XIO_TEST_AZ_FAIL", "1", 1);
  clirun r = {0};
  clirun_container(cont, sizeof cont);
  clirun_url(cont, "x.mdf", url, sizeof url);
  RUN(&r, 1, "create", url, "--size", "1M");
  ASSERT_CONTAINS(r.err, "az login");
  ASSERT_CONTAINS(r.err, "IDENTITY_ENDPOINT");
  ASSERT_CONTAINS(r.err, "hint: no Entra ID token (each source and why is listed above)");
  RUN(&r, 1, "--json", "create", url, "--size", "1M");
  cJSON *j = clirun_json(&r);
  const cJSON *e = cJSON_GetObjectItem(j, "error");
  ASSERT_STR_EQ(clirun_str(e, "code"), "XIO_EAUTH");
  ASSERT_STR_EQ(clirun_str(e, "reason"), "XIO_REASON_TOKEN_SOURCES_FAILED");
  ASSERT_CONTAINS(clirun_str(e, "hint"), "sign in with `az login`");
  cJSON_Delete(j);
  clirun_free(&r);
}

TEST(cli_sas_as_user) {
  standin_env_reset(0, NULL);
  standin_idserver mi;
  char url[128], cont[64], blob[600], sas_url[4096];
  standin_idserver_start(&mi, 0, 3600);
  standin_idserver_url(&mi, url, sizeof url);
  setenv("IDENTITY_ENDPOINT", url, 1);
  setenv("IDENTITY_HEADER", STANDIN_HEADER_SECRET, 1);
  clirun r = {0};
  clirun_container(cont, sizeof cont);
  clirun_url(cont, "shared.mdf", blob, sizeof blob);
  RUN(&r, 0, "create", blob, "--size", "64K");
  XIO_ENV(&r, CLIRUN_NO_CREDS | CLIRUN_SECRET_STDOUT, env(), "sas", blob, "--as-user",
          "--permissions", "r", "--expiry", "1h");
  EXPECT_EXIT(&r, 0);
  no_tokens(&r);
  snprintf(sas_url, sizeof sas_url, "%.*s", (int)strcspn(r.out, "\n"), r.out);
  ASSERT_CONTAINS(sas_url, "skoid=");
  ASSERT_CONTAINS(sas_url, "sig=");
  standin_idserver_stop(&mi);
  /* No token source at all now: the SAS alone reads, and may not write. */
  standin_env_reset(0, NULL);
  RUN(&r, 0, "stat", sas_url);
  ASSERT_CONTAINS(r.out, "65536");
  RUN(&r, 1, "zero", sas_url, "--offset", "0", "--length", "512");
  ASSERT_CONTAINS(r.err, "permission");
  clirun_free(&r);
}

TEST(cli_warns_before_sas_expires) {
  char cont[64], blob[600], cont_url[500], path[512], text[2048];
  standin_env_reset(0, NULL);
  clirun r = {0};
  clirun_container(cont, sizeof cont);
  clirun_url(cont, NULL, cont_url, sizeof cont_url);
  clirun_url(cont, "warn.mdf", blob, sizeof blob);
  /* The container and blob, made with the dev key. */
  efix f;
  efix_name(&f);
  snprintf(f.container_url, sizeof f.container_url, "%s", cont_url);
  efix_create_container(&f);
  time_t expiry = time(NULL) + 120;
  char *sas = efix_container_sas(&f, "rcw", expiry, 0);
  snprintf(text, sizeof text, "{\"%s\": \"%s\"}", cont_url, sas);
  clirun_path("creds.json", path, sizeof path);
  clirun_write_private_file(path, text, strlen(text));
  RUN(&r, 0, "--credentials", path, "create", blob, "--size", "4K");
  ASSERT_CONTAINS(r.err, "xio: warning: the SAS from the credential file");
  ASSERT_CONTAINS(r.err, path);
  ASSERT_CONTAINS(r.err, "expires at");
  ASSERT_CONTAINS(r.trace, "xio_credential_expiring");
  /* Once per run, however many requests used it. */
  ASSERT(strstr(strstr(r.err, "warning") + 1, "xio: warning") == NULL);
  /* With a warning time shorter than the SAS has left: no warning. */
  const char *short_warning[] = {ca_env, "XIO_SAS_WARNING_SECONDS=60", NULL};
  XIO_ENV(&r, CLIRUN_NO_CREDS, short_warning, "--credentials", path, "stat", blob);
  EXPECT_EXIT(&r, 0);
  ASSERT_NOT_CONTAINS(r.err, "warning");
  clirun_free(&r);
  xio_free(sas);
}

TEST(cli_entra_option_asks_the_metadata_service) {
  char cont[64], url[600], imds_url[128];
  standin_env_reset(0, NULL);
  standin_idserver imds;
  standin_idserver_start(&imds, 1, 3600);
  standin_idserver_url(&imds, imds_url, sizeof imds_url);
  setenv("XIO_IMDS_ENDPOINT", imds_url, 1); /* the stand-in on loopback */
  clirun r = {0};
  clirun_container(cont, sizeof cont);
  clirun_url(cont, "imds.mdf", url, sizeof url);
  /* Not an Azure VM: the default chain never asks the metadata service. */
  RUN(&r, 1, "create", url, "--size", "4K");
  ASSERT_EQ(atomic_load(&imds.requests), 0);
  /* Asked for explicitly, it does. */
  RUN(&r, 0, "--entra", "managed_identity", "create", url, "--size", "4K");
  RUN(&r, 0, "--entra", "imds", "rm", url);
  ASSERT_EQ(atomic_load(&imds.tokens), 2);
  ASSERT_EQ(atomic_load(&imds.bad), 0);
  RUN(&r, 1, "--entra", "bogus", "stat", url);
  ASSERT_CONTAINS(r.err, "--entra must be");
  clirun_free(&r);
  standin_idserver_stop(&imds);
}
