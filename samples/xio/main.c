/*
 * main.c - the xio command line: global options, the command table, dispatch.
 *
 *   xio [GLOBAL OPTIONS] COMMAND [ARGS...]
 *
 * Global options come before the command (and are accepted after it too, see
 * args.c). The command table below is the one list of commands: `xio --help` lists
 * it, `xio help NAME` and `xio NAME --help` print a command's usage, and dispatch
 * looks names up in it (a name it lacks gets the closest one, suggest.c), and the
 * hidden `xio __complete WORDS...` prints the words that may follow WORDS for the
 * shell completion scripts (shell/), from this table and the commands' own option
 * tables. A new command is a file defining a cli_command, one line in the table and
 * its example (examples.c). Exit status: 0 done, 1 the operation failed, 2 bad usage.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "cli.h"

#ifndef XIO_CLI_VERSION
#define XIO_CLI_VERSION "0.0.0"
#endif

/* The commands, in the order `xio --help` lists them. */
static const cli_command *const commands[] = {
    &cli_cmd_create,  &cli_cmd_grow,  &cli_cmd_zero,     &cli_cmd_stat,
    &cli_cmd_ranges,  &cli_cmd_put,   &cli_cmd_get,      &cli_cmd_rm,
    &cli_cmd_sas,     &cli_cmd_lease, &cli_cmd_snapshot, &cli_cmd_backup,
    &cli_cmd_restore, &cli_cmd_ls,    &cli_cmd_cp,       &cli_cmd_emulator,
};
#define NCOMMANDS (sizeof commands / sizeof *commands)

static const char intro[] =
    "usage: xio [GLOBAL OPTIONS] COMMAND [ARGS...]\n"
    "\n"
    "Database files on Azure page blobs or local disks. TARGET is a blob URL,\n"
    "https://ACCOUNT.blob.core.windows.net/CONTAINER/BLOB[?SAS] or an emulator URL\n"
    "http://127.0.0.1:PORT/ACCOUNT/CONTAINER/BLOB, or a local path; @FILE stands for\n"
    "the target on FILE's first line, @- for the one on standard input (a local path\n"
    "that starts with '@' is written ./@name).\n"
    "\n"
    "Commands:\n";

static const char globals[] =
    "\n"
    "Global options (before or after the command):\n"
    "  --trace FILE|-          one JSON line per storage request (xio_send_complete)\n"
    "                          appended to FILE, or written to stderr for -\n"
    "  --json                  machine-readable output on stdout\n"
    "  --quiet                 print only errors and what the command is asked for\n"
    "                          (stat, ranges, the SAS URL, the lease id)\n"
    "  --progress              show the progress bar even when stderr is no terminal\n"
    "  --cacert FILE           also trust the CA certificates in FILE (XIO_CA_BUNDLE)\n"
    "  --credentials FILE      JSON credential file: URL prefix -> SAS or key\n"
    "                          (XIO_CREDENTIALS); refused when group or others may\n"
    "                          write it, or read it while it holds a secret\n"
    "  --allow-exposed-credentials\n"
    "                          load such a file anyway\n"
    "                          (XIO_ALLOW_EXPOSED_CREDENTIALS=1)\n"
    "  --allow-insecure-http   permit plain http:// to a host that is not loopback\n"
    "  --entra METHOD          Entra ID tokens only from METHOD: managed_identity,\n"
    "                          azure_cli, imds or default (XIO_ENTRA_METHOD)\n"
    "  --pacing auto|on|off    keep each blob under the service's targets, slowing\n"
    "                          down on throttling (auto: on for Azure, off for an\n"
    "                          emulator on this machine; on: for `xio emulator`'s)\n"
    "  --max-rate SIZE         at most SIZE bytes per second per blob (e.g. 40MiB)\n"
    "  -h, --help              this help (`xio help COMMAND` for one command)\n"
    "  --version               print the version\n"
    "\n"
    "Credentials: a SAS in the URL, the credential file,\n"
    "AZURE_STORAGE_CONNECTION_STRING, AZURE_STORAGE_ACCOUNT + AZURE_STORAGE_KEY,\n"
    "AZURE_STORAGE_SAS_TOKEN, then for https URLs Entra ID tokens: a managed\n"
    "identity (IDENTITY_ENDPOINT), the Azure CLI (az login), or the instance\n"
    "metadata service on an Azure VM. A URL with a SAS given as an argument can be\n"
    "read by every user of this machine (ps) until xio starts and overwrites the\n"
    "signature in its command line: keep the SAS in AZURE_STORAGE_SAS_TOKEN or the\n"
    "credential file, or the whole URL in a file given as @FILE (or on standard\n"
    "input, @-). SIZE takes binary suffixes K, M, G, T.\n"
    "Exit status: 0 done, 1 the operation failed, 2 bad usage (an option, an argument, or\n"
    "a target URL that is malformed); `emulator status`: 3 when no emulator runs.\n";

static void print_help(FILE *out) {
  fputs(intro, out);
  /* NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers */
  for (size_t i = 0; i < NCOMMANDS; i++)
    fprintf(out, "  %-9s %s\n", commands[i]->name, commands[i]->summary);
  fputs(globals, out);
}

static const cli_command *find_command(const char *name) {
  /* NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers */
  for (size_t i = 0; i < NCOMMANDS; i++)
    if (strcmp(commands[i]->name, name) == 0) return commands[i];
  return NULL;
}

/* The command closest to the mistyped `word` ("help" included), or NULL. */
static const char *guess_command(const char *word) {
  cli_guess g;
  cli_guess_init(&g, word);
  /* NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers */
  for (size_t i = 0; i < NCOMMANDS; i++)
    cli_guess_offer(&g, commands[i]->name);
  cli_guess_offer(&g, "help");
  return cli_guess_best(&g);
}

/* "xio: WHAT ARG", then `guess` when there is one, with the usage. */
static int top_usage_error_guess(const char *what, const char *arg, const char *guess) {
  fprintf(stderr, "xio: %s%s%s", what, arg ? " " : "", arg ? arg : "");
  if (guess) fprintf(stderr, " (did you mean '%s'?)", guess);
  fputc('\n', stderr);
  fprintf(stderr, "usage: xio [GLOBAL OPTIONS] COMMAND [ARGS...]\n"
                  "Try 'xio --help' for the commands and options.\n");
  return CLI_USAGE;
}

static int top_usage_error(const char *what, const char *arg) {
  return top_usage_error_guess(what, arg, NULL);
}

/* "xio: WHAT NAME" for a command that does not exist, naming the closest one. */
static int unknown_command(const char *what, const char *name) {
  return top_usage_error_guess(what, name, guess_command(name));
}

/* `xio demo`, which earlier versions had: the create-database experiment is a
 * program of its own now (samples/demo), which the installed xio does not carry. */
static int demo_moved(void) {
  fprintf(stderr, "xio: demo is no longer a command of xio: the create-database experiment is "
                  "the program xio-demo (build/samples/xio-demo in a build of the source tree, "
                  "not installed); `make demo` builds it, starts the embedded Azurite and "
                  "runs it\n");
  return CLI_USAGE;
}

/* `xio help [COMMAND]`. */
static int help_command(int argc, char **argv) {
  if (argc == 0) {
    print_help(stdout);
    return CLI_OK;
  }
  const cli_command *cmd = find_command(argv[0]);
  if (!cmd) return unknown_command("help: unknown command", argv[0]);
  if (argc > 1) return top_usage_error("help takes one command, not more:", argv[1]);
  cli_print_help(cmd, stdout);
  return CLI_OK;
}

/* Prints the actions a command's synopsis names after the command's name, one a
 * line: the lowercase words there ("lease acquire TARGET", "lease renew|release
 * TARGET"); none for a synopsis that goes on with an argument ("put LOCAL TARGET"). */
static void print_actions(const cli_command *cmd) {
  for (const char *p = cmd->synopsis; *p;) {
    size_t line = strcspn(p, "\n");
    const char *w = p + strcspn(p, " \n");
    w += strspn(w, " ");
    size_t n = w < p + line ? strspn(w, "abcdefghijklmnopqrstuvwxyz|") : 0;
    if (n && (w[n] == ' ' || w[n] == '\n' || w[n] == '\0'))
      for (const char *a = w; a < w + n; a += strspn(a, "|")) {
        size_t k = strcspn(a, "| \n");
        printf("%.*s\n", (int)k, a);
        a += k;
      }
    p += line;
    if (*p == '\n') p++;
  }
}

/* `xio __complete [WORDS...]`, hidden: the words that may follow WORDS (the words
 * after "xio" up to the one being completed), one a line, for the shell completion
 * scripts: the commands, then a command's actions and options, taken from the
 * tables that parse them. Nothing after an option that awaits its value (the shell
 * then completes a file name). Never writes on stderr; exits 0. */
static int complete_words(int argc, char **argv) {
  cli c;
  memset(&c, 0, sizeof c);
  c.complete = 1;
  if (!freopen("/dev/null", "w", stderr)) return CLI_OK;
  int i = 0;
  for (; i < argc && argv[i][0] == '-' && argv[i][1] != '\0'; i++) {
    if (strcmp(argv[i], "--") == 0) {
      i++;
      break;
    }
    if (cli_global_option(&c, argc, argv, &i) == CLI_USAGE) return CLI_OK; /* awaits a value */
  }
  if (i == argc || strcmp(argv[i], "help") == 0) {
    if (i + 1 < argc) return CLI_OK; /* help takes one command */
    /* NOLINTNEXTLINE(bugprone-sizeof-expression): an array of pointers */
    for (size_t k = 0; k < NCOMMANDS; k++)
      printf("%s\n", commands[k]->name);
    if (i < argc) return CLI_OK;
    printf("help\n--version\n");
    return cli_parse(&c, 0, argv + i, NULL, "", 0, NULL); /* the global options */
  }
  c.cmd = find_command(argv[i]);
  if (!c.cmd) return CLI_OK;
  if (i + 1 == argc) print_actions(c.cmd);
  c.cmd->run(&c, argc - i - 1, argv + i + 1); /* prints its options, does nothing */
  return CLI_OK;
}

/* Parses the global options before the command; returns the index of the command
 * word, or -1 with *status set when the program should end. */
static int parse_globals(cli *c, int argc, char **argv, int *status) {
  int i = 1;
  while (i < argc && argv[i][0] == '-' && argv[i][1] != '\0') {
    if (strcmp(argv[i], "--") == 0) return i + 1;
    int r;
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      print_help(stdout);
      r = CLI_OK;
    } else if (strcmp(argv[i], "--version") == 0) {
      printf("xio %s\n", XIO_CLI_VERSION);
      r = CLI_OK;
    } else if ((r = cli_global_option(c, argc, argv, &i)) == 0) {
      r = cli_unknown_option(c, NULL, argv[i]);
    } else if (r == 1) {
      i++;
      continue;
    }
    *status = r;
    return -1;
  }
  return i;
}

static int finish(cli *c, int status) {
  cli_context_free(c);
  cli_read_targets_free(c);
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "xio: cannot write the output\n");
    if (status == CLI_OK) status = CLI_FAILED;
  }
  return status;
}

/*
 * Keeps freed memory in the process for the next request. libcurl allocates each
 * transfer's 512 KiB receive buffer (CURLOPT_BUFFERSIZE) when the transfer starts
 * and frees it when it ends; glibc then returns the top of the heap to the kernel
 * (MADV_DONTNEED) every few requests and the next transfer faults the pages back
 * in, thousands of page faults per GiB downloaded. With the heap's top kept up to
 * 64 MiB and blocks below 4 MiB taken from the heap rather than mapped each time,
 * the same get faults a fraction as often with the same peak RSS
 * (docs/benchmarks/design.md#heap-trim).
 */
static void keep_heap(void) {
#ifdef __GLIBC__
  mallopt(M_MMAP_THRESHOLD, 4 << 20);
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
}

/* The program past the secrets' scrubbing: global options, the command, its run. */
static int run(int argc, char **argv) {
  cli c;
  memset(&c, 0, sizeof c);
  int status = CLI_OK;
  int i = parse_globals(&c, argc, argv, &status);
  if (i < 0) return status;
  if (i >= argc) return top_usage_error("no command given", NULL);
  if (strcmp(argv[i], "__complete") == 0) return complete_words(argc - i - 1, argv + i + 1);
  if (strcmp(argv[i], "help") == 0) return help_command(argc - i - 1, argv + i + 1);
  c.cmd = find_command(argv[i]);
  if (!c.cmd && strcmp(argv[i], "demo") == 0) return demo_moved();
  if (!c.cmd) return unknown_command("unknown command", argv[i]);
  return finish(&c, c.cmd->run(&c, argc - i - 1, argv + i + 1));
}

int main(int argc, char **argv) {
  keep_heap();
  cli_scrubbed scrubbed;
  int status;
  if (cli_scrub_argv(argc, argv, &scrubbed) != 0) {
    fprintf(stderr, "xio: out of memory\n");
    status = CLI_FAILED;
  } else {
    status = run(argc, argv);
  }
  cli_scrubbed_free(&scrubbed);
  return status;
}
