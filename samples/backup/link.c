/*
 * link.c - one link of a backup chain (backup_int.h): its written ranges cut into
 * pieces, and its JSON form, which chain.json (chain.c) and pending.json (pending.c)
 * share:
 *   {"snapshot": ID, "time": ISO, "size": BYTES, "base": true|false,
 *    "data": "link-SEQ.data", "seq": SEQ,
 *    "written": [[START, END]...], "cleared": [[START, END]...],   (inclusive)
 *    "pieces": [{"offset": OFF, "length": LEN, "crc64": "16 hex digits"}...]}
 * The pieces of a link are the cut of its written ranges (bk_link_cut); a parse
 * checks that they are, so a manifest edited by hand cannot make a restore write
 * bytes at places the data file does not hold, and checks what the numbers promise
 * before anything is allocated from them.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <xio/alloc.h>

#include "backup_int.h"

#define BAD(...) xio_error_set(err, XIO_EPARSE, __VA_ARGS__)

void bk_link_free(bk_link *l) {
  if (!l) return;
  xio_ranges_clear(&l->written);
  xio_ranges_clear(&l->cleared);
  xio_free(l->pieces);
  memset(l, 0, sizeof *l);
}

uint64_t bk_count_pieces(const xio_ranges *written) {
  uint64_t n = 0;
  for (size_t i = 0; i < written->n; i++)
    n += (written->v[i].end - written->v[i].start) / BK_PIECE + 1;
  return n;
}

xio_err bk_link_cut(bk_link *l, xio_error *err) {
  uint64_t want = bk_count_pieces(&l->written);
  l->npieces = 0;
  l->verified = 0;
  if (want > l->cap) { /* one allocation, of what the ranges make */
    bk_piece *p =
        want <= SIZE_MAX / sizeof *p ? xio_realloc(l->pieces, (size_t)want * sizeof *p) : NULL;
    if (!p)
      return xio_error_set(err, XIO_ENOMEM, "out of memory for the %" PRIu64 " pieces of a link",
                           want);
    l->pieces = p;
    l->cap = (size_t)want;
  }
  uint64_t pos = 0;
  for (size_t i = 0; i < l->written.n; i++) {
    for (uint64_t off = l->written.v[i].start; off <= l->written.v[i].end;) {
      uint64_t len = l->written.v[i].end - off + 1;
      if (len > BK_PIECE) len = BK_PIECE;
      l->pieces[l->npieces++] = (bk_piece){off, len, pos, 0};
      pos += len;
      off += len;
    }
  }
  return XIO_OK;
}

uint64_t bk_link_bytes(const bk_link *l) {
  return l->npieces ? l->pieces[l->npieces - 1].pos + l->pieces[l->npieces - 1].len : 0;
}

/* ------------------------------------------------------------- JSON ---- */

void bk_json_u64(cJSON *o, const char *name, uint64_t v) {
  cJSON_AddNumberToObject(o, name, (double)v);
}

static cJSON *ranges_json(const xio_ranges *r) {
  cJSON *a = cJSON_CreateArray();
  for (size_t i = 0; a && i < r->n; i++) {
    cJSON *p = cJSON_CreateArray();
    cJSON_AddItemToArray(p, cJSON_CreateNumber((double)r->v[i].start));
    cJSON_AddItemToArray(p, cJSON_CreateNumber((double)r->v[i].end));
    cJSON_AddItemToArray(a, p);
  }
  return a;
}

cJSON *bk_link_json(const bk_link *l, size_t npieces) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "snapshot", l->snapshot);
  cJSON_AddStringToObject(o, "time", l->time);
  bk_json_u64(o, "size", l->size);
  cJSON_AddBoolToObject(o, "base", l->base);
  cJSON_AddStringToObject(o, "data", l->data);
  bk_json_u64(o, "seq", l->seq);
  cJSON_AddItemToObject(o, "written", ranges_json(&l->written));
  cJSON_AddItemToObject(o, "cleared", ranges_json(&l->cleared));
  cJSON *pieces = cJSON_AddArrayToObject(o, "pieces");
  for (size_t i = 0; pieces && i < npieces; i++) {
    cJSON *p = cJSON_CreateObject();
    char crc[17];
    snprintf(crc, sizeof crc, "%016" PRIx64, l->pieces[i].crc);
    bk_json_u64(p, "offset", l->pieces[i].off);
    bk_json_u64(p, "length", l->pieces[i].len);
    cJSON_AddStringToObject(p, "crc64", crc);
    cJSON_AddItemToArray(pieces, p);
  }
  return o;
}

/* ---------------------------------------------------------- parsing ---- */

int bk_json_get_u64(const cJSON *o, const char *name, uint64_t *out) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
  if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > 9007199254740992.0 ||
      (double)(uint64_t)v->valuedouble != v->valuedouble)
    return 0;
  *out = (uint64_t)v->valuedouble;
  return 1;
}

static int get_str(const cJSON *o, const char *name, char *out, size_t size) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
  if (!cJSON_IsString(v) || strlen(v->valuestring) >= size) return 0;
  memcpy(out, v->valuestring, strlen(v->valuestring) + 1);
  return 1;
}

static int get_ranges(const cJSON *o, const char *name, xio_ranges *r) {
  const cJSON *a = cJSON_GetObjectItemCaseSensitive(o, name);
  if (!cJSON_IsArray(a)) return 0;
  uint64_t last = 0;
  const cJSON *p;
  cJSON_ArrayForEach(p, a) {
    uint64_t v[2];
    const cJSON *s = cJSON_GetArrayItem(p, 0), *e = cJSON_GetArrayItem(p, 1);
    if (cJSON_GetArraySize(p) != 2 || !cJSON_IsNumber(s) || !cJSON_IsNumber(e) ||
        s->valuedouble < 0 || e->valuedouble < s->valuedouble ||
        e->valuedouble >= (double)XIO_FILE_MAX_SIZE)
      return 0; /* inside the largest page blob */
    v[0] = (uint64_t)s->valuedouble;
    v[1] = (uint64_t)e->valuedouble;
    if (r->n && v[0] <= last) return 0; /* sorted and apart */
    if (xio_ranges_add(r, v[0], v[1]) != XIO_OK) return 0;
    last = v[1];
  }
  return 1;
}

/* Reads the members of a link but its ranges and pieces; the name of the first that
 * is missing or malformed, or NULL. */
static const char *link_fields(const cJSON *o, bk_link *l) {
  const cJSON *base = cJSON_GetObjectItemCaseSensitive(o, "base");
  if (!get_str(o, "snapshot", l->snapshot, sizeof l->snapshot)) return "snapshot";
  if (!get_str(o, "time", l->time, sizeof l->time)) return "time";
  if (!get_str(o, "data", l->data, sizeof l->data)) return "data";
  if (!bk_json_get_u64(o, "size", &l->size)) return "size";
  if (!bk_json_get_u64(o, "seq", &l->seq)) return "seq";
  if (!cJSON_IsBool(base)) return "base";
  l->base = cJSON_IsTrue(base);
  return NULL;
}

/* Reads the link's ranges, which must lie inside the largest page blob. */
static xio_err link_ranges(const cJSON *o, bk_link *l, const char *file, xio_error *err) {
  const char *bad = !get_ranges(o, "written", &l->written)   ? "written"
                    : !get_ranges(o, "cleared", &l->cleared) ? "cleared"
                                                             : NULL;
  if (bad)
    return BAD("%s: link %s: \"%s\" is missing or malformed (ranges [start, end], sorted, "
               "apart, inside 8 TiB)",
               file, l->snapshot, bad);
  return XIO_OK;
}

/* Checks what the link's numbers promise before anything is allocated from them:
 * its ranges fit its size, and its pieces list (n entries) has as many pieces as
 * the cut of its ranges makes (`pending`: at most as many). */
static xio_err check_pieces(const bk_link *l, int n, int pending, const char *file,
                            xio_error *err) {
  if (l->written.n && l->written.v[l->written.n - 1].end >= l->size)
    return BAD("%s: link %s: \"written\" runs past its \"size\" %" PRIu64, file, l->snapshot,
               l->size);
  uint64_t want = bk_count_pieces(&l->written);
  if (n < 0 || (uint64_t)n > want || (!pending && (uint64_t)n != want))
    return BAD("%s: link %s: \"pieces\" has %d entries where its written ranges make %" PRIu64,
               file, l->snapshot, n, want);
  return XIO_OK;
}

xio_err bk_link_parse(const cJSON *o, bk_link *l, int pending, const char *file, xio_error *err) {
  const char *bad = link_fields(o, l);
  if (bad)
    return BAD("%s: link %s: \"%s\" is missing or malformed", file,
               l->snapshot[0] ? l->snapshot : "?", bad);
  if (l->size > XIO_FILE_MAX_SIZE)
    return BAD("%s: link %s: \"size\" %" PRIu64 " is past the largest page blob (8 TiB, %" PRIu64
               " bytes)",
               file, l->snapshot, l->size, (uint64_t)XIO_FILE_MAX_SIZE);
  if (strchr(l->data, '/') || strncmp(l->data, "link-", 5) != 0)
    return BAD("%s: link %s names a data file outside the chain", file, l->snapshot);
  const cJSON *pieces = cJSON_GetObjectItemCaseSensitive(o, "pieces"), *p;
  xio_err rc = link_ranges(o, l, file, err);
  if (rc == XIO_OK)
    rc = check_pieces(l, cJSON_IsArray(pieces) ? cJSON_GetArraySize(pieces) : -1, pending, file,
                      err);
  if (rc == XIO_OK) rc = bk_link_cut(l, err);
  if (rc != XIO_OK) return rc;
  size_t i = 0;
  cJSON_ArrayForEach(p, pieces) {
    uint64_t off = 0, len = 0;
    char crc[17], *end = NULL;
    if (!bk_json_get_u64(p, "offset", &off) || !bk_json_get_u64(p, "length", &len) ||
        !get_str(p, "crc64", crc, sizeof crc) || off != l->pieces[i].off ||
        len != l->pieces[i].len || strlen(crc) != 16)
      return BAD("%s: piece %zu of link %s does not match its ranges", file, i, l->snapshot);
    l->pieces[i].crc = strtoull(crc, &end, 16);
    if (*end) return BAD("%s: piece %zu of link %s has a malformed crc64", file, i, l->snapshot);
    i++;
  }
  l->verified = i;
  return XIO_OK;
}
