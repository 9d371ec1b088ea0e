/*
 * rm.c - the rm command: delete a file (a page blob with its snapshots, or a local
 * file). A leased blob cannot be deleted; --break-lease breaks the lease first.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>

#include "cli.h"

static int run_rm(cli *c, int argc, char **argv) {
  const char *pos[1];
  int brk = 0;
  const cli_opt opts[] = {{"--break-lease", NULL, &brk}, {NULL, NULL, NULL}};
  int r = cli_parse(c, argc, argv, opts, "TARGET", 1, pos);
  if (r != CLI_CONTINUE) return r;
  double t0 = samples_now();
  xio_ctx *ctx;
  xio_error e;
  xio_err rc = cli_context(c, &ctx, &e);
  if (rc == XIO_OK && brk && cli_is_url(pos[0])) rc = cli_lease_break(c, pos[0], 0, NULL, &e);
  if (rc == XIO_OK) rc = xio_file_delete(ctx, pos[0], &e);
  if (rc != XIO_OK) return cli_fail(c, rc, &e);
  char *safe = cli_safe_target(pos[0]);
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
  free(safe);
  return CLI_OK;
}

const cli_command cli_cmd_rm = {
    "rm",
    "delete a file",
    "rm TARGET [--break-lease]",
    "Deletes a file: a page blob (with its snapshots) or a local file.\n"
    "\n"
    "Options:\n"
    "  --break-lease   break another client's lease on the blob first\n",
    run_rm,
};
