/*
 * atfile.c - a TARGET read from a file or from standard input instead of the
 * command line. The arguments of a running process are readable by every local
 * user (ps, /proc/PID/cmdline), so a URL with a SAS in it is better kept off the
 * command line: `@FILE` stands for the URL on FILE's first line, `@-` for the one
 * on standard input's (once per command). A local path that starts with '@' is
 * written `./@name`.
 *
 * The file's first line is the target, without its line end and the blanks
 * around it; lines after it must be blank. Nothing read is ever printed: messages
 * name the argument and the file, never what it holds.
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

static int is_blank(int ch) { return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n'; }

/* What is wrong with the first line of `f` (NULL: nothing), read into `line`
 * without its line end and surrounding blanks. Reads on to the end of `f` unless
 * `one_line` (a terminal, where the person typing stops at one). */
static const char *read_line(FILE *f, int one_line, char *line, size_t size, int *errnum) {
  *errnum = 0;
  if (!fgets(line, (int)size, f)) {
    *errnum = ferror(f) ? errno : 0;
    return *errnum ? "cannot be read" : "is empty";
  }
  size_t n = strlen(line);
  if (n == size - 1 && line[n - 1] != '\n' && !feof(f)) return "has a first line that is too long";
  while (n && is_blank((unsigned char)line[n - 1]))
    line[--n] = '\0';
  size_t lead = strspn(line, " \t");
  memmove(line, line + lead, n - lead + 1);
  if (!line[0]) return "has an empty first line";
  for (const char *p = line; *p; p++)
    if ((unsigned char)*p < 0x20 || *p == 0x7f) return "holds control characters in its first line";
  if (line[0] == '@') return "holds a line that starts with '@' (write a local path ./@name)";
  for (int ch; !one_line && (ch = getc(f)) != EOF;)
    if (!is_blank(ch)) return "holds more than one line (the target must be its only line)";
  if (ferror(f)) {
    *errnum = errno;
    return "cannot be read";
  }
  return NULL;
}

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
  const char *wrong = read_line(f, from_stdin && isatty(fileno(f)), line, sizeof line, &errnum);
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
