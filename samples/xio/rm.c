/*
 * rm.c - the rm command: delete a file (a page blob, or a local file). A blob's
 * snapshots go with it, so a blob that has any is deleted only with
 * --with-snapshots. A leased blob cannot be deleted; --break-lease breaks the lease
 * first.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xio/alloc.h>

#include "cli.h"

static int count_snapshot(const xio_list_entry *e, void *ud) {
  (void)e;
  (*(uint64_t *)ud)++;
  return 0;
}

/* Deletes `target`; a blob that has snapshots only when `with_snapshots`. The
 * service refuses a blob with snapshots (SnapshotsPresent); the message then says
 * how many (one List Blobs request, best effort) and how to go on. */
static xio_err remove_target(xio_ctx *ctx, const char *target, int with_snapshots, xio_error *err) {
  if (with_snapshots) return xio_file_delete(ctx, target, err);
  xio_err rc = xio_file_delete_unless_snapshots(ctx, target, err);
  if (rc != XIO_ECONFLICT || !err || strcmp(err->service_code, "SnapshotsPresent") != 0) return rc;
  uint64_t n = 0;
  char count[32] = "";
  if (xio_snapshot_list(ctx, target, 0, count_snapshot, &n, NULL) == XIO_OK)
    snprintf(count, sizeof count, " %" PRIu64, n);
  char *safe = xio_target_safe(target);
  snprintf(err->message, sizeof err->message,
           "%.250s has%s snapshot%s, which would be deleted with it; nothing was deleted: "
           "rm --with-snapshots deletes the blob and its snapshots, put --force replaces "
           "its content and keeps them",
           safe ? safe : "TARGET", count, count[0] && n == 1 ? "" : "s");
  xio_free(safe);
  return rc;
}

/* --dry-run: learns what rm would meet without deleting (the target's properties,
 * and unless --with-snapshots its snapshots listed: reads), refuses what the
 * service would refuse with rm's messages, and prints what rm would send. */
static int rm_dry_run(cli *c, const char *target, int brk, int with_snaps) {
  xio_ctx *ctx;
  xio_error e;
  xio_file_info info;
  uint64_t n = 0;
  int url = cli_is_url(target);
  xio_err rc = cli_context(c, &ctx, &e);
  if (rc == XIO_OK) rc = xio_stat(ctx, target, &info, &e);
  char *safe = xio_target_safe(target);
  const char *name = safe ? safe : "TARGET";
  if (rc == XIO_OK && url && !brk && strcmp(info.lease_state, "leased") == 0) {
    xio_error_set(&e, XIO_EBUSY,
                  "%.250s is leased by another client; nothing would be deleted: "
                  "--break-lease breaks the lease first",
                  name);
    xio_error_set_operation(&e, "DeleteBlob");
    rc = XIO_EBUSY;
  }
  if (rc == XIO_OK && url && !with_snaps)
    rc = xio_snapshot_list(ctx, target, 0, count_snapshot, &n, &e);
  if (rc == XIO_OK && n) {
    xio_error_set(&e, XIO_ECONFLICT,
                  "%.250s has %" PRIu64 " snapshot%s, which would be deleted with it; nothing "
                  "would be deleted: rm --with-snapshots deletes the blob and its snapshots, put "
                  "--force replaces its content and keeps them",
                  name, n, cli_plural(n));
    xio_error_set_operation(&e, "DeleteBlob");
    rc = XIO_ECONFLICT;
  }
  if (rc != XIO_OK) {
    xio_free(safe);
    return cli_fail(c, rc, &e);
  }
  cli_plan p;
  memset(&p, 0, sizeof p);
  if (url && brk) cli_plan_add(&p, CLI_OP_LEASE, 1, 0);
  if (url) cli_plan_add(&p, CLI_OP_DELETE, 1, 0);
  cli_plan_print(c, NULL, name, &p);
  if (!url) cli_say(c, "would remove the local file %s", name);
  xio_free(safe);
  return CLI_OK;
}

static int run_rm(cli *c, int argc, char **argv) {
  const char *pos[1];
  int brk = 0, with_snaps = 0, dry = 0;
  const cli_opt opts[] = {{"--break-lease", NULL, &brk},
                          {"--with-snapshots", NULL, &with_snaps},
                          {"--dry-run", NULL, &dry},
                          {NULL, NULL, NULL}};
  int r = cli_parse(c, argc, argv, opts, "TARGET", 1, pos);
  if (r != CLI_CONTINUE) return r;
  if (dry) return rm_dry_run(c, pos[0], brk, with_snaps);
  double t0 = samples_now();
  xio_ctx *ctx;
  xio_error e;
  xio_err rc = cli_context(c, &ctx, &e);
  if (rc == XIO_OK && brk && cli_is_url(pos[0])) rc = cli_lease_break(c, pos[0], 0, NULL, &e);
  if (rc == XIO_OK) rc = remove_target(ctx, pos[0], with_snaps, &e);
  if (rc != XIO_OK) return cli_fail(c, rc, &e);
  char *safe = xio_target_safe(pos[0]);
  char ht[32];
  if (c->json) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "command", "rm");
    cJSON_AddStringToObject(o, "target", safe ? safe : "");
    cJSON_AddNumberToObject(o, "seconds", samples_now() - t0);
    cli_json_print(o);
  } else {
    cli_say(c, "removed %s in %s", safe ? safe : "",
            samples_fmt_secs(samples_now() - t0, ht, sizeof ht));
  }
  xio_free(safe);
  return CLI_OK;
}

const cli_command cli_cmd_rm = {
    "rm",
    "delete a file",
    "rm TARGET [--break-lease] [--with-snapshots] [--dry-run]",
    "Deletes a file: a page blob or a local file. A blob that has snapshots is\n"
    "deleted (with them) only with --with-snapshots.\n"
    "\n"
    "Options:\n"
    "  --break-lease      break another client's lease on the blob first\n"
    "  --with-snapshots   delete the blob even when it has snapshots; they go too\n"
    "  --dry-run          say what rm would send and delete nothing: the blob's\n"
    "                     properties and snapshots are read, and what rm would\n"
    "                     refuse (a lease, snapshots) is refused the same way\n",
    run_rm,
};
