/*
 * vfs.c - the sqlite3_vfs named "xio": blob URLs to page blobs, every other name to
 * the VFS that was the default before (its own methods, unchanged: a local file
 * opened here is the base VFS's file, in the same memory).
 *
 * Opening the database takes the node (node.c), and with it the lease. The journal
 * and the WAL are opened on the node; their existence is learned once per process
 * (one request) and then known in memory, since the lease keeps every other writer
 * out: SQLite asks whether a hot journal exists at every read transaction.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>

#include "sq_int.h"

static sqlite3_vfs *base;
static sqlite3_vfs vfs;
static pthread_mutex_t reg_mu = PTHREAD_MUTEX_INITIALIZER;

sqlite3_vfs *xsq_base(void) { return base; }

static xsq_role role_of(int flags) {
  if (flags & SQLITE_OPEN_MAIN_JOURNAL) return XSQ_JOURNAL;
  if (flags & SQLITE_OPEN_WAL) return XSQ_WAL;
  return XSQ_DB;
}

static int open_db(xsq_file *f, const xsq_name *n, int flags, int *out_flags) {
  int rc = xsq_node_acquire(n, 0, (flags & SQLITE_OPEN_CREATE) != 0, &f->node);
  if (rc != SQLITE_OK) return rc;
  f->immutable = f->node->readonly;
  f->base.pMethods = f->immutable ? &xsq_methods_immutable : &xsq_methods;
  if (out_flags)
    *out_flags = f->immutable ? (flags & ~(SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)) |
                                    SQLITE_OPEN_READONLY
                              : flags;
  return SQLITE_OK;
}

/* The journal or WAL of an open database: it exists for SQLite from now on when
 * created (the blob itself is made when the first write is sent). */
static int open_log(xsq_file *f, const xsq_name *n, int flags, int *out_flags) {
  xsq_table_lock();
  xsq_node *node = xsq_node_find(n->key);
  if (node) node->refs++;
  xsq_table_unlock();
  if (!node)
    return xsq_fail(SQLITE_CANTOPEN, "%s: its database is not open in this process", n->safe);
  f->node = node;
  pthread_mutex_lock(&node->mu);
  xsq_store *s = &node->st[f->role];
  int exists = 0, rc = xsq_store_check(node, f->role, &exists);
  if (rc == SQLITE_OK && !exists) {
    if (flags & SQLITE_OPEN_CREATE)
      s->exists = 1;
    else
      rc = SQLITE_CANTOPEN;
  }
  pthread_mutex_unlock(&node->mu);
  if (rc != SQLITE_OK) {
    f->node = NULL;
    xsq_node_release(node);
    return rc;
  }
  f->base.pMethods = &xsq_methods;
  if (out_flags) *out_flags = flags;
  return SQLITE_OK;
}

static int v_open(sqlite3_vfs *v, const char *name, sqlite3_file *file, int flags, int *out_flags) {
  (void)v;
  if (!xsq_is_url(name)) return base->xOpen(base, name, file, flags, out_flags);
  xsq_file *f = (xsq_file *)file;
  memset(f, 0, sizeof *f);
  int type = flags & (SQLITE_OPEN_MAIN_DB | SQLITE_OPEN_MAIN_JOURNAL | SQLITE_OPEN_WAL);
  xsq_name n;
  f->role = role_of(flags);
  if (xsq_name_parse(name, (int)f->role, &n))
    return xsq_fail(SQLITE_CANTOPEN, "the database URL is too long or malformed");
  /* A "file:" URI filename: SQLite keeps its parameters beside the name, not in it. */
  if ((flags & SQLITE_OPEN_MAIN_DB) && (flags & SQLITE_OPEN_URI)) xsq_name_uri(name, &n);
  if (!type) /* a super-journal: SQLite names it after the database */
    return xsq_fail(SQLITE_CANTOPEN,
                    "%s: only a database, its journal and its WAL can be blobs (a "
                    "transaction over several attached blob databases is not supported)",
                    n.safe);
  f->flags = flags;
  return f->role == XSQ_DB ? open_db(f, &n, flags, out_flags) : open_log(f, &n, flags, out_flags);
}

static int v_delete(sqlite3_vfs *v, const char *name, int sync_dir) {
  (void)v;
  if (!xsq_is_url(name)) return base->xDelete(base, name, sync_dir);
  xsq_name n;
  if (xsq_name_parse(name, -1, &n)) return SQLITE_IOERR_DELETE;
  xsq_table_lock();
  xsq_node *node = xsq_node_find(n.key);
  if (node) node->refs++;
  xsq_table_unlock();
  if (!node || n.role == XSQ_DB) {
    if (node) xsq_node_release(node);
    return xsq_fail(SQLITE_IOERR_DELETE,
                    "%s: not deleted (not an open database's journal "
                    "or WAL)",
                    n.safe);
  }
  pthread_mutex_lock(&node->mu);
  int rc = xsq_store_delete(node, n.role);
  pthread_mutex_unlock(&node->mu);
  xsq_node_release(node);
  return rc;
}

/* Existence of a blob that no open database knows about: one request. */
static int probe(const xsq_name *n, int *out) {
  xio_error e;
  xio_error_clear(&e);
  xio_ctx *c = xsq_ctx(&e);
  if (!c) return xsq_fail_xio(SQLITE_IOERR_ACCESS, "making the xio context", &e);
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_READONLY | XIO_OPEN_MISSING_OK; /* a missing blob is an answer */
  xio_file *xf = NULL;
  xio_err rc = xio_file_open(c, n->target, &o, &xf, &e);
  *out = rc == XIO_OK;
  xio_file_close(xf, NULL);
  if (rc == XIO_OK || rc == XIO_ENOTFOUND) return SQLITE_OK;
  return xsq_fail_xio(SQLITE_IOERR_ACCESS, "checking", &e);
}

static int v_access(sqlite3_vfs *v, const char *name, int flags, int *out) {
  (void)v;
  if (!xsq_is_url(name)) return base->xAccess(base, name, flags, out);
  xsq_name n;
  *out = 0;
  if (xsq_name_parse(name, -1, &n)) return SQLITE_OK;
  xsq_table_lock();
  xsq_node *node = xsq_node_find(n.key);
  if (node) node->refs++;
  xsq_table_unlock();
  if (!node) return probe(&n, out);
  int rc = SQLITE_OK;
  pthread_mutex_lock(&node->mu);
  if (n.role == XSQ_DB)
    *out = 1;
  else if (node->readonly)
    *out = 0;
  else
    rc = xsq_store_check(node, n.role, out);
  pthread_mutex_unlock(&node->mu);
  xsq_node_release(node);
  return rc;
}

static int v_fullpath(sqlite3_vfs *v, const char *name, int n, char *out) {
  (void)v;
  if (!xsq_is_url(name)) return base->xFullPathname(base, name, n, out);
  if ((int)strlen(name) >= n) return SQLITE_CANTOPEN;
  snprintf(out, (size_t)n, "%s", name);
  return SQLITE_OK;
}

static void *v_dlopen(sqlite3_vfs *v, const char *p) {
  (void)v;
  return base->xDlOpen(base, p);
}
static void v_dlerror(sqlite3_vfs *v, int n, char *m) {
  (void)v;
  base->xDlError(base, n, m);
}
static void (*v_dlsym(sqlite3_vfs *v, void *h, const char *s))(void) {
  (void)v;
  return base->xDlSym(base, h, s);
}
static void v_dlclose(sqlite3_vfs *v, void *h) {
  (void)v;
  base->xDlClose(base, h);
}
static int v_random(sqlite3_vfs *v, int n, char *out) {
  (void)v;
  return base->xRandomness(base, n, out);
}
static int v_sleep(sqlite3_vfs *v, int us) {
  (void)v;
  return base->xSleep(base, us);
}
static int v_time(sqlite3_vfs *v, double *t) {
  (void)v;
  return base->xCurrentTime(base, t);
}
static int v_time64(sqlite3_vfs *v, sqlite3_int64 *t) {
  (void)v;
  if (base->iVersion >= 2 && base->xCurrentTimeInt64) return base->xCurrentTimeInt64(base, t);
  double d;
  int rc = base->xCurrentTime(base, &d);
  *t = (sqlite3_int64)(d * 86400000.0);
  return rc;
}

static int v_last_error(sqlite3_vfs *v, int n, char *out) {
  (void)v;
  const char *m = xsq_last_error();
  if (n > 0 && out) snprintf(out, (size_t)n, "%s", m);
  return m[0] ? 1 : 0;
}

int xsq_register(int make_default) {
  pthread_mutex_lock(&reg_mu);
  static int registered;
  if (registered && !make_default) { /* keep whatever is the default now */
    pthread_mutex_unlock(&reg_mu);
    return SQLITE_OK;
  }
  int rc = SQLITE_OK;
  if (!base) {
    sqlite3_vfs *b = sqlite3_vfs_find(NULL);
    if (b && strcmp(b->zName, "xio") == 0) b = NULL;
    if (!b) {
      pthread_mutex_unlock(&reg_mu);
      return SQLITE_ERROR;
    }
    base = b;
    int sz = (int)sizeof(xsq_file);
    vfs = (sqlite3_vfs){2,
                        sz > b->szOsFile ? sz : b->szOsFile,
                        XSQ_NAME_MAX,
                        NULL,
                        "xio",
                        NULL,
                        v_open,
                        v_delete,
                        v_access,
                        v_fullpath,
                        v_dlopen,
                        v_dlerror,
                        v_dlsym,
                        v_dlclose,
                        v_random,
                        v_sleep,
                        v_time,
                        v_last_error,
                        v_time64,
                        NULL,
                        NULL,
                        NULL};
  }
  rc = sqlite3_vfs_register(&vfs, make_default);
  if (rc == SQLITE_OK) registered = 1;
  pthread_mutex_unlock(&reg_mu);
  return rc;
}
