/*
 * credfile_mode_test.c - the library's side of a credential file others may read or
 * write: xio_cred_file_load refuses one that group or others may write, and one they
 * may read that holds a secret, with XIO_EPERM naming the file, its mode and the
 * chmod that fixes it; the flag, or the environment variable when asked to read it,
 * allows it. A context refuses such a file when it starts (the option allows it),
 * and a file that is opened to others while a context uses it, or replaced by a file
 * others may write, is not read again: its earlier entries stay, and an event says
 * why. A file past the 16 MiB a credential file may have is named so, not taken for
 * a want of memory.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <xio/auth.h>
#include <xio/credentials.h>
#include <xio/xio.h>

#include "badinput.h"
#include "clirun.h"
#include "test.h"

#define KEY_ENTRY "{\"%s\": {\"account\": \"devstoreaccount1\", \"key\": \"%s\"}}"

/* Writes `json` to a fresh file of mode `mode`; `path` gets its name. */
static void write_mode(const char *json, mode_t mode, char *path, size_t size) {
  static int n;
  snprintf(path, size, "%s/mode-%d.json", clirun_dir(), n++);
  clirun_write_private_file(path, json, strlen(json));
  if (chmod(path, mode) != 0) FAIL("cannot chmod %s", path);
}

/* A file holding the dev key for the fixture container, of mode `mode`. */
static void key_file(mode_t mode, const char *key, char *path, size_t size) {
  char cont[512], json[1024];
  bi_expand("@C", cont, sizeof cont);
  snprintf(json, sizeof json, KEY_ENTRY, cont, key);
  write_mode(json, mode, path, size);
}

static xio_err load(const char *path, unsigned flags, xio_error *e) {
  xio_auth_credstore *s = NULL;
  xio_error_clear(e);
  xio_err rc = xio_cred_file_load(path, flags, &s, e);
  ASSERT((rc == XIO_OK) == (s != NULL));
  xio_auth_credstore_free(s);
  return rc;
}

static void expect_refused(const char *path, unsigned flags, const char *mode, const char *who) {
  xio_error e;
  ASSERT_ERR(load(path, flags, &e), XIO_EPERM, &e);
  ASSERT_CONTAINS(e.message, path);
  ASSERT_CONTAINS(e.message, mode);
  ASSERT_CONTAINS(e.message, who);
  ASSERT_CONTAINS(e.message, "chmod 600");
  ASSERT_STR_EQ(xio_reason_name(e.reason), "XIO_REASON_CRED_FILE_EXPOSED");
  ASSERT_STR_EQ(e.operation, "LoadCredentials");
  ASSERT_STR_EQ(e.target, path);
  ASSERT_STR_EQ(bi_secret_in(e.message), "");
}

TEST(credfile_load_refuses_what_others_may_read_or_write) {
  bi_setup();
  char path[512];
  xio_error e;
  key_file(0600, XIO_AUTH_DEV_KEY, path, sizeof path);
  ASSERT_OK(load(path, 0, &e), &e);
  key_file(0400, XIO_AUTH_DEV_KEY, path, sizeof path);
  ASSERT_OK(load(path, 0, &e), &e);
  key_file(0644, XIO_AUTH_DEV_KEY, path, sizeof path);
  expect_refused(path, 0, "mode 0644", "read by others");
  key_file(0604, XIO_AUTH_DEV_KEY, path, sizeof path);
  expect_refused(path, 0, "mode 0604", "read by others");
  key_file(0640, XIO_AUTH_DEV_KEY, path, sizeof path);
  expect_refused(path, 0, "mode 0640", "read by its group");
  key_file(0602, XIO_AUTH_DEV_KEY, path, sizeof path);
  expect_refused(path, 0, "mode 0602", "written by others");
  key_file(0660, XIO_AUTH_DEV_KEY, path, sizeof path);
  expect_refused(path, 0, "mode 0660", "written by its group");
  /* A SAS and a connection string are secrets too. */
  write_mode("{\"https://a.blob.core.windows.net/cc1\": \"sv=2022-11-02&sig=" BI_SECRET "\"}", 0644,
             path, sizeof path);
  expect_refused(path, 0, "mode 0644", "holds a secret");
  write_mode("{\"https://a.blob.core.windows.net\": {\"connection_string\": "
             "\"AccountName=a;AccountKey=" XIO_AUTH_DEV_KEY "\"}}",
             0644, path, sizeof path);
  expect_refused(path, 0, "mode 0644", "holds a secret");
  /* Naming an Entra ID method is no secret: others may read it, not write it. */
  write_mode("{\"https://a.blob.core.windows.net\": {\"entra\": \"azure_cli\"}}", 0644, path,
             sizeof path);
  ASSERT_OK(load(path, 0, &e), &e);
  write_mode("{\"https://a.blob.core.windows.net\": {\"entra\": \"azure_cli\"}}", 0666, path,
             sizeof path);
  expect_refused(path, 0, "mode 0666", "written by others");
}

TEST(credfile_load_allowed_by_flag_or_environment) {
  bi_setup();
  char path[512];
  xio_error e;
  key_file(0666, XIO_AUTH_DEV_KEY, path, sizeof path);
  ASSERT_OK(load(path, XIO_CRED_FILE_ALLOW_EXPOSED, &e), &e);
  setenv("XIO_ALLOW_EXPOSED_CREDENTIALS", "1", 1);
  ASSERT_OK(load(path, XIO_CRED_FILE_ENVIRONMENT, &e), &e);
  expect_refused(path, 0, "mode 0666", "written by others"); /* not asked to look */
  setenv("XIO_ALLOW_EXPOSED_CREDENTIALS", "0", 1);
  expect_refused(path, XIO_CRED_FILE_ENVIRONMENT, "mode 0666", "written by others");
  setenv("XIO_ALLOW_EXPOSED_CREDENTIALS", "yes", 1);
  ASSERT_ERR(load(path, XIO_CRED_FILE_ENVIRONMENT, &e), XIO_EINVAL, &e);
  ASSERT_CONTAINS(e.message, "XIO_ALLOW_EXPOSED_CREDENTIALS must be 0 or 1");
  unsetenv("XIO_ALLOW_EXPOSED_CREDENTIALS");
  xio_auth_credstore *s = NULL;
  ASSERT_ERR(xio_cred_file_load(NULL, 0, &s, &e), XIO_EINVAL, &e);
  ASSERT_ERR(xio_cred_file_load(path, 0, NULL, &e), XIO_EINVAL, &e);
}

static xio_err new_ctx(const char *path, int allow, int use_environment, xio_ctx **ctx,
                       xio_error *e) {
  xio_ctx_options o = xio_ctx_options_default();
  o.use_environment = use_environment;
  o.credential_file = path;
  o.allow_exposed_credential_file = allow;
  *ctx = NULL;
  return xio_ctx_new(&o, ctx, e);
}

TEST(credfile_context_option) {
  bi_setup();
  char path[512];
  xio_ctx *ctx;
  xio_error e;
  key_file(0644, XIO_AUTH_DEV_KEY, path, sizeof path);
  ASSERT_ERR(new_ctx(path, 0, 0, &ctx, &e), XIO_EPERM, &e);
  ASSERT_CONTAINS(e.message, "chmod 600");
  ASSERT(ctx == NULL);
  ASSERT_OK(new_ctx(path, 1, 0, &ctx, &e), &e);
  xio_ctx_free(ctx);
  setenv("XIO_ALLOW_EXPOSED_CREDENTIALS", "1", 1);
  ASSERT_ERR(new_ctx(path, 0, 0, &ctx, &e), XIO_EPERM, &e); /* the environment not read */
  ASSERT_OK(new_ctx(path, 0, 1, &ctx, &e), &e);
  xio_ctx_free(ctx);
  unsetenv("XIO_ALLOW_EXPOSED_CREDENTIALS");
}

typedef struct file_errors {
  pthread_mutex_t mu;
  int n;
  char message[512];
} file_errors;

static void on_event(const xio_cred_event *ev, void *ud) {
  file_errors *s = ud;
  if (strcmp(ev->event, XIO_CRED_FILE_ERROR) != 0) return;
  pthread_mutex_lock(&s->mu);
  s->n++;
  snprintf(s->message, sizeof s->message, "%s", ev->message);
  pthread_mutex_unlock(&s->mu);
}

/* Reads the fixture blob's first page through `f` (a request signed with whatever
 * the context's credential file says now). */
static void read_page(xio_file *f) {
  char page[512];
  size_t got = 0;
  xio_error e;
  ASSERT_OK(xio_file_read(f, 0, page, sizeof page, &got, &e), &e);
  ASSERT_EQ(got, sizeof page);
}

TEST(credfile_opened_to_others_is_not_read_again) {
  bi_setup();
  char path[512], cont[512], json[1024], blob[600];
  key_file(0600, XIO_AUTH_DEV_KEY, path, sizeof path);
  xio_ctx *ctx;
  xio_error e;
  ASSERT_OK(new_ctx(path, 0, 0, &ctx, &e), &e);
  file_errors ev = {PTHREAD_MUTEX_INITIALIZER, 0, ""};
  xio_cred_options co;
  xio_ctx_get_credential_options(ctx, &co);
  co.recheck_ms = 0; /* look at the file before every request */
  co.on_event = on_event;
  co.on_event_ud = &ev;
  ASSERT_OK(xio_ctx_set_credential_options(ctx, &co, &e), &e);
  bi_expand("@C/data.mdf", blob, sizeof blob);
  xio_open_options oo = xio_open_options_default();
  oo.flags = XIO_OPEN_READONLY;
  xio_file *f;
  ASSERT_OK(xio_file_open(ctx, blob, &oo, &f, &e), &e);
  read_page(f);
  /* Opened to others: not read again, the key read before still signs. */
  if (chmod(path, 0644) != 0) FAIL("cannot chmod %s", path);
  read_page(f);
  ASSERT_EQ(ev.n, 1);
  ASSERT_CONTAINS(ev.message, "mode 0644");
  /* Replaced, while others may write it, by an entry with another key: not read
   * either (the other key would be refused by the service). */
  bi_expand("@C", cont, sizeof cont);
  snprintf(json, sizeof json, KEY_ENTRY, cont, "QUJDREVGR0g=");
  FILE *fp = fopen(path, "w");
  if (!fp || fputs(json, fp) < 0 || fclose(fp) != 0) FAIL("cannot write %s", path);
  if (chmod(path, 0666) != 0) FAIL("cannot chmod %s", path);
  read_page(f);
  ASSERT_EQ(ev.n, 2);
  ASSERT_CONTAINS(ev.message, "written by others");
  ASSERT_OK(xio_file_close(f, &e), &e);
  xio_ctx_free(ctx);
}

TEST(credfile_larger_than_16_mib_named_so) {
  char path[512];
  size_t n = (16u << 20) + 4096;
  char *big = malloc(n + 1);
  ASSERT(big != NULL);
  memset(big, ' ', n);
  memcpy(big, "{}", 2);
  big[n] = '\0';
  snprintf(path, sizeof path, "%s/big.json", clirun_dir());
  clirun_write_private_file(path, big, n);
  free(big);
  xio_error e;
  ASSERT_ERR(load(path, 0, &e), XIO_EIO, &e);
  ASSERT_CONTAINS(e.message, "larger than 16 MiB");
}
