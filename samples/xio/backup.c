/*
 * backup.c - the backup command: incremental backups of a page blob into a chain of
 * links in a local directory (the chain: backup.h, chain.c).
 *
 * Each run takes a snapshot of the blob (or, with --snapshot ID, uses one taken by
 * the engine at a consistent point, such as SQLite's SELECT xio_snapshot()) and
 * reads it with XIO_OPEN_PINNED. The first run of a chain lists the snapshot's
 * allocated ranges and downloads all of them: the base. Each later run asks the
 * service for the ranges written and cleared between the chain's newest snapshot
 * and the new one (Get Page Ranges with prevsnapshot) and downloads only the
 * written ones; the cleared ones are recorded. The bytes go to the link's data file,
 * piece by piece (at most 8 MiB; up to four pieces that follow each other in the
 * blob are read at once, in parallel, in requests of at most 4 MiB that the service
 * checksums and the client checks), each piece's CRC-64 recorded: a body damaged on
 * its way is read again, never recorded.
 *
 * Nothing an interrupted run leaves looks complete: the link is described in
 * pending.json before its first byte is read, its data goes to
 * link-SEQ.data.partial, and every few pieces the partial file is fsynced and
 * pending.json replaced with the pieces now written and checked. Only when every
 * piece is written and fsynced is the data file renamed and the link added to
 * chain.json (replaced atomically, last). The next run, with or without --resume,
 * checks the pieces pending.json lists against their CRC-64, keeps those that
 * match and downloads the rest from the same snapshot. pending.json records the
 * blob it is of, so a backup of another blob into DIR is refused. With --snapshot
 * ID naming another snapshot than the pending link's, the run finishes the pending
 * link and then backs up ID after it: the snapshot named is the one backed up, or
 * the run fails saying it was not.
 *
 * A blob replaced by Copy Blob or Put Blob (`xio cp URL?snapshot=ID URL`) can no
 * longer be diffed against its older snapshots: the run says the chain ended.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <xio/alloc.h>

#include "backup_int.h"
#include "cli.h"

/* pending.json is brought up to date after this many bytes of pieces. */
#define CHECKPOINT ((uint64_t)64 << 20)

/* The most one read fetches: four pieces, read in parallel. */
#define BK_BATCH (4 * BK_PIECE)

typedef struct bk_job {
  cli *c;
  const char *url; /* the blob */
  char *safe;      /* its log-safe form (owned) */
  bk_chain ch;     /* DIR's chain */
  bk_link link;    /* the link being made */
  int resumed;     /* the link was pending from an earlier run */
  size_t kept;     /* pieces of the pending link found written and checked */
  xio_file *snap;  /* the link's snapshot, pinned */
  int dfd;         /* the partial data file */
  char partial[4096];
  char *buf;
  uint64_t fetched, reads;
  size_t pruned, deleted;

  char *pending_source;  /* the blob pending.json says it is of (owned; NULL: unknown) */
  char first[BK_ID_MAX]; /* the unfinished link finished before the named snapshot's */
  size_t first_pieces, first_kept;
} bk_job;

/* ------------------------------------------------------- snapshots ---- */

static xio_err open_snapshot(bk_job *j, const char *id, xio_file **out, xio_error *err) {
  char *u = NULL;
  xio_err rc = xio_target_snapshot_url(j->url, id, &u, err);
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_READONLY | XIO_OPEN_PINNED;
  if (rc == XIO_OK) rc = cli_open(j->c, u, &o, out, err);
  xio_free(u);
  return rc;
}

static xio_err take_snapshot(bk_job *j, char *id, size_t size, xio_error *err) {
  xio_open_options o = xio_open_options_default();
  xio_file *f = NULL;
  xio_err rc = cli_open(j->c, j->url, &o, &f, err);
  if (rc == XIO_OK) rc = xio_file_snapshot(f, id, size, err);
  xio_file_close(f, NULL);
  return rc;
}

/* The ranges written and cleared between snapshot `since` and the opened one. */
static xio_err diff_ranges(bk_job *j, const char *since, xio_error *err) {
  xio_err rc = xio_file_ranges_diff(j->snap, since, &j->link.written, &j->link.cleared, err);
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

/* ------------------------------------------------------------ links ---- */

static void now_iso(char *out, size_t size) {
  time_t t = time(NULL);
  struct tm tm;
  gmtime_r(&t, &tm);
  strftime(out, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Describes a new link of snapshot `id` (opened as j->snap) and records it pending. */
static xio_err new_link(bk_job *j, const char *id, xio_error *err) {
  bk_link *l = &j->link;
  snprintf(l->snapshot, sizeof l->snapshot, "%s", id);
  now_iso(l->time, sizeof l->time);
  l->seq = j->ch.next;
  snprintf(l->data, sizeof l->data, "link-%06" PRIu64 ".data", l->seq);
  l->size = xio_file_size(j->snap);
  l->base = j->ch.n == 0;
  xio_err rc = l->base ? xio_file_ranges(j->snap, &l->written, err)
                       : diff_ranges(j, j->ch.links[j->ch.n - 1].snapshot, err);
  if (rc == XIO_OK) rc = bk_link_cut(l, err);
  if (rc == XIO_OK) rc = bk_pending_save(j->ch.dir, l, j->safe, err);
  return rc;
}

/* The snapshot of this run: --snapshot ID, or a new one. */
static xio_err pick_snapshot(bk_job *j, const char *given, char *id, size_t size, xio_error *err) {
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

/* ------------------------------------------------------------- data ---- */

static xio_err pread_full(int fd, const char *path, char *buf, uint64_t len, uint64_t pos,
                          int *short_read, xio_error *err) {
  *short_read = 0;
  for (uint64_t got = 0; got < len;) {
    ssize_t k = pread(fd, buf + got, (size_t)(len - got), (off_t)(pos + got));
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) return xio_error_from_errno(err, errno, "ReadBackup", "pread", path);
    if (k == 0) {
      *short_read = 1;
      return XIO_OK;
    }
    got += (uint64_t)k;
  }
  return XIO_OK;
}

/* Keeps the pieces pending.json lists that the partial file holds intact. */
static xio_err check_partial(bk_job *j, xio_error *err) {
  bk_link *l = &j->link;
  size_t ok = 0;
  for (; ok < l->verified; ok++) {
    int short_read = 0;
    const bk_piece *p = &l->pieces[ok];
    xio_err rc = pread_full(j->dfd, j->partial, j->buf, p->len, p->pos, &short_read, err);
    if (rc != XIO_OK) return rc;
    if (short_read || xio_crc64(0, j->buf, (size_t)p->len) != p->crc) break;
  }
  l->verified = ok;
  j->kept = ok;
  uint64_t keep = ok ? l->pieces[ok - 1].pos + l->pieces[ok - 1].len : 0;
  if (ftruncate(j->dfd, (off_t)keep) != 0)
    return xio_error_from_errno(err, errno, "WriteBackup", "ftruncate", j->partial);
  return XIO_OK;
}

static xio_err write_piece(bk_job *j, const bk_piece *p, const char *buf, xio_error *err) {
  for (uint64_t put = 0; put < p->len;) {
    ssize_t k = pwrite(j->dfd, buf + put, (size_t)(p->len - put), (off_t)(p->pos + put));
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0)
      return xio_error_from_errno(err, k < 0 ? errno : EIO, "WriteBackup", "pwrite", j->partial);
    put += (uint64_t)k;
  }
  return XIO_OK;
}

/* fsyncs the partial file and records the pieces up to `upto` as written. */
static xio_err checkpoint(bk_job *j, size_t upto, xio_error *err) {
  if (fdatasync(j->dfd) != 0)
    return xio_error_from_errno(err, errno, "WriteBackup", "fdatasync", j->partial);
  j->link.verified = upto;
  return bk_pending_save(j->ch.dir, &j->link, j->safe, err);
}

/* The pieces from `i` that one read fetches: those that follow each other in the
 * blob, up to BK_BATCH bytes. */
static size_t batch_end(const bk_link *l, size_t i) {
  uint64_t bytes = l->pieces[i].len;
  size_t e = i + 1;
  while (e < l->npieces && l->pieces[e].off == l->pieces[e - 1].off + l->pieces[e - 1].len &&
         bytes + l->pieces[e].len <= BK_BATCH)
    bytes += l->pieces[e++].len;
  return e;
}

/* Reads pieces [i, e) with one call, which the file layer sends as requests of at
 * most 4 MiB, each checked against the checksum the service answers for it, in
 * parallel: no byte is recorded that the service did not vouch for. */
static xio_err read_batch(bk_job *j, size_t i, size_t e, xio_error *err) {
  const bk_link *l = &j->link;
  uint64_t off = l->pieces[i].off, len = l->pieces[e - 1].off + l->pieces[e - 1].len - off;
  size_t got = 0;
  xio_file_stats before, after;
  xio_file_get_stats(j->snap, &before);
  xio_err rc = xio_file_read(j->snap, off, j->buf, (size_t)len, &got, err);
  xio_file_get_stats(j->snap, &after);
  j->reads += after.read_requests - before.read_requests;
  if (rc == XIO_OK && got != len)
    rc = xio_error_set(err, XIO_EIO, "snapshot %.64s ended at %" PRIu64 " inside its ranges",
                       l->snapshot, off + got);
  if (rc != XIO_OK) return rc;
  j->fetched += len;
  return XIO_OK;
}

static xio_err download(bk_job *j, xio_error *err) {
  bk_link *l = &j->link;
  uint64_t since = 0;
  for (size_t i = l->verified; i < l->npieces;) {
    size_t e = batch_end(l, i);
    xio_err rc = read_batch(j, i, e, err);
    for (const char *b = j->buf; rc == XIO_OK && i < e; b += l->pieces[i++].len) {
      l->pieces[i].crc = xio_crc64(0, b, (size_t)l->pieces[i].len);
      rc = write_piece(j, &l->pieces[i], b, err);
      since += l->pieces[i].len;
    }
    if (rc != XIO_OK) return rc;
    if (since >= CHECKPOINT && i < l->npieces) {
      if ((rc = checkpoint(j, i, err)) != XIO_OK) return rc;
      since = 0;
    }
  }
  return XIO_OK;
}

/* Renames the data file into place and adds the link to chain.json. */
static xio_err commit_link(bk_job *j, xio_error *err) {
  char data[4096];
  xio_err rc = bk_path(j->ch.dir, j->link.data, data, sizeof data, err);
  if (rc != XIO_OK) return rc;
  if (fsync(j->dfd) != 0)
    return xio_error_from_errno(err, errno, "WriteBackup", "fsync", j->partial);
  if (rename(j->partial, data) != 0)
    return xio_error_from_errno(err, errno, "WriteBackup", "rename", data);
  j->link.verified = j->link.npieces;
  bk_link *links = xio_realloc(j->ch.links, (j->ch.n + 1) * sizeof *links);
  if (!links) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  j->ch.links = links;
  links[j->ch.n++] = j->link;
  memset(&j->link, 0, sizeof j->link);
  j->ch.next = links[j->ch.n - 1].seq + 1;
  if (!j->ch.source) {
    j->ch.source = xio_strdup(j->safe);
    j->ch.kind = xio_file_kind(j->snap);
  }
  if (!j->ch.source) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  if ((rc = bk_chain_save(&j->ch, err)) != XIO_OK) return rc;
  return bk_pending_remove(j->ch.dir, err);
}

/* ------------------------------------------------------------- runs ---- */

/* An existing DIR that lets other users in gets a warning: its files are private
 * (0600), but they can list them and read what an older xio left readable. DIR is
 * the user's to set, so it is not changed. */
static void warn_if_open(const char *dir) {
  struct stat st;
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || !(st.st_mode & 077)) return;
  fprintf(stderr,
          "xio: backup: warning: %s is open to other users (mode %03o): `chmod 700 %s` "
          "keeps its backups private\n",
          dir, (unsigned)(st.st_mode & 0777), dir);
}

/* Opens DIR (made when missing, 0700 whatever the umask: *made is then 1) and takes
 * its lock for the run; *lock gets it. */
static xio_err lock_dir(const char *dir, int *lock, int *made, xio_error *err) {
  char path[4096];
  *made = mkdir(dir, 0700) == 0;
  if (!*made && errno != EEXIST) return xio_error_from_errno(err, errno, "Backup", "mkdir", dir);
  if (*made && chmod(dir, 0700) != 0)
    return xio_error_from_errno(err, errno, "Backup", "chmod", dir);
  if (!*made) warn_if_open(dir);
  xio_err rc = bk_path(dir, "lock", path, sizeof path, err);
  if (rc != XIO_OK) return rc;
  *lock = bk_open_private(path, O_RDWR);
  if (*lock < 0) return xio_error_from_errno(err, errno, "Backup", "open", path);
  if (flock(*lock, LOCK_EX | LOCK_NB) != 0) {
    xio_error_set(err, XIO_EBUSY, "another xio backup is writing %.400s", dir);
    xio_error_set_operation(err, "Backup");
    return XIO_EBUSY;
  }
  return XIO_OK;
}

/* A run that failed in the DIR it made leaves no DIR behind when nothing but its
 * lock is there (rmdir refuses a directory that holds anything else). */
static void unmake_dir(const char *dir) {
  char path[4096];
  xio_error e;
  if (bk_path(dir, "lock", path, sizeof path, &e) == XIO_OK) unlink(path);
  rmdir(dir);
}

/* Loads the chain and the pending link, and checks that the chain is of this blob. */
static xio_err load(bk_job *j, const char *dir, int resume, xio_error *err) {
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
  if (resume) {
    xio_error_set(err, XIO_ENOTFOUND, "nothing to resume: %.400s has no unfinished backup", dir);
    xio_error_set_operation(err, "Backup");
    return XIO_ENOTFOUND;
  }
  return XIO_OK;
}

/* Deletes the snapshot this run took when its link could not even be described
 * (the diff failed): nothing refers to it. */
static void drop_snapshot(bk_job *j, const char *id) {
  xio_ctx *ctx = NULL;
  xio_error e;
  xio_file_close(j->snap, NULL);
  j->snap = NULL;
  if (cli_context(j->c, &ctx, &e) == XIO_OK) xio_snapshot_delete(ctx, j->url, id, &e);
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
  if (!j->resumed) rc = pick_snapshot(j, given, id, sizeof id, err);
  if (rc == XIO_OK) rc = open_snapshot(j, j->resumed ? j->link.snapshot : id, &j->snap, err);
  if (rc == XIO_ENOTFOUND && j->resumed && err) pending_gone(j, given, err);
  if (rc == XIO_OK && !j->resumed && (rc = new_link(j, id, err)) != XIO_OK && !given)
    drop_snapshot(j, id);
  if (rc != XIO_OK) return rc;
  char name[BK_NAME_MAX + 16];
  snprintf(name, sizeof name, "%s.partial", j->link.data);
  if ((rc = bk_path(j->ch.dir, name, j->partial, sizeof j->partial, err)) != XIO_OK) return rc;
  j->dfd = bk_open_private(j->partial, O_RDWR);
  if (j->dfd < 0) return xio_error_from_errno(err, errno, "WriteBackup", "open", j->partial);
  return j->resumed ? check_partial(j, err) : XIO_OK;
}

static void report(const bk_job *j, const bk_link *l, double secs) {
  char hw[32], hc[32], hr[32], ht[32];
  if (j->c->json) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "command", "backup");
    cJSON_AddStringToObject(o, "source", j->safe);
    cJSON_AddStringToObject(o, "dir", j->ch.dir);
    cJSON_AddStringToObject(o, "snapshot", l->snapshot);
    cJSON_AddBoolToObject(o, "base", l->base);
    cJSON_AddBoolToObject(o, "resumed", j->resumed);
    if (j->first[0]) {
      cJSON *f = cJSON_AddObjectToObject(o, "finished_first");
      cJSON_AddStringToObject(f, "snapshot", j->first);
      cli_json_u64(f, "pieces", j->first_pieces);
      cli_json_u64(f, "pieces_kept", j->first_kept);
    } else {
      cJSON_AddNullToObject(o, "finished_first");
    }
    cli_json_u64(o, "size", l->size);
    cli_json_u64(o, "written_ranges", l->written.n);
    cli_json_u64(o, "written_bytes", xio_ranges_bytes(&l->written));
    cli_json_u64(o, "cleared_ranges", l->cleared.n);
    cli_json_u64(o, "cleared_bytes", xio_ranges_bytes(&l->cleared));
    cli_json_u64(o, "pieces", l->npieces);
    cli_json_u64(o, "pieces_kept", j->kept);
    cli_json_u64(o, "bytes_read", j->fetched);
    cli_json_u64(o, "read_requests", j->reads);
    cli_json_u64(o, "links", j->ch.n);
    cli_json_u64(o, "links_pruned", j->pruned);
    cli_json_u64(o, "snapshots_deleted", j->deleted);
    cJSON_AddNumberToObject(o, "seconds", secs);
    cli_json_print(o);
    return;
  }
  if (j->first[0])
    cli_say(j->c,
            "finished the interrupted backup of snapshot %s first: %zu piece%s kept, %zu read",
            j->first, j->first_kept, cli_plural(j->first_kept), j->first_pieces - j->first_kept);
  cli_say(j->c, "%s link %s of %s: %s written, %s cleared, %s read in %" PRIu64 " request%s, in %s",
          l->base ? "base" : "incremental", l->snapshot, j->safe,
          samples_fmt_size(xio_ranges_bytes(&l->written), hw, sizeof hw),
          samples_fmt_size(xio_ranges_bytes(&l->cleared), hc, sizeof hc),
          samples_fmt_size(j->fetched, hr, sizeof hr), j->reads, cli_plural(j->reads),
          samples_fmt_secs(secs, ht, sizeof ht));
  if (j->resumed)
    cli_say(j->c, "finished an interrupted backup: %zu piece%s kept, %zu read", j->kept,
            cli_plural(j->kept), l->npieces - j->kept);
  cli_say(j->c, "%zu link%s in %s; restore one with: xio restore %s@%s TARGET", j->ch.n,
          cli_plural(j->ch.n), j->ch.dir, j->ch.dir, l->snapshot);
  if (j->pruned)
    cli_say(j->c, "--keep: %zu old link%s folded into the base, %zu snapshot%s deleted", j->pruned,
            cli_plural(j->pruned), j->deleted, cli_plural(j->deleted));
}

/* --snapshot ID where an unfinished link of another snapshot P waits: the run
 * finishes P first, then backs up ID, unless ID cannot follow P (older), or
 * --resume asked to finish only. */
static xio_err check_named(const bk_job *j, const char *given, int resume, xio_error *err) {
  const char *p = j->link.snapshot;
  if (resume)
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
  if (rc == XIO_OK) rc = download(j, err);
  if (rc == XIO_OK) rc = commit_link(j, err);
  return rc;
}

/* A snapshot --keep could not delete. */
static void say_kept(void *ud, xio_backup_note note, const char *line) {
  (void)ud;
  (void)note;
  fprintf(stderr, "xio: backup --keep: %s\n", line);
}

static xio_err backup(bk_job *j, const char *dir, int resume, const char *given, int keep,
                      xio_error *err) {
  xio_err rc = load(j, dir, resume, err);
  if (rc == XIO_OK && j->resumed && given && strcmp(given, j->link.snapshot) != 0) {
    rc = check_named(j, given, resume, err);
    if (rc == XIO_OK) rc = one_link(j, given, err);
    if (rc == XIO_OK) finished_first(j);
  }
  if (rc == XIO_OK) rc = one_link(j, given, err);
  if (rc != XIO_OK) return rc;
  bk_sweep(&j->ch, NULL);
  xio_ctx *ctx = NULL;
  if (keep > 0 && j->ch.n > (size_t)keep && cli_context(j->c, &ctx, err) == XIO_OK) {
    xio_backup_options o = xio_backup_options_default();
    o.say = say_kept;
    rc = bk_keep(ctx, &o, &j->ch, j->url, (size_t)keep, &j->pruned, &j->deleted, err);
  }
  return rc;
}

/* --snapshot ID, or the URL of the snapshot (what SELECT xio_snapshot() returns):
 * the id into `id`. */
static int snapshot_arg(const cli *c, const char *arg, char *id) {
  size_t n = strlen(arg);
  int ok = cli_is_url(arg) ? cli_target_snapshot(arg, id, BK_ID_MAX) && id[0] &&
                                 strcspn(id, "/?&# ") == strlen(id)
                           : n > 0 && n < BK_ID_MAX && strcspn(arg, "/?&# ") == n;
  if (!ok)
    return cli_usage_error(c,
                           "--snapshot: '%.80s' is neither a snapshot id nor a snapshot's "
                           "URL (...?snapshot=ID)",
                           cli_is_url(arg) ? "the URL" : arg);
  if (!cli_is_url(arg)) memcpy(id, arg, n + 1);
  return CLI_CONTINUE;
}

static int run_backup(cli *c, int argc, char **argv) {
  const char *pos[2], *keep_s = NULL, *given = NULL;
  int resume = 0, keep = 0;
  const cli_opt opts[] = {{"--keep", &keep_s, NULL},
                          {"--resume", NULL, &resume},
                          {"--snapshot", &given, NULL},
                          {NULL, NULL, NULL}};
  int r = cli_parse(c, argc, argv, opts, "URL DIR", 2, pos);
  if (r != CLI_CONTINUE) return r;
  if (keep_s && (r = cli_value_int(c, "--keep", keep_s, 1, 100000, &keep)) != CLI_CONTINUE)
    return r;
  if (!cli_is_url(pos[0]))
    return cli_usage_error(c,
                           "%s is a local file, and local files have no snapshots: back up "
                           "a page blob URL (copy the file with cp(1))",
                           pos[0]);
  char named[BK_ID_MAX];
  if (cli_target_snapshot(pos[0], named, sizeof named))
    return cli_usage_error(c, "give the blob's URL, not a snapshot's: --snapshot ID backs up "
                              "a snapshot taken before");
  char given_id[BK_ID_MAX];
  if (given && (r = snapshot_arg(c, given, given_id)) != CLI_CONTINUE) return r;
  if (given) given = given_id;
  double t0 = samples_now();
  bk_job j;
  memset(&j, 0, sizeof j);
  j.c = c;
  j.url = pos[0];
  j.dfd = -1;
  j.safe = xio_target_safe(pos[0]);
  j.buf = xio_malloc(BK_BATCH);
  xio_error e;
  xio_error_clear(&e);
  int lock = -1;
  xio_err rc = (!j.safe || !j.buf) ? xio_error_set(&e, XIO_ENOMEM, "out of memory") : XIO_OK;
  int made = 0;
  if (rc == XIO_OK) rc = lock_dir(pos[1], &lock, &made, &e);
  if (rc == XIO_OK) rc = backup(&j, pos[1], resume, given, keep, &e);
  int status = CLI_OK;
  if (rc == XIO_OK)
    report(&j, &j.ch.links[j.ch.n - 1], samples_now() - t0);
  else
    status = cli_fail(c, rc, &e);
  if (j.dfd >= 0) close(j.dfd);
  if (lock >= 0) close(lock);
  if (rc != XIO_OK && made) unmake_dir(pos[1]);
  xio_file_close(j.snap, NULL);
  bk_link_free(&j.link);
  bk_chain_free(&j.ch);
  xio_free(j.pending_source);
  xio_free(j.safe);
  xio_free(j.buf);
  return status;
}

const cli_command cli_cmd_backup = {
    "backup",
    "back up a page blob incrementally into a chain of snapshots in a directory",
    "backup URL DIR [--keep N] [--resume] [--snapshot ID]",
    "Backs up the page blob URL into the local directory DIR (made when missing).\n"
    "Each run adds a link to DIR's chain: it takes a snapshot of the blob and\n"
    "downloads what changed since the chain's newest snapshot, only the pages the\n"
    "service lists as written since (the first run: every allocated page). The\n"
    "chain's manifest (DIR/chain.json) records per link the snapshot, the time, the\n"
    "size, the ranges written and cleared and a CRC-64 of every piece downloaded.\n"
    "`xio restore DIR[@ID] TARGET` rebuilds the blob as it was at any link.\n"
    "\n"
    "An interrupted run leaves nothing a restore takes for complete: the link joins\n"
    "chain.json only once all its data is on disk. The next run (or --resume)\n"
    "finishes it from the same snapshot, keeping the pieces already downloaded\n"
    "that still match their CRC-64.\n"
    "\n"
    "Options:\n"
    "  --keep N          keep the newest N links (restore points), at least 1:\n"
    "                    older links are folded into the oldest one kept, which\n"
    "                    becomes the full base, and their snapshots are deleted;\n"
    "                    the newest snapshot, from which the next run diffs, is\n"
    "                    never deleted\n"
    "  --resume          only finish an unfinished run (fails when there is none)\n"
    "  --snapshot ID     back up the existing snapshot ID instead of taking one\n"
    "                    (one taken at a consistent point, e.g. by SQLite's\n"
    "                    SELECT xio_snapshot(), whose URL is taken as well); it\n"
    "                    must be newer than the chain's newest link. An\n"
    "                    unfinished link of another snapshot is finished first,\n"
    "                    then ID is backed up after it\n"
    "\n"
    "URL must be a page blob: local files have no snapshots. A copy onto the blob\n"
    "(xio cp URL?snapshot=ID URL) ends its chain: the service no longer diffs\n"
    "against older snapshots; xio restore --force DIR@ID URL restores in place and\n"
    "keeps the chain going. See docs/backups.md.\n",
    run_backup,
};
