/*
 * restore.c - the restore command: the blob as it was at one link of a backup
 * chain, written to a local file or to a page blob.
 *
 * The state at the link is rebuilt locally first by the backup library
 * (samples/backup, xio_backup.h: every piece checked against its CRC-64 as it is
 * read, so a damaged chain fails before the target is touched). A local TARGET is
 * rebuilt as TARGET.xio-partial, owned by this run (localfile.c), fsynced and
 * renamed into place: an interrupted restore leaves no TARGET, and a second run
 * into the same TARGET is refused. A blob TARGET is rebuilt in a scratch file that
 * vanishes with the process (in DIR, or in TMPDIR when DIR is read-only), then
 * uploaded by put (put.c): the blob is created at the link's size and marked
 * incomplete until every non-zero page is acknowledged; an interrupted restore
 * leaves it marked so, and restore --resume finishes it, sending only the pages
 * that differ.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <xio/alloc.h>

#include "cli.h"
#include "xio_backup.h"

typedef struct rs_job {
  cli *c;
  xio_backup_chain *ch;
  size_t at;      /* the link restored */
  uint64_t bytes; /* of pieces read */
  int force, resume;
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

/* What finishes an interrupted upload, for put's message: restore --resume of the
 * same link (named by its id, so that links added to DIR meanwhile do not change
 * it) into the same blob. The scratch file put reads vanishes with the process, so
 * put's own `put --resume LOCAL TARGET` could not. NULL for want of memory. */
static char *resume_hint(const rs_job *j, const char *target) {
  char *safe = xio_target_safe(target);
  xio_backup_point pt;
  xio_backup_chain_point(j->ch, j->at, &pt);
  const char *dir = xio_backup_chain_dir(j->ch), *id = pt.snapshot;
  const char *url = safe ? safe : "TARGET";
  size_t n = strlen(dir) + strlen(id) + strlen(url) + sizeof "xio restore --resume @ ";
  char *hint = xio_malloc(n);
  if (hint) snprintf(hint, n, "xio restore --resume %s@%s %s", dir, id, url);
  xio_free(safe);
  return hint;
}

/* Uploads the rebuilt file `fd` to blob `target` with put, its output silenced. */
static int upload(rs_job *j, int fd, const char *target) {
  char local[64];
  snprintf(local, sizeof local, "/proc/self/fd/%d", fd);
  char *argv[8];
  int argc = 0;
  argv[argc++] = local;
  argv[argc++] = (char *)target;
  argv[argc++] = "--kind";
  argv[argc++] = (char *)cli_kind_name(xio_backup_chain_kind(j->ch));
  if (j->force) argv[argc++] = "--force";
  if (j->resume) argv[argc++] = "--resume";
  argv[argc] = NULL;
  int quiet = j->c->quiet, json = j->c->json;
  char *hint = resume_hint(j, target);
  j->c->quiet = 1;
  j->c->json = 0;
  j->c->resume_hint = hint;
  int status = cli_cmd_put.run(j->c, argc, argv);
  j->c->quiet = quiet;
  j->c->json = json;
  j->c->resume_hint = NULL;
  xio_free(hint);
  return status;
}

/* Rebuilds the link in a scratch file and uploads it to blob `target`. */
static int restore_blob(rs_job *j, const char *target) {
  xio_error e;
  int fd = -1;
  xio_err rc = xio_backup_restore_scratch(j->ch, j->at, &fd, &j->bytes, &e);
  if (rc != XIO_OK) return cli_fail(j->c, rc, &e);
  int status = upload(j, fd, target);
  close(fd);
  return status;
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
  const cli_opt opts[] = {
      {"--force", NULL, &j.force}, {"--resume", NULL, &j.resume}, {NULL, NULL, NULL}};
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
    "restore DIR[@ID] TARGET [--force] [--resume]",
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
    "\n"
    "See docs/backups.md, also for restoring a SQLite database into place.\n",
    run_restore,
};
