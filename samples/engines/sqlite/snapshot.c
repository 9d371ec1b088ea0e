/*
 * snapshot.c - instant backups: a consistent point-in-time snapshot of a database on
 * a page blob, in a handful of requests whatever its size, and the SQL functions.
 *
 * The database blob holds a consistent state when no transaction has written pages
 * of its own yet (rollback mode: nothing pending for the database) and, in WAL mode,
 * when every frame of the WAL has been copied in and no checkpoint is running. The
 * file control checks that under the node's mutex, which holds every writer and
 * checkpointer of the process off, and takes a blob snapshot (the lease keeps other
 * processes out). xio_sqlite_snapshot() checkpoints first. The snapshot opens
 * read-only (immutable) as DBURL?snapshot=ID.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>

#include "sq_int.h"
#include "xio_sqlite.h"

typedef struct snap_arg {
  char *url;
  size_t size;
} snap_arg;

int xsq_snapshot_fcntl(xsq_file *f, void *arg) {
  snap_arg *a = arg;
  xsq_node *node = f->node;
  xsq_store *db = &node->st[XSQ_DB];
  if (f->role != XSQ_DB || node->readonly)
    return xsq_fail(SQLITE_READONLY, "%s: a snapshot is taken of a writable database", node->key);
  if (xio_file_held_bytes(db->xf) || node->lock >= SQLITE_LOCK_PENDING || node->shm_excl[1])
    return xsq_fail(SQLITE_BUSY,
                    "%s: a transaction or checkpoint is writing the database; "
                    "retry the snapshot",
                    node->key);
  if (!xsq_shm_all_checkpointed(node))
    return xsq_fail(SQLITE_BUSY,
                    "%s: the WAL holds frames not yet in the database; run "
                    "PRAGMA wal_checkpoint(TRUNCATE) first",
                    node->key);
  char id[64];
  xio_error e;
  xio_error_clear(&e);
  xio_err rc = xio_file_snapshot(db->xf, id, sizeof id, &e);
  if (rc != XIO_OK) return xsq_fail_xio(SQLITE_IOERR, "taking a snapshot", &e);
  char *url = NULL;
  rc = xio_target_snapshot_url(node->key, id, &url, &e);
  if (rc != XIO_OK) return xsq_fail_xio(SQLITE_IOERR, "naming the snapshot", &e);
  int n = snprintf(a->url, a->size, "%s", url);
  xio_free(url);
  if (n < 0 || (size_t)n >= a->size)
    return xsq_fail(SQLITE_FULL, "the snapshot URL needs %d bytes", n + 1);
  return SQLITE_OK;
}

int xio_sqlite_snapshot(sqlite3 *db, const char *schema, char *url, size_t size) {
  if (!schema) schema = "main";
  const char *file = sqlite3_db_filename(db, schema);
  if (!file || !xsq_is_url(file))
    return xsq_fail(SQLITE_NOTFOUND, "%s is not a database on a page blob", schema);
  int rc = sqlite3_wal_checkpoint_v2(db, schema, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
  if (rc != SQLITE_OK && rc != SQLITE_ERROR) return rc; /* SQLITE_ERROR: not in WAL mode */
  snap_arg a = {url, size};
  return sqlite3_file_control(db, schema, XSQ_FCNTL_SNAPSHOT, &a);
}

/* SELECT xio_snapshot(['schema']): the snapshot's URL. */
static void fn_snapshot(sqlite3_context *cx, int argc, sqlite3_value **argv) {
  const char *schema = argc > 0 ? (const char *)sqlite3_value_text(argv[0]) : "main";
  char url[XSQ_NAME_MAX + 80];
  snap_arg a = {url, sizeof url};
  int rc = sqlite3_file_control(sqlite3_context_db_handle(cx), schema ? schema : "main",
                                XSQ_FCNTL_SNAPSHOT, &a);
  if (rc == SQLITE_OK) {
    sqlite3_result_text(cx, url, -1, SQLITE_TRANSIENT);
    return;
  }
  sqlite3_result_error(
      cx, rc == SQLITE_NOTFOUND ? "xio_snapshot: not a database on a page blob" : xsq_last_error(),
      -1);
  sqlite3_result_error_code(cx, rc);
}

/* SELECT xio_last_error(): what the VFS last failed at, on this thread. */
static void fn_last_error(sqlite3_context *cx, int argc, sqlite3_value **argv) {
  (void)argc, (void)argv;
  sqlite3_result_text(cx, xsq_last_error(), -1, SQLITE_TRANSIENT);
}

int xsq_functions(sqlite3 *db) {
  int rc =
      sqlite3_create_function(db, "xio_snapshot", 0, SQLITE_UTF8, NULL, fn_snapshot, NULL, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_create_function(db, "xio_snapshot", 1, SQLITE_UTF8, NULL, fn_snapshot, NULL, NULL);
  if (rc == SQLITE_OK)
    rc = sqlite3_create_function(db, "xio_last_error", 0, SQLITE_UTF8, NULL, fn_last_error, NULL,
                                 NULL);
  return rc;
}
