/*
 * chain.c - the manifest of a backup chain (backup_int.h): chain.json and pending.json
 * in the chain's directory, read and written with cJSON, and the small file-system
 * steps around them (atomic replace, directory fsync, removal of data files no link
 * names).
 *
 * chain.json, version 1:
 *   {"format": "xio-backup-chain", "version": 1, "source": URL, "kind": "data"|"log",
 *    "next": SEQ, "links": [LINK...]}
 * LINK:
 *   {"snapshot": ID, "time": ISO, "size": BYTES, "base": true|false,
 *    "data": "link-SEQ.data", "seq": SEQ,
 *    "written": [[START, END]...], "cleared": [[START, END]...],   (inclusive)
 *    "pieces": [{"offset": OFF, "length": LEN, "crc64": "16 hex digits"}...]}
 * pending.json, version 1, is one LINK whose "pieces" lists only those written and
 * checked, with "format": "xio-backup-pending", "version": 1 and "source": URL (the
 * blob it is of). The unversioned pending.json of older xio is a LINK alone: it is
 * read, its source unknown.
 * The pieces of a link are the cut of its written ranges (bk_link_cut); a load
 * checks that they are, so a manifest edited by hand cannot make a restore write
 * bytes at places the data file does not hold.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <xio/alloc.h>

#include "backup_int.h"

void bk_link_free(bk_link *l) {
  if (!l) return;
  xio_ranges_clear(&l->written);
  xio_ranges_clear(&l->cleared);
  xio_free(l->pieces);
  memset(l, 0, sizeof *l);
}

void bk_chain_free(bk_chain *ch) {
  if (!ch) return;
  for (size_t i = 0; i < ch->n; i++)
    bk_link_free(&ch->links[i]);
  xio_free(ch->links);
  xio_free(ch->dir);
  xio_free(ch->source);
  memset(ch, 0, sizeof *ch);
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

xio_err bk_path(const char *dir, const char *name, char *out, size_t size, xio_error *err) {
  int n = snprintf(out, size, "%s/%s", dir, name);
  if (n < 0 || (size_t)n >= size)
    return xio_error_set(err, XIO_EINVAL, "the path %.200s/%.60s is too long", dir, name);
  return XIO_OK;
}

long bk_chain_find(const bk_chain *ch, const char *id) {
  for (size_t i = 0; i < ch->n; i++)
    if (strcmp(ch->links[i].snapshot, id) == 0) return (long)i;
  return -1;
}

/* ------------------------------------------------------------ files ---- */

int bk_open_private(const char *path, int flags) {
  int fd = open(path, flags | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  /* A file made before (by an older xio), or under a umask that took the owner's
   * bits: 0600 now. A file system that takes no mode keeps what it gave. */
  if (fd >= 0) (void)fchmod(fd, 0600);
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

/* The whole of DIR/NAME, NUL-terminated (malloc'd), or NULL with the error set
 * (XIO_ENOTFOUND when it does not exist). */
static char *read_text(const char *dir, const char *name, xio_error *err) {
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

/* ------------------------------------------------------------- JSON ---- */

/* A number that fits a double exactly (sizes up to 8 TiB do). */
static void json_u64(cJSON *o, const char *name, uint64_t v) {
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

static cJSON *link_json(const bk_link *l, size_t npieces) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "snapshot", l->snapshot);
  cJSON_AddStringToObject(o, "time", l->time);
  json_u64(o, "size", l->size);
  cJSON_AddBoolToObject(o, "base", l->base);
  cJSON_AddStringToObject(o, "data", l->data);
  json_u64(o, "seq", l->seq);
  cJSON_AddItemToObject(o, "written", ranges_json(&l->written));
  cJSON_AddItemToObject(o, "cleared", ranges_json(&l->cleared));
  cJSON *pieces = cJSON_AddArrayToObject(o, "pieces");
  for (size_t i = 0; pieces && i < npieces; i++) {
    cJSON *p = cJSON_CreateObject();
    char crc[17];
    snprintf(crc, sizeof crc, "%016" PRIx64, l->pieces[i].crc);
    json_u64(p, "offset", l->pieces[i].off);
    json_u64(p, "length", l->pieces[i].len);
    cJSON_AddStringToObject(p, "crc64", crc);
    cJSON_AddItemToArray(pieces, p);
  }
  return o;
}

static xio_err save_json(const char *dir, const char *name, cJSON *o, xio_error *err) {
  char *text = o ? cJSON_PrintUnformatted(o) : NULL;
  cJSON_Delete(o);
  if (!text) return xio_error_set(err, XIO_ENOMEM, "out of memory writing %s", name);
  xio_err rc = write_atomic(dir, name, text, err);
  cJSON_free(text);
  return rc;
}

xio_err bk_chain_save(const bk_chain *ch, xio_error *err) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "format", BK_FORMAT);
  cJSON_AddNumberToObject(o, "version", BK_VERSION);
  cJSON_AddStringToObject(o, "source", ch->source ? ch->source : "");
  cJSON_AddStringToObject(o, "kind", ch->kind == XIO_KIND_LOG ? "log" : "data");
  json_u64(o, "next", ch->next);
  cJSON *links = cJSON_AddArrayToObject(o, "links");
  for (size_t i = 0; links && i < ch->n; i++)
    cJSON_AddItemToArray(links, link_json(&ch->links[i], ch->links[i].npieces));
  return save_json(ch->dir, BK_MANIFEST, o, err);
}

xio_err bk_pending_save(const char *dir, const bk_link *l, const char *source, xio_error *err) {
  cJSON *o = link_json(l, l->verified);
  cJSON_AddStringToObject(o, "format", BK_PENDING_FORMAT);
  cJSON_AddNumberToObject(o, "version", BK_PENDING_VERSION);
  cJSON_AddStringToObject(o, "source", source);
  return save_json(dir, BK_PENDING, o, err);
}

xio_err bk_pending_remove(const char *dir, xio_error *err) {
  char path[4096];
  xio_err rc = bk_path(dir, BK_PENDING, path, sizeof path, err);
  if (rc != XIO_OK) return rc;
  if (unlink(path) != 0 && errno != ENOENT)
    return xio_error_from_errno(err, errno, "WriteManifest", "unlink", path);
  return bk_sync_dir(dir, err);
}

/* ---------------------------------------------------------- parsing ---- */

#define BAD(...) xio_error_set(err, XIO_EPARSE, __VA_ARGS__)

/* A whole number member in [0, 2^53]. */
static int get_u64(const cJSON *o, const char *name, uint64_t *out) {
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
  if (!get_u64(o, "size", &l->size)) return "size";
  if (!get_u64(o, "seq", &l->seq)) return "seq";
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

/* Reads a link; `pending` allows fewer pieces than the cut (those verified). */
static xio_err parse_link(const cJSON *o, bk_link *l, int pending, const char *file,
                          xio_error *err) {
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
    if (!get_u64(p, "offset", &off) || !get_u64(p, "length", &len) ||
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

static xio_err parse_chain(bk_chain *ch, const cJSON *o, const char *file, xio_error *err) {
  const cJSON *fmt = cJSON_GetObjectItemCaseSensitive(o, "format");
  uint64_t version = 0;
  if (!cJSON_IsString(fmt) || strcmp(fmt->valuestring, BK_FORMAT) != 0)
    return BAD("%s is not the manifest of an xio backup chain", file);
  if (!get_u64(o, "version", &version) || version != BK_VERSION)
    return BAD("%s is of format version %" PRIu64 "; this xio reads version %d", file, version,
               BK_VERSION);
  const cJSON *src = cJSON_GetObjectItemCaseSensitive(o, "source");
  const cJSON *kind = cJSON_GetObjectItemCaseSensitive(o, "kind");
  const cJSON *links = cJSON_GetObjectItemCaseSensitive(o, "links"), *lo;
  if (!cJSON_IsString(src) || !cJSON_IsString(kind) || !get_u64(o, "next", &ch->next) ||
      !cJSON_IsArray(links))
    return BAD("%s lacks its source, kind, next or links", file);
  ch->source = xio_strdup(src->valuestring);
  ch->kind = strcmp(kind->valuestring, "log") == 0 ? XIO_KIND_LOG : XIO_KIND_DATA;
  int n = cJSON_GetArraySize(links);
  ch->links = xio_calloc((size_t)n + 1, sizeof *ch->links);
  if (!ch->source || !ch->links)
    return xio_error_set(err, XIO_ENOMEM, "out of memory reading %s", file);
  cJSON_ArrayForEach(lo, links) {
    xio_err rc = parse_link(lo, &ch->links[ch->n++], 0, file, err);
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
  char *text = read_text(dir, BK_MANIFEST, err);
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
  if (!get_u64(o, "version", &version) || version != BK_PENDING_VERSION)
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
  char *text = read_text(dir, BK_PENDING, err);
  if (!text) return err ? err->code : XIO_EIO;
  cJSON *o = cJSON_Parse(text);
  xio_free(text);
  char file[4096];
  snprintf(file, sizeof file, "%s/%s", dir, BK_PENDING);
  xio_err rc = o ? pending_source(o, source, file, err) : BAD("%s is not valid JSON", file);
  if (rc == XIO_OK) rc = parse_link(o, l, 1, file, err);
  cJSON_Delete(o);
  if (rc != XIO_OK) {
    xio_free(*source);
    *source = NULL;
    xio_error_set_operation(err, "ReadManifest");
  }
  return rc;
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
