/*
 * main.c - xio-demo: the create-database experiment (demo.h) as a program of its own,
 * on a running emulator or on local files. `make demo` builds it, starts the embedded
 * Azurite and runs it. It is not part of the installed xio command: the experiment is
 * for people trying the library out of its source tree, and the command line that
 * operators install links only what its commands need.
 *
 * Exit status: 0 done, 1 the experiment failed, 2 bad usage.
 */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demo.h"
#include "samples_common.h"

#ifndef XIO_DEMO_VERSION
#define XIO_DEMO_VERSION "0.0.0"
#endif

static const char usage[] =
    "usage: xio-demo [--endpoint URL | --local DIR] [--data-size SIZE] [--log-size SIZE]\n"
    "                [--grow-to SIZE] [--json] [--progress]\n"
    "\n"
    "Creates a database's data file and log file twice, the classic way (every new byte\n"
    "written as zero) and the instant way (the data file not initialized, the log file\n"
    "zeroed by one metadata request), grows a log file from 8 MiB to 1 TiB, and prints\n"
    "the times side by side with the storage requests each took, the trace of the\n"
    "growth, and a read-back check that the grown region is zero. Everything it makes\n"
    "is deleted at the end. `make demo` starts the embedded Azurite and runs it.\n"
    "\n"
    "Options:\n"
    "  --endpoint URL     a running Azurite's blob endpoint, e.g. http://127.0.0.1:10000\n"
    "                     (the account's path may follow; default: $XIO_DEMO_ENDPOINT,\n"
    "                     then $XIO_BLOB_ENDPOINT, which `xio emulator start --shell`\n"
    "                     exports, then $XIO_TEST_BLOB_ENDPOINT)\n"
    "  --local DIR        run on local files in DIR instead (FALLOC_FL_ZERO_RANGE); the\n"
    "                     growth is capped to a quarter of the free space there\n"
    "  --data-size SIZE   data file size (default 2G)\n"
    "  --log-size SIZE    log file size (default 512M)\n"
    "  --grow-to SIZE     the log growth's final size (default 1T)\n"
    "  --json             the results as one JSON object on stdout\n"
    "  --progress         the classic zero-writes' progress line (percent, rate, time\n"
    "                     left) on stderr even when it is not a terminal, a line a\n"
    "                     second (on a terminal it shows anyway; never with --json)\n"
    "  -h, --help         this help\n"
    "  --version          print the version\n"
    "\n"
    "SIZE takes binary suffixes K, M, G, T.\n"
    "Exit status: 0 done, 1 the experiment failed, 2 bad usage.\n";

/* Prints "xio-demo: MESSAGE" and a pointer to the help; returns 2. */
static int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int usage_error(const char *fmt, ...) {
  va_list ap;
  fputs("xio-demo: ", stderr);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputs("\nTry 'xio-demo --help' for the options.\n", stderr);
  return 2;
}

/* The emulator: --endpoint, else XIO_DEMO_ENDPOINT, else XIO_BLOB_ENDPOINT (what
 * `eval "$(xio emulator start --shell)"` exports), else the test harness's
 * XIO_TEST_BLOB_ENDPOINT (what `make demo` sets). Given with the account's path
 * (http://127.0.0.1:PORT/devstoreaccount1, as the emulator prints it) or without:
 * the demo adds the account itself. Copied into `ep`; NULL when none is set. */
static const char *find_endpoint(const char *given, char *ep, size_t size) {
  static const char *const vars[] = {"XIO_DEMO_ENDPOINT", "XIO_BLOB_ENDPOINT",
                                     "XIO_TEST_BLOB_ENDPOINT"};
  const char *e = given;
  for (size_t i = 0; !e && i < sizeof vars / sizeof *vars; i++)
    if ((e = getenv(vars[i])) && !*e) e = NULL;
  if (!e) return NULL;
  snprintf(ep, size, "%s", e);
  samples_bare_endpoint(ep);
  return ep;
}

/* SIZE of option `opt` into *out. Returns 0, or 2 after saying what is wrong. */
static int size_opt(const char *opt, const char *text, uint64_t *out) {
  xio_error e;
  if (xio_size_parse(text, out, &e) == XIO_OK) return 0;
  return usage_error("bad %s '%.100s': %.300s", opt, text, e.message);
}

enum { O_ENDPOINT = 1, O_LOCAL, O_DATA, O_LOG, O_GROW, O_JSON, O_PROGRESS, O_HELP, O_VERSION };

static const struct option long_opts[] = {
    {"endpoint", required_argument, NULL, O_ENDPOINT}, {"local", required_argument, NULL, O_LOCAL},
    {"data-size", required_argument, NULL, O_DATA},    {"log-size", required_argument, NULL, O_LOG},
    {"grow-to", required_argument, NULL, O_GROW},      {"json", no_argument, NULL, O_JSON},
    {"progress", no_argument, NULL, O_PROGRESS},       {"help", no_argument, NULL, O_HELP},
    {"version", no_argument, NULL, O_VERSION},         {NULL, 0, NULL, 0},
};

/* Parses the options into `o` (and the endpoint given into `*endpoint`). Returns
 * -1 to go on, or the exit status to end with. */
static int parse(int argc, char **argv, xio_demo_options *o, const char **endpoint) {
  int id, r = 0;
  opterr = 0;
  while (r == 0 && (id = getopt_long(argc, argv, ":h", long_opts, NULL)) != -1) {
    switch (id) {
    case O_ENDPOINT: *endpoint = optarg; break;
    case O_LOCAL: o->local_dir = optarg; break;
    case O_DATA: r = size_opt("--data-size", optarg, &o->data_size); break;
    case O_LOG: r = size_opt("--log-size", optarg, &o->log_size); break;
    case O_GROW: r = size_opt("--grow-to", optarg, &o->grow_to); break;
    case O_JSON: o->json = 1; break;
    case O_PROGRESS: o->progress = 1; break;
    case 'h':
    case O_HELP: fputs(usage, stdout); return 0;
    case O_VERSION: printf("xio-demo %s\n", XIO_DEMO_VERSION); return 0;
    case ':': return usage_error("%s needs a value", argv[optind - 1]);
    default: return usage_error("unknown option %s", argv[optind - 1]);
    }
  }
  if (r) return r;
  if (optind < argc) return usage_error("unexpected argument %s", argv[optind]);
  if (o->data_size == 0 || o->log_size == 0) return usage_error("sizes must be more than 0");
  if (o->grow_to <= o->grow_from)
    return usage_error("--grow-to must be more than the log's starting 8 MiB");
  return -1;
}

int main(int argc, char **argv) {
  xio_demo_options o = xio_demo_options_default();
  const char *endpoint = NULL;
  char ep[1024];
  int r = parse(argc, argv, &o, &endpoint);
  if (r >= 0) return r;
  o.endpoint = o.local_dir ? NULL : find_endpoint(endpoint, ep, sizeof ep);
  if (!o.endpoint && !o.local_dir)
    return usage_error("no emulator to run on: `make demo` starts one, or give --endpoint URL "
                       "of a running Azurite, or --local DIR");
  xio_error e;
  xio_error_clear(&e);
  xio_err rc = xio_demo_run(&o, &e);
  if (rc == XIO_OK) return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
  char msg[1024];
  fprintf(stderr, "xio-demo: %s\n", xio_error_format(&e, msg, sizeof msg));
  return 1;
}
