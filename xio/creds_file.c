/*
 * creds_file.c - the credential file, watched: loaded once when the context starts,
 * then looked at again (one stat) at most every recheck_ms, and re-read when its
 * size, modification time or inode changed, or when a refused request asks for it.
 * A changed file that does not load leaves the entries that were there: a file
 * caught half written never takes credentials away.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "creds_int.h"

#define MAX_FILE (16u << 20)

static int64_t mono_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static char *read_all(const char *path, xio_error *err) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    xio_error_set(err, XIO_EIO, "cannot open the credential file %s", path);
    return NULL;
  }
  size_t cap = 4096, len = 0;
  char *buf = xio_malloc(cap);
  while (buf) {
    len += fread(buf + len, 1, cap - len - 1, f);
    if (len < cap - 1) break;
    char *bigger = cap < MAX_FILE ? xio_realloc(buf, cap * 2) : NULL;
    if (!bigger) xio_auth_secret_free(buf, cap);
    buf = bigger;
    cap *= 2;
  }
  int failed = ferror(f);
  fclose(f);
  if (!buf || failed) {
    if (buf) xio_auth_secret_free(buf, cap);
    xio_error_set(err, buf ? XIO_EIO : XIO_ENOMEM, "cannot read the credential file %s", path);
    return NULL;
  }
  buf[len] = '\0';
  return buf;
}

/* Reads and parses the file into a new store. */
static xio_err load(const char *path, xio_auth_credstore **out, xio_error *err) {
  *out = NULL;
  char *text = read_all(path, err);
  if (!text) return err && err->code ? err->code : XIO_EIO;
  xio_auth_credstore *s = xio_auth_credstore_new();
  xio_err rc = s ? xio_auth_credstore_load_json(s, text, err)
                 : xio_error_set(err, XIO_ENOMEM, "out of memory");
  xio_auth_secret_free(text, strlen(text));
  if (rc != XIO_OK) {
    xio_auth_credstore_free(s);
    return rc;
  }
  *out = s;
  return XIO_OK;
}

static int same(const xio__credfile *f, const struct stat *st) {
  return f->dev == st->st_dev && f->ino == st->st_ino && f->size == st->st_size &&
         f->mtime.tv_sec == st->st_mtim.tv_sec && f->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

static void remember(xio__credfile *f, const struct stat *st) {
  f->dev = st->st_dev;
  f->ino = st->st_ino;
  f->size = st->st_size;
  f->mtime = st->st_mtim;
}

xio_err xio__credfile_open(xio__credfile *f, const char *path, xio_error *err) {
  struct stat st;
  memset(f, 0, sizeof *f);
  if (!(f->path = xio_strdup(path))) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  if (stat(path, &st) == 0) remember(f, &st);
  f->checked_ms = mono_ms();
  return load(path, &f->store, err);
}

int xio__credfile_refresh(xio__credfile *f, int recheck_ms, int force, xio_error *err) {
  int64_t now = mono_ms();
  if (!force && now - f->checked_ms < recheck_ms) return 0;
  f->checked_ms = now;
  struct stat st;
  if (stat(f->path, &st) != 0) return 0; /* being replaced: look again later */
  if (!force && same(f, &st)) return 0;
  xio_auth_credstore *fresh = NULL;
  if (load(f->path, &fresh, err) != XIO_OK) {
    remember(f, &st); /* report a bad file once, not at every look */
    return -1;
  }
  xio_auth_credstore_free(f->store);
  f->store = fresh;
  remember(f, &st);
  return 1;
}

void xio__credfile_free(xio__credfile *f) {
  xio_auth_credstore_free(f->store);
  xio_free(f->path);
  memset(f, 0, sizeof *f);
}
