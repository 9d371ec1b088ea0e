/*
 * snapshot.c - the snapshot a backup link stands for (backup_int.h): a new one taken
 * of the blob, or one the caller names (taken by the engine at a consistent point,
 * such as SQLite's SELECT xio_snapshot()), which must be newer than the chain's
 * newest link; opened read-only and pinned (XIO_OPEN_PINNED: a snapshot never
 * changes); and what the link holds: the snapshot's allocated ranges for the base,
 * else the ranges written and cleared since the chain's newest snapshot (Get Page
 * Ranges with prevsnapshot). A blob replaced by Copy Blob or Put Blob can no longer
 * be diffed against its older snapshots: the diff then says the chain has ended.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <xio/alloc.h>

#include "backup_int.h"

/* ------------------------------------------------------- snapshots ---- */

xio_err bk_open_snapshot(bk_job *j, const char *id, xio_file **out, xio_error *err) {
  char *u = NULL;
  xio_err rc = xio_target_snapshot_url(j->url, id, &u, err);
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_READONLY | XIO_OPEN_PINNED;
  if (rc == XIO_OK) rc = xio_file_open(j->ctx, u, &o, out, err);
  xio_free(u);
  return rc;
}

/* Takes a new snapshot of the blob; its id into `id`. */
static xio_err take_snapshot(bk_job *j, char *id, size_t size, xio_error *err) {
  xio_open_options o = xio_open_options_default();
  xio_file *f = NULL;
  xio_err rc = xio_file_open(j->ctx, j->url, &o, &f, err);
  if (rc == XIO_OK) rc = xio_file_snapshot(f, id, size, err);
  xio_file_close(f, NULL);
  return rc;
}

xio_err bk_pick_snapshot(bk_job *j, const char *given, char *id, size_t size, xio_error *err) {
  if (!given) return take_snapshot(j, id, size, err);
  const char *newest = j->ch.n ? j->ch.links[j->ch.n - 1].snapshot : NULL;
  if (newest && strcmp(given, newest) <= 0) {
    xio_error_set(err, XIO_EINVAL,
                  "snapshot %.64s is not newer than the chain's newest link (%.64s): a chain "
                  "only grows forward",
                  given, newest);
    xio_error_set_operation(err, "Backup");
    return XIO_EINVAL;
  }
  snprintf(id, size, "%s", given);
  return XIO_OK;
}

void bk_drop_snapshot(bk_job *j, const char *id) {
  xio_error e;
  xio_file_close(j->snap, NULL);
  j->snap = NULL;
  xio_snapshot_delete(j->ctx, j->url, id, &e);
}

/* ------------------------------------------------------------ links ---- */

xio_err bk_diff_ranges(bk_job *j, xio_file *f, bk_link *l, const char *since, xio_error *err) {
  xio_err rc = xio_file_ranges_diff(f, since, &l->written, &l->cleared, err);
  if (rc == XIO_ENOTFOUND && err)
    snprintf(err->message, sizeof err->message,
             "the chain's newest snapshot %.64s is gone from the service, so nothing can say "
             "what changed since: start a new chain in another directory",
             since);
  if (rc == XIO_ECONFLICT && err && strcmp(err->service_code, "BlobOverwritten") == 0) {
    /* Copy Blob or Put Blob replaced the blob: no diff reaches back past that. */
    snprintf(err->message, sizeof err->message,
             "%.120s was replaced since the chain's newest snapshot %.64s (a copy onto it, "
             "such as `xio cp URL?snapshot=ID URL`), so the service cannot say what changed "
             "since: the chain in %.100s has ended",
             j->safe, since, j->ch.dir);
    xio_error_set_operation(err, "Backup");
  }
  return rc;
}

static void now_iso(char *out, size_t size) {
  time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(out, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

xio_err bk_new_link(bk_job *j, const char *id, xio_error *err) {
  bk_link *l = &j->link;
  snprintf(l->snapshot, sizeof l->snapshot, "%s", id);
  now_iso(l->time, sizeof l->time);
  l->seq = j->ch.next;
  snprintf(l->data, sizeof l->data, "link-%06" PRIu64 ".data", l->seq);
  l->size = xio_file_size(j->snap);
  l->base = j->ch.n == 0;
  xio_err rc = l->base ? xio_file_ranges(j->snap, &l->written, err)
                       : bk_diff_ranges(j, j->snap, l, j->ch.links[j->ch.n - 1].snapshot, err);
  if (rc == XIO_OK) rc = bk_link_cut(l, err);
  if (rc == XIO_OK) rc = bk_pending_save(j->ch.dir, l, j->safe, err);
  return rc;
}
