/*
 * restore.c - the restore command: the blob as it was at one link of a backup
 * chain, written to a local file or to a page blob.
 *
 * The state at the link is rebuilt locally first by the backup library
 * (samples/backup, xio_backup.h: every piece checked against its CRC-64 as it is
 * read, so a damaged chain fails before the target is touched). A local TARGET is
 * rebuilt as TARGET.xio-partial, owned by this run (localfile.c), fsynced and
 * renamed into place: an interrupted restore leaves no TARGET, and a second run
 * into the same TARGET is refused. A blob TARGET is the library's too
 * (xio_backup_restore_to: rebuilt in a scratch file that vanishes with the
 * process, then uploaded through the file layer): the blob is created at the
 * link's size and marked incomplete until every non-zero page is acknowledged; an
 * interrupted restore leaves it marked so, and restore --resume finishes it,
 * sending only the pages that differ. This file reads the arguments, catches
 * SIGINT and SIGTERM for the upload (they stop it and cancel the run's context)
 * and says what became of TARGET.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <xio/alloc.h>

#include "cli.h"
#include "xio_backup.h"

typedef struct rs_job {
  cli *c;
  xio_backup_chain *ch;
  size_t at;      /* the link restored */
  uint64_t bytes; /* of pieces read */
  int force, resume;
  xio_backup_restore_result res; /* a blob TARGET's upload */
} rs_job;

/* Splits DIR[@ID]: a directory that exists as written is DIR, else the part
 * after the last '@' is the id. `dir` is malloc'd; `*id` points into `arg` or is
 * NULL. */
static xio_err split_arg(const char *arg, char **dir, const char **id, xio_error *err) {
  struct stat st;
  const char *at = strrchr(arg, '@');
  *id = NULL;
  if (stat(arg, &st) == 0 || !at) {
    *dir = xio_strdup(arg);
  } else {
    *dir = xio_strndup(arg, (size_t)(at - arg));
    *id = at + 1;
  }
  return *dir ? XIO_OK : xio_error_set(err, XIO_ENOMEM, "out of memory");
}

/* ------------------------------------------------------------ local ---- */

/* A new local TARGET is private (0600 less the umask), as the backup it comes
 * from; one replaced with --force keeps its mode. */
#define RESTORED_MODE 0600

static xio_err restore_local(rs_job *j, const char *target, xio_error *err) {
  struct stat st;
  if (stat(target, &st) == 0 && S_ISDIR(st.st_mode)) {
    xio_error_set(err, XIO_EINVAL, "%.400s is a directory; name the file to restore", target);
    xio_error_set_operation(err, "Restore");
    return XIO_EINVAL;
  }
  if (!j->force && lstat(target, &st) == 0) {
    xio_error_set(err, XIO_EEXIST, "%.400s already exists; --force replaces it", target);
    xio_error_set_operation(err, "Restore");
    return XIO_EEXIST;
  }
  cli_partial part;
  xio_err rc = cli_partial_init(&part, target, err);
  if (rc != XIO_OK) return rc;
  rc = cli_partial_open(&part, 0, err);
  if (rc == XIO_OK) rc = xio_backup_restore_fd(j->ch, j->at, part.fd, part.path, &j->bytes, err);
  if (rc == XIO_OK) rc = cli_partial_commit(&part, RESTORED_MODE, j->force, err);
  if (rc != XIO_OK) cli_partial_discard(&part);
  cli_partial_free(&part);
  return rc;
}

/* ------------------------------------------------------------- blob ---- */

/* The restore's stop callback: a stop signal came (transfer.c). */
static int stop_requested(void *ud) {
  (void)ud;
  return cli_stop_signal() != 0;
}

/* What finishes an interrupted restore into blob `safe` (log-safe): restore --resume
 * of the same link (named by its id, so that links added to DIR meanwhile do not
 * change it) into the same blob. */
static void resume_command(const rs_job *j, const char *safe, char *out, size_t size) {
  xio_backup_point pt;
  xio_backup_chain_point(j->ch, j->at, &pt);
  snprintf(out, size, "xio restore --resume %s@%s %s", xio_backup_chain_dir(j->ch), pt.snapshot,
           safe);
}

/* A restore into a blob stopped by a signal: what became of the blob, and the
 * command that finishes it when it is left marked incomplete. */
static int interrupted(const rs_job *j, const char *safe) {
  const xio_backup_restore_result *r = &j->res;
  char hs[32], hl[32], again[2048];
  resume_command(j, safe, again, sizeof again);
  if (r->marked) {
    fprintf(stderr,
            "xio: restore interrupted by %s: %s of %s scanned and sent; %s is marked "
            "incomplete; `%s` finishes it\n",
            cli_stop_name(), samples_fmt_size(r->bytes_scanned, hs, sizeof hs),
            samples_fmt_size(r->bytes_total, hl, sizeof hl), safe, again);
    return cli_stop_status();
  }
  if (r->in_place || j->resume)
    return cli_stopped_before("restore", "it changed the content of %s", safe);
  if (r->reached)
    return cli_stopped_before("restore",
                              "it wrote data to %s, as it created it (if it exists, it is "
                              "marked incomplete: `%s` finishes it)",
                              safe, again);
  return cli_stopped_before("restore", "it wrote anything to %s", safe);
}

/* A failed restore in place: what became of the blob, and that its snapshots are
 * kept. Once a request that changes its size or bytes was made, it may hold part of
 * the link's content; before, its content is unchanged (marked incomplete, or not
 * written at all), and when another client's lease refused the first change, the
 * message names the lease and how to end it. */
static int in_place_failed(const rs_job *j, const char *safe, xio_err rc, xio_error *e) {
  size_t n = strlen(e->message);
  if (j->res.changed)
    snprintf(e->message + n, sizeof e->message - n,
             "; the target may hold part of the new content (its snapshots are kept): "
             "restore --force again replaces it");
  else if (rc == XIO_EBUSY)
    snprintf(e->message, sizeof e->message,
             "%.190s is leased by another client; nothing was written (its snapshots are "
             "kept); `xio lease break %.190s` ends the lease",
             safe, safe);
  else if (j->res.marked)
    snprintf(e->message + n, sizeof e->message - n,
             "; the target's content was not changed, but it is marked incomplete (its "
             "snapshots are kept): restore --force again replaces it");
  else
    snprintf(e->message + n, sizeof e->message - n,
             "; nothing was written (its snapshots are kept)");
  return cli_fail(j->c, rc, e);
}

/* Restores the link into blob `target` by the backup library (rebuilt in a scratch
 * file, then uploaded), stopped by SIGINT or SIGTERM. */
static int restore_blob(rs_job *j, const char *target) {
  int r = cli_catch_stop_signals(j->c);
  if (r != CLI_CONTINUE) return r;
  xio_error e;
  xio_ctx *ctx;
  xio_err rc = cli_context(j->c, &ctx, &e); /* attached to the stop signals */
  if (rc != XIO_OK) return cli_fail(j->c, rc, &e);
  xio_backup_restore_options o = xio_backup_restore_options_default();
  o.force = j->force;
  o.resume = j->resume;
  o.stop = stop_requested;
  rc = xio_backup_restore_to(ctx, j->ch, j->at, target, &o, &j->res, &e);
  j->bytes = j->res.bytes_read;
  char *safe = xio_target_safe(target);
  const char *name = safe ? safe : "TARGET";
  if (rc == XIO_OK && cli_stop_signal())
    r = cli_stopped_after("restore", name);
  else if (rc == XIO_OK)
    r = CLI_OK;
  else if (rc == XIO_ECANCELED && cli_stop_signal())
    r = interrupted(j, name);
  else if (j->res.in_place)
    r = in_place_failed(j, name, rc, &e);
  else
    r = cli_fail(j->c, rc, &e);
  xio_free(safe);
  return r;
}

/* ---------------------------------------------------------- dry run ---- */

/* --dry-run into a local TARGET: what the restore would meet there, refused as
 * restore_local refuses it; it would write the point's size. */
static xio_err plan_local(const rs_job *j, const char *target, cli_plan *p, xio_error *e) {
  xio_backup_point pt;
  xio_backup_chain_point(j->ch, j->at, &pt);
  struct stat st;
  xio_err rc = XIO_OK;
  if (stat(target, &st) == 0 && S_ISDIR(st.st_mode))
    rc = xio_error_set(e, XIO_EINVAL, "%.400s is a directory; name the file to restore", target);
  else if (!j->force && lstat(target, &st) == 0)
    rc = xio_error_set(e, XIO_EEXIST, "%.400s already exists; --force replaces it", target);
  if (rc != XIO_OK) {
    xio_error_set_operation(e, "Restore");
    return rc;
  }
  p->local = target;
  p->local_bytes = pt.size;
  return XIO_OK;
}

/* --dry-run into a blob TARGET: the backup library's own restore with its dry run
 * (the point rebuilt from DIR's files, TARGET opened read-only and refused as a
 * restore refuses it, the upload planned by its scan and merge), its counts into
 * `p`. */
static xio_err plan_blob(rs_job *j, const char *target, cli_plan *p, xio_error *e) {
  xio_ctx *ctx;
  xio_err rc = cli_context(j->c, &ctx, e);
  if (rc != XIO_OK) return rc;
  xio_backup_restore_options o = xio_backup_restore_options_default();
  o.force = j->force;
  o.resume = j->resume;
  o.stop = stop_requested;
  o.dry_run = 1;
  rc = xio_backup_restore_to(ctx, j->ch, j->at, target, &o, &j->res, e);
  j->bytes = j->res.bytes_read;
  const samples_target_plan t = {
      .put_blobs = j->res.plan.put_blobs,
      .create_containers = j->res.plan.create_containers,
      .properties = j->res.plan.properties,
      .set_metadata = j->res.plan.set_metadata,
      .resizes = j->res.plan.resizes,
      .clears = j->res.plan.clears,
      .bytes_cleared = j->res.plan.bytes_cleared,
      .put_pages = j->res.plan.put_pages,
      .bytes_sent = j->res.plan.page_bytes,
      .reads = j->res.plan.reads,
      .bytes_read = j->res.plan.bytes_read,
  };
  cli_plan_add_target(p, &t);
  return rc;
}

/* --dry-run: what the restore would send to TARGET or write there, planned as the
 * restore does it, refused as a restore refuses it; nothing is sent that changes
 * TARGET, nor written. */
static int restore_dry_run(rs_job *j, const char *target) {
  int r = cli_catch_stop_signals(j->c); /* the rebuild may take a while */
  if (r != CLI_CONTINUE) return r;
  xio_backup_point pt;
  xio_backup_chain_point(j->ch, j->at, &pt);
  xio_error e;
  cli_plan p;
  memset(&p, 0, sizeof p);
  int url = cli_is_url(target);
  xio_err rc = url ? plan_blob(j, target, &p, &e) : plan_local(j, target, &p, &e);
  char *safe = xio_target_safe(target);
  const char *name = safe ? safe : "TARGET";
  if (rc == XIO_ECANCELED && cli_stop_signal()) {
    r = cli_stopped_before("restore", "it planned the restore; nothing was written");
  } else if (rc != XIO_OK) {
    r = cli_fail(j->c, rc, &e);
  } else {
    char from[4096], hs[32];
    snprintf(from, sizeof from, "%s@%s", xio_backup_chain_dir(j->ch), pt.snapshot);
    cli_plan_print(j->c, from, name, &p);
    cli_say(j->c, "would rebuild %s (snapshot %s) from %zu link%s of %s",
            samples_fmt_size(pt.size, hs, sizeof hs), pt.snapshot, j->at + 1, cli_plural(j->at + 1),
            xio_backup_chain_dir(j->ch));
    r = CLI_OK;
  }
  xio_free(safe);
  return r;
}

/* ------------------------------------------------------------------ ---- */

static void report(const rs_job *j, const char *target, double secs) {
  xio_backup_point l;
  xio_backup_chain_point(j->ch, j->at, &l);
  const char *dir = xio_backup_chain_dir(j->ch);
  char *safe = xio_target_safe(target);
  char hs[32], ht[32];
  if (j->c->json) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "command", "restore");
    cJSON_AddStringToObject(o, "dir", dir);
    cJSON_AddStringToObject(o, "snapshot", l.snapshot);
    cJSON_AddStringToObject(o, "target", safe ? safe : "");
    cli_json_u64(o, "size", l.size);
    cli_json_u64(o, "links_applied", j->at + 1);
    cli_json_u64(o, "bytes_read", j->bytes);
    cJSON_AddNumberToObject(o, "seconds", secs);
    cli_json_print(o);
  } else {
    cli_say(j->c, "restored %s (%s, snapshot %s of %s) from %zu link%s in %s", safe ? safe : "",
            samples_fmt_size(l.size, hs, sizeof hs), l.snapshot, xio_backup_chain_source(j->ch),
            j->at + 1, cli_plural(j->at + 1), samples_fmt_secs(secs, ht, sizeof ht));
  }
  xio_free(safe);
}

static int run_restore(cli *c, int argc, char **argv) {
  const char *pos[2], *id = NULL;
  rs_job j;
  memset(&j, 0, sizeof j);
  j.c = c;
  int dry = 0;
  const cli_opt opts[] = {{"--force", NULL, &j.force},
                          {"--resume", NULL, &j.resume},
                          {"--dry-run", NULL, &dry},
                          {NULL, NULL, NULL}};
  int r = cli_parse(c, argc, argv, opts, "DIR[@ID] TARGET", 2, pos);
  if (r != CLI_CONTINUE) return r;
  if (j.resume && !cli_is_url(pos[1]))
    return cli_usage_error(c, "--resume finishes a restore into a blob; a local TARGET is "
                              "simply restored again");
  double t0 = samples_now();
  char *dir = NULL;
  xio_error e;
  xio_err rc = split_arg(pos[0], &dir, &id, &e);
  if (rc == XIO_OK) rc = xio_backup_chain_open(dir, &j.ch, &e);
  if (rc == XIO_OK) rc = xio_backup_chain_find(j.ch, id, &j.at, &e);
  xio_free(dir);
  int status;
  if (rc == XIO_OK && dry) {
    status = restore_dry_run(&j, pos[1]);
    xio_backup_chain_close(j.ch);
    return status;
  }
  if (rc == XIO_OK && cli_is_url(pos[1])) {
    status = restore_blob(&j, pos[1]);
  } else {
    if (rc == XIO_OK) rc = restore_local(&j, pos[1], &e);
    status = rc == XIO_OK ? CLI_OK : cli_fail(c, rc, &e);
  }
  if (status == CLI_OK) report(&j, pos[1], samples_now() - t0);
  xio_backup_chain_close(j.ch);
  return status;
}

const cli_command cli_cmd_restore = {
    "restore",
    "rebuild a blob as it was at a snapshot of a backup chain, locally or into a blob",
    "restore DIR[@ID] TARGET [--force] [--resume] [--dry-run]",
    "Rebuilds the blob backed up in DIR (xio backup) as it was at the link of\n"
    "snapshot ID (default: the newest link) and writes it to TARGET: a local file\n"
    "(sparse: all-zero blocks stay holes) or a page blob, created at the snapshot's\n"
    "size, to which only the pages that are not all zeros are sent. Every piece\n"
    "read from DIR is checked against its CRC-64 before anything is written to\n"
    "TARGET; a damaged piece fails the restore and names it.\n"
    "\n"
    "A local TARGET appears only once complete (it is written as\n"
    "TARGET.xio-partial, which one run owns, and renamed); a new one is private\n"
    "(mode 0600), one replaced with --force keeps its mode. A blob TARGET is\n"
    "marked incomplete until every page is acknowledged.\n"
    "\n"
    "Options:\n"
    "  --force           replace TARGET when it exists (a blob is overwritten in\n"
    "                    place, so its snapshots stay: stop its writer first)\n"
    "  --resume          finish an interrupted restore into a blob (marked\n"
    "                    incomplete; with --force, any blob), sending only the\n"
    "                    pages that differ\n"
    "  --dry-run         say what the restore would send and write, and change\n"
    "                    nothing: the point is rebuilt from DIR's files and its\n"
    "                    upload planned as a restore sends it; TARGET is only\n"
    "                    read, and refused as a restore refuses it\n"
    "\n"
    "See docs/backups.md, also for restoring a SQLite database into place.\n",
    run_restore,
};
