/*
 * main.c - xio-faultproxy, the fault proxy as a program: it listens on 127.0.0.1,
 * forwards every request to an upstream storage service (the emulator) and injects
 * random faults at the rates it is given, for any client (xio, the official SDKs,
 * curl). `xio emulator start --faults` runs it in the background.
 *
 *   xio-faultproxy --upstream http://HOST:PORT [--profile NAME] [--page-list-size N]
 *                  [--scale F] [--blob-rps N] [--blob-mibps N] [--burst-s S]
 *                  [--timeouts-every N] [--faults SPEC] [--seed N] [--stats FILE]
 *                  [--timeline FILE] [--endpoint-file FILE]
 *
 * In front of the upstream, unless --profile none, the fidelity front makes it answer
 * as Azure does (faultproxy_profile: paged page lists, byte-order marks, Azure's
 * limits, the profile's throttling targets; default profile standard); the faults
 * apply on top.
 *
 * Once listening it prints "listening on http://127.0.0.1:PORT" on stdout and writes
 * that endpoint to --endpoint-file. It rewrites --stats (the counts, one
 * "NAME VALUE" line each: requests, each fault kind, then throttled, refused, paged, diffs)
 * whenever they change, before it answers the request that changed them, so a client that has its
 * answer finds itself counted. When it stops it writes --timeline: what its throttle did in each
 * second of its own clock since it started ("SECOND ACCEPTED BYTES THROTTLED" lines). SIGTERM or
 * SIGINT stops it: it cuts open connections and exits 0. Exit status: 0 stopped, 1 failed, 2 bad
 * usage.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "faultproxy.h"

static const char usage[] =
    "usage: xio-faultproxy --upstream http://HOST:PORT [--profile NAME] [--page-list-size N]\n"
    "                      [--scale F] [--blob-rps N] [--blob-mibps N] [--burst-s S]\n"
    "                      [--timeouts-every N] [--faults SPEC] [--seed N]\n"
    "                      [--stats FILE] [--timeline FILE] [--endpoint-file FILE]\n";

static const char help[] =
    "\n"
    "Forwards HTTP requests from 127.0.0.1:PORT (a free port) to the upstream storage\n"
    "service, answering as Azure does where the emulator does not (--profile), and\n"
    "injects faults at random on top, at the rates of SPEC:\n"
    "  503=R%[:DURATION]   503 ServerBusy with a retry hint (default 1000ms)\n"
    "  500=R%              500 OperationTimedOut\n"
    "  reset=R%            connection reset before the request is forwarded\n"
    "  lost=R%             the service applies the request, the response is lost\n"
    "  torn=R%             the response body is cut short\n"
    "  stall=R%[:DURATION] the request is held DURATION (default 3000ms) first\n"
    "e.g. --faults 503=10%,500=2%,reset=2%,lost=2%,torn=5%,stall=1%:3000ms\n"
    "\n"
    "  --seed N            the faults drawn for each request number (default 1)\n"
    "  --profile NAME      standard (default), premium-p10 .. premium-p80: Azure's\n"
    "                      behaviour and that tier's throttling targets per blob and\n"
    "                      account; unthrottled: the behaviour without targets; none:\n"
    "                      the upstream's answers unchanged\n"
    "  --page-list-size N  ranges per Get Page Ranges page (default 2000)\n"
    "  --scale F           multiply the profile's targets by F (e.g. 0.1: a tenth,\n"
    "                      for an emulator slower than the real targets)\n"
    "  --blob-rps N        throttle each blob to N requests per second instead\n"
    "  --blob-mibps N      throttle each blob to N MiB per second instead\n"
    "  --burst-s S         each throttling bucket holds S seconds of its rate\n"
    "                      (default 1): the burst a target allows\n"
    "  --timeouts-every N  every Nth answer over a target is 500 OperationTimedOut\n"
    "                      instead of 503 ServerBusy (Azure answers either)\n"
    "  --stats FILE        counts so far, rewritten as they change\n"
    "  --timeline FILE     written when it stops: a line per second since it\n"
    "                      started, SECOND ACCEPTED BYTES THROTTLED: the requests\n"
    "                      its throttle let through, their bytes, those refused\n"
    "  --endpoint-file F   where the proxy's endpoint is written once it listens\n"
    "SIGTERM or SIGINT stops it. Exit status: 0 stopped, 1 failed, 2 bad usage.\n";

typedef struct opts {
  const char *upstream, *faults, *seed, *stats, *endpoint_file, *profile, *page_list_size, *scale;
  const char *timeouts_every, *blob_rps, *blob_mibps, *burst_s, *timeline;
} opts;

static int bad_usage(const char *fmt, const char *arg) {
  fprintf(stderr, "xio-faultproxy: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\n%sTry 'xio-faultproxy --help' for more.\n", usage);
  return 2;
}

/* Parses argv into `o`. -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, opts *o) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char **slot = strcmp(a, "--upstream") == 0         ? &o->upstream
                        : strcmp(a, "--faults") == 0         ? &o->faults
                        : strcmp(a, "--seed") == 0           ? &o->seed
                        : strcmp(a, "--stats") == 0          ? &o->stats
                        : strcmp(a, "--endpoint-file") == 0  ? &o->endpoint_file
                        : strcmp(a, "--profile") == 0        ? &o->profile
                        : strcmp(a, "--page-list-size") == 0 ? &o->page_list_size
                        : strcmp(a, "--scale") == 0          ? &o->scale
                        : strcmp(a, "--timeouts-every") == 0 ? &o->timeouts_every
                        : strcmp(a, "--blob-rps") == 0       ? &o->blob_rps
                        : strcmp(a, "--blob-mibps") == 0     ? &o->blob_mibps
                        : strcmp(a, "--burst-s") == 0        ? &o->burst_s
                        : strcmp(a, "--timeline") == 0       ? &o->timeline
                                                             : NULL;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      printf("%s%s", usage, help);
      return 0;
    }
    if (!slot) return bad_usage(a[0] == '-' ? "unknown option %s" : "unexpected argument '%s'", a);
    if (i + 1 >= argc) return bad_usage("option %s needs a value", a);
    *slot = argv[++i];
  }
  if (!o->upstream) return bad_usage("%s", "missing --upstream http://HOST:PORT");
  return -1;
}

/* --faults and --seed into `r`. -1 to go on, else 2 after a message. */
static int parse_rates(const opts *o, faultproxy_rates *r) {
  char err[256];
  memset(r, 0, sizeof *r);
  if (o->faults && faultproxy_rates_parse(o->faults, r, err, sizeof err) != 0)
    return bad_usage("--faults: %s", err);
  r->seed = 1;
  if (o->seed) {
    char *end;
    errno = 0;
    unsigned long long v = strtoull(o->seed, &end, 10);
    if (errno || end == o->seed || *end || o->seed[0] == '-')
      return bad_usage("--seed: '%s' is not a whole number", o->seed);
    r->seed = v;
  }
  return -1;
}

/* The number in `text`, when it is one in (0, `max`], into *out: 0, or -1. */
static int positive(const char *text, double max, double *out) {
  char *end;
  double f = strtod(text, &end);
  if (end == text || *end || !(f > 0) || f > max) return -1;
  *out = f;
  return 0;
}

/* --blob-rps, --blob-mibps and --burst-s into `pr` (after --scale: they are the
 * targets themselves). -1 to go on, else 2 after a message. */
static int parse_targets(const opts *o, faultproxy_profile *pr) {
  double f;
  if (o->blob_rps && positive(o->blob_rps, 1e6, &f) != 0)
    return bad_usage("--blob-rps: '%s' is not a rate in (0, 1000000]", o->blob_rps);
  if (o->blob_rps) pr->blob_iops = f;
  if (o->blob_mibps && positive(o->blob_mibps, 1e6, &f) != 0)
    return bad_usage("--blob-mibps: '%s' is not a rate in (0, 1000000]", o->blob_mibps);
  if (o->blob_mibps) pr->blob_bps = f * 1024 * 1024;
  if (o->burst_s && positive(o->burst_s, 3600, &f) != 0)
    return bad_usage("--burst-s: '%s' is not a number of seconds in (0, 3600]", o->burst_s);
  if (o->burst_s) pr->burst_s = f;
  if ((o->blob_rps || o->blob_mibps) && !pr->faithful)
    return bad_usage("%s", "--blob-rps and --blob-mibps need a profile other than none");
  return -1;
}

/* --profile, --page-list-size, --timeouts-every and --scale into `pr`. -1 to go on, else 2 after a
 * message. */
static int parse_profile(const opts *o, faultproxy_profile *pr) {
  char err[512];
  if (faultproxy_profile_parse(o->profile ? o->profile : "standard", pr, err, sizeof err) != 0)
    return bad_usage("--profile: %s", err);
  if (o->page_list_size) {
    char *end;
    long n = strtol(o->page_list_size, &end, 10);
    if (end == o->page_list_size || *end || n < 1 || n > 100000)
      return bad_usage("--page-list-size: '%s' is not a whole number in 1..100000",
                       o->page_list_size);
    pr->page_list_size = (int)n;
  }
  if (o->timeouts_every) {
    char *end;
    long n = strtol(o->timeouts_every, &end, 10);
    if (end == o->timeouts_every || *end || n < 1 || n > 1000000)
      return bad_usage("--timeouts-every: '%s' is not a whole number in 1..1000000",
                       o->timeouts_every);
    pr->timeout_every = (int)n;
  }
  if (o->scale) {
    char *end;
    double f = strtod(o->scale, &end);
    if (end == o->scale || *end || !(f > 0) || f > 1000)
      return bad_usage("--scale: '%s' is not a factor in (0, 1000]", o->scale);
    pr->blob_iops *= f;
    pr->blob_bps *= f;
    pr->account_iops *= f;
    pr->account_bps *= f;
  }
  return parse_targets(o, pr);
}

/* Writes `text` to `path` through a temporary file and a rename, so that readers see
 * the old or the new content, never half. 0 ok, -1 failed. */
static int write_atomically(const char *path, const char *text) {
  char tmp[4096];
  if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp) return -1;
  FILE *f = fopen(tmp, "w");
  if (!f) return -1;
  int ok = fputs(text, f) >= 0;
  ok = (fclose(f) == 0) && ok;
  if (ok && rename(tmp, path) == 0) return 0;
  remove(tmp);
  return -1;
}

static void format_stats(const faultproxy_stats *s, char *out, size_t size) {
  size_t k = (size_t)snprintf(out, size, "requests %llu\n", (unsigned long long)s->requests);
  for (int i = 0; i < FAULTPROXY_NRULES && k < size; i++)
    k += (size_t)snprintf(out + k, size - k, "%s %llu\n", faultproxy_rule_name(i),
                          (unsigned long long)s->injected[i]);
  if (k < size)
    snprintf(out + k, size - k, "throttled %llu\nrefused %llu\npaged %llu\ndiffs %llu\n",
             (unsigned long long)s->throttled, (unsigned long long)s->refused,
             (unsigned long long)s->paged, (unsigned long long)s->diffs);
}

/* Writes the counts to the stats file (the proxy's observer: called as they change,
 * before the client whose request changed them is answered). */
static void write_stats(const faultproxy_stats *now, void *ud) {
  const char *path = ud;
  char text[512];
  format_stats(now, text, sizeof text);
  if (write_atomically(path, text) != 0)
    fprintf(stderr, "xio-faultproxy: cannot write %s: %s\n", path, strerror(errno));
}

/* Writes what the throttle did each second to `path`: "SECOND ACCEPTED BYTES THROTTLED"
 * lines. 0 ok, -1 failed. */
static int write_timeline(faultproxy *p, const char *path) {
  static faultproxy_second secs[FAULTPROXY_TIMELINE_S];
  size_t n = faultproxy_timeline(p, secs, FAULTPROXY_TIMELINE_S);
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  int ok = 1;
  for (size_t i = 0; i < n && ok; i++)
    ok = fprintf(f, "%zu %u %llu %u\n", i, secs[i].accepted, (unsigned long long)secs[i].bytes,
                 secs[i].throttled) > 0;
  ok = (fclose(f) == 0) && ok;
  return ok ? 0 : -1;
}

/* Serves until SIGTERM or SIGINT (blocked in every thread, taken here). */
static void serve(const sigset_t *stop) {
  int sig = 0;
  while (sigwait(stop, &sig) != 0 || (sig != SIGTERM && sig != SIGINT))
    ;
}

int main(int argc, char **argv) {
  opts o;
  faultproxy_rates rates;
  faultproxy_profile profile;
  memset(&o, 0, sizeof o);
  int rc = parse_args(argc, argv, &o);
  if (rc < 0) rc = parse_rates(&o, &rates);
  if (rc < 0) rc = parse_profile(&o, &profile);
  if (rc >= 0) return rc;
  /* Blocked before any thread starts, so every thread inherits the mask. */
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGTERM);
  sigaddset(&stop, SIGINT);
  sigprocmask(SIG_BLOCK, &stop, NULL);
  faultproxy *p = faultproxy_start(o.upstream);
  if (!p) return 1;
  faultproxy_set_rates(p, &rates);
  faultproxy_set_profile(p, &profile);
  if (o.stats) {
    faultproxy_stats zero;
    memset(&zero, 0, sizeof zero);
    write_stats(&zero, (void *)o.stats);
    faultproxy_set_observer(p, write_stats, (void *)o.stats);
  }
  const char *ep = faultproxy_endpoint(p);
  char line[128];
  snprintf(line, sizeof line, "%s\n", ep);
  if (o.endpoint_file && write_atomically(o.endpoint_file, line) != 0) {
    fprintf(stderr, "xio-faultproxy: cannot write %s: %s\n", o.endpoint_file, strerror(errno));
    faultproxy_free(p);
    return 1;
  }
  char spec[256];
  faultproxy_rates_format(&rates, spec, sizeof spec);
  printf("listening on %s, forwarding to %s, profile %s, faults %s, seed %llu\n", ep, o.upstream,
         profile.name, spec[0] ? spec : "none", (unsigned long long)rates.seed);
  fflush(stdout);
  serve(&stop);
  rc = 0;
  if (o.timeline && write_timeline(p, o.timeline) != 0) {
    fprintf(stderr, "xio-faultproxy: cannot write %s: %s\n", o.timeline, strerror(errno));
    rc = 1;
  }
  faultproxy_free(p); /* the observer has written the last counts */
  return rc;
}
