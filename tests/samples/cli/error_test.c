/*
 * error_test.c - failures as the command line reports them: exit 1, one line with
 * the operation, the HTTP status, the service error code and the request id, the
 * target, and a hint; the same record as JSON with --json, with the reason's name
 * (null when the failure has none beside its code). Covers a missing blob
 * and container, an expired SAS (says when), plain http to a remote host, a
 * credential file, no credential at all and a partial environment (an account
 * with neither key nor SAS); and no secret in any output, trace or error along the
 * way.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <xio/auth.h>
#include <xio/url_int.h>

#include "clirun.h"
#include "test.h"

TEST(missing_blob_and_container) {
  clirun r = {0};
  char container[64], url[512];
  clirun_container(container, sizeof container);
  clirun_url(container, "there.mdf", url, sizeof url);
  XIO(&r, "create", url, "--size", "1M");
  EXPECT_EXIT(&r, 0);
  clirun_url(container, "missing.mdf", url, sizeof url);
  XIO(&r, "stat", url);
  EXPECT_EXIT(&r, 1);
  /* The answer to a HEAD has no body: the code's text, not words that repeat the status. */
  ASSERT_CONTAINS(r.err, "xio: stat failed: GetBlobProperties: not found (HTTP 404 BlobNotFound, "
                         "request id ");
  ASSERT_CONTAINS(r.err, url);
  ASSERT_CONTAINS(r.err, "\nhint: no such blob");
  ASSERT_STR_EQ(r.out, "");
  XIO(&r, "get", url, "/tmp/never-written-by-xio-tests");
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "BlobNotFound");
  ASSERT_CONTAINS(r.err, "get failed: GetBlobProperties: "); /* the request that failed */
  clirun_url("no-such-container", "x.mdf", url, sizeof url);
  XIO(&r, "ranges", url);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "ContainerNotFound");
  ASSERT_CONTAINS(r.err, "request id ");
  ASSERT_CONTAINS(r.err, "hint: the container does not exist");
  clirun_free(&r);
}

TEST(json_error_record) {
  clirun r = {0};
  char url[512];
  clirun_url("no-such-container", "x.mdf", url, sizeof url);
  XIO(&r, "--json", "stat", url);
  EXPECT_EXIT(&r, 1);
  cJSON *j = clirun_json(&r);
  ASSERT_STR_EQ(clirun_str(j, "command"), "stat");
  const cJSON *e = cJSON_GetObjectItem(j, "error");
  ASSERT_STR_EQ(clirun_str(e, "code"), "XIO_ENOTFOUND");
  ASSERT(cJSON_IsNull(cJSON_GetObjectItem(e, "reason"))); /* the service code says it all */
  ASSERT_STR_EQ(clirun_str(e, "operation"), "GetBlobProperties");
  ASSERT_STR_EQ(clirun_str(e, "service_code"), "ContainerNotFound");
  ASSERT_STR_EQ(clirun_str(e, "target"), url);
  ASSERT(clirun_num(e, "http_status") == 404);
  ASSERT(strlen(clirun_str(e, "request_id")) > 0);
  ASSERT_CONTAINS(clirun_str(e, "hint"), "the container does not exist");
  cJSON_Delete(j);
  ASSERT_CONTAINS(r.err, "ContainerNotFound"); /* people still get the line */
  clirun_free(&r);
}

/* A service SAS for container/blob signed with the dev key (malloc'd). */
static char *make_sas(const char *container, const char *blob, const char *perms, time_t expiry) {
  unsigned char *key;
  size_t key_len;
  xio_error e;
  ASSERT_OK(xio_auth_base64_decode(XIO_AUTH_DEV_KEY, &key, &key_len, &e), &e);
  xio_auth_sas_options o = xio_auth_sas_options_default();
  o.permissions = perms;
  o.expiry = expiry;
  char *tok = NULL;
  ASSERT_OK(xio_auth_sas_generate_service(XIO_AUTH_DEV_ACCOUNT, key, key_len, container, blob, &o,
                                          &tok, &e),
            &e);
  xio_auth_secret_free(key, key_len);
  const char *sig = strstr(tok, "sig=");
  ASSERT(sig != NULL);
  clirun_forbid(sig + 4);
  return tok;
}

TEST(expired_sas_says_when) {
  clirun r = {0};
  char container[64], url[512], sas[2048];
  clirun_container(container, sizeof container);
  clirun_url(container, "old.mdf", url, sizeof url);
  XIO(&r, "create", url, "--size", "1M");
  EXPECT_EXIT(&r, 0);
  time_t expiry;
  ASSERT_OK(xio_auth_parse_iso8601("2020-01-01T00:00:00Z", &expiry, NULL), NULL);
  char *tok = make_sas(container, "old.mdf", "rw", expiry);
  snprintf(sas, sizeof sas, "%s?%s", url, tok);
  XIO_ENV(&r, CLIRUN_NO_CREDS, NULL, "stat", sas);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "expired");
  ASSERT_CONTAINS(r.err, "2020-01-01T00:00:00Z");
  ASSERT_CONTAINS(r.err, "hint: the SAS token has expired");
  ASSERT_CONTAINS(r.err, "xio sas");
  XIO_ENV(&r, CLIRUN_NO_CREDS, NULL, "--trace", "-", "grow", sas, "--size", "2M");
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "expired");
  free(tok);
  clirun_free(&r);
}

TEST(no_secret_in_any_output) {
  clirun r = {0};
  char container[64], url[512], sas[2048];
  clirun_container(container, sizeof container);
  clirun_url(container, "first.mdf", url, sizeof url);
  XIO(&r, "create", url, "--size", "4K"); /* a blob SAS cannot make the container */
  EXPECT_EXIT(&r, 0);
  clirun_url(container, "s.ldf", url, sizeof url);
  char *tok = make_sas(container, "s.ldf", "rcw", time(NULL) + 3600);
  snprintf(sas, sizeof sas, "%s?%s", url, tok);
  /* Success and failure through the SAS, traced to stderr and to a file, in both
   * output modes: every run is checked by clirun for the key and any signature. */
  XIO_ENV(&r, CLIRUN_NO_CREDS, NULL, "--trace", "-", "create", sas, "--size", "1M", "--kind",
          "log");
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.err, "XIOTypeCreateFile");
  ASSERT_CONTAINS(r.out, url);
  XIO_ENV(&r, CLIRUN_NO_CREDS, NULL, "--json", "create", sas, "--size", "1M");
  EXPECT_EXIT(&r, 1);
  XIO_ENV(&r, CLIRUN_NO_CREDS, NULL, "--json", "--trace", "-", "rm", sas);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "permission 'd'");
  XIO_ENV(&r, CLIRUN_NO_CREDS, NULL, "grow", sas, "--size", "3M");
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.trace, "XIOTypeZeroFile");
  XIO_ENV(&r, CLIRUN_NO_CREDS, NULL, "lease", "acquire", sas);
  EXPECT_EXIT(&r, 0);
  XIO_ENV(&r, CLIRUN_NO_CREDS, NULL, "--json", "zero", sas, "--offset", "0", "--length", "4K");
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "in use");
  XIO_ENV(&r, CLIRUN_NO_CREDS, NULL, "ranges", sas);
  EXPECT_EXIT(&r, 0);
  /* A wrong signature: the service refuses, and says so without the token. */
  char *bad = strdup(sas);
  char *sig = strstr(bad, "sig=") + 4;
  sig[0] = sig[0] == 'A' ? 'B' : 'A';
  clirun_forbid(sig);
  XIO_ENV(&r, CLIRUN_NO_CREDS, NULL, "stat", bad);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "hint: authentication failed");
  free(bad);
  free(tok);
  clirun_free(&r);
}

TEST(plain_http_to_a_remote_host_is_refused) {
  clirun r = {0};
  XIO(&r, "stat", "http://192.0.2.1/devstoreaccount1/cont/db.mdf");
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "plain http");
  ASSERT_CONTAINS(r.err, "hint: use https://, or pass --allow-insecure-http");
  XIO(&r, "--json", "stat", "http://192.0.2.1/devstoreaccount1/cont/db.mdf");
  EXPECT_EXIT(&r, 1);
  cJSON *j = clirun_json(&r);
  const cJSON *e = cJSON_GetObjectItem(j, "error");
  ASSERT_STR_EQ(clirun_str(e, "code"), "XIO_EINSECURE");
  ASSERT_STR_EQ(clirun_str(e, "reason"), "XIO_REASON_HTTP_REMOTE");
  ASSERT_CONTAINS(clirun_str(e, "hint"), "--allow-insecure-http");
  cJSON_Delete(j);
  clirun_free(&r);
}

TEST(credential_file) {
  clirun r = {0};
  char container[64], url[512], curl[512], path[256], json[4096];
  clirun_container(container, sizeof container);
  clirun_url(container, "cred.mdf", url, sizeof url);
  clirun_url(container, NULL, curl, sizeof curl);
  XIO(&r, "create", url, "--size", "1M");
  EXPECT_EXIT(&r, 0);
  char *tok = make_sas(container, NULL, "rl", time(NULL) + 3600);
  snprintf(json, sizeof json, "{\"%s\": \"%s\"}", curl, tok);
  clirun_path("creds.json", path, sizeof path);
  clirun_write_private_file(path, json, strlen(json));
  XIO_ENV(&r, CLIRUN_NO_CREDS, NULL, "--credentials", path, "stat", url);
  EXPECT_EXIT(&r, 0);
  char var[300];
  snprintf(var, sizeof var, "XIO_CREDENTIALS=%s", path);
  const char *env[] = {var, NULL};
  XIO_ENV(&r, CLIRUN_NO_CREDS, env, "stat", url);
  EXPECT_EXIT(&r, 0);
  XIO_ENV(&r, CLIRUN_NO_CREDS, NULL, "stat", url);
  EXPECT_EXIT(&r, 1); /* anonymous: the emulator refuses */
  free(tok);
  clirun_free(&r);
}

/* No credential at all: the request goes anonymously, and its refusal is "no
 * credential" (XIO_ENOCRED, reason NO_CREDENTIAL_SENT), never "authentication
 * failed"; over http the hint offers no `az login` (tokens go only over https). */
TEST(no_credential_is_not_an_authentication_failure) {
  clirun r = {0};
  char container[64], url[512];
  clirun_container(container, sizeof container);
  clirun_url(container, "nocred.mdf", url, sizeof url);
  XIO(&r, "create", url, "--size", "1M");
  EXPECT_EXIT(&r, 0);
  XIO_ENV(&r, CLIRUN_NO_CREDS, NULL, "stat", url);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "no credential applies to this URL");
  ASSERT_CONTAINS(r.err, "hint: set AZURE_STORAGE_CONNECTION_STRING");
  ASSERT(!strstr(r.err, "authentication failed"));
  ASSERT(!strstr(r.err, "az login"));
  XIO_ENV(&r, CLIRUN_NO_CREDS, NULL, "--json", "stat", url);
  EXPECT_EXIT(&r, 1);
  cJSON *j = clirun_json(&r);
  const cJSON *e = cJSON_GetObjectItem(j, "error");
  ASSERT_STR_EQ(clirun_str(e, "code"), "XIO_ENOCRED");
  ASSERT_STR_EQ(clirun_str(e, "reason"), "XIO_REASON_NO_CREDENTIAL_SENT");
  cJSON_Delete(j);
  clirun_free(&r);
}

/* AZURE_STORAGE_ACCOUNT naming the URL's account without a key or SAS is refused
 * before anything is sent, naming the variables, instead of going anonymously. */
TEST(account_without_key_or_sas_is_refused) {
  clirun r = {0};
  char container[64], url[512];
  clirun_container(container, sizeof container);
  clirun_url(container, "partial.mdf", url, sizeof url);
  const char *env[] = {"AZURE_STORAGE_ACCOUNT=devstoreaccount1", NULL};
  XIO_ENV(&r, CLIRUN_NO_CREDS, env, "--trace", "-", "stat", url);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "neither AZURE_STORAGE_KEY nor AZURE_STORAGE_SAS_TOKEN is set");
  ASSERT(!strstr(r.err, "xio_send_complete")); /* nothing went out */
  clirun_free(&r);
}

/* A typo in the account's name: the emulator knows no such account
 * (ResourceNotFound), and the hint points at the account's name, not at a blob. */
TEST(misspelt_account_points_at_the_account_name) {
  clirun r = {0};
  char url[512];
  clirun_url("cont", "db.mdf", url, sizeof url);
  char *acct = strstr(url, "/devstoreaccount1/");
  ASSERT(acct != NULL);
  memcpy(acct, "/devstoreaccout11/", 18); /* same length, one letter moved */
  XIO(&r, "stat", url);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "ResourceNotFound");
  ASSERT_CONTAINS(r.err, "hint: nothing answers to this URL: check the account name");
  ASSERT_NOT_CONTAINS(r.err, "no such blob");
  clirun_free(&r);
}
