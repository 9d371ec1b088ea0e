/*
 * names.c - how the VFS reads the names SQLite gives it.
 *
 * A name that starts with http:// or https:// is a blob URL; anything else belongs
 * to the VFS that was the default before. SQLite names the journal and the WAL by
 * appending "-journal" or "-wal" to the database name as given, so with a SAS the
 * suffix lands at the end of the query ("...db?sv=..&sig=..-wal"): it is moved onto
 * the path ("...db-wal?sv=..&sig=.."), so the SAS reaches the right blob. The VFS's
 * own query parameters (xio_takeover, xio_cache_mb) are taken out before the URL
 * reaches storage; snapshot=ID stays, since it names what xio opens.
 *
 * A URI filename ("file:https://...db?vfs=xio&xio_takeover=1", opened with
 * SQLITE_OPEN_URI) reaches the VFS otherwise: SQLite takes the query for its own
 * parameters and hands xOpen the URL without it, the parameters readable through
 * sqlite3_uri_* on that name. xsq_name_uri reads the VFS's parameters from there.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sq_int.h"

int xsq_is_url(const char *name) {
  return name && (strncmp(name, "http://", 7) == 0 || strncmp(name, "https://", 8) == 0);
}

static int ends_with(const char *s, size_t n, const char *suffix) {
  size_t k = strlen(suffix);
  return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

/* Strips a role suffix off the end of name[0..*n). */
static xsq_role strip_role(const char *name, size_t *n) {
  if (ends_with(name, *n, "-journal")) {
    *n -= 8;
    return XSQ_JOURNAL;
  }
  if (ends_with(name, *n, "-wal")) {
    *n -= 4;
    return XSQ_WAL;
  }
  return XSQ_DB;
}

static int truthy(const char *v) { return v && *v && strcmp(v, "0") != 0; }

/* Handles one query parameter: the VFS's own are consumed (returns 1), others kept. */
static int own_param(const char *p, size_t len, xsq_name *out) {
  char buf[128];
  if (len >= sizeof buf) return 0;
  memcpy(buf, p, len);
  buf[len] = '\0';
  if (strncmp(buf, "xio_takeover=", 13) == 0) {
    out->takeover = truthy(buf + 13);
    return 1;
  }
  if (strncmp(buf, "xio_cache_mb=", 13) == 0) {
    char *end;
    long v = strtol(buf + 13, &end, 10);
    if (*end == '\0' && v >= 0) out->cache_mb = v;
    return 1;
  }
  if (strncmp(buf, "snapshot=", 9) == 0 && len - 9 < sizeof out->snapshot)
    memcpy(out->snapshot, buf + 9, len - 9 + 1);
  return 0;
}

/* Rebuilds the query without the VFS's parameters into `q` (size XSQ_NAME_MAX). */
static void filter_query(const char *query, size_t qlen, xsq_name *out, char *q) {
  size_t w = 0;
  q[0] = '\0';
  const char *p = query, *end = query + qlen;
  while (p < end) {
    const char *amp = memchr(p, '&', (size_t)(end - p));
    size_t len = (size_t)((amp ? amp : end) - p);
    if (len && !own_param(p, len, out) && w + len + 2 < XSQ_NAME_MAX) {
      if (w) q[w++] = '&';
      memcpy(q + w, p, len);
      w += len;
      q[w] = '\0';
    }
    p += len + (amp ? 1 : 0);
  }
}

static void env_defaults(xsq_name *out) {
  out->takeover = truthy(getenv("XIO_SQLITE_TAKEOVER"));
  out->cache_mb = -1;
  const char *c = getenv("XIO_SQLITE_CACHE_MB");
  if (c && *c) {
    char *end;
    long v = strtol(c, &end, 10);
    if (*end == '\0' && v >= 0) out->cache_mb = v;
  }
}

int xsq_name_parse(const char *name, int role, xsq_name *out) {
  memset(out, 0, sizeof *out);
  env_defaults(out);
  size_t n = strlen(name);
  if (!xsq_is_url(name) || n >= XSQ_NAME_MAX) return -1;
  xsq_role found = strip_role(name, &n);
  if (role == XSQ_DB) { /* SQLite said it is the database: "...-wal" is its name */
    out->role = XSQ_DB;
    n = strlen(name);
  } else {
    out->role = role > 0 ? (xsq_role)role : found;
  }
  const char *qm = memchr(name, '?', n);
  size_t blen = qm ? (size_t)(qm - name) : n;
  static const char *const suffix[] = {"", "-journal", "-wal"};
  const char *sfx = suffix[out->role];
  if (blen + strlen(sfx) + 1 >= XSQ_NAME_MAX) return -1;
  char q[XSQ_NAME_MAX];
  if (qm)
    filter_query(qm + 1, n - blen - 1, out, q);
  else
    q[0] = '\0';
  snprintf(out->key, sizeof out->key, "%.*s", (int)blen, name);
  snprintf(out->safe, sizeof out->safe, "%s%s", out->key, sfx);
  int w = snprintf(out->target, sizeof out->target, "%s%s%s", out->safe, q[0] ? "?" : "", q);
  return w > 0 && (size_t)w < sizeof out->target ? 0 : -1;
}

void xsq_name_uri(const char *name, xsq_name *out) {
  out->takeover = sqlite3_uri_boolean(name, "xio_takeover", out->takeover);
  sqlite3_int64 mb = sqlite3_uri_int64(name, "xio_cache_mb", -1);
  if (mb >= 0 && mb <= (sqlite3_int64)(UINT32_MAX >> 1)) out->cache_mb = (long)mb;
  /* The blob's snapshot: in its key (node.c) and in what xio opens. */
  const char *snap = sqlite3_uri_parameter(name, "snapshot");
  char *url = NULL;
  if (snap && *snap && strlen(snap) < sizeof out->snapshot &&
      xio_target_snapshot_url(out->target, snap, &url, NULL) == XIO_OK &&
      strlen(url) < sizeof out->target) {
    snprintf(out->snapshot, sizeof out->snapshot, "%s", snap);
    snprintf(out->target, sizeof out->target, "%s", url);
  }
  xio_free(url);
}
