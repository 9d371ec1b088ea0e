/*
 * files.c - the file-system steps of a backup chain's directory (backup_int.h):
 * paths in it, files only their owner reads, manifests replaced atomically
 * (written to a temporary name, fsynced, renamed over, the directory fsynced) and
 * read whole, scratch files that vanish with the process, and the sweep of the data
 * files no link names.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <xio/alloc.h>

#include "backup_int.h"

xio_err bk_path(const char *dir, const char *name, char *out, size_t size, xio_error *err) {
  int n = snprintf(out, size, "%s/%s", dir, name);
  if (n < 0 || (size_t)n >= size)
    return xio_error_set(err, XIO_EINVAL, "the path %.200s/%.60s is too long", dir, name);
  return XIO_OK;
}

int bk_open_private(const char *path, int flags) {
  int fd = open(path, flags | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  /* A file made before (by an older xio), or under a umask that took the owner's
   * bits: 0600 now. A file system that takes no mode keeps what it gave. */
  if (fd >= 0) (void)fchmod(fd, 0600);
  return fd;
}

/* A file in DIR for the rebuilt state that vanishes with the process: O_TMPFILE,
 * else a named temporary file unlinked at once. */
int bk_scratch(const char *dir) {
  int fd = open(dir, O_RDWR | O_TMPFILE | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
  char path[4200];
  snprintf(path, sizeof path, "%s/rebuild-XXXXXX", dir);
  fd = mkstemp(path);
  if (fd >= 0) unlink(path);
  return fd;
}

xio_err bk_sync_dir(const char *dir, xio_error *err) {
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return xio_error_from_errno(err, errno, "SyncDirectory", "open", dir);
  int r = fsync(fd);
  int e = errno;
  close(fd);
  if (r != 0 && e != EINVAL) return xio_error_from_errno(err, e, "SyncDirectory", "fsync", dir);
  return XIO_OK;
}

/* Writes `text` to DIR/NAME through DIR/NAME.tmp: written, fsynced, renamed over,
 * the directory fsynced. */
static xio_err write_atomic(const char *dir, const char *name, const char *text, xio_error *err) {
  char path[4096], tmp[4200];
  xio_err rc = bk_path(dir, name, path, sizeof path, err);
  if (rc != XIO_OK) return rc;
  snprintf(tmp, sizeof tmp, "%s.tmp", path);
  int fd = bk_open_private(tmp, O_WRONLY | O_TRUNC);
  if (fd < 0) return xio_error_from_errno(err, errno, "WriteManifest", "open", tmp);
  size_t n = strlen(text);
  for (size_t done = 0; done < n;) {
    ssize_t k = write(fd, text + done, n - done);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) {
      rc = xio_error_from_errno(err, k < 0 ? errno : EIO, "WriteManifest", "write", tmp);
      break;
    }
    done += (size_t)k;
  }
  if (rc == XIO_OK && fsync(fd) != 0)
    rc = xio_error_from_errno(err, errno, "WriteManifest", "fsync", tmp);
  close(fd);
  if (rc == XIO_OK && rename(tmp, path) != 0)
    rc = xio_error_from_errno(err, errno, "WriteManifest", "rename", path);
  if (rc != XIO_OK) {
    unlink(tmp);
    return rc;
  }
  return bk_sync_dir(dir, err);
}

xio_err bk_write_json(const char *dir, const char *name, cJSON *o, xio_error *err) {
  char *text = o ? cJSON_PrintUnformatted(o) : NULL;
  cJSON_Delete(o);
  if (!text) return xio_error_set(err, XIO_ENOMEM, "out of memory writing %s", name);
  xio_err rc = write_atomic(dir, name, text, err);
  cJSON_free(text);
  return rc;
}

char *bk_read_text(const char *dir, const char *name, xio_error *err) {
  char path[4096];
  if (bk_path(dir, name, path, sizeof path, err) != XIO_OK) return NULL;
  FILE *f = fopen(path, "re");
  if (!f) {
    xio_error_from_errno(err, errno, "ReadManifest", "open", path);
    return NULL;
  }
  size_t cap = 1 << 16, n = 0;
  char *buf = xio_malloc(cap);
  while (buf) {
    n += fread(buf + n, 1, cap - n - 1, f);
    if (n < cap - 1) break;
    char *b = xio_realloc(buf, cap * 2);
    if (!b) xio_free(buf);
    buf = b;
    cap *= 2;
  }
  int bad = ferror(f);
  fclose(f);
  if (!buf) {
    xio_error_set(err, XIO_ENOMEM, "out of memory reading %.400s", path);
    return NULL;
  }
  if (bad) {
    xio_free(buf);
    xio_error_set(err, XIO_EIO, "cannot read %.400s", path);
    return NULL;
  }
  buf[n] = '\0';
  return buf;
}

/* ------------------------------------------------------------ sweep ---- */

static int named(const bk_chain *ch, const bk_link *pending, const char *name) {
  char partial[BK_NAME_MAX + 16];
  for (size_t i = 0; i < ch->n; i++)
    if (strcmp(ch->links[i].data, name) == 0) return 1;
  if (!pending) return 0;
  snprintf(partial, sizeof partial, "%s.partial", pending->data);
  return strcmp(pending->data, name) == 0 || strcmp(partial, name) == 0;
}

void bk_sweep(const bk_chain *ch, const bk_link *pending) {
  DIR *d = opendir(ch->dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    size_t n = strlen(e->d_name);
    int data = n > 10 && strcmp(e->d_name + n - 5, ".data") == 0;
    int partial = n > 18 && strcmp(e->d_name + n - 13, ".data.partial") == 0;
    if (strncmp(e->d_name, "link-", 5) != 0 || !(data || partial) || named(ch, pending, e->d_name))
      continue;
    unlinkat(dirfd(d), e->d_name, 0);
  }
  closedir(d);
}
