/*
 * demo.c - the demo command: the create-database experiment (samples/demo/) on the
 * emulator, or on a local directory with --local. `make demo` starts the embedded
 * Azurite and runs this command against it.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "demo.h"

/* The emulator: --endpoint, else XIO_DEMO_ENDPOINT, else XIO_BLOB_ENDPOINT (what
 * `eval "$(xio emulator start --shell)"` exports), else the test harness's
 * XIO_TEST_BLOB_ENDPOINT (what `make demo` sets). Given with the account's path
 * (http://127.0.0.1:PORT/devstoreaccount1, as the emulator prints it) or without:
 * the demo adds the account itself. NULL when none is set. */
static const char *find_endpoint(const char *given) {
  static const char *const vars[] = {"XIO_DEMO_ENDPOINT", "XIO_BLOB_ENDPOINT",
                                     "XIO_TEST_BLOB_ENDPOINT"};
  static char ep[1024];
  const char *e = given;
  for (size_t i = 0; !e && i < sizeof vars / sizeof *vars; i++)
    if ((e = getenv(vars[i])) && !*e) e = NULL;
  if (!e) return NULL;
  snprintf(ep, sizeof ep, "%s", e);
  samples_bare_endpoint(ep);
  return ep;
}

static int sizes(cli *c, const char *data, const char *log, const char *grow, xio_demo_options *o) {
  int r = CLI_CONTINUE;
  if (data) r = cli_value_size(c, "--data-size", data, &o->data_size);
  if (r == CLI_CONTINUE && log) r = cli_value_size(c, "--log-size", log, &o->log_size);
  if (r == CLI_CONTINUE && grow) r = cli_value_size(c, "--grow-to", grow, &o->grow_to);
  if (r == CLI_CONTINUE && (o->data_size == 0 || o->log_size == 0))
    r = cli_usage_error(c, "sizes must be more than 0");
  if (r == CLI_CONTINUE && o->grow_to <= o->grow_from)
    r = cli_usage_error(c, "--grow-to must be more than the log's starting 8 MiB");
  return r;
}

static int run_demo(cli *c, int argc, char **argv) {
  const char *endpoint = NULL, *local = NULL, *data = NULL, *log = NULL, *grow = NULL;
  const cli_opt opts[] = {{"--endpoint", &endpoint, NULL}, {"--local", &local, NULL},
                          {"--data-size", &data, NULL},    {"--log-size", &log, NULL},
                          {"--grow-to", &grow, NULL},      {NULL, NULL, NULL}};
  int r = cli_parse(c, argc, argv, opts, "", 0, NULL);
  if (r != CLI_CONTINUE) return r;
  xio_demo_options o = xio_demo_options_default();
  r = sizes(c, data, log, grow, &o);
  if (r != CLI_CONTINUE) return r;
  o.json = c->json;
  o.local_dir = local;
  o.endpoint = local ? NULL : find_endpoint(endpoint);
  if (!o.endpoint && !o.local_dir)
    return cli_usage_error(c, "no emulator to run on: `make demo` starts one, or give "
                              "--endpoint URL of a running Azurite, or --local DIR");
  xio_error e;
  xio_err rc = xio_demo_run(&o, &e);
  return rc == XIO_OK ? CLI_OK : cli_fail(c, rc, &e);
}

const cli_command cli_cmd_demo = {
    "demo",
    "the create-database experiment: classic vs instant initialization",
    "demo [--endpoint URL | --local DIR] [--data-size SIZE] [--log-size SIZE] [--grow-to SIZE]",
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
    "  --grow-to SIZE     the log growth's final size (default 1T)\n",
    run_demo,
};
