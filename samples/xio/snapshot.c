/*
 * snapshot.c - the snapshot command: take a read-only, point-in-time copy of a page
 * blob (Snapshot Blob) and print its id and the URL that opens it. The URL printed
 * is the log-safe one: a SAS given on the command line is not repeated.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>

#include "cli.h"

static int report(cli *c, const char *target, const char *id, double secs) {
  char *safe = cli_safe_target(target);
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
    printf("snapshot %s of %s in %s\nopen it read-only as %s?snapshot=%s\n", id, safe ? safe : "",
           samples_fmt_secs(secs, ht, sizeof ht), safe ? safe : "", id);
  }
  free(safe);
  return CLI_OK;
}

static int run_snapshot(cli *c, int argc, char **argv) {
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

const cli_command cli_cmd_snapshot = {
    "snapshot",
    "take a read-only, point-in-time copy of a page blob",
    "snapshot TARGET",
    "Takes a snapshot of a page blob (a read-only copy of its current contents, kept\n"
    "beside it until the blob is deleted with its snapshots) and prints its id and\n"
    "the URL that opens it: TARGET?snapshot=ID, usable with stat, ranges and get.\n"
    "Local files have no snapshots.\n",
    run_snapshot,
};
