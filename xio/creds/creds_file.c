/*
 * creds_file.c - the credential file: read and parsed whole, and refused, as ssh
 * refuses such key files, when group or others may write it (they could change what
 * signs requests and where they go) or read it while it holds a secret, unless the
 * caller allows that. Watched for a context: loaded once when the context starts,
 * then looked at again (one stat) at most every recheck_ms, and re-read when its
 * size, mode, modification time or inode changed, or when a refused request asks
 * for it. A changed file that does not load leaves the entries that were there: a
 * file caught half written, or opened to others, never takes credentials away.
 */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "creds_int.h"

#define MAX_FILE  (16u << 20)
#define ENV_ALLOW "XIO_ALLOW_EXPOSED_CREDENTIALS"

/* Whether `flags` let a file others may read or write load: the flag, or, when asked,
 * XIO_ALLOW_EXPOSED_CREDENTIALS=1. Errors: XIO_EINVAL (the variable is not 0 or 1). */
static xio_err exposed_allowed(unsigned flags, int *allow, xio_error *err) {
  *allow = (flags & XIO_CRED_FILE_ALLOW_EXPOSED) != 0;
  const char *v = flags & XIO_CRED_FILE_ENVIRONMENT ? getenv(ENV_ALLOW) : NULL;
  if (!v || !*v || strcmp(v, "0") == 0) return XIO_OK;
  if (strcmp(v, "1") != 0) return xio_error_set(err, XIO_EINVAL, ENV_ALLOW " must be 0 or 1");
  *allow = 1;
  return XIO_OK;
}

/* The open file `f` whole, NUL-terminated (at most MAX_FILE bytes), or NULL with
 * `err` set. */
static char *read_all(FILE *f, const char *path, xio_error *err) {
  size_t cap = 4096, len = 0;
  char *buf = xio_malloc(cap);
  int too_big = 0;
  while (buf) {
    len += fread(buf + len, 1, cap - len - 1, f);
    if (len < cap - 1) break;
    too_big = cap >= MAX_FILE;
    char *bigger = too_big ? NULL : xio_realloc(buf, cap * 2);
    if (!bigger) xio_auth_secret_free(buf, cap);
    buf = bigger;
    cap *= 2;
  }
  if (too_big) {
    xio_error_set(err, XIO_EIO, "the credential file %s is larger than %u MiB", path,
                  MAX_FILE >> 20);
    return NULL;
  }
  if (!buf || ferror(f)) {
    if (buf) xio_auth_secret_free(buf, cap);
    xio_error_set(err, buf ? XIO_EIO : XIO_ENOMEM, "cannot read the credential file %s", path);
    return NULL;
  }
  buf[len] = '\0';
  return buf;
}

/* Refuses a file that group or others may write (they could change what signs
 * requests and where they go), whatever it holds. Errors: XIO_EPERM. */
static xio_err check_writers(const char *path, mode_t mode, xio_error *err) {
  if (!(mode & (S_IWGRP | S_IWOTH))) return XIO_OK;
  xio_error_set(err, XIO_EPERM,
                "the credential file %s may be written by %s (mode %04o), who could "
                "change what signs requests and where they go: make it the owner's "
                "alone with chmod 600 %s",
                path, mode & S_IWOTH ? "others" : "its group", (unsigned)(mode & 07777), path);
  xio_error_set_reason(err, XIO_REASON_CRED_FILE_EXPOSED);
  return XIO_EPERM;
}

/* Refuses a file that holds a secret (SAS, key, connection string) and that group
 * or others may read, as ssh refuses such key files. Errors: XIO_EPERM. */
static xio_err check_readers(const char *path, mode_t mode, const xio_auth_credstore *s,
                             xio_error *err) {
  if (!(mode & (S_IRGRP | S_IROTH)) || !xio_auth_credstore_has_secret(s)) return XIO_OK;
  xio_error_set(err, XIO_EPERM,
                "the credential file %s holds a secret and may be read by %s (mode "
                "%04o): make it the owner's alone with chmod 600 %s",
                path, mode & S_IROTH ? "others" : "its group", (unsigned)(mode & 07777), path);
  xio_error_set_reason(err, XIO_REASON_CRED_FILE_EXPOSED);
  return XIO_EPERM;
}

/* Reads the open file `f` (its mode `mode`) and parses it into a new store. */
static xio_err load_open(FILE *f, const char *path, mode_t mode, int allow,
                         xio_auth_credstore **out, xio_error *err) {
  xio_err rc = allow ? XIO_OK : check_writers(path, mode, err);
  if (rc != XIO_OK) return rc;
  char *text = read_all(f, path, err);
  if (!text) return err && err->code ? err->code : XIO_EIO;
  xio_auth_credstore *s = xio_auth_credstore_new();
  rc = s ? xio_auth_credstore_load_json(s, text, err)
         : xio_error_set(err, XIO_ENOMEM, "out of memory");
  xio_auth_secret_free(text, strlen(text));
  if (rc == XIO_OK && !allow) rc = check_readers(path, mode, s, err);
  if (rc != XIO_OK) {
    xio_auth_credstore_free(s);
    return rc;
  }
  *out = s;
  return XIO_OK;
}

static xio_err load(const char *path, unsigned flags, xio_auth_credstore **out, xio_error *err) {
  int allow = 0;
  xio_err rc = exposed_allowed(flags, &allow, err);
  if (rc != XIO_OK) return rc;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  FILE *f = fd >= 0 && fstat(fd, &st) == 0 ? fdopen(fd, "rb") : NULL;
  if (!f) {
    if (fd >= 0) close(fd);
    return xio_error_set(err, XIO_EIO, "cannot open the credential file %s", path);
  }
  rc = load_open(f, path, st.st_mode, allow, out, err);
  fclose(f);
  return rc;
}

xio_err xio_cred_file_load(const char *path, unsigned flags, xio_auth_credstore **out,
                           xio_error *err) {
  if (out) *out = NULL;
  if (!path || !out) return xio_error_set(err, XIO_EINVAL, "missing argument");
  xio_err rc = load(path, flags, out, err);
  if (rc != XIO_OK) {
    xio_error_set_operation(err, "LoadCredentials");
    xio_error_set_target(err, path);
  }
  return rc;
}

static int same(const xio__credfile *f, const struct stat *st) {
  return f->dev == st->st_dev && f->ino == st->st_ino && f->size == st->st_size &&
         f->mode == st->st_mode && f->mtime.tv_sec == st->st_mtim.tv_sec &&
         f->mtime.tv_nsec == st->st_mtim.tv_nsec;
}

static void remember(xio__credfile *f, const struct stat *st) {
  f->dev = st->st_dev;
  f->ino = st->st_ino;
  f->size = st->st_size;
  f->mode = st->st_mode;
  f->mtime = st->st_mtim;
}

xio_err xio__credfile_open(xio__credfile *f, const char *path, unsigned flags, xio_error *err) {
  struct stat st;
  int allow = 0;
  memset(f, 0, sizeof *f);
  if (!(f->path = xio_strdup(path))) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  xio_err rc = exposed_allowed(flags, &allow, err);
  if (rc != XIO_OK) return rc;
  f->flags = allow ? XIO_CRED_FILE_ALLOW_EXPOSED : 0; /* the environment is read once */
  if (stat(path, &st) == 0) remember(f, &st);
  f->checked_ms = xio_auth_monotonic_us() / 1000;
  return xio_cred_file_load(path, f->flags, &f->store, err);
}

int xio__credfile_refresh(xio__credfile *f, int recheck_ms, int force, xio_error *err) {
  int64_t now = xio_auth_monotonic_us() / 1000;
  if (!force && now - f->checked_ms < recheck_ms) return 0;
  f->checked_ms = now;
  struct stat st;
  if (stat(f->path, &st) != 0) return 0; /* being replaced: look again later */
  if (!force && same(f, &st)) return 0;
  xio_auth_credstore *fresh = NULL;
  if (xio_cred_file_load(f->path, f->flags, &fresh, err) != XIO_OK) {
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
