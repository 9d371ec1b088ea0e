/*
 * backup.c - the backup command: incremental backups of a page blob into a chain of
 * links in a local directory, by the backup library (samples/backup, xio_backup.h;
 * docs/backups.md). This file reads the arguments, runs the library in the run's
 * context and prints what it did: a few lines for people, or one JSON object.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <xio/alloc.h>

#include "cli.h"
#include "xio_backup.h"

/* What the library says: a warning about DIR, a snapshot --keep left. */
static void say(void *ud, xio_backup_note note, const char *line) {
  (void)ud;
  if (note == XIO_BACKUP_NOTE_SNAPSHOT_LEFT)
    fprintf(stderr, "xio: backup --keep: %s\n", line);
  else
    fprintf(stderr, "xio: backup: warning: %s\n", line);
}

static void report_json(const char *safe, const char *dir, const xio_backup_result *r,
                        double secs) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "command", "backup");
  cJSON_AddStringToObject(o, "source", safe);
  cJSON_AddStringToObject(o, "dir", dir);
  cJSON_AddStringToObject(o, "snapshot", r->snapshot);
  cJSON_AddBoolToObject(o, "base", r->base);
  cJSON_AddBoolToObject(o, "resumed", r->resumed);
  if (r->finished_first[0]) {
    cJSON *f = cJSON_AddObjectToObject(o, "finished_first");
    cJSON_AddStringToObject(f, "snapshot", r->finished_first);
    cli_json_u64(f, "pieces", r->first_pieces);
    cli_json_u64(f, "pieces_kept", r->first_pieces_kept);
  } else {
    cJSON_AddNullToObject(o, "finished_first");
  }
  cli_json_u64(o, "size", r->size);
  cli_json_u64(o, "written_ranges", r->written_ranges);
  cli_json_u64(o, "written_bytes", r->written_bytes);
  cli_json_u64(o, "cleared_ranges", r->cleared_ranges);
  cli_json_u64(o, "cleared_bytes", r->cleared_bytes);
  cli_json_u64(o, "pieces", r->pieces);
  cli_json_u64(o, "pieces_kept", r->pieces_kept);
  cli_json_u64(o, "bytes_read", r->bytes_read);
  cli_json_u64(o, "read_requests", r->read_requests);
  cli_json_u64(o, "links", r->links);
  cli_json_u64(o, "links_pruned", r->links_pruned);
  cli_json_u64(o, "snapshots_deleted", r->snapshots_deleted);
  cJSON_AddNumberToObject(o, "seconds", secs);
  cli_json_print(o);
}

static void report(const cli *c, const char *safe, const char *dir, const xio_backup_result *r,
                   double secs) {
  char hw[32], hc[32], hr[32], ht[32];
  if (c->json) {
    report_json(safe, dir, r, secs);
    return;
  }
  if (r->finished_first[0])
    cli_say(c, "finished the interrupted backup of snapshot %s first: %zu piece%s kept, %zu read",
            r->finished_first, r->first_pieces_kept, cli_plural(r->first_pieces_kept),
            r->first_pieces - r->first_pieces_kept);
  cli_say(c, "%s link %s of %s: %s written, %s cleared, %s read in %" PRIu64 " request%s, in %s",
          r->base ? "base" : "incremental", r->snapshot, safe,
          samples_fmt_size(r->written_bytes, hw, sizeof hw),
          samples_fmt_size(r->cleared_bytes, hc, sizeof hc),
          samples_fmt_size(r->bytes_read, hr, sizeof hr), r->read_requests,
          cli_plural(r->read_requests), samples_fmt_secs(secs, ht, sizeof ht));
  if (r->resumed)
    cli_say(c, "finished an interrupted backup: %zu piece%s kept, %zu read", r->pieces_kept,
            cli_plural(r->pieces_kept), r->pieces - r->pieces_kept);
  cli_say(c, "%zu link%s in %s; restore one with: xio restore %s@%s TARGET", r->links,
          cli_plural(r->links), dir, dir, r->snapshot);
  if (r->links_pruned)
    cli_say(c, "--keep: %zu old link%s folded into the base, %zu snapshot%s deleted",
            r->links_pruned, cli_plural(r->links_pruned), r->snapshots_deleted,
            cli_plural(r->snapshots_deleted));
}

/* --dry-run: what the run would send and write, from the library's plan. */
static void report_plan(const cli *c, const char *safe, const char *dir,
                        const xio_backup_result *r) {
  cli_plan p;
  memset(&p, 0, sizeof p);
  cli_plan_add(&p, CLI_OP_PROPERTIES, r->plan.properties, 0);
  cli_plan_add(&p, CLI_OP_SNAPSHOT, r->plan.snapshots, 0);
  cli_plan_add(&p, CLI_OP_PAGE_RANGES, r->plan.page_ranges, 0);
  cli_plan_add(&p, CLI_OP_GET_BLOB, r->read_requests, r->bytes_read);
  cli_plan_add(&p, CLI_OP_DELETE, r->plan.deletes, 0);
  p.local = dir;
  p.local_bytes = r->bytes_read;
  cli_plan_print(c, safe, dir, &p);
  char hw[32], hc[32];
  if (r->finished_first[0])
    cli_say(c, "would finish the interrupted backup of snapshot %s first", r->finished_first);
  cli_say(c, "would add %s link%s%s: %s written, %s cleared, %zu piece%s%s; %zu link%s after it",
          r->resumed ? "the unfinished"
          : r->base  ? "a base"
                     : "an incremental",
          r->snapshot[0] ? " of snapshot " : "", r->snapshot,
          samples_fmt_size(r->written_bytes, hw, sizeof hw),
          samples_fmt_size(r->cleared_bytes, hc, sizeof hc), r->pieces, cli_plural(r->pieces),
          r->pieces_kept ? " (some already downloaded)" : "", r->links, cli_plural(r->links));
  if (r->links_pruned)
    cli_say(c, "--keep: would fold %zu old link%s into the base and delete %zu snapshot%s",
            r->links_pruned, cli_plural(r->links_pruned), r->snapshots_deleted,
            cli_plural(r->snapshots_deleted));
}

/* --snapshot ID, or the URL of the snapshot (what SELECT xio_snapshot() returns):
 * the id into `id`. */
static int snapshot_arg(const cli *c, const char *arg, char *id) {
  size_t n = strlen(arg);
  int ok = cli_is_url(arg) ? cli_target_snapshot(arg, id, XIO_BACKUP_ID_MAX) && id[0] &&
                                 strcspn(id, "/?&# ") == strlen(id)
                           : n > 0 && n < XIO_BACKUP_ID_MAX && strcspn(arg, "/?&# ") == n;
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
  int resume = 0, keep = 0, dry = 0;
  const cli_opt opts[] = {{"--keep", &keep_s, NULL},
                          {"--dry-run", NULL, &dry},
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
  char named[XIO_BACKUP_ID_MAX];
  if (cli_target_snapshot(pos[0], named, sizeof named))
    return cli_usage_error(c, "give the blob's URL, not a snapshot's: --snapshot ID backs up "
                              "a snapshot taken before");
  char given_id[XIO_BACKUP_ID_MAX];
  if (given && (r = snapshot_arg(c, given, given_id)) != CLI_CONTINUE) return r;
  double t0 = samples_now();
  xio_backup_options o = xio_backup_options_default();
  o.snapshot = given ? given_id : NULL;
  o.keep = (size_t)keep;
  o.resume = resume;
  o.dry_run = dry;
  o.say = say;
  xio_backup_result res;
  xio_error e;
  xio_error_clear(&e);
  xio_ctx *ctx = NULL;
  char *safe = xio_target_safe(pos[0]);
  xio_err rc = safe ? cli_context(c, &ctx, &e) : xio_error_set(&e, XIO_ENOMEM, "out of memory");
  if (rc == XIO_OK) rc = xio_backup_run(ctx, pos[0], pos[1], &o, &res, &e);
  int status = rc == XIO_OK ? CLI_OK : cli_fail(c, rc, &e);
  if (rc == XIO_OK && dry)
    report_plan(c, safe, pos[1], &res);
  else if (rc == XIO_OK)
    report(c, safe, pos[1], &res, samples_now() - t0);
  xio_free(safe);
  return status;
}

const cli_command cli_cmd_backup = {
    "backup",
    "back up a page blob incrementally into a chain of snapshots in a directory",
    "backup URL DIR [--keep N] [--resume] [--snapshot ID] [--dry-run]",
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
    "  --dry-run         say what the run would send and download (requests by\n"
    "                    operation, bytes) and change nothing: the blob's page\n"
    "                    ranges are listed as a run lists them, but no snapshot is\n"
    "                    taken, nothing is read or deleted and DIR is not touched\n"
    "\n"
    "URL must be a page blob: local files have no snapshots. A copy onto the blob\n"
    "(xio cp URL?snapshot=ID URL) ends its chain: the service no longer diffs\n"
    "against older snapshots; xio restore --force DIR@ID URL restores in place and\n"
    "keeps the chain going. See docs/backups.md.\n",
    run_backup,
};
