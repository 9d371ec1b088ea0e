/*
 * plan.c - a dry run of a backup (bk_plan, xio_backup_options.dry_run): what a run
 * would do and send, planned the way a run plans it, with nothing changed.
 *
 * DIR's chain and pending link are loaded and checked as a run does (bk_load, a
 * missing DIR being an empty chain), and each link the run would make is planned:
 * a pending link from the pieces pending.json lists as not yet written; a new
 * link from the ranges the service lists, on the snapshot named or, for one the run
 * would take, on the blob itself (the snapshot would copy it): all allocated
 * ranges for a base, else those written and cleared since the chain's newest
 * snapshot. Its pieces are cut (bk_link_cut) and batched (bk_batch_end) as the
 * download does, each batch one read the file layer sends in requests of at most
 * 4 MiB. Then keep's pruning is counted. The requests the dry run sends are reads
 * (Get Blob Properties, Get Page Ranges); nothing is written to DIR.
 */
#include <stdio.h>
#include <string.h>

#include <xio/alloc.h>

#include "backup_int.h"

#define READ_MAX ((uint64_t)XIO_WRITE_MAX_SIZE) /* the longest checked read: one Get Blob */

/* The reads of the link's pieces from `from` on, as the download makes them. */
static void plan_reads(const bk_link *l, size_t from, xio_backup_result *out) {
  for (size_t i = from; i < l->npieces;) {
    size_t e = bk_batch_end(l, i);
    uint64_t bytes = l->pieces[e - 1].off + l->pieces[e - 1].len - l->pieces[i].off;
    out->read_requests += (bytes + READ_MAX - 1) / READ_MAX;
    out->bytes_read += bytes;
    i = e;
  }
}

/* Opens what a new link lists: snapshot `id`, or the blob itself when the run
 * would take the snapshot (id NULL). */
static xio_err open_source(bk_job *j, const char *id, xio_file **f, xio_backup_result *out,
                           xio_error *err) {
  out->plan.properties++; /* the snapshot, opened pinned */
  if (id) return bk_open_snapshot(j, id, f, err);
  out->plan.properties++; /* the blob, opened to take the snapshot */
  out->plan.snapshots++;
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_READONLY;
  return xio_file_open(j->ctx, j->url, &o, f, err);
}

/* Plans a new link of snapshot `id` (NULL: one the run would take) after the
 * chain's newest snapshot `since` (NULL: the link is the base). */
static xio_err plan_new(bk_job *j, const char *id, const char *since, xio_backup_result *out,
                        xio_error *err) {
  xio_file *f = NULL;
  bk_link l;
  memset(&l, 0, sizeof l);
  snprintf(l.snapshot, sizeof l.snapshot, "%s", id ? id : "");
  xio_err rc = open_source(j, id, &f, out, err);
  xio_file_stats before, after;
  if (rc == XIO_OK) {
    xio_file_get_stats(f, &before);
    l.size = xio_file_size(f);
    l.base = since == NULL;
    rc = l.base ? xio_file_ranges(f, &l.written, err) : bk_diff_ranges(j, f, &l, since, err);
    xio_file_get_stats(f, &after);
    out->plan.page_ranges += after.requests - before.requests;
  }
  if (rc == XIO_OK) rc = bk_link_cut(&l, err);
  if (rc == XIO_OK) {
    plan_reads(&l, 0, out);
    bk_describe(&l, out);
  }
  xio_file_close(f, NULL);
  bk_link_free(&l);
  return rc;
}

/* Plans the pending link: its snapshot opened, the pieces not yet written read. */
static xio_err plan_pending(bk_job *j, xio_backup_result *out, xio_error *err) {
  xio_file *f = NULL;
  out->plan.properties++;
  xio_err rc = bk_open_snapshot(j, j->link.snapshot, &f, err);
  xio_file_close(f, NULL);
  if (rc != XIO_OK) return rc;
  plan_reads(&j->link, j->link.verified, out);
  bk_describe(&j->link, out);
  out->pieces_kept = j->link.verified;
  return XIO_OK;
}

xio_err bk_plan(bk_job *j, const char *dir, xio_backup_result *out, xio_error *err) {
  xio_backup_result r;
  memset(&r, 0, sizeof r);
  const char *given = j->o->snapshot;
  xio_err rc = bk_load(j, dir, err);
  size_t links = j->ch.n;
  const char *since = links ? j->ch.links[links - 1].snapshot : NULL;
  int then_new = !j->resumed || (given && strcmp(given, j->link.snapshot) != 0);
  if (rc == XIO_OK && j->resumed && then_new) rc = bk_check_named(j, given, err);
  if (rc == XIO_OK && j->resumed) rc = plan_pending(j, &r, err);
  if (rc == XIO_OK && j->resumed && then_new) {
    snprintf(r.finished_first, sizeof r.finished_first, "%s", j->link.snapshot);
    r.first_pieces = j->link.npieces;
    r.first_pieces_kept = j->link.verified;
    since = j->link.snapshot;
  }
  if (rc == XIO_OK && j->resumed) links++;
  if (rc == XIO_OK && then_new && given && since && strcmp(given, since) <= 0) {
    char id[BK_ID_MAX];
    rc = bk_pick_snapshot(j, given, id, sizeof id, err); /* refuses it, as a run does */
  }
  if (rc == XIO_OK && then_new) rc = plan_new(j, given, since, &r, err);
  if (rc == XIO_OK && then_new) links++;
  if (rc != XIO_OK) return rc;
  r.resumed = j->resumed && !then_new;
  if (j->o->keep > 0 && links > j->o->keep) {
    r.links_pruned = links - j->o->keep;
    r.snapshots_deleted = r.links_pruned;
    r.plan.deletes = r.links_pruned;
  }
  r.links = links - r.links_pruned;
  if (out) *out = r;
  return XIO_OK;
}
