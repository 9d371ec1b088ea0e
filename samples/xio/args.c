/*
 * args.c - argument parsing for the xio commands: long options with a value
 * ("--size 1G" or "--size=1G"; the value may start with '-', as in "--duration -1"),
 * flags, the global options (accepted before and after the command), positional
 * arguments (a target written @FILE or @- read from there, see atfile.c), "--help",
 * and usage errors that name what was wrong and show the command's usage.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

#define MAX_GLOBALS 12

/* 1 when `arg` is option `name`, alone or as "name=value" (*inline_value set). */
static int match(const char *arg, const char *name, const char **inline_value) {
  size_t n = strlen(name);
  if (strncmp(arg, name, n) != 0 || (arg[n] != '\0' && arg[n] != '=')) return 0;
  *inline_value = arg[n] == '=' ? arg + n + 1 : NULL;
  return 1;
}

/* Applies option `o` found at argv[*i]. Returns 1, or CLI_USAGE after a message. */
static int apply(const cli *c, const cli_opt *o, const char *inline_value, int argc, char **argv,
                 int *i) {
  if (o->flag) {
    if (inline_value) return cli_usage_error(c, "option %s takes no value", o->name);
    *o->flag = 1;
    return 1;
  }
  if (inline_value) {
    *o->value = inline_value;
    return 1;
  }
  if (*i + 1 >= argc) return cli_usage_error(c, "option %s needs a value", o->name);
  *o->value = argv[++*i];
  return 1;
}

/* Tries argv[*i] against the table `opts`: 1 taken, 0 not in the table, or
 * CLI_USAGE. */
static int try_table(const cli *c, const cli_opt *opts, int argc, char **argv, int *i) {
  const char *inline_value;
  for (const cli_opt *o = opts; o && o->name; o++)
    if (match(argv[*i], o->name, &inline_value)) return apply(c, o, inline_value, argc, argv, i);
  return 0;
}

static void global_table(cli *c, cli_opt t[MAX_GLOBALS]) {
  const cli_opt g[MAX_GLOBALS] = {
      {"--trace", &c->trace, NULL},
      {"--cacert", &c->cacert, NULL},
      {"--credentials", &c->credentials, NULL},
      {"--json", NULL, &c->json},
      {"--quiet", NULL, &c->quiet},
      {"--progress", NULL, &c->progress},
      {"--allow-insecure-http", NULL, &c->allow_insecure},
      {"--allow-exposed-credentials", NULL, &c->allow_exposed},
      {"--entra", &c->entra, NULL},
      {"--pacing", &c->pacing, NULL},
      {"--max-rate", &c->max_rate, NULL},
      {NULL, NULL, NULL},
  };
  memcpy(t, g, sizeof g);
}

int cli_global_option(cli *c, int argc, char **argv, int *i) {
  cli_opt t[MAX_GLOBALS];
  global_table(c, t);
  return try_table(c, t, argc, argv, i);
}

/* Copies the `index`-th word of `names` into `out`. */
static void name_at(const char *names, int index, char *out, size_t size) {
  const char *p = names;
  for (int k = 0; k < index && p; k++) {
    p = strchr(p, ' ');
    if (p) p++;
  }
  size_t n = p ? strcspn(p, " ") : 0;
  snprintf(out, size, "%.*s", (int)n, p ? p : "");
}

static int count_words(const char *names) {
  int n = 0;
  for (const char *p = names; p && *p; n++) {
    p = strchr(p, ' ');
    if (p) p++;
  }
  return n;
}

static int is_option(const char *a) { return a[0] == '-' && a[1] != '\0'; }

/* Offers the names of the table `opts` to the guess `g`. */
static void offer_table(cli_guess *g, const cli_opt *opts) {
  for (const cli_opt *o = opts; o && o->name; o++)
    cli_guess_offer(g, o->name);
}

int cli_unknown_option(cli *c, const cli_opt *opts, const char *arg) {
  cli_opt t[MAX_GLOBALS];
  cli_guess g;
  global_table(c, t);
  cli_guess_init(&g, arg);
  offer_table(&g, opts);
  offer_table(&g, t);
  cli_guess_offer(&g, "--help");
  const char *best = cli_guess_best(&g);
  if (best) return cli_usage_error(c, "unknown option %s (did you mean %s?)", arg, best);
  return cli_usage_error(c, "unknown option %s", arg);
}

/* One option at argv[*i]: returns 1 taken, CLI_OK after --help, or CLI_USAGE. */
static int take_option(cli *c, const cli_opt *opts, int argc, char **argv, int *i) {
  const char *a = argv[*i];
  if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
    cli_print_help(c->cmd, stdout);
    return CLI_OK;
  }
  int r = try_table(c, opts, argc, argv, i);
  if (r == 0) r = cli_global_option(c, argc, argv, i);
  if (r == 0) return cli_unknown_option(c, opts, a);
  return r;
}

/* The option of `opts` or the global table named by `arg`, or NULL; *inline_value
 * set as match() sets it. */
static const cli_opt *find_option(const cli_opt *opts, const cli_opt *globals, const char *arg,
                                  const char **inline_value) {
  for (const cli_opt *o = opts; o && o->name; o++)
    if (match(arg, o->name, inline_value)) return o;
  for (const cli_opt *o = globals; o->name; o++)
    if (match(arg, o->name, inline_value)) return o;
  return NULL;
}

/* `xio __complete`: the options that may come after argv, one a line; nothing when
 * the last argument awaits its value. Returns CLI_OK. */
static int list_options(cli *c, const cli_opt *opts, int argc, char **argv) {
  cli_opt t[MAX_GLOBALS];
  global_table(c, t);
  int awaits = 0, options_done = 0;
  for (int i = 0; i < argc; i++) {
    const char *inline_value = NULL;
    const cli_opt *o = NULL;
    if (awaits)
      awaits = 0;
    else if (strcmp(argv[i], "--") == 0)
      options_done = 1;
    else if (!options_done && is_option(argv[i]))
      o = find_option(opts, t, argv[i], &inline_value);
    if (o && o->value && !inline_value) awaits = 1;
  }
  if (awaits || options_done) return CLI_OK;
  for (const cli_opt *o = opts; o && o->name; o++)
    printf("%s\n", o->name);
  for (const cli_opt *o = t; o->name; o++)
    printf("%s\n", o->name);
  printf("--help\n");
  return CLI_OK;
}

/* 1 for the positionals that name a file xio opens: TARGET, and cp's SRC and DST
 * (either may be a local path). LOCAL is always a path, whatever it looks like. */
static int is_target_name(const char *what) {
  return strcmp(what, "TARGET") == 0 || strcmp(what, "SRC") == 0 || strcmp(what, "DST") == 0;
}

/* A URL typed without its scheme, where a target goes (schemeless.c): refused,
 * naming the URL probably meant. CLI_CONTINUE when `arg` is not one. */
static int check_schemeless(const cli *c, const char *what, const char *arg) {
  char meant[600];
  int url_only = strcmp(what, "CONTAINER_URL") == 0 || strcmp(what, "URL") == 0;
  if ((!is_target_name(what) && !url_only) || xio_target_classify(arg) != XIO_TARGET_LOCAL ||
      xio_target_scheme_length(arg) > 0 || !cli_schemeless_url(arg, meant, sizeof meant))
    return CLI_CONTINUE;
  return cli_usage_error(c,
                         "%s has no scheme, and no local file or directory %.*s exists: did "
                         "you mean %s?",
                         what, (int)strcspn(arg, "/?"), arg, meant);
}

/* Replaces the targets written @FILE or @- (and ls's CONTAINER_URL) by what they
 * stand for (atfile.c), then refuses a TARGET that is a URL of a scheme xio cannot
 * open (ftp://...), naming the scheme, and one typed without its scheme
 * (127.0.0.1:10000/..., ACCOUNT.blob.core.windows.net/...), naming the URL meant,
 * before anything is sent or created. */
static int check_targets(cli *c, const char *names, int npos, const char **pos) {
  for (int k = 0; k < npos; k++) {
    char what[32];
    name_at(names, k, what, sizeof what);
    int r = is_target_name(what) || strcmp(what, "CONTAINER_URL") == 0
                ? cli_target_from_file(c, what, pos[k], &pos[k])
                : CLI_CONTINUE;
    if (r == CLI_CONTINUE) r = check_schemeless(c, what, pos[k]);
    if (r != CLI_CONTINUE) return r;
    if (!is_target_name(what) || xio_target_classify(pos[k]) != XIO_TARGET_UNSUPPORTED) continue;
    int n = (int)xio_target_scheme_length(pos[k]);
    if (n == 0) return cli_usage_error(c, "empty %s", what);
    return cli_usage_error(c,
                           "unsupported URL scheme '%.*s' in %s: xio opens https:// page-blob "
                           "URLs, http:// emulator URLs, local paths and file:// URLs",
                           n, pos[k], what);
  }
  return CLI_CONTINUE;
}

int cli_parse(cli *c, int argc, char **argv, const cli_opt *opts, const char *names, int min_pos,
              const char **pos) {
  if (c->complete) return list_options(c, opts, argc, argv);
  int npos = 0, max_pos = count_words(names), options_done = 0;
  for (int i = 0; i < argc; i++) {
    if (!options_done && strcmp(argv[i], "--") == 0) {
      options_done = 1;
    } else if (!options_done && is_option(argv[i])) {
      int r = take_option(c, opts, argc, argv, &i);
      if (r != 1) return r;
    } else if (npos == max_pos) {
      return cli_usage_error(c, "unexpected argument '%s'", argv[i]);
    } else {
      pos[npos++] = argv[i];
    }
  }
  if (npos < min_pos) {
    char what[32];
    name_at(names, npos, what, sizeof what);
    return cli_usage_error(c, "missing %s", what);
  }
  for (int k = npos; k < max_pos; k++)
    pos[k] = NULL;
  return check_targets(c, names, npos, pos);
}

/* Prints the synopsis lines: "usage: xio LINE1\n       xio LINE2\n". */
static void print_synopsis(const cli_command *cmd, FILE *out) {
  const char *p = cmd->synopsis;
  const char *lead = "usage: ";
  while (*p) {
    size_t n = strcspn(p, "\n");
    fprintf(out, "%sxio %.*s\n", lead, (int)n, p);
    lead = "       ";
    p += n;
    if (*p == '\n') p++;
  }
}

/* What every command that opens a target says about @FILE, naming its argument. */
static void print_target_note(const cli_command *cmd, FILE *out) {
  const char *what = strstr(cmd->synopsis, "TARGET")          ? "TARGET"
                     : strstr(cmd->synopsis, "SRC")           ? "SRC or DST"
                     : strstr(cmd->synopsis, "CONTAINER_URL") ? "CONTAINER_URL"
                                                              : NULL;
  if (!what) return;
  fprintf(out,
          "\n"
          "%s written @FILE is read from FILE's first line, @- from\n"
          "standard input (a local path that starts with '@' is written ./@name): a URL\n"
          "with a SAS given as an argument can be read by every local user (ps) until\n"
          "xio starts and overwrites its signature, one in a file cannot. The SAS alone\n"
          "can also come from AZURE_STORAGE_SAS_TOKEN or --credentials FILE.\n",
          what);
}

void cli_print_help(const cli_command *cmd, FILE *out) {
  print_synopsis(cmd, out);
  fprintf(out, "\n%s", cmd->help);
  print_target_note(cmd, out);
  const char *example = cli_example(cmd->name);
  if (example) fprintf(out, "\nExample:\n  xio %s\n", example);
}

int cli_usage_error(const cli *c, const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "xio: ");
  if (c->cmd) fprintf(stderr, "%s: ", c->cmd->name);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  if (c->cmd) {
    print_synopsis(c->cmd, stderr);
    fprintf(stderr, "Try 'xio help %s' for more.\n", c->cmd->name);
  } else {
    fprintf(stderr, "Try 'xio --help' for more.\n");
  }
  return CLI_USAGE;
}
