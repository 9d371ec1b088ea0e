/*
 * chain.c - chain.json, the manifest of a backup chain (backup_int.h): its complete
 * links, oldest first, read and written with cJSON and replaced atomically
 * (files.c). Version 1:
 *   {"format": "xio-backup-chain", "version": 1, "source": URL, "kind": "data"|"log",
 *    "next": SEQ, "links": [LINK...]}
 * LINK is a link's JSON form (link.c); only the first is a base. A reader refuses
 * another format or version, and a link that is not whole (link.c says what is
 * checked), naming the file, the link and the field.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <xio/alloc.h>

#include "backup_int.h"

#define BAD(...) xio_error_set(err, XIO_EPARSE, __VA_ARGS__)

void bk_chain_free(bk_chain *ch) {
  if (!ch) return;
  for (size_t i = 0; i < ch->n; i++)
    bk_link_free(&ch->links[i]);
  xio_free(ch->links);
  xio_free(ch->dir);
  xio_free(ch->source);
  memset(ch, 0, sizeof *ch);
}

long bk_chain_find(const bk_chain *ch, const char *id) {
  for (size_t i = 0; i < ch->n; i++)
    if (strcmp(ch->links[i].snapshot, id) == 0) return (long)i;
  return -1;
}

xio_err bk_chain_save(const bk_chain *ch, xio_error *err) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "format", BK_FORMAT);
  cJSON_AddNumberToObject(o, "version", BK_VERSION);
  cJSON_AddStringToObject(o, "source", ch->source ? ch->source : "");
  cJSON_AddStringToObject(o, "kind", ch->kind == XIO_KIND_LOG ? "log" : "data");
  bk_json_u64(o, "next", ch->next);
  cJSON *links = cJSON_AddArrayToObject(o, "links");
  for (size_t i = 0; links && i < ch->n; i++)
    cJSON_AddItemToArray(links, bk_link_json(&ch->links[i], ch->links[i].npieces));
  return bk_write_json(ch->dir, BK_MANIFEST, o, err);
}

static xio_err parse_chain(bk_chain *ch, const cJSON *o, const char *file, xio_error *err) {
  const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(o, "format");
  uint64_t version = 0;
  if (!cJSON_IsString(fmt) || strcmp(fmt->valuestring, BK_FORMAT) != 0)
    return BAD("%s is not the manifest of an xio backup chain", file);
  if (!bk_json_get_u64(o, "version", &version) || version != BK_VERSION)
    return BAD("%s is of format version %" PRIu64 "; this xio reads version %d", file, version,
               BK_VERSION);
  const cJSON *src = cJSON_GetObjectItemCaseSensitive(o, "source");
  const cJSON *kind = cJSON_GetObjectItemCaseSensitive(o, "kind");
  const cJSON *links = cJSON_GetObjectItemCaseSensitive(o, "links"), *lo;
  if (!cJSON_IsString(src) || !cJSON_IsString(kind) || !bk_json_get_u64(o, "next", &ch->next) ||
      !cJSON_IsArray(links))
    return BAD("%s lacks its source, kind, next or links", file);
  ch->source = xio_strdup(src->valuestring);
  ch->kind = strcmp(kind->valuestring, "log") == 0 ? XIO_KIND_LOG : XIO_KIND_DATA;
  int n = cJSON_GetArraySize(links);
  ch->links = xio_calloc((size_t)n + 1, sizeof *ch->links);
  if (!ch->source || !ch->links)
    return xio_error_set(err, XIO_ENOMEM, "out of memory reading %s", file);
  cJSON_ArrayForEach(lo, links) {
    xio_err rc = bk_link_parse(lo, &ch->links[ch->n++], 0, file, err);
    if (rc != XIO_OK) return rc;
    if (ch->links[ch->n - 1].base != (ch->n == 1))
      return BAD("%s: only the first link is a base", file);
  }
  return XIO_OK;
}

xio_err bk_chain_load(bk_chain *ch, const char *dir, int missing_ok, xio_error *err) {
  memset(ch, 0, sizeof *ch);
  ch->dir = xio_strdup(dir);
  if (!ch->dir) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  ch->next = 1;
  char *text = bk_read_text(dir, BK_MANIFEST, err);
  if (!text) {
    if (err && err->code == XIO_ENOTFOUND && missing_ok) {
      xio_error_clear(err);
      return XIO_OK;
    }
    if (err && err->code == XIO_ENOTFOUND) {
      xio_error_set(err, XIO_ENOTFOUND, "no backup chain in %.400s (it has no %s)", dir,
                    BK_MANIFEST);
      xio_error_set_operation(err, "ReadManifest");
    }
    return err ? err->code : XIO_EIO;
  }
  cJSON *o = cJSON_Parse(text);
  xio_free(text);
  char file[4096];
  snprintf(file, sizeof file, "%s/%s", dir, BK_MANIFEST);
  xio_err rc = o ? parse_chain(ch, o, file, err) : BAD("%s is not valid JSON", file);
  cJSON_Delete(o);
  if (rc != XIO_OK) xio_error_set_operation(err, "ReadManifest");
  return rc;
}
