/*
 * run.c - a backup run (xio_backup_run): one link added to the chain of a blob's
 * backups in a local directory (backup_int.h).
 *
 * Each run takes a snapshot of the blob (or uses one named by the caller) and reads
 * it pinned (snapshot.c). The first run of a chain lists the snapshot's allocated
 * ranges and downloads all of them: the base. Each later run asks the service for
 * the ranges written and cleared between the chain's newest snapshot and the new
 * one and downloads only the written ones (download.c); the cleared ones are
 * recorded.
 *
 * Nothing an interrupted run leaves looks complete: the link is described in
 * pending.json before its first byte is read, and reaches chain.json only once its
 * data is complete. The next run, with or without resume, finishes it from the same
 * snapshot, keeping the pieces already written that still match their CRC-64.
 * pending.json records the blob it is of, so a backup of another blob into DIR is
 * refused. With a snapshot named that is not the pending link's, the run finishes
 * the pending link and then backs up the one named after it: the snapshot named is
 * the one backed up, or the run fails saying it was not. After the run, keep folds
 * the oldest links into the base (keep.c).
 *
 * The messages name the options by their command-line spelling (--resume,
 * --snapshot), which is how people meet them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <xio/alloc.h>

#include "backup_int.h"

/* ------------------------------------------------------------ setup ---- */

/* XIO_EINVAL (operation Backup) with the message. */
#define REFUSE(...)                                                                                \
  (xio_error_set(err, XIO_EINVAL, __VA_ARGS__), xio_error_set_operation(err, "Backup"), XIO_EINVAL)

/* What the caller gives: a blob's URL (local files have no snapshots), not a
 * snapshot's, and a snapshot id that a chain can hold. */
static xio_err check_args(xio_ctx *ctx, const char *url, const char *dir,
                          const xio_backup_options *o, xio_error *err) {
  if (!ctx || !url || !dir) return REFUSE("xio_backup_run needs a context, a URL and a directory");
  if (xio_target_classify(url) != XIO_TARGET_BLOB)
    return REFUSE("%.400s is a local file, and local files have no snapshots: back up a page "
                  "blob URL",
                  url);
  xio_target_parts p;
  int named = xio_target_parse(url, &p, NULL) == XIO_OK && p.snapshot;
  xio_target_parts_clear(&p);
  if (named) return REFUSE("give the blob's URL, not a snapshot's: name the snapshot apart");
  size_t n = o->snapshot ? strlen(o->snapshot) : 1;
  if (n == 0 || n >= BK_ID_MAX || (o->snapshot && strcspn(o->snapshot, "/?&# ") != n))
    return REFUSE("'%.80s' is not a snapshot id", o->snapshot);
  return XIO_OK;
}

/* ------------------------------------------------------------ links ---- */

xio_err bk_load(bk_job *j, const char *dir, xio_error *err) {
  xio_err rc = bk_chain_load(&j->ch, dir, 1, err);
  if (rc != XIO_OK) return rc;
  if (j->ch.source && strcmp(j->ch.source, j->safe) != 0) {
    xio_error_set(err, XIO_EINVAL, "%.200s holds the backups of %.140s, not of %.140s", dir,
                  j->ch.source, j->safe);
    xio_error_set_operation(err, "Backup");
    return XIO_EINVAL;
  }
  rc = bk_pending_load(dir, &j->link, &j->pending_source, err);
  if (rc == XIO_OK && j->pending_source && strcmp(j->pending_source, j->safe) != 0) {
    xio_error_set(err, XIO_EINVAL,
                  "%.200s holds an unfinished backup of %.140s, not of %.140s: back up into "
                  "another directory",
                  dir, j->pending_source, j->safe);
    xio_error_set_operation(err, "Backup");
    return XIO_EINVAL;
  }
  if (rc == XIO_OK) {
    j->resumed = 1;
    return XIO_OK;
  }
  if (rc != XIO_ENOTFOUND) return rc;
  bk_link_free(&j->link);
  xio_error_clear(err);
  if (j->o->resume) {
    xio_error_set(err, XIO_ENOTFOUND, "nothing to resume: %.400s has no unfinished backup", dir);
    xio_error_set_operation(err, "Backup");
    return XIO_ENOTFOUND;
  }
  return XIO_OK;
}

/* The pending link's snapshot is not found on the blob: it was deleted, or (when
 * neither pending.json nor chain.json says which blob the link is of) the link may
 * be of another blob. The snapshot `given` to back up (may be NULL) was not. */
static void pending_gone(const bk_job *j, const char *given, xio_error *err) {
  const char *p = j->link.snapshot, *dir = j->ch.dir;
  int n;
  if (j->pending_source || j->ch.source)
    n = snprintf(err->message, sizeof err->message,
                 "the snapshot %.64s of the unfinished backup is gone; remove %.200s/%s to "
                 "start a new link",
                 p, dir, BK_PENDING);
  else
    n = snprintf(err->message, sizeof err->message,
                 "the unfinished backup in %.100s is of snapshot %.64s, which %.100s does not "
                 "have: it is gone, or the backup is of another blob (its %s, from an older "
                 "xio, does not say); remove it only if it is of this blob",
                 dir, p, j->safe, BK_PENDING);
  if (given && strcmp(given, p) != 0 && n > 0 && (size_t)n < sizeof err->message)
    snprintf(err->message + n, sizeof err->message - (size_t)n,
             "; snapshot %.64s was not backed up", given);
}

/* Opens the link's snapshot (a new one, or the pending link's) and the partial file. */
static xio_err start_link(bk_job *j, const char *given, xio_error *err) {
  char id[BK_ID_MAX];
  xio_err rc = XIO_OK;
  if (!j->resumed) rc = bk_pick_snapshot(j, given, id, sizeof id, err);
  if (rc == XIO_OK) rc = bk_open_snapshot(j, j->resumed ? j->link.snapshot : id, &j->snap, err);
  if (rc == XIO_ENOTFOUND && j->resumed && err) pending_gone(j, given, err);
  if (rc == XIO_OK && !j->resumed && (rc = bk_new_link(j, id, err)) != XIO_OK && !given)
    bk_drop_snapshot(j, id);
  if (rc != XIO_OK) return rc;
  char name[BK_NAME_MAX + 16];
  snprintf(name, sizeof name, "%s.partial", j->link.data);
  if ((rc = bk_path(j->ch.dir, name, j->partial, sizeof j->partial, err)) != XIO_OK) return rc;
  j->dfd = bk_open_private(j->partial, O_RDWR);
  if (j->dfd < 0) return xio_error_from_errno(err, errno, "WriteBackup", "open", j->partial);
  return j->resumed ? bk_check_partial(j, err) : XIO_OK;
}

xio_err bk_check_named(const bk_job *j, const char *given, xio_error *err) {
  const char *p = j->link.snapshot;
  if (j->o->resume)
    xio_error_set(err, XIO_EINVAL,
                  "the unfinished backup in %.200s is of snapshot %.64s, not %.64s: --resume "
                  "alone finishes it; without --resume the run finishes it and then backs up "
                  "%.64s",
                  j->ch.dir, p, given, given);
  else if (strcmp(given, p) < 0)
    xio_error_set(err, XIO_EINVAL,
                  "snapshot %.64s is older than snapshot %.64s of the unfinished backup in "
                  "%.200s, and a chain only grows forward: %.64s was not backed up (--resume "
                  "finishes the unfinished one)",
                  given, p, j->ch.dir, given);
  else
    return XIO_OK;
  xio_error_set_operation(err, "Backup");
  return XIO_EINVAL;
}

/* After the unfinished link was finished and added to the chain: the run goes on
 * to a new link. */
static void finished_first(bk_job *j) {
  const bk_link *l = &j->ch.links[j->ch.n - 1];
  snprintf(j->first, sizeof j->first, "%s", l->snapshot);
  j->first_pieces = l->npieces;
  j->first_kept = j->kept;
  xio_file_close(j->snap, NULL);
  j->snap = NULL;
  close(j->dfd);
  j->dfd = -1;
  j->resumed = 0;
  j->kept = 0;
}

/* One link: the pending one or a new one, downloaded and added to the chain. */
static xio_err one_link(bk_job *j, const char *given, xio_error *err) {
  xio_err rc = start_link(j, given, err);
  if (rc == XIO_OK) rc = bk_download(j, err);
  if (rc == XIO_OK) rc = bk_commit_link(j, err);
  return rc;
}

/* ------------------------------------------------------------- runs ---- */

static xio_err backup(bk_job *j, const char *dir, xio_error *err) {
  const char *given = j->o->snapshot;
  xio_err rc = bk_load(j, dir, err);
  if (rc == XIO_OK && j->resumed && given && strcmp(given, j->link.snapshot) != 0) {
    rc = bk_check_named(j, given, err);
    if (rc == XIO_OK) rc = one_link(j, given, err);
    if (rc == XIO_OK) finished_first(j);
  }
  if (rc == XIO_OK) rc = one_link(j, given, err);
  if (rc != XIO_OK) return rc;
  bk_sweep(&j->ch, NULL);
  if (j->o->keep > 0 && j->ch.n > j->o->keep)
    rc = bk_keep(j->ctx, j->o, &j->ch, j->url, j->o->keep, &j->pruned, &j->deleted, err);
  return rc;
}

void bk_describe(const bk_link *l, xio_backup_result *out) {
  snprintf(out->snapshot, sizeof out->snapshot, "%s", l->snapshot);
  out->base = l->base;
  out->size = l->size;
  out->written_ranges = l->written.n;
  out->written_bytes = xio_ranges_bytes(&l->written);
  out->cleared_ranges = l->cleared.n;
  out->cleared_bytes = xio_ranges_bytes(&l->cleared);
  out->pieces = l->npieces;
}

/* What the run did, from the chain's newest link (after keep: a base when keep is
 * 1). */
static void result(const bk_job *j, xio_backup_result *out) {
  bk_describe(&j->ch.links[j->ch.n - 1], out);
  out->resumed = j->resumed;
  snprintf(out->finished_first, sizeof out->finished_first, "%s", j->first);
  out->first_pieces = j->first_pieces;
  out->first_pieces_kept = j->first_kept;
  out->pieces_kept = j->kept;
  out->bytes_read = j->fetched;
  out->read_requests = j->reads;
  out->links = j->ch.n;
  out->links_pruned = j->pruned;
  out->snapshots_deleted = j->deleted;
}

/* Closes the job's files and frees what it owns. */
static void job_free(bk_job *j) {
  if (j->dfd >= 0) close(j->dfd);
  xio_file_close(j->snap, NULL);
  bk_link_free(&j->link);
  bk_chain_free(&j->ch);
  xio_free(j->pending_source);
  xio_free(j->safe);
  xio_free(j->buf);
}

xio_err xio_backup_run(xio_ctx *ctx, const char *url, const char *dir,
                       const xio_backup_options *opts, xio_backup_result *out, xio_error *err) {
  xio_backup_options dflt = xio_backup_options_default();
  const xio_backup_options *o = opts ? opts : &dflt;
  if (out) memset(out, 0, sizeof *out);
  xio_err rc = check_args(ctx, url, dir, o, err);
  if (rc != XIO_OK) return rc;
  bk_job j;
  memset(&j, 0, sizeof j);
  j.ctx = ctx;
  j.o = o;
  j.url = url;
  j.dfd = -1;
  j.safe = xio_target_safe(url);
  j.buf = xio_malloc(BK_BATCH);
  int lock = -1, made = 0;
  if (!j.safe || !j.buf) rc = xio_error_set(err, XIO_ENOMEM, "out of memory");
  if (rc == XIO_OK && o->dry_run) {
    rc = bk_plan(&j, dir, out, err);
  } else if (rc == XIO_OK) {
    rc = bk_lock_dir(o, dir, &lock, &made, err);
    if (rc == XIO_OK) rc = backup(&j, dir, err);
    if (rc == XIO_OK && out) result(&j, out);
  }
  job_free(&j);
  if (lock >= 0) close(lock);
  if (rc != XIO_OK && made) bk_unmake_dir(dir);
  return rc;
}
