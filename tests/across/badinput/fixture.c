/*
 * fixture.c - what every bad-input table shares (see badinput.h): the fixture
 * container with its two blobs and the local files, the placeholder expansion, the
 * checks that nothing was written and that no secret was printed, the fault proxy,
 * and the row tally.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <xio/auth.h>
#include <xio/url_int.h>

#include "badinput.h"
#include "clirun.h"
#include "faultproxy.h"
#include "test.h"
#include "util.h"

static char container[64];
static xio_ctx *ctx;
static faultproxy *proxy;
static unsigned char want[BI_FIXTURE_SIZE];
static char *read_sas; /* a real read-only SAS for the fixture container */

/* ---------------------------------------------------------- fixture ---- */

static void make_blob(const char *name, xio_kind kind) {
  char url[512];
  snprintf(url, sizeof url, "%s/%s/%s", test_account_url(), container, name);
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_CREATE_ONLY;
  o.kind = kind;
  o.size = BI_FIXTURE_SIZE;
  xio_file *f = NULL;
  xio_error e;
  ASSERT_OK(xio_file_open(ctx, url, &o, &f, &e), &e);
  ASSERT_OK(xio_file_write(f, 0, want, sizeof want, &e), &e);
  ASSERT_OK(xio_file_close(f, &e), &e);
}

static void free_ctx(void) {
  xio_ctx_free(ctx);
  faultproxy_free(proxy);
  free(read_sas);
}

/* Signs a container SAS that only reads, valid for an hour, with the dev key. */
static void make_read_sas(void) {
  unsigned char *key = NULL;
  size_t key_len = 0;
  xio_error e;
  ASSERT_OK(xio_auth_base64_decode(XIO_AUTH_DEV_KEY, &key, &key_len, &e), &e);
  xio_auth_sas_options o = xio_auth_sas_options_default();
  o.permissions = "rl";
  o.expiry = time(NULL) + 3600;
  ASSERT_OK(xio_auth_sas_generate_service(XIO_AUTH_DEV_ACCOUNT, key, key_len, container, NULL, &o,
                                          &read_sas, &e),
            &e);
  xio_auth_secret_free(key, key_len);
}

void bi_setup(void) {
  if (ctx) return; /* tests run in one process share the fixture */
  test_unique_name(container, sizeof container, "bi");
  test_fill_random(want, sizeof want, BI_FIXTURE_SEED);
  xio_ctx_options o = xio_ctx_options_default();
  o.use_environment = 0;
  o.connection_string = test_dev_connection_string();
  xio_error e;
  ASSERT_OK(xio_ctx_new(&o, &ctx, &e), &e);
  atexit(free_ctx);
  make_read_sas();
  make_blob("data.mdf", XIO_KIND_DATA);
  make_blob("log.ldf", XIO_KIND_LOG);
  char path[256];
  clirun_path("data.img", path, sizeof path);
  clirun_write_file(path, want, sizeof want);
  clirun_path("src.img", path, sizeof path);
  clirun_write_file(path, want, 4096);
  clirun_forbid(BI_SECRET);
}

xio_ctx *bi_ctx(void) { return ctx; }

/* ------------------------------------------------------ placeholders ---- */

static void repeat(char *buf, size_t size, char c, size_t n) {
  if (n >= size) n = size - 1;
  memset(buf, c, n);
  buf[n] = '\0';
}

/* The text placeholder `name` stands for. */
static const char *value_of(char name, char *buf, size_t size) {
  switch (name) {
  case 'A': return test_account_url();
  case 'C': snprintf(buf, size, "%s/%s", test_account_url(), container); return buf;
  case 'X':
    snprintf(buf, size, "%s/devstoreaccount1/%s", faultproxy_endpoint(bi_proxy()), container);
    return buf;
  case 'E': return test_endpoint();
  case 'D': return clirun_dir();
  case 'K': return XIO_AUTH_DEV_KEY;
  case 'S': return read_sas ? read_sas : "";
  case 'L': repeat(buf, size, 'b', 1025); return buf;
  default: return NULL;
  }
}

void bi_expand(const char *in, char *out, size_t size) {
  size_t k = 0;
  char buf[2048];
  for (const char *p = in; *p; p++) {
    const char *v = p[0] == '@' ? value_of(p[1], buf, sizeof buf) : NULL;
    if (v) {
      size_t n = strlen(v);
      if (k + n >= size) FAIL("expanding \"%s\": too long", in);
      memcpy(out + k, v, n);
      k += n;
      p++;
    } else {
      if (k + 1 >= size) FAIL("expanding \"%s\": too long", in);
      out[k++] = *p;
    }
  }
  out[k] = '\0';
}

/* ----------------------------------------------------------- checks ---- */

/* "" when `url` reads back as the fixture, else what differs. */
static const char *blob_changed(const char *name) {
  static char why[1600];
  char url[512];
  snprintf(url, sizeof url, "%s/%s/%s", test_account_url(), container, name);
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_READONLY;
  xio_file *f = NULL;
  xio_error e;
  xio_err rc = xio_file_open(ctx, url, &o, &f, &e);
  if (rc != XIO_OK) {
    char buf[1400];
    snprintf(why, sizeof why, "%s cannot be opened: %s", name,
             xio_error_format(&e, buf, sizeof buf));
    return why;
  }
  static unsigned char got[BI_FIXTURE_SIZE];
  size_t n = 0;
  uint64_t size = xio_file_size(f);
  rc = xio_file_read(f, 0, got, sizeof got, &n, &e);
  xio_file_close(f, NULL);
  if (size != BI_FIXTURE_SIZE) return snprintf(why, sizeof why, "%s has a new size", name), why;
  if (rc != XIO_OK || n != sizeof got || memcmp(got, want, sizeof got) != 0)
    return snprintf(why, sizeof why, "%s has new content", name), why;
  return "";
}

static const char *local_changed(void) {
  char path[256];
  clirun_path("data.img", path, sizeof path);
  FILE *f = fopen(path, "rb");
  static unsigned char got[BI_FIXTURE_SIZE + 1];
  size_t n = f ? fread(got, 1, sizeof got, f) : 0;
  if (f) fclose(f);
  if (n != BI_FIXTURE_SIZE || memcmp(got, want, n) != 0) return "the local data.img changed";
  return "";
}

/* Makes the fixture again after a row changed it, so that the next rows are judged
 * on their own. */
static void restore(void) {
  char url[512], path[256];
  const char *names[] = {"data.mdf", "log.ldf"};
  for (int i = 0; i < 2; i++) {
    snprintf(url, sizeof url, "%s/%s/%s", test_account_url(), container, names[i]);
    xio_file_delete(ctx, url, NULL);
    make_blob(names[i], i ? XIO_KIND_LOG : XIO_KIND_DATA);
  }
  clirun_path("data.img", path, sizeof path);
  clirun_write_file(path, want, sizeof want);
}

const char *bi_fixture_changed(void) {
  const char *why = blob_changed("data.mdf");
  if (!*why) why = blob_changed("log.ldf");
  if (!*why) why = local_changed();
  if (*why) restore();
  return why;
}

int bi_exists(const char *target) {
  char t[4096];
  bi_expand(target, t, sizeof t);
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_READONLY;
  xio_file *f = NULL;
  xio_error e;
  xio_err rc = xio_file_open(ctx, t, &o, &f, &e);
  if (rc == XIO_OK) xio_file_close(f, NULL);
  if (rc == XIO_OK || rc == XIO_ENOTFOUND) return rc == XIO_OK;
  char buf[1400];
  FAIL("cannot tell whether %s exists: %s", t, xio_error_format(&e, buf, sizeof buf));
}

const char *bi_secret_in(const char *text) {
  if (strstr(text, XIO_AUTH_DEV_KEY) || strstr(text, "Eby8vdM02xNOcqFlqUwJ")) return "the key";
  if (strstr(text, "sig=")) return "sig=";
  if (strstr(text, BI_SECRET)) return "a signature";
  return "";
}

struct faultproxy *bi_proxy(void) {
  if (!proxy && !(proxy = faultproxy_start(test_endpoint()))) FAIL("cannot start the proxy");
  return proxy;
}

/* ------------------------------------------------------------ tally ---- */

void bi_row_failed(bi_tally *t, int row, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "%s row %d: ", t->table, row + 1);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  t->failed++;
}

void bi_end(bi_tally *t) {
  printf("%s: %d rows, %d failed\n", t->table, t->rows, t->failed);
  if (t->failed)
    FAIL("%s: %d of %d rows answered badly (listed above)", t->table, t->failed, t->rows);
  if (t->rows == 0) FAIL("%s: no rows ran", t->table);
}

/* ------------------------------------------------------- library rows ---- */

void bi_run_api_rows(const char *name, const bi_api_row *rows, size_t n) {
  bi_tally t = {name, 0, 0};
  bi_setup();
  for (size_t i = 0; i < n; i++) {
    static char in[4096], phrase[1024];
    bi_expand(rows[i].in, in, sizeof in);
    bi_expand(rows[i].phrase, phrase, sizeof phrase);
    xio_error e;
    xio_error_clear(&e);
    xio_err rc = rows[i].fn(in, &e);
    const char *changed;
    char text[1600];
    xio_error_format(&e, text, sizeof text);
    t.rows++;
    if (*bi_secret_in(text))
      FAIL("%s row %zu: %s appears in the error: %s", name, i + 1, bi_secret_in(text), text);
    if (rc != rows[i].want)
      bi_row_failed(&t, (int)i, "\"%.80s\": %s, wanted %s: %s", in, xio_err_name(rc),
                    xio_err_name(rows[i].want), text);
    else if (e.code != rc)
      bi_row_failed(&t, (int)i, "\"%.80s\": the record holds %s, the call returned %s", in,
                    xio_err_name(e.code), xio_err_name(rc));
    else if (!strstr(e.message, phrase))
      bi_row_failed(&t, (int)i, "\"%.80s\": the message lacks \"%s\": %s", in, phrase, e.message);
    else if (*(changed = bi_fixture_changed()))
      bi_row_failed(&t, (int)i, "\"%.80s\": %s", in, changed);
    else if (bi_exists("@C/new.mdf"))
      bi_row_failed(&t, (int)i, "\"%.80s\": @C/new.mdf exists afterwards", in);
  }
  bi_end(&t);
}
