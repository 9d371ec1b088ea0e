/*
 * bkfix.c - the backup tests' fixtures (bkfix.h).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bkfix.h"
#include "cliproxy.h"
#include "test.h"
#include "util.h"

static xio_ctx *the_ctx;

static void free_ctx(void) { xio_ctx_free(the_ctx); }

xio_ctx *bkfix_ctx(void) {
  if (the_ctx) return the_ctx;
  xio_ctx_options o = xio_ctx_options_default();
  o.use_environment = 0;
  o.connection_string = test_dev_connection_string();
  xio_error e;
  ASSERT_OK(xio_ctx_new(&o, &the_ctx, &e), &e);
  atexit(free_ctx);
  return the_ctx;
}

void bkfix_url(const char *name, char *url, size_t size) {
  char container[64];
  clirun_container(container, sizeof container);
  clirun_url(container, name, url, size);
}

xio_file *bkfix_open(const char *url, uint64_t size) {
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_CREATE | XIO_OPEN_EXCLUSIVE;
  o.size = size;
  xio_file *f = NULL;
  xio_error e;
  ASSERT_OK(xio_file_open(bkfix_ctx(), url, &o, &f, &e), &e);
  return f;
}

void bkfix_write(xio_file *f, uint64_t off, uint64_t len, uint64_t seed) {
  char *buf = malloc(len);
  ASSERT(buf != NULL);
  test_fill_random(buf, len, seed);
  buf[0] = 1;
  xio_error e;
  ASSERT_OK(xio_file_write(f, off, buf, len, &e), &e);
  free(buf);
}

void bkfix_snapshot(xio_file *f, char *id) {
  xio_error e;
  ASSERT_OK(xio_file_wait(f, &e), &e);
  ASSERT_OK(xio_file_snapshot(f, id, 64, &e), &e);
}

void bkfix_get_snapshot(const char *url, const char *id, const char *path) {
  char snap[1024];
  snprintf(snap, sizeof snap, "%s?snapshot=%s", url, id);
  clirun r = {0};
  XIO(&r, "get", "--force", snap, path);
  EXPECT_EXIT(&r, 0);
  clirun_free(&r);
}

cJSON *bkfix_backup(const char *url, const char *dir, const char *extra) {
  clirun r = {0};
  if (extra)
    XIO(&r, "--json", "backup", url, dir, extra);
  else
    XIO(&r, "--json", "backup", url, dir);
  EXPECT_EXIT(&r, 0);
  cJSON *j = clirun_json(&r);
  clirun_free(&r);
  return j;
}

void bkfix_restore(const char *dir, const char *id, const char *target) {
  char arg[1024];
  snprintf(arg, sizeof arg, "%s%s%s", dir, id ? "@" : "", id ? id : "");
  clirun r = {0};
  XIO(&r, "--json", "restore", "--force", arg, target);
  EXPECT_EXIT(&r, 0);
  clirun_free(&r);
}

void bkfix_proxied(const char *direct, char *out, size_t size) {
  const char *b = strrchr(direct, '/'), *c = b - 1;
  while (c > direct && *c != '/')
    c--;
  char container[128];
  snprintf(container, sizeof container, "%.*s", (int)(b - c - 1), c + 1);
  cliproxy_url(container, b + 1, out, size);
}

void bkfix_unfinished(const char *proxied, const char *dir, const char *id) {
  char pending[600];
  snprintf(pending, sizeof pending, "%s/pending.json", dir);
  /* The GETs of a snapshot: its range listing (or diff), then its reads. */
  cliproxy_refuse("GET", "snapshot=", 1, 403, "AuthorizationPermissionMismatch");
  clirun r = {0};
  XIO_PROXIED(&r, "backup", proxied, dir, "--snapshot", id);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "AuthorizationPermissionMismatch");
  ASSERT(bkfix_exists(pending));
  clirun_free(&r);
}

int bkfix_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}
