/*
 * pending.c - pending.json, the link a backup run is making (backup_int.h): written
 * before its first byte is read and replaced atomically (files.c) as its pieces are
 * written and checked, removed once the link has joined chain.json. Version 1 is a
 * LINK (link.c) whose "pieces" lists only those written and checked, with
 * "format": "xio-backup-pending", "version": 1 and "source": URL (the log-safe URL
 * of the blob it is of, so that a backup of another blob into the same directory
 * is refused). The unversioned pending.json of older xio is a LINK alone: it is
 * read, its source unknown.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <xio/alloc.h>

#include "backup_int.h"

#define BAD(...) xio_error_set(err, XIO_EPARSE, __VA_ARGS__)

xio_err bk_pending_save(const char *dir, const bk_link *l, const char *source, xio_error *err) {
  cJSON *o = bk_link_json(l, l->verified);
  cJSON_AddStringToObject(o, "format", BK_PENDING_FORMAT);
  cJSON_AddNumberToObject(o, "version", BK_PENDING_VERSION);
  cJSON_AddStringToObject(o, "source", source);
  return bk_write_json(dir, BK_PENDING, o, err);
}

xio_err bk_pending_remove(const char *dir, xio_error *err) {
  char path[4096];
  xio_err rc = bk_path(dir, BK_PENDING, path, sizeof path, err);
  if (rc != XIO_OK) return rc;
  if (unlink(path) != 0 && errno != ENOENT)
    return xio_error_from_errno(err, errno, "WriteManifest", "unlink", path);
  return bk_sync_dir(dir, err);
}

/* The source pending.json records: none in the unversioned layout of older xio
 * (*source NULL), else checks its format and version. */
static xio_err pending_source(const cJSON *o, char **source, const char *file, xio_error *err) {
  const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(o, "format");
  const cJSON *src = cJSON_GetObjectItemCaseSensitive(o, "source");
  uint64_t version = 0;
  *source = NULL;
  if (!fmt) return XIO_OK;
  if (!cJSON_IsString(fmt) || strcmp(fmt->valuestring, BK_PENDING_FORMAT) != 0)
    return BAD("%s is not the unfinished link of an xio backup chain", file);
  if (!bk_json_get_u64(o, "version", &version) || version != BK_PENDING_VERSION)
    return BAD("%s is of format version %" PRIu64 "; this xio reads version %d", file, version,
               BK_PENDING_VERSION);
  if (!cJSON_IsString(src) || !src->valuestring[0])
    return BAD("%s: \"source\" is missing or malformed", file);
  *source = xio_strdup(src->valuestring);
  return *source ? XIO_OK : xio_error_set(err, XIO_ENOMEM, "out of memory reading %s", file);
}

xio_err bk_pending_load(const char *dir, bk_link *l, char **source, xio_error *err) {
  memset(l, 0, sizeof *l);
  *source = NULL;
  char *text = bk_read_text(dir, BK_PENDING, err);
  if (!text) return err ? err->code : XIO_EIO;
  cJSON *o = cJSON_Parse(text);
  xio_free(text);
  char file[4096];
  snprintf(file, sizeof file, "%s/%s", dir, BK_PENDING);
  xio_err rc = o ? pending_source(o, source, file, err) : BAD("%s is not valid JSON", file);
  if (rc == XIO_OK) rc = bk_link_parse(o, l, 1, file, err);
  cJSON_Delete(o);
  if (rc != XIO_OK) {
    xio_free(*source);
    *source = NULL;
    xio_error_set_operation(err, "ReadManifest");
  }
  return rc;
}
