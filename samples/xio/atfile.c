/*
 * atfile.c - a TARGET read from a file or from standard input instead of the
 * command line. The arguments of a running process are readable by every local
 * user (ps, /proc/PID/cmdline), so a URL with a SAS in it is better kept off the
 * command line: `@FILE` stands for the URL on FILE's first line, `@-` for the one
 * on standard input's (once per command). A local path that starts with '@' is
 * written `./@name`.
 *
 * The file's first line is the target, without its line end and the blanks
 * around it; lines after it must be blank (samples_read_first_line, shared with the
 * nbdkit plugin's url=@FILE). Nothing read is ever printed: messages name the
 * argument and the file, never what it holds.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <xio/alloc.h>
#include <xio/auth.h>

#include "cli.h"

#define TARGET_MAX 8192 /* longest target read from a file */

/* Keeps `text` for the rest of the run; NULL on out-of-memory. */
static const char *keep(cli *c, const char *text) {
  if (c->nread == CLI_MAX_READ_TARGETS) return NULL;
  char *copy = xio_strdup(text);
  if (copy) c->read_targets[c->nread++] = copy;
  return copy;
}

int cli_target_from_file(cli *c, const char *what, const char *arg, const char **out) {
  if (arg[0] != '@') return CLI_CONTINUE;
  const char *path = arg + 1;
  int from_stdin = strcmp(path, "-") == 0;
  if (!path[0])
    return cli_usage_error(c,
                           "%s '@' names no file: @FILE reads the target from FILE, @- from "
                           "standard input; write a local path that starts with '@' as ./@name",
                           what);
  if (from_stdin && c->stdin_read)
    return cli_usage_error(c,
                           "%s @-: standard input was read for another argument already; only "
                           "one argument per command can come from it",
                           what);
  FILE *f = from_stdin ? stdin : fopen(path, "r");
  if (!f) return cli_usage_error(c, "%s %s: cannot open %s: %s", what, arg, path, strerror(errno));
  char line[TARGET_MAX + 2];
  int errnum;
  const char *wrong =
      samples_read_first_line(f, from_stdin && isatty(fileno(f)), line, sizeof line, &errnum);
  if (from_stdin)
    c->stdin_read = 1;
  else
    fclose(f);
  const char *name = from_stdin ? "standard input" : path;
  if (wrong)
    return cli_usage_error(c, "%s %s: %s %s%s%s", what, arg, name, wrong, errnum ? ": " : "",
                           errnum ? strerror(errnum) : "");
  if (!(*out = keep(c, line))) return cli_usage_error(c, "%s %s: out of memory", what, arg);
  return CLI_CONTINUE;
}

void cli_read_targets_free(cli *c) {
  for (int i = 0; i < c->nread; i++) { /* each may hold a SAS */
    xio_auth_secret_free(c->read_targets[i], strlen(c->read_targets[i]));
    c->read_targets[i] = NULL;
  }
  c->nread = 0;
}
