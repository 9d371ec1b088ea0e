/*
 * scrub.c - secrets taken off the command line as the program starts. The arguments
 * of a running process are readable by every local user (ps, /proc/PID/cmdline), so
 * an argument that holds a secret (a URL's SAS signature, an AccountKey= or a
 * SharedAccessSignature= of a connection string, user:password@) is copied into the
 * program's own memory and its bytes in the command line are overwritten with '*'
 * before anything else runs, as curl does with its -u argument. The rest of the
 * program sees the copies; ps shows "sig=***...".
 *
 * This narrows the window to the program's first instructions; it does not close it.
 * A SAS that must never show belongs in a file (@FILE), AZURE_STORAGE_SAS_TOKEN or
 * the credential file.
 */
#define _POSIX_C_SOURCE 200809L
#include <string.h>

#include <xio/alloc.h>
#include <xio/auth.h>

#include "cli.h"

/* Copies argv[i] into `out` and scrubs the original when it holds a secret. 0, or
 * -1 when out of memory. */
static int scrub_one(char **argv, int i, cli_scrubbed *out) {
  char *copy = xio_strdup(argv[i]);
  if (!copy) return -1;
  if (xio_auth_scrub(argv[i]) == 0) {
    xio_free(copy);
    return 0;
  }
  out->copies[out->n++] = copy;
  argv[i] = copy;
  return 0;
}

int cli_scrub_argv(int argc, char **argv, cli_scrubbed *out) {
  memset(out, 0, sizeof *out);
  if (argc < 2) return 0;
  out->copies = xio_calloc((size_t)argc, sizeof *out->copies);
  if (!out->copies) return -1;
  for (int i = 1; i < argc; i++)
    if (scrub_one(argv, i, out) != 0) return -1;
  return 0;
}

void cli_scrubbed_free(cli_scrubbed *s) {
  for (int i = 0; i < s->n; i++) /* each holds a secret */
    xio_auth_secret_free(s->copies[i], strlen(s->copies[i]));
  xio_free(s->copies);
  memset(s, 0, sizeof *s);
}
