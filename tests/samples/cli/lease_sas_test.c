/*
 * lease_sas_test.c - leases and SAS tokens from the command line: the lease cycle
 * (acquire prints an id, renew, release, break), a leased file refused as "in use"
 * with a hint that names `xio lease break` and --break-lease taking it over; the
 * sas command signing blob and container URLs that then work without any other
 * credential, its SAS lacking a permission, and a missing account key.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xio/auth.h>

#include "clirun.h"
#include "test.h"

static void fresh_blob(const char *name, char *container, char *url, size_t size) {
  clirun_container(container, 64);
  clirun_url(container, name, url, size);
  clirun r = {0};
  XIO(&r, "create", url, "--size", "1M");
  EXPECT_EXIT(&r, 0);
  clirun_free(&r);
}

static void expect_lease_state(const char *url, const char *state) {
  clirun r = {0};
  XIO(&r, "--json", "stat", url);
  EXPECT_EXIT(&r, 0);
  cJSON *j = clirun_json(&r);
  ASSERT_STR_EQ(clirun_str(cJSON_GetObjectItem(j, "lease"), "state"), state);
  cJSON_Delete(j);
  clirun_free(&r);
}

/* The last line of `text`, without its newline, into `out`. */
static void chomp(const char *text, char *out, size_t size) {
  snprintf(out, size, "%s", text);
  out[strcspn(out, "\n")] = '\0';
}

TEST(lease_cycle) {
  clirun r = {0};
  char container[64], url[512], id[64];
  fresh_blob("leased.mdf", container, url, sizeof url);
  XIO(&r, "lease", "acquire", url);
  EXPECT_EXIT(&r, 0);
  chomp(r.out, id, sizeof id);
  ASSERT_EQ(strlen(id), 36);
  expect_lease_state(url, "leased");
  XIO(&r, "lease", "acquire", url);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "LeaseAlreadyPresent");
  ASSERT_CONTAINS(r.err, "xio lease break");
  XIO(&r, "lease", "renew", url, "--lease-id", id);
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.out, "renewed");
  XIO(&r, "lease", "release", url, "--lease-id", "00000000-0000-4000-8000-000000000000");
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "LeaseIdMismatch");
  XIO(&r, "lease", "release", url, "--lease-id", id);
  EXPECT_EXIT(&r, 0);
  expect_lease_state(url, "available");
  XIO(&r, "--json", "lease", "acquire", url, "--duration", "15", "--lease-id",
      "0f0e0d0c-0b0a-4908-8706-050403020100");
  EXPECT_EXIT(&r, 0);
  cJSON *j = clirun_json(&r);
  ASSERT_STR_EQ(clirun_str(j, "lease_id"), "0f0e0d0c-0b0a-4908-8706-050403020100");
  ASSERT(clirun_num(j, "duration") == 15);
  cJSON_Delete(j);
  XIO(&r, "lease", "break", url, "--break-period", "0");
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.out, "broke the lease");
  expect_lease_state(url, "broken");
  XIO(&r, "--quiet", "lease", "acquire", url);
  EXPECT_EXIT(&r, 0);
  ASSERT_EQ(strlen(r.out), 37); /* the id is what a script needs, even when quiet */
  clirun_free(&r);
}

TEST(leased_file_is_in_use_until_broken) {
  clirun r = {0};
  char container[64], url[512];
  fresh_blob("busy.mdf", container, url, sizeof url);
  XIO(&r, "lease", "acquire", url);
  EXPECT_EXIT(&r, 0);
  XIO(&r, "grow", url, "--size", "2M");
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "xio: grow failed: OpenFile:");
  ASSERT_CONTAINS(r.err, "in use");
  ASSERT_CONTAINS(r.err, "HTTP 409 LeaseAlreadyPresent, request id ");
  ASSERT_CONTAINS(r.err, "hint: the file is in use: another client holds its lease");
  ASSERT_CONTAINS(r.err, "`xio lease break TARGET`");
  XIO(&r, "zero", url, "--offset", "0", "--length", "512");
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "in use");
  XIO(&r, "rm", url);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "LeaseIdMissing");
  ASSERT_CONTAINS(r.err, "in use");
  XIO(&r, "grow", url, "--size", "2M", "--break-lease");
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.out, "grew");
  XIO(&r, "lease", "acquire", url);
  EXPECT_EXIT(&r, 0);
  XIO(&r, "rm", url, "--break-lease");
  EXPECT_EXIT(&r, 0);
  clirun_free(&r);
}

/* Runs the sas command and returns its URL (malloc'd); its signature is
 * registered so that no later output may contain it. */
static char *sas_url(const char *url, const char *perms, const char *expiry) {
  clirun r = {0};
  XIO_ENV(&r, CLIRUN_SECRET_STDOUT, NULL, "sas", url, "--permissions", perms, "--expiry", expiry);
  EXPECT_EXIT(&r, 0);
  ASSERT_STR_EQ(r.err, "");
  char *s = strdup(r.out);
  s[strcspn(s, "\n")] = '\0';
  ASSERT(strncmp(s, url, strlen(url)) == 0 && s[strlen(url)] == '?');
  const char *sig = strstr(s, "sig=");
  ASSERT(sig != NULL);
  clirun_forbid(sig + 4);
  clirun_free(&r);
  return s;
}

TEST(sas_for_a_blob_works_alone) {
  clirun r = {0};
  char container[64], url[512];
  fresh_blob("shared.mdf", container, url, sizeof url);
  char *s = sas_url(url, "r", "1h");
  ASSERT_CONTAINS(s, "sr=b");
  ASSERT_CONTAINS(s, "sp=r");
  XIO_ENV(&r, CLIRUN_NO_CREDS, NULL, "stat", s);
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.out, "1048576 bytes");
  ASSERT_CONTAINS(r.out, url); /* the target, printed without its query */
  XIO_ENV(&r, CLIRUN_NO_CREDS, NULL, "--json", "rm", s);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "permission 'd'");
  ASSERT_CONTAINS(r.err, "hint: the SAS lacks a permission");
  cJSON *j = clirun_json(&r);
  ASSERT_STR_EQ(clirun_str(cJSON_GetObjectItem(j, "error"), "code"), "XIO_EPERM");
  cJSON_Delete(j);
  free(s);
  clirun_free(&r);
}

TEST(sas_for_a_container) {
  clirun r = {0};
  char container[64], url[512], curl[512], blob[2048];
  fresh_blob("first.mdf", container, url, sizeof url);
  clirun_url(container, NULL, curl, sizeof curl);
  XIO_ENV(&r, CLIRUN_SECRET_STDOUT, NULL, "--json", "sas", curl, "--permissions", "rcwl",
          "--expiry", "30m", "--start", "2020-01-01T00:00:00Z");
  EXPECT_EXIT(&r, 0);
  cJSON *j = clirun_json(&r);
  ASSERT_STR_EQ(clirun_str(j, "resource"), "c");
  const char *full = clirun_str(j, "url");
  ASSERT_CONTAINS(full, "sr=c");
  ASSERT_CONTAINS(full, "st=2020-01-01");
  const char *q = strchr(full, '?');
  clirun_forbid(strstr(full, "sig=") + 4);
  snprintf(blob, sizeof blob, "%s/second.mdf%s", curl, q);
  cJSON_Delete(j);
  XIO_ENV(&r, CLIRUN_NO_CREDS, NULL, "create", blob, "--size", "4K");
  EXPECT_EXIT(&r, 0);
  clirun_url(container, "second.mdf", url, sizeof url);
  XIO(&r, "stat", url);
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.out, "4096 bytes");
  clirun_free(&r);
}

TEST(sas_needs_the_account_key) {
  clirun r = {0};
  const char *url = "http://127.0.0.1:1/devstoreaccount1/cont/b.mdf";
  XIO_ENV(&r, CLIRUN_NO_CREDS, NULL, "sas", url, "--permissions", "r", "--expiry", "1h");
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "account key");
  ASSERT_STR_EQ(r.out, "");
  const char *env[] = {"AZURE_STORAGE_ACCOUNT=devstoreaccount1",
                       "AZURE_STORAGE_KEY=" XIO_AUTH_DEV_KEY, NULL};
  XIO_ENV(&r, CLIRUN_NO_CREDS | CLIRUN_SECRET_STDOUT, env, "sas", url, "--permissions", "rw",
          "--expiry", "2h", "--https-only");
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.out, "spr=https");
  ASSERT_CONTAINS(r.out, "sp=rw");
  const char *other[] = {"AZURE_STORAGE_ACCOUNT=someoneelse", "AZURE_STORAGE_KEY=" XIO_AUTH_DEV_KEY,
                         NULL};
  XIO_ENV(&r, CLIRUN_NO_CREDS, other, "sas", url, "--permissions", "r", "--expiry", "1h");
  EXPECT_EXIT(&r, 1); /* a key is only used for its own account */
  XIO_ENV(&r, CLIRUN_NO_CREDS, env, "sas", url, "--permissions", "rq", "--expiry", "1h");
  EXPECT_EXIT(&r, 2);
  ASSERT_CONTAINS(r.err, "'q'");
  XIO(&r, "sas", "/tmp/local.mdf", "--permissions", "r", "--expiry", "1h");
  EXPECT_EXIT(&r, 2);
  clirun_free(&r);
}
