/*
 * localdest.c - where a transfer writes its local file. LOCAL is that file, unless
 * it names a directory (or ends with '/'): then the file goes into it under the
 * source's name, the last segment of the blob's name (decoded) or of the source's
 * path, as cp(1) does. What cannot be written there is refused before anything is
 * transferred: a place taken by a directory, a source with no name to take, a
 * LOCAL ending in '/' that names no directory.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <xio/alloc.h>
#include <xio/auth.h>

#include "cli.h"

/* A local path that cannot be written: XIO_EINVAL and a message naming it. */
static xio_err refuse(xio_error *err, const char *path, const char *why) {
  xio_error_set(err, XIO_EINVAL, "%s %s", path, why);
  xio_error_set_operation(err, "CreateLocalFile");
  return XIO_EINVAL;
}

/* The last '/'-separated segment of `s` (may be NULL); malloc'd, "" when there is
 * none. */
static xio_err last_segment(const char *s, char **out, xio_error *err) {
  if (!s) s = "";
  size_t n = strlen(s);
  while (n && s[n - 1] == '/')
    n--;
  size_t start = n;
  while (start && s[start - 1] != '/')
    start--;
  if (!(*out = xio_malloc(n - start + 1))) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  memcpy(*out, s + start, n - start);
  (*out)[n - start] = '\0';
  return XIO_OK;
}

/* The name of `source`: its blob's last segment (decoded), or its path's. */
static xio_err source_name(const char *source, char **out, xio_error *err) {
  *out = NULL;
  xio_target_parts p;
  xio_err rc = xio_target_parse(source, &p, err);
  if (rc == XIO_OK) rc = last_segment(p.kind == XIO_TARGET_LOCAL ? p.path : p.blob, out, err);
  xio_target_parts_clear(&p);
  return rc;
}

/* LOCAL is a directory (or says it is one with a final '/'): `out` = LOCAL/NAME. */
static xio_err into_directory(const char *local, const char *source, char **out, xio_error *err) {
  char *name;
  xio_err rc = source_name(source, &name, err);
  if (rc != XIO_OK) return rc;
  if (!name[0] || strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
    xio_free(name);
    return refuse(err, local,
                  "is a directory and the source names no file to make in it: give the "
                  "file's path");
  }
  size_t n = strlen(local);
  int slash = n && local[n - 1] == '/';
  size_t size = n + strlen(name) + 2;
  char *path = xio_malloc(size);
  if (path) snprintf(path, size, "%s%s%s", local, slash ? "" : "/", name);
  xio_free(name);
  if (!path) {
    xio_error_set(err, XIO_ENOMEM, "out of memory");
    return XIO_ENOMEM;
  }
  *out = path;
  return XIO_OK;
}

xio_err cli_local_dest(const char *local, const char *source, char **out, xio_error *err) {
  struct stat st;
  size_t n = strlen(local);
  *out = NULL;
  int found = stat(local, &st) == 0, e = errno;
  char *path = NULL;
  if (found && S_ISDIR(st.st_mode)) {
    xio_err rc = into_directory(local, source, &path, err);
    if (rc != XIO_OK) return rc;
  } else if (!found && n && local[n - 1] == '/') { /* says it is a directory, and is none */
    return xio_error_from_errno(err, e, "CreateLocalFile", "stat", local);
  } else if (!(path = xio_strdup(local))) {
    return xio_error_set(err, XIO_ENOMEM, "out of memory");
  }
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
    xio_err rc = refuse(err, path,
                        "is a directory: the file cannot take its place; remove it or give "
                        "another path");
    xio_free(path);
    return rc;
  }
  *out = path;
  return XIO_OK;
}
