/*
 * credfile_mode_test.c - a credential file must be its owner's alone, as ssh wants
 * its key files: one that group or others may read while it holds a secret (a SAS, a
 * key, a connection string), or may write whatever it holds, is refused before
 * anything is sent, by every command that reads it (the sas command too), with a
 * message naming the file, its mode and `chmod 600`; --allow-exposed-credentials or
 * XIO_ALLOW_EXPOSED_CREDENTIALS=1 loads it anyway, and a file that only names an
 * Entra ID method may be read by anyone.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <xio/auth.h>

#include "clirun.h"
#include "test.h"

/* A fresh blob and a credential file at `path`, mode `mode`, holding the dev key for
 * the emulator's account; `url` gets the blob's URL. */
static void key_file(const char *name, mode_t mode, char *path, size_t psize, char *url,
                     size_t usize) {
  char cont[64], json[1024];
  clirun r = {0};
  clirun_container(cont, sizeof cont);
  clirun_url(cont, "cred.mdf", url, usize);
  XIO(&r, "create", url, "--size", "64K");
  EXPECT_EXIT(&r, 0);
  clirun_free(&r);
  char prefix[600];
  clirun_url(cont, NULL, prefix, sizeof prefix);
  snprintf(json, sizeof json, "{\"%s\": {\"account\": \"%s\", \"key\": \"%s\"}}", prefix,
           XIO_AUTH_DEV_ACCOUNT, XIO_AUTH_DEV_KEY);
  clirun_path(name, path, psize);
  clirun_write_private_file(path, json, strlen(json));
  if (chmod(path, mode) != 0) FAIL("cannot chmod %s", path);
}

/* `xio --credentials path stat url` must fail, naming `path`, `mode` and `who` may
 * read or write it, and send nothing; --json names the reason. */
static void refused(const char *path, const char *url, const char *mode, const char *who) {
  clirun r = {0};
  XIO_ENV(&r, CLIRUN_NO_CREDS, NULL, "--credentials", path, "stat", url);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, path);
  ASSERT_CONTAINS(r.err, mode);
  ASSERT_CONTAINS(r.err, who);
  ASSERT_CONTAINS(r.err, "chmod 600");
  ASSERT_CONTAINS(r.err, "hint:");
  ASSERT_CONTAINS(r.err, "--allow-exposed-credentials");
  ASSERT_STR_EQ(r.trace, "");
  XIO_ENV(&r, CLIRUN_NO_CREDS, NULL, "--json", "--credentials", path, "stat", url);
  EXPECT_EXIT(&r, 1);
  cJSON *j = clirun_json(&r);
  const cJSON *e = cJSON_GetObjectItem(j, "error");
  ASSERT_STR_EQ(clirun_str(e, "code"), "XIO_EPERM");
  ASSERT_STR_EQ(clirun_str(e, "reason"), "XIO_REASON_CRED_FILE_EXPOSED");
  ASSERT_CONTAINS(clirun_str(e, "hint"), "--allow-exposed-credentials");
  cJSON_Delete(j);
  clirun_free(&r);
}

/* `xio [flag] --credentials path stat url` with `env` must read the blob's size. */
static void accepted(const char *path, const char *url, const char *const *env, const char *flag) {
  clirun r = {0};
  if (flag)
    XIO_ENV(&r, CLIRUN_NO_CREDS, env, flag, "--credentials", path, "stat", url);
  else
    XIO_ENV(&r, CLIRUN_NO_CREDS, env, "--credentials", path, "stat", url);
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.out, "65536");
  clirun_free(&r);
}

TEST(credential_file_with_a_secret_readable_by_others_refused) {
  char path[512], url[600];
  key_file("creds-644.json", 0644, path, sizeof path, url, sizeof url);
  refused(path, url, "mode 0644", "read by others");
  /* The sas command reads the file itself: no SAS either. */
  clirun r = {0};
  XIO_ENV(&r, CLIRUN_NO_CREDS, NULL, "--credentials", path, "sas", url, "--permissions", "r",
          "--expiry", "1h");
  EXPECT_EXIT(&r, 1);
  ASSERT_STR_EQ(r.out, "");
  ASSERT_CONTAINS(r.err, "chmod 600");
  clirun_free(&r);
  key_file("creds-640.json", 0640, path, sizeof path, url, sizeof url);
  refused(path, url, "mode 0640", "read by its group");
}

TEST(credential_file_writable_by_others_refused) {
  char path[512], url[600];
  key_file("creds-666.json", 0666, path, sizeof path, url, sizeof url);
  refused(path, url, "mode 0666", "written by others");
  key_file("creds-620.json", 0620, path, sizeof path, url, sizeof url);
  refused(path, url, "mode 0620", "written by its group");
  /* Even one without a secret: whoever may write it decides what signs requests. */
  char entra[512], json[256];
  snprintf(json, sizeof json,
           "{\"https://nokeys.blob.core.windows.net\": {\"entra\": \"managed_identity\"}}");
  clirun_path("entra-666.json", entra, sizeof entra);
  clirun_write_private_file(entra, json, strlen(json));
  if (chmod(entra, 0666) != 0) FAIL("cannot chmod %s", entra);
  refused(entra, url, "mode 0666", "written by others");
}

TEST(credential_file_private_or_allowed_loads) {
  char path[512], url[600];
  key_file("creds-600.json", 0600, path, sizeof path, url, sizeof url);
  accepted(path, url, NULL, NULL);
  key_file("creds-644-ok.json", 0644, path, sizeof path, url, sizeof url);
  accepted(path, url, NULL, "--allow-exposed-credentials");
  const char *allow[] = {"XIO_ALLOW_EXPOSED_CREDENTIALS=1", NULL};
  accepted(path, url, allow, NULL);
  const char *bad[] = {"XIO_ALLOW_EXPOSED_CREDENTIALS=yes", NULL};
  clirun r = {0};
  XIO_ENV(&r, CLIRUN_NO_CREDS, bad, "--credentials", path, "stat", url);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "XIO_ALLOW_EXPOSED_CREDENTIALS must be 0 or 1");
  clirun_free(&r);
  /* A file that names only an Entra ID method holds no secret: anyone may read it. */
  char entra[512], json[256];
  snprintf(json, sizeof json,
           "{\"https://nokeys.blob.core.windows.net\": {\"entra\": \"managed_identity\"}}");
  clirun_path("entra-644.json", entra, sizeof entra);
  clirun_write_private_file(entra, json, strlen(json));
  if (chmod(entra, 0644) != 0) FAIL("cannot chmod %s", entra);
  XIO(&r, "--credentials", entra, "stat", url); /* the dev connection string signs */
  EXPECT_EXIT(&r, 0);
  clirun_free(&r);
}
