/*
 * emulator.c - the emulator command: `xio emulator start|stop|status` runs the
 * pinned Azurite in memory on a free loopback port for any client, behind a proxy
 * (xio-faultproxy) that makes it answer as Azure does (--profile, default standard;
 * none: raw Azurite) and injects faults on top (--faults), and prints how to reach it: the
 * blob endpoint and the dev account's connection string (for people, --json, or
 * --shell for `eval`). State lives in a directory (--dir, $XIO_EMULATOR_DIR, or the
 * shell session's own) so that stop and status find what start left running, and
 * one terminal's stop does not end another's emulator. status exits 3 when none runs.
 *
 * A shell over the emulator library (samples/testers/emulator, xio_emulator.h), which
 * starts, finds and stops the processes: this file parses the arguments and prints.
 *
 * The connection string carries Azurite's well-known development key: printing it
 * is the point of the command, and no other key is ever printed.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xio/auth.h>

#include "cli.h"
#include "xio_emulator.h"

#define MEMORY_DEFAULT "6G" /* blob data Azurite may hold, by default */
#define NOT_RUNNING    3    /* status's exit when none runs, as `systemctl status` */

typedef struct emu_opts {
  const char *dir, *faults, *seed, *profile, *memory;
  uint64_t memory_mib;           /* --memory, in MiB */
  unsigned long long seed_value; /* --seed (default 1), with --faults */
  int shell;
  char path[XIO_EMULATOR_PATH_MAX]; /* the state directory, absolute */
} emu_opts;

typedef struct emu_sub {
  const char *name;
  const char *synopsis; /* after "usage: xio " */
  const char *help;
  int (*run)(cli *c, emu_opts *o);
  int takes_start_options;
} emu_sub;

/* ------------------------------------------------------------ output ---- */

/* snprintf for messages that may be cut to fit `out`. */
static void text_to(char *out, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void text_to(char *out, size_t size, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(out, size, fmt, ap);
  va_end(ap);
}

/* Reports a failure: "xio: emulator ACTION failed: MESSAGE" on stderr (with --json
 * also an error object on stdout). Returns CLI_FAILED. */
static int emu_fail(const cli *c, const char *action, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int emu_fail(const cli *c, const char *action, const char *fmt, ...) {
  char msg[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(stderr, "xio: emulator %s failed: %s\n", action, msg);
  if (c->json) {
    cJSON *o = cJSON_CreateObject(), *e = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "command", "emulator");
    cJSON_AddStringToObject(o, "action", action);
    cJSON_AddStringToObject(e, "message", msg);
    cJSON_AddItemToObject(o, "error", e);
    cli_json_print(o);
  }
  return CLI_FAILED;
}

/* "--dir DIR" when the directory was given, so hints name the same one. */
static const char *dir_hint(const emu_opts *o, char *buf, size_t size) {
  if (!o->dir) return "";
  snprintf(buf, size, " --dir %s", o->path);
  return buf;
}

static cJSON *stats_json(const xio_emulator_stats *s) {
  cJSON *j = cJSON_CreateObject();
  cJSON_AddNumberToObject(j, "requests", (double)s->requests);
  for (int i = 0; i < XIO_EMULATOR_FAULT_KINDS; i++)
    cJSON_AddNumberToObject(j, xio_emulator_fault_name(i), (double)s->injected[i]);
  cJSON_AddNumberToObject(j, "throttled", (double)s->throttled);
  cJSON_AddNumberToObject(j, "refused", (double)s->refused);
  cJSON_AddNumberToObject(j, "paged", (double)s->paged);
  cJSON_AddNumberToObject(j, "diffs", (double)s->diffs);
  return j;
}

static void stats_line(const xio_emulator_stats *s, char *out, size_t size) {
  size_t k = (size_t)snprintf(out, size, "%llu request%s; faults injected:", s->requests,
                              cli_plural(s->requests));
  for (int i = 0; i < XIO_EMULATOR_FAULT_KINDS && k < size; i++)
    k += (size_t)snprintf(out + k, size - k, "%s %s %llu", i ? "," : "", xio_emulator_fault_name(i),
                          s->injected[i]);
  if (k < size)
    snprintf(out + k, size - k,
             "; as Azure: throttled %llu, refused for limits %llu, page lists paged %llu, "
             "diffs answered %llu",
             s->throttled, s->refused, s->paged, s->diffs);
}

/* The parts of start's and status's JSON that say where things run. */
static void where_json(cJSON *o, const emu_opts *op, const xio_emulator_state *st) {
  char ep[256], cs[512];
  xio_emulator_blob_endpoint(st, ep, sizeof ep);
  xio_emulator_connection_string(st, cs, sizeof cs);
  cJSON_AddStringToObject(o, "dir", op->path);
  cJSON_AddStringToObject(o, "account", XIO_AUTH_DEV_ACCOUNT);
  cJSON_AddStringToObject(o, "blob_endpoint", ep);
  cJSON_AddStringToObject(o, "connection_string", cs);
  cJSON *az = cJSON_AddObjectToObject(o, "azurite");
  cJSON_AddNumberToObject(az, "pid", (double)st->azurite.pid);
  cJSON_AddStringToObject(az, "endpoint", st->azurite_url);
  cJSON_AddBoolToObject(az, "running", xio_emulator_alive(&st->azurite));
  if (!st->proxy.pid) {
    cJSON_AddNullToObject(o, "proxy");
    return;
  }
  cJSON *px = cJSON_AddObjectToObject(o, "proxy");
  cJSON_AddNumberToObject(px, "pid", (double)st->proxy.pid);
  cJSON_AddStringToObject(px, "endpoint", st->proxy_url);
  cJSON_AddBoolToObject(px, "running", xio_emulator_alive(&st->proxy));
  cJSON_AddStringToObject(px, "faults", st->faults);
  cJSON_AddStringToObject(px, "profile", st->profile);
  cJSON_AddNumberToObject(px, "seed", (double)st->seed);
}

static void print_started(const cli *c, const emu_opts *o, const xio_emulator_state *st) {
  char ep[256], cs[512], hint[4200];
  xio_emulator_blob_endpoint(st, ep, sizeof ep);
  xio_emulator_connection_string(st, cs, sizeof cs);
  if (o->shell) {
    printf("export AZURE_STORAGE_CONNECTION_STRING='%s';\n", cs);
    printf("export XIO_BLOB_ENDPOINT='%s';\n", ep);
    printf("# xio emulator: blob endpoint %s; stop it with: xio emulator stop%s\n", ep,
           dir_hint(o, hint, sizeof hint));
  } else if (c->json) {
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "command", "emulator");
    cJSON_AddStringToObject(j, "action", "start");
    where_json(j, o, st);
    cli_json_print(j);
  } else if (c->quiet) {
    printf("%s\n", cs);
  } else {
    printf("Azurite runs in memory (pid %ld) at %s; state in %s\n", st->azurite.pid,
           st->azurite_url, o->path);
    if (st->proxy.pid)
      printf("proxy (pid %ld) in front of it at %s: answers as Azure (profile %s), faults %s, "
             "seed %llu\n",
             st->proxy.pid, st->proxy_url, st->profile, st->faults[0] ? st->faults : "none",
             st->seed);
    printf("blob endpoint:     %s\nconnection string: %s\n", ep, cs);
    printf("stop it with: xio emulator stop%s\n", dir_hint(o, hint, sizeof hint));
  }
}

/* Where nothing runs from this shell's default directory (no --dir, no
 * XIO_EMULATOR_DIR): another shell's emulator under the same parent, named with how
 * to reach it, so that "no emulator runs" does not hide the one a user has. */
static void other_shells(const emu_opts *o) {
  const char *shared = getenv("XIO_EMULATOR_DIR");
  char parent[XIO_EMULATOR_PATH_MAX], path[XIO_EMULATOR_PATH_MAX + 300];
  const char *slash = strrchr(o->path, '/');
  if (o->dir || (shared && *shared) || !slash || strncmp(slash, "/session-", 9) != 0) return;
  snprintf(parent, sizeof parent, "%.*s", (int)(slash - o->path), o->path);
  DIR *d = opendir(parent);
  for (struct dirent *e = d ? readdir(d) : NULL; e; e = readdir(d)) {
    xio_emulator_status s;
    if (strncmp(e->d_name, "session-", 8) != 0 || strcmp(e->d_name, slash + 1) == 0) continue;
    snprintf(path, sizeof path, "%s/%s", parent, e->d_name);
    if (xio_emulator_status_read(path, &s, NULL) != XIO_OK || !s.running) continue;
    printf("another shell's emulator runs from %s: `xio emulator status --dir %s` shows it, "
           "`export XIO_EMULATOR_DIR=%s` shares it with this shell\n",
           path, path, path);
    break;
  }
  if (d) closedir(d);
}

/* ------------------------------------------------------------ start ---- */

/* "an emulator already runs": what start says of the one `st` describes, with the
 * stop that ends it. */
static int already_runs(const cli *c, const emu_opts *o, const xio_emulator_state *st) {
  char hint[4200];
  return emu_fail(c, "start",
                  "an emulator already runs from %s (Azurite pid %ld at %s): stop it with "
                  "`xio emulator stop%s`, or start another with a different --dir",
                  o->path, st->azurite.pid, xio_emulator_front_url(st),
                  dir_hint(o, hint, sizeof hint));
}

/* A failed start: the library's message, then the end of the log of the program
 * that did not come up, when there is one. */
static int start_failed(const cli *c, const xio_error *err, const xio_emulator_log *log) {
  char tail[1700] = "";
  if (log->path[0])
    text_to(tail, sizeof tail, "; its log (%s) ends:\n%s", log->path,
            log->tail[0] ? log->tail : "(empty)\n");
  return emu_fail(c, "start", "%s%s", err->message, tail);
}

static int run_start(cli *c, emu_opts *o) {
  xio_emulator_options opts = xio_emulator_options_default();
  xio_emulator_state st;
  xio_emulator_log log;
  xio_error err;
  opts.dir = o->path;
  opts.profile = o->profile;
  opts.faults = o->faults;
  opts.seed = o->seed_value;
  opts.memory_mib = o->memory_mib;
  xio_err rc = xio_emulator_start(&opts, &st, &log, &err);
  if (rc == XIO_EEXIST) return already_runs(c, o, &st);
  if (rc != XIO_OK) return start_failed(c, &err, &log);
  print_started(c, o, &st);
  return CLI_OK;
}

/* ------------------------------------------------------------ stop ---- */

static void print_stopped(const cli *c, const emu_opts *o, const xio_emulator_state *st,
                          const xio_emulator_stats *s) {
  char line[512];
  if (c->json) {
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "command", "emulator");
    cJSON_AddStringToObject(j, "action", "stop");
    cJSON_AddStringToObject(j, "dir", o->path);
    cJSON_AddBoolToObject(j, "was_running", st != NULL);
    if (st) {
      cJSON_AddNumberToObject(j, "azurite_pid", (double)st->azurite.pid);
      if (st->proxy.pid) cJSON_AddNumberToObject(j, "proxy_pid", (double)st->proxy.pid);
    }
    if (s && s->valid) cJSON_AddItemToObject(j, "stats", stats_json(s));
    cli_json_print(j);
    return;
  }
  if (!st) {
    cli_say(c, "no emulator runs from %s", o->path);
    if (!c->quiet) other_shells(o);
    return;
  }
  if (st->proxy.pid)
    cli_say(c, "stopped Azurite (pid %ld) and the fault proxy (pid %ld)", st->azurite.pid,
            st->proxy.pid);
  else
    cli_say(c, "stopped Azurite (pid %ld)", st->azurite.pid);
  if (s && s->valid) {
    stats_line(s, line, sizeof line);
    printf("fault proxy: %s\n", line); /* what stop is asked for: shown even with --quiet */
  }
}

static int run_stop(cli *c, emu_opts *o) {
  xio_emulator_stopped s;
  xio_error err;
  if (xio_emulator_stop(o->path, &s, &err) != XIO_OK) return emu_fail(c, "stop", "%s", err.message);
  print_stopped(c, o, s.found ? &s.state : NULL, s.found ? &s.stats : NULL);
  return CLI_OK;
}

/* ------------------------------------------------------------ status ---- */

static void print_status_json(const emu_opts *o, const xio_emulator_status *s) {
  cJSON *j = cJSON_CreateObject();
  cJSON_AddStringToObject(j, "command", "emulator");
  cJSON_AddStringToObject(j, "action", "status");
  cJSON_AddBoolToObject(j, "running", s->running);
  if (s->found)
    where_json(j, o, &s->state);
  else
    cJSON_AddStringToObject(j, "dir", o->path);
  if (s->found && s->stats.valid) cJSON_AddItemToObject(j, "stats", stats_json(&s->stats));
  cli_json_print(j);
}

static void print_status(const emu_opts *o, const xio_emulator_status *s) {
  const xio_emulator_state *st = &s->state;
  char ep[256], cs[512], line[512], hint[4200];
  xio_emulator_blob_endpoint(st, ep, sizeof ep);
  xio_emulator_connection_string(st, cs, sizeof cs);
  printf("emulator in %s: %s\n", o->path, s->running ? "running" : "not running");
  printf("  Azurite:     pid %ld at %s (%s)\n", st->azurite.pid, st->azurite_url,
         s->azurite_running ? "running" : "gone");
  if (st->proxy.pid)
    printf("  proxy:       pid %ld at %s (%s), profile %s, faults %s, seed %llu\n", st->proxy.pid,
           st->proxy_url, s->proxy_running ? "running" : "gone", st->profile,
           st->faults[0] ? st->faults : "none", st->seed);
  if (st->proxy.pid && s->stats.valid) {
    stats_line(&s->stats, line, sizeof line);
    printf("  so far:      %s\n", line);
  }
  printf("  blob endpoint:     %s\n  connection string: %s\n", ep, cs);
  if (!s->running)
    printf("part of it has ended: `xio emulator stop%s` cleans up\n",
           dir_hint(o, hint, sizeof hint));
}

static int run_status(cli *c, emu_opts *o) {
  xio_emulator_status s;
  xio_error err;
  if (xio_emulator_status_read(o->path, &s, &err) != XIO_OK)
    return emu_fail(c, "status", "%s", err.message);
  if (c->json)
    print_status_json(o, &s);
  else if (!s.found) {
    printf("no emulator runs from %s\n", o->path);
    other_shells(o);
  } else
    print_status(o, &s);
  return s.running ? CLI_OK : NOT_RUNNING;
}

/* ------------------------------------------------------------ command ---- */

static const emu_sub subs[] = {
    {"start",
     "emulator start [--dir DIR] [--profile NAME] [--memory SIZE] [--faults SPEC] [--seed N] "
     "[--json | --shell]",
     "Starts Azurite (the version xio's tests pin) in memory on a free port of\n"
     "127.0.0.1, waits until it answers, and prints its blob endpoint and the\n"
     "connection string of its development account. Nothing is kept on disk.\n"
     "Deleted and overwritten blobs hold memory until Azurite sweeps its store, which\n"
     "stalls it for seconds to minutes: rather than every 10 minutes, it sweeps when\n"
     "the store nears its limit or a write finds it full, and after a minute without\n"
     "requests (XIO_AZURITE_GC_IDLE_MS; XIO_AZURITE_GC_INTERVAL_MS adds a regular\n"
     "sweep, every 6 hours by default).\n"
     "\n"
     "  --dir DIR      where the state is kept; stop and status take the same. By\n"
     "                 default $XIO_EMULATOR_DIR, else this shell's own (its session's):\n"
     "                 $XDG_RUNTIME_DIR/xio-emulator/session-SID, else\n"
     "                 /tmp/xio-emulator-UID/session-SID, so that an emulator started in\n"
     "                 one terminal is not stopped from another; export XIO_EMULATOR_DIR\n"
     "                 to share one between shells\n"
     "  --memory SIZE  the blob data it may hold (default " MEMORY_DEFAULT "); when blobs that\n"
     "                 exist fill it, writes are refused (409\n"
     "                 MemoryExtentStoreAtSizeLimit) until blobs are deleted\n"
     "  --profile NAME how Azure-like the answers are: a proxy (xio-faultproxy) in\n"
     "                 front of Azurite pages Get Page Ranges, puts the byte-order\n"
     "                 mark on XML bodies and enforces Azure's limits with Azure's\n"
     "                 errors, and throttles each blob and the account to a tier's\n"
     "                 targets with 503 ServerBusy: standard (default), premium-p10\n"
     "                 .. premium-p80, unthrottled (no targets), none (raw Azurite)\n"
     "  --faults SPEC  faults on top, from the same proxy: a share of the\n"
     "                 requests gets a fault, by kind:\n"
     "                   503=R%[:DURATION]   503 ServerBusy with a retry hint (1000ms)\n"
     "                   500=R%              500 OperationTimedOut\n"
     "                   reset=R%            connection reset before the request\n"
     "                   lost=R%             applied by the service, response lost\n"
     "                   torn=R%             response body cut short\n"
     "                   stall=R%[:DURATION] request held DURATION (3000ms) first\n"
     "                 e.g. 503=10%,500=2%,reset=2%,lost=2%,torn=5%,stall=1%:3000ms;\n"
     "                 the printed endpoint is then the proxy's\n"
     "  --seed N       which requests get which fault (default 1): the same seed and\n"
     "                 the same requests give the same faults\n"
     "  --shell        print `export AZURE_STORAGE_CONNECTION_STRING=...` for\n"
     "                 eval \"$(xio emulator start --shell)\"\n"
     "  --json         print the endpoints, pids and connection string as JSON\n"
     "\n"
     "Azurite is started by share/xio/azurite.sh, installed with xio, which finds it\n"
     "through $XIO_AZURITE (an azurite-blob program), else in share/xio/node_modules\n"
     "(`npm ci` there installs the pinned version), else azurite-blob on PATH or in\n"
     "npm's global prefix.\n",
     run_start, 1},
    {"stop", "emulator stop [--dir DIR]",
     "Stops the emulator started from DIR (and its fault proxy), leaving no process\n"
     "behind, and prints the faults the proxy injected. Nothing running is fine.\n",
     run_stop, 0},
    {"status", "emulator status [--dir DIR]",
     "Says what runs from DIR: Azurite's and the fault proxy's pids and endpoints,\n"
     "the connection string, and the faults injected so far. Exits 0 when the\n"
     "emulator runs, 3 when it does not (none started from DIR, or part of it\n"
     "ended), as `systemctl status` does.\n",
     run_status, 0},
};
#define NSUBS (sizeof subs / sizeof *subs)

static int wants_help(int argc, char **argv) {
  for (int i = 0; i < argc && strcmp(argv[i], "--") != 0; i++)
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) return 1;
  return 0;
}

/* --memory (default MEMORY_DEFAULT) into o->memory_mib: whole MiB, at least one. */
static int parse_memory(const cli *c, emu_opts *o) {
  uint64_t bytes;
  const char *text = o->memory ? o->memory : MEMORY_DEFAULT;
  int r = cli_value_size(c, "--memory", text, &bytes);
  if (r != CLI_CONTINUE) return r;
  if (bytes < ((uint64_t)1 << 20) || bytes % ((uint64_t)1 << 20) != 0)
    return cli_usage_error(c, "bad --memory '%s': give whole MiB, at least 1M (e.g. 512M, 8G)",
                           text);
  o->memory_mib = bytes >> 20;
  return CLI_CONTINUE;
}

/* --profile (default standard), --faults and --seed, checked; --seed into
 * o->seed_value. */
static int parse_faults(const cli *c, emu_opts *o) {
  xio_error err;
  if (!o->profile) o->profile = "standard";
  if (xio_emulator_profile_check(o->profile, &err) != XIO_OK)
    return cli_usage_error(c, "--profile: %s", err.message);
  if (o->shell && c->json) return cli_usage_error(c, "--shell and --json exclude each other");
  if (o->seed && !o->faults) return cli_usage_error(c, "--seed needs --faults");
  if (!o->faults) return CLI_CONTINUE;
  if (xio_emulator_faults_check(o->faults, NULL, 0, &err) != XIO_OK)
    return cli_usage_error(c, "--faults: %s", err.message);
  o->seed_value = 1;
  if (o->seed) {
    char *end;
    errno = 0;
    o->seed_value = strtoull(o->seed, &end, 10);
    if (errno || end == o->seed || *end || o->seed[0] == '-')
      return cli_usage_error(c, "--seed: '%s' is not a whole number", o->seed);
  }
  return CLI_CONTINUE;
}

static int run_sub(cli *c, const emu_sub *sub, int argc, char **argv) {
  emu_opts o;
  xio_error err;
  memset(&o, 0, sizeof o);
  if (!c->complete && wants_help(argc, argv)) {
    printf("usage: xio %s\n\n%s", sub->synopsis, sub->help);
    return CLI_OK;
  }
  const cli_opt start_opts[] = {{"--dir", &o.dir, NULL},
                                {"--profile", &o.profile, NULL},
                                {"--faults", &o.faults, NULL},
                                {"--seed", &o.seed, NULL},
                                {"--memory", &o.memory, NULL},
                                {"--shell", NULL, &o.shell},
                                {NULL, NULL, NULL}},
                other_opts[] = {{"--dir", &o.dir, NULL}, {NULL, NULL, NULL}};
  int r = cli_parse(c, argc, argv, sub->takes_start_options ? start_opts : other_opts, "", 0, NULL);
  if (r == CLI_CONTINUE) r = parse_faults(c, &o);
  if (r == CLI_CONTINUE && sub->takes_start_options) r = parse_memory(c, &o);
  if (r != CLI_CONTINUE) return r;
  if (xio_emulator_dir(o.dir, o.path, sizeof o.path, &err) != XIO_OK)
    return cli_usage_error(c, "%s", err.message);
  return sub->run(c, &o);
}

static int run_emulator(cli *c, int argc, char **argv) {
  if (argc == 0 && c->complete) return cli_parse(c, argc, argv, NULL, "", 0, NULL); /* options */
  if (argc == 0) return cli_usage_error(c, "missing what to do: start, stop or status");
  if (!c->complete && (strcmp(argv[0], "--help") == 0 || strcmp(argv[0], "-h") == 0)) {
    cli_print_help(c->cmd, stdout);
    return CLI_OK;
  }
  cli_guess g;
  cli_guess_init(&g, argv[0]);
  for (size_t i = 0; i < NSUBS; i++) {
    if (strcmp(argv[0], subs[i].name) == 0) return run_sub(c, &subs[i], argc - 1, argv + 1);
    cli_guess_offer(&g, subs[i].name);
  }
  if (cli_guess_best(&g))
    return cli_usage_error(c, "unknown action '%s' (did you mean '%s'?)", argv[0],
                           cli_guess_best(&g));
  return cli_usage_error(c, "unknown action '%s' (start, stop or status)", argv[0]);
}

const cli_command cli_cmd_emulator = {
    "emulator",
    "run Azurite for any client, optionally behind a fault-injecting proxy",
    "emulator start [--dir DIR] [--profile NAME] [--memory SIZE] [--faults SPEC] [--seed N] "
    "[--json | --shell]\n"
    "emulator stop [--dir DIR]\n"
    "emulator status [--dir DIR]",
    "Runs the storage emulator (Azurite, in memory, on 127.0.0.1) in the background\n"
    "for any client: xio, the official SDKs, curl. With --faults, a proxy in front of\n"
    "it injects throttling, server errors, resets, lost and torn responses and\n"
    "stalls at the rates given, and counts what it injected.\n"
    "\n"
    "  start    start it and print the blob endpoint and connection string\n"
    "  stop     stop it and print the faults the proxy injected\n"
    "  status   say what runs where, with the faults injected so far\n"
    "\n"
    "`xio emulator ACTION --help` describes each one's options. For a shell:\n"
    "  eval \"$(xio emulator start --shell)\"   # exports AZURE_STORAGE_CONNECTION_STRING\n"
    "                                          # and XIO_BLOB_ENDPOINT\n"
    "  ...\n"
    "  xio emulator stop\n",
    run_emulator,
};
