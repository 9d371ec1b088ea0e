/*
 * snapshot.c - the snapshot command: take a read-only, point-in-time copy of a page
 * blob (Snapshot Blob) and print its id and the URL that opens it; `snapshot list`
 * shows a blob's snapshots (id, size, allocated bytes, time), `snapshot delete`
 * removes one and `snapshot diff` (snapdiff.c) lists what changed since one. URLs printed are the
 * log-safe ones: a SAS given on the command line is not repeated.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <xio/alloc.h>

#include "cli.h"

static int report(cli *c, const char *target, const char *id, double secs) {
  char *safe = xio_target_safe(target);
  char ht[32];
  if (c->json) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "command", "snapshot");
    cJSON_AddStringToObject(o, "target", safe ? safe : "");
    cJSON_AddStringToObject(o, "snapshot", id);
    cJSON_AddNumberToObject(o, "seconds", secs);
    cli_json_print(o);
  } else if (c->quiet) {
    printf("%s\n", id);
  } else {
    char *at = NULL;
    xio_target_snapshot_url(safe ? safe : "", id, &at, NULL);
    printf("snapshot %s of %s in %s\nopen it read-only as %s\n", id, safe ? safe : "",
           samples_fmt_secs(secs, ht, sizeof ht), at ? at : "");
    xio_free(at);
  }
  xio_free(safe);
  return CLI_OK;
}

/* ------------------------------------------------------------- list ---- */

typedef struct list_state {
  cli *c;
  cJSON *array;
  uint64_t n;
} list_state;

static int on_snapshot(const xio_list_entry *e, void *ud) {
  list_state *s = ud;
  s->n++;
  if (s->c->json) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "snapshot", e->snapshot);
    cli_json_u64(o, "size", e->size);
    if (e->allocated != XIO_UNKNOWN_SIZE)
      cli_json_u64(o, "allocated", e->allocated);
    else
      cJSON_AddNullToObject(o, "allocated");
    cJSON_AddStringToObject(o, "last_modified", e->last_modified);
    cJSON_AddItemToArray(s->array, o);
  } else if (s->c->quiet) {
    printf("%s\n", e->snapshot);
  } else {
    char size[32], alloc[32] = "-";
    if (e->allocated != XIO_UNKNOWN_SIZE) samples_fmt_size(e->allocated, alloc, sizeof alloc);
    if (s->n == 1) printf("%-30s %10s %10s  %s\n", "SNAPSHOT", "SIZE", "ALLOCATED", "MODIFIED");
    printf("%-30s %10s %10s  %s\n", e->snapshot, samples_fmt_size(e->size, size, sizeof size),
           alloc, e->last_modified);
  }
  return 0;
}

static int run_list(cli *c, int argc, char **argv) {
  const char *pos[1];
  int r = cli_parse(c, argc, argv, NULL, "TARGET", 1, pos);
  if (r != CLI_CONTINUE) return r;
  list_state s = {c, c->json ? cJSON_CreateArray() : NULL, 0};
  xio_ctx *ctx = NULL;
  xio_error e;
  xio_err rc = cli_context(c, &ctx, &e);
  if (rc == XIO_OK) rc = xio_snapshot_list(ctx, pos[0], XIO_LIST_ALLOCATED, on_snapshot, &s, &e);
  if (rc != XIO_OK) {
    cJSON_Delete(s.array);
    return cli_fail(c, rc, &e);
  }
  char *safe = xio_target_safe(pos[0]);
  if (c->json) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "command", "snapshot list");
    cJSON_AddStringToObject(o, "target", safe ? safe : "");
    cJSON_AddItemToObject(o, "snapshots", s.array);
    cli_json_print(o);
  } else {
    cli_say(c, "%" PRIu64 " snapshot%s of %s", s.n, cli_plural(s.n), safe ? safe : "");
  }
  xio_free(safe);
  return CLI_OK;
}

/* ----------------------------------------------------------- delete ---- */

static int run_delete(cli *c, int argc, char **argv) {
  const char *pos[1], *id = NULL;
  const cli_opt opts[] = {{"--id", &id, NULL}, {NULL, NULL, NULL}};
  int r = cli_parse(c, argc, argv, opts, "TARGET", 1, pos);
  if (r != CLI_CONTINUE) return r;
  char named[128];
  if (!id && !cli_target_snapshot(pos[0], named, sizeof named))
    return cli_usage_error(c, "name the snapshot: TARGET?snapshot=ID or --id ID");
  xio_ctx *ctx = NULL;
  xio_error e;
  xio_err rc = cli_context(c, &ctx, &e);
  if (rc == XIO_OK) rc = xio_snapshot_delete(ctx, pos[0], id, &e);
  if (rc != XIO_OK) return cli_fail(c, rc, &e);
  char *safe = xio_target_safe(pos[0]);
  if (c->json) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "command", "snapshot delete");
    cJSON_AddStringToObject(o, "target", safe ? safe : "");
    if (id) cJSON_AddStringToObject(o, "snapshot", id);
    cli_json_print(o);
  } else {
    cli_say(c, "deleted the snapshot%s%s of %s", id ? " " : "", id ? id : "", safe ? safe : "");
  }
  xio_free(safe);
  return CLI_OK;
}

/* ------------------------------------------------------------- take ---- */

static int run_take(cli *c, int argc, char **argv) {
  const char *pos[1];
  int r = cli_parse(c, argc, argv, NULL, "TARGET", 1, pos);
  if (r != CLI_CONTINUE) return r;
  double t0 = samples_now();
  xio_open_options o = xio_open_options_default();
  xio_file *f = NULL;
  xio_error e;
  char id[64];
  xio_err rc = cli_open(c, pos[0], &o, &f, &e);
  if (rc == XIO_OK) rc = xio_file_snapshot(f, id, sizeof id, &e);
  if (f) xio_file_close(f, NULL);
  if (rc != XIO_OK) return cli_fail(c, rc, &e);
  return report(c, pos[0], id, samples_now() - t0);
}

static int run_snapshot(cli *c, int argc, char **argv) {
  if (argc > 0 && strcmp(argv[0], "list") == 0) return run_list(c, argc - 1, argv + 1);
  if (argc > 0 && strcmp(argv[0], "delete") == 0) return run_delete(c, argc - 1, argv + 1);
  if (argc > 0 && strcmp(argv[0], "diff") == 0) return cli_snapshot_diff(c, argc - 1, argv + 1);
  return run_take(c, argc, argv);
}

const cli_command cli_cmd_snapshot = {
    "snapshot",
    "take, list, diff or delete read-only, point-in-time copies of a page blob",
    "snapshot TARGET\n"
    "snapshot list TARGET\n"
    "snapshot delete TARGET?snapshot=ID | snapshot delete TARGET --id ID\n"
    "snapshot diff TARGET --since ID [--to ID]",
    "Takes a snapshot of a page blob (a read-only copy of its current contents, kept\n"
    "beside it until the blob is deleted with its snapshots) and prints its id and\n"
    "the URL that opens it: TARGET?snapshot=ID, usable with stat, ranges, get and as\n"
    "the source of cp (which restores the blob to it).\n"
    "`snapshot list` shows the blob's snapshots: id, size, allocated\n"
    "bytes and time (a SAS must grant list on the container).\n"
    "`snapshot delete` deletes one snapshot; the blob and its other snapshots stay.\n"
    "`snapshot diff` lists what changed since snapshot --since: the ranges written\n"
    "and the ranges cleared (to zero), in offset order, with their totals; to the\n"
    "blob as it is, or to a later snapshot (--to ID, or TARGET?snapshot=ID).\n"
    "Local files have no snapshots.\n"
    "\n"
    "  --id ID           (delete) the snapshot to delete\n"
    "  --since ID        (diff) the older snapshot, the base of the diff\n"
    "  --to ID           (diff) a newer snapshot to diff to, instead of the blob\n",
    run_snapshot,
};
