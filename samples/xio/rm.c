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

static int run_rm(cli *c, int argc, char **argv) {
  const char *pos[1];
  int brk = 0, with_snaps = 0;
  const cli_opt opts[] = {
      {"--break-lease", NULL, &brk}, {"--with-snapshots", NULL, &with_snaps}, {NULL, NULL, NULL}};
  int r = cli_parse(c, argc, argv, opts, "TARGET", 1, pos);
  if (r != CLI_CONTINUE) return r;
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
    "rm TARGET [--break-lease] [--with-snapshots]",
    "Deletes a file: a page blob or a local file. A blob that has snapshots is\n"
    "deleted (with them) only with --with-snapshots.\n"
    "\n"
    "Options:\n"
    "  --break-lease      break another client's lease on the blob first\n"
    "  --with-snapshots   delete the blob even when it has snapshots; they go too\n",
    run_rm,
};
