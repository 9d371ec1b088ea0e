/*
 * options.c - the command line of xio-bench and its defaults. The defaults are
 * what `make bench` runs: every size up to 1 TiB for none and clear, zero-writes
 * run up to 1 GiB and extrapolated past it, 1 GiB of bulk I/O, a few seconds of
 * random I/O per queue depth.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static const char usage[] =
    "usage: xio-bench [OPTIONS]\n"
    "Measures creating, growing and zeroing files with init policies none, zero and clear\n"
    "on page blobs (the Azurite emulator) and local files, and bulk and random I/O.\n"
    "\n"
    "  --sizes LIST          sizes for create/grow/zero (default 1G,4G,16G,64G,256G,1T)\n"
    "  --runs N              runs per growth measurement (default 3)\n"
    "  --zero-runs N         runs per init-zero measurement, which writes every byte\n"
    "                        (default 1: ~20 s per GiB on the emulator; linear in size)\n"
    "  --zero-cap SIZE       init-zero sizes above this are extrapolated from it (default 1G;\n"
    "                        a multiple of 4M keeps the scaled request counts exact)\n"
    "  --backends LIST       pageblob,local (default both)\n"
    "  --sections LIST       growth,bulk,random,append (default growth,bulk,random;\n"
    "                        append: a log's appends, naive against hand-aligned)\n"
    "  --append-records N    records per append case (default 1000, at most 16 MiB)\n"
    "  --endpoint URL        emulator blob endpoint, e.g. http://127.0.0.1:10000\n"
    "                        (default: --endpoint-file, else $XIO_BLOB_ENDPOINT, else\n"
    "                        $XIO_TEST_BLOB_ENDPOINT)\n"
    "  --endpoint-file FILE  read the endpoint from FILE (again after a restart)\n"
    "  --target URL          measure growth on page blobs in this container of any account\n"
    "                        instead of the emulator (credentials: a SAS in URL, the\n"
    "                        credential file, AZURE_STORAGE_CONNECTION_STRING,\n"
    "                        AZURE_STORAGE_ACCOUNT/KEY or _SAS_TOKEN); bulk and random\n"
    "                        I/O stay on the emulator; every blob made is deleted, also\n"
    "                        on SIGINT/SIGTERM. Costs money on Azure: see\n"
    "                        docs/benchmarks/README.md\n"
    "  --emulator-budget SIZE  bytes to upload before the emulator counts as full\n"
    "                        (default 5G: Azurite holds 6 GiB and frees deleted blobs\n"
    "                        only every 10 minutes; 0: no limit)\n"
    "  --emulator-reset CMD  shell command restarting the emulator empty when the budget\n"
    "                        is spent (without it, measurements over budget are skipped)\n"
    "  --local-dir DIR       where the local backend's temporary directory goes\n"
    "                        (default $TMPDIR or /tmp)\n"
    "  --disk-margin SIZE    free space to leave on the local disk\n"
    "                        (default max(4 GiB, 10% of the file system))\n"
    "  --out DIR             write results.csv, results.json, results.md and the plots\n"
    "  --no-plots            do not run gnuplot\n"
    "  --plot-script FILE    gnuplot script (default: the one beside the sources)\n"
    "  --bulk-size SIZE      bytes written then read per bulk run (default 1G)\n"
    "  --bulk-runs N         runs per bulk depth (default 1)\n"
    "  --bulk-depths LIST    requests in flight (default 1,4,16,64)\n"
    "  --random-file SIZE    file for random I/O (default 256M)\n"
    "  --random-io SIZE      random request size (default 8K)\n"
    "  --random-seconds S    time per random measurement (default 3)\n"
    "  --random-ops N        request cap per random measurement (default 100000)\n"
    "  --random-depths LIST  queue depths (default 1,32)\n"
    "  --random-kinds LIST   read and/or write (default read,write)\n"
    "  --seed N              seed for random offsets and payloads (default 1)\n"
    "  --checksum crc64|md5|none  transactional checksum on page-blob writes (default\n"
    "                        crc64, xio's default)\n"
    "  --pacing auto|on|off  keep each blob under the service's targets (default auto:\n"
    "                        paces --target, not the emulator on this machine)\n"
    "  --max-rate SIZE       at most SIZE bytes per second per blob (implies --pacing on\n"
    "                        unless given)\n"
    "  --help\n"
    "SIZE takes K, M, G, T suffixes (binary). The numbers describe this machine and an\n"
    "in-memory emulator on loopback, not Azure (unless --target names an account).\n";

static void defaults(bench_config *c) {
  memset(c, 0, sizeof *c);
  uint64_t sizes[] = {BENCH_GiB,      4 * BENCH_GiB,   16 * BENCH_GiB,
                      64 * BENCH_GiB, 256 * BENCH_GiB, BENCH_TiB};
  memcpy(c->sizes, sizes, sizeof sizes);
  c->nsizes = 6;
  c->runs = 3;
  c->zero_runs = 1;
  c->zero_cap = BENCH_GiB;
  c->do_pageblob = c->do_local = 1;
  c->do_growth = c->do_bulk = c->do_random = 1;
  c->emulator_budget = 5 * BENCH_GiB;
  const char *tmp = getenv("TMPDIR");
  c->local_dir = tmp && *tmp ? tmp : "/tmp";
  c->plots = 1;
  c->plot_script = XIO_BENCH_PLOT_SCRIPT;
  c->bulk_size = BENCH_GiB;
  c->bulk_runs = 1;
  c->bulk_request = 4 * BENCH_MiB;
  int depths[] = {1, 4, 16, 64};
  memcpy(c->depths, depths, sizeof depths);
  c->ndepths = 4;
  c->random_file = 256 * BENCH_MiB;
  c->random_io = 8 * BENCH_KiB;
  c->random_seconds = 3;
  c->random_ops = 100000;
  c->append_records = 1000;
  c->random_depths[0] = 1;
  c->random_depths[1] = 32;
  c->nrandom_depths = 2;
  c->do_randread = c->do_randwrite = 1;
  c->seed = 1;
  c->checksum = xio_ctx_options_default().checksum;
}

static int bad(const char *opt, const char *val, const char *why) {
  fprintf(stderr, "xio-bench: %s %s: %s\n", opt, val ? val : "", why);
  return 2;
}

static int parse_int(const char *s, long lo, long hi, long *out) {
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || end == s || *end || v < lo || v > hi) return -1;
  *out = v;
  return 0;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* "1G,4G": ascending, distinct, multiples of 512, room for the 8 MiB grow base. */
static int parse_sizes(const char *s, bench_config *c) {
  char tmp[512], *save = NULL;
  snprintf(tmp, sizeof tmp, "%s", s);
  c->nsizes = 0;
  for (char *tok = strtok_r(tmp, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    uint64_t v;
    if (c->nsizes == BENCH_MAX_SIZES || xio_size_parse(tok, &v, NULL) != XIO_OK || v == 0 ||
        v % 512 || v > XIO_FILE_MAX_SIZE - BENCH_GROW_BASE)
      return -1;
    c->sizes[c->nsizes++] = v;
  }
  qsort(c->sizes, (size_t)c->nsizes, sizeof c->sizes[0], cmp_u64);
  for (int i = 1; i < c->nsizes; i++)
    if (c->sizes[i] == c->sizes[i - 1]) return -1;
  return c->nsizes ? 0 : -1;
}

static int parse_ints(const char *s, int *out, int *n) {
  char tmp[256], *save = NULL;
  snprintf(tmp, sizeof tmp, "%s", s);
  *n = 0;
  for (char *tok = strtok_r(tmp, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    long v;
    if (*n == BENCH_MAX_DEPTHS || parse_int(tok, 1, 1024, &v) != 0) return -1;
    out[(*n)++] = (int)v;
  }
  return *n ? 0 : -1;
}

/* "pageblob,local" or "growth,bulk,random": sets the flags of the names given. */
static int parse_names(const char *s, const char *const names[4], int *flags[4]) {
  char tmp[128], *save = NULL;
  snprintf(tmp, sizeof tmp, "%s", s);
  for (int i = 0; i < 4; i++)
    if (flags[i]) *flags[i] = 0;
  for (char *tok = strtok_r(tmp, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    int hit = 0;
    for (int i = 0; i < 4; i++)
      if (names[i] && strcmp(tok, names[i]) == 0) *flags[i] = 1, hit = 1;
    if (!hit) return -1;
  }
  return 0;
}

enum {
  O_SIZES = 256,
  O_RUNS,
  O_ZERO_RUNS,
  O_ZERO_CAP,
  O_BACKENDS,
  O_SECTIONS,
  O_ENDPOINT,
  O_ENDPOINT_FILE,
  O_TARGET,
  O_BUDGET,
  O_RESET,
  O_LOCAL_DIR,
  O_MARGIN,
  O_OUT,
  O_NO_PLOTS,
  O_PLOT_SCRIPT,
  O_BULK_SIZE,
  O_BULK_RUNS,
  O_BULK_DEPTHS,
  O_RANDOM_FILE,
  O_RANDOM_IO,
  O_RANDOM_SECONDS,
  O_RANDOM_OPS,
  O_RANDOM_DEPTHS,
  O_RANDOM_KINDS,
  O_SEED,
  O_APPEND_RECORDS,
  O_CHECKSUM,
  O_PACING,
  O_MAX_RATE,
  O_HELP
};

static const struct option long_opts[] = {
    {"sizes", required_argument, NULL, O_SIZES},
    {"runs", required_argument, NULL, O_RUNS},
    {"zero-runs", required_argument, NULL, O_ZERO_RUNS},
    {"zero-cap", required_argument, NULL, O_ZERO_CAP},
    {"backends", required_argument, NULL, O_BACKENDS},
    {"sections", required_argument, NULL, O_SECTIONS},
    {"endpoint", required_argument, NULL, O_ENDPOINT},
    {"endpoint-file", required_argument, NULL, O_ENDPOINT_FILE},
    {"target", required_argument, NULL, O_TARGET},
    {"emulator-budget", required_argument, NULL, O_BUDGET},
    {"emulator-reset", required_argument, NULL, O_RESET},
    {"local-dir", required_argument, NULL, O_LOCAL_DIR},
    {"disk-margin", required_argument, NULL, O_MARGIN},
    {"out", required_argument, NULL, O_OUT},
    {"no-plots", no_argument, NULL, O_NO_PLOTS},
    {"plot-script", required_argument, NULL, O_PLOT_SCRIPT},
    {"bulk-size", required_argument, NULL, O_BULK_SIZE},
    {"bulk-runs", required_argument, NULL, O_BULK_RUNS},
    {"bulk-depths", required_argument, NULL, O_BULK_DEPTHS},
    {"random-file", required_argument, NULL, O_RANDOM_FILE},
    {"random-io", required_argument, NULL, O_RANDOM_IO},
    {"random-seconds", required_argument, NULL, O_RANDOM_SECONDS},
    {"random-ops", required_argument, NULL, O_RANDOM_OPS},
    {"random-depths", required_argument, NULL, O_RANDOM_DEPTHS},
    {"random-kinds", required_argument, NULL, O_RANDOM_KINDS},
    {"seed", required_argument, NULL, O_SEED},
    {"append-records", required_argument, NULL, O_APPEND_RECORDS},
    {"checksum", required_argument, NULL, O_CHECKSUM},
    {"pacing", required_argument, NULL, O_PACING},
    {"max-rate", required_argument, NULL, O_MAX_RATE},
    {"help", no_argument, NULL, O_HELP},
    {NULL, 0, NULL, 0}};

/* A size option: a multiple of 512 (0 allowed where `zero_ok`). */
static int size_opt(const char *opt, const char *val, int zero_ok, uint64_t *out) {
  if (xio_size_parse(val, out, NULL) != XIO_OK || (*out == 0 && !zero_ok) || *out % 512)
    return bad(opt, val, "expected a size that is a multiple of 512 (K, M, G, T suffixes)");
  return 0;
}

static int count_opt(const char *opt, const char *val, long lo, long hi, long *out) {
  if (parse_int(val, lo, hi, out) != 0) return bad(opt, val, "expected a whole number in range");
  return 0;
}

static int names_opt(int id, const char *val, bench_config *c) {
  static const char *const backends[4] = {"pageblob", "local", NULL, NULL};
  static const char *const sections[4] = {"growth", "bulk", "random", "append"};
  static const char *const kinds[4] = {"read", "write", NULL, NULL};
  int *kf[4] = {&c->do_randread, &c->do_randwrite, NULL, NULL};
  int *bf[4] = {&c->do_pageblob, &c->do_local, NULL, NULL};
  int *sf[4] = {&c->do_growth, &c->do_bulk, &c->do_random, &c->do_append};
  if (id == O_BACKENDS && parse_names(val, backends, bf) != 0)
    return bad("--backends", val, "expected pageblob and/or local");
  if (id == O_SECTIONS && parse_names(val, sections, sf) != 0)
    return bad("--sections", val, "expected growth, bulk, random and/or append");
  if (id == O_RANDOM_KINDS && parse_names(val, kinds, kf) != 0)
    return bad("--random-kinds", val, "expected read and/or write");
  return 0;
}

/* --pacing and --max-rate. Returns 0 or 2. */
static int pacing_opt(bench_config *c, int id, const char *val) {
  static const char *const modes[3] = {"auto", "off", "on"}; /* as xio_pacing */
  if (id == O_MAX_RATE) {
    uint64_t v;
    if (xio_size_parse(val, &v, NULL) != XIO_OK || v == 0)
      return bad("--max-rate", val, "expected bytes per second, e.g. 40M");
    c->max_rate_bps = (double)v;
    return 0;
  }
  for (int i = 0; i < 3; i++)
    if (strcmp(val, modes[i]) == 0) {
      c->pacing = (xio_pacing)i;
      c->pacing_given = 1;
      return 0;
    }
  return bad("--pacing", val, "expected auto, on or off");
}

/* Applies option `id` with value `val`. Returns 0 or 2. */
static int apply(bench_config *c, int id, const char *val) {
  long n;
  double d;
  char *end;
  switch (id) {
  case O_SIZES:
    return parse_sizes(val, c) ? bad("--sizes", val,
                                     "expected sizes, multiples of 512, "
                                     "distinct, below 8 TiB")
                               : 0;
  case O_RUNS:
    if (count_opt("--runs", val, 1, BENCH_MAX_RUNS, &n)) return 2;
    c->runs = (int)n;
    return 0;
  case O_ZERO_RUNS:
    if (count_opt("--zero-runs", val, 1, BENCH_MAX_RUNS, &n)) return 2;
    c->zero_runs = (int)n;
    return 0;
  case O_ZERO_CAP: return size_opt("--zero-cap", val, 0, &c->zero_cap);
  case O_BACKENDS:
  case O_SECTIONS:
  case O_RANDOM_KINDS: return names_opt(id, val, c);
  case O_ENDPOINT: c->endpoint = val; return 0;
  case O_ENDPOINT_FILE: c->endpoint_file = val; return 0;
  case O_BUDGET: return size_opt("--emulator-budget", val, 1, &c->emulator_budget);
  case O_RESET: c->emulator_reset = val; return 0;
  case O_TARGET:
    if (xio_target_classify(val) != XIO_TARGET_BLOB)
      return bad("--target", "", "expected a container URL (http:// or https://)");
    c->target = val;
    return 0;
  case O_LOCAL_DIR: c->local_dir = val; return 0;
  case O_MARGIN: return size_opt("--disk-margin", val, 1, &c->disk_margin);
  case O_OUT: c->out_dir = val; return 0;
  case O_NO_PLOTS: c->plots = 0; return 0;
  case O_PLOT_SCRIPT: c->plot_script = val; return 0;
  case O_BULK_SIZE: return size_opt("--bulk-size", val, 0, &c->bulk_size);
  case O_BULK_RUNS:
    if (count_opt("--bulk-runs", val, 1, BENCH_MAX_RUNS, &n)) return 2;
    c->bulk_runs = (int)n;
    return 0;
  case O_BULK_DEPTHS:
    return parse_ints(val, c->depths, &c->ndepths)
               ? bad("--bulk-depths", val, "expected 1..1024, ...")
               : 0;
  case O_RANDOM_FILE: return size_opt("--random-file", val, 0, &c->random_file);
  case O_RANDOM_IO: {
    uint64_t v;
    if (size_opt("--random-io", val, 0, &v)) return 2;
    if (v > 4 * BENCH_MiB) return bad("--random-io", val, "at most 4M");
    c->random_io = (size_t)v;
    return 0;
  }
  case O_RANDOM_SECONDS:
    errno = 0;
    d = strtod(val, &end);
    if (errno || end == val || *end || !(d > 0) || d > 3600 || isnan(d))
      return bad("--random-seconds", val, "expected seconds, more than 0");
    c->random_seconds = d;
    return 0;
  case O_RANDOM_OPS:
    if (count_opt("--random-ops", val, 1, 100000000, &n)) return 2;
    c->random_ops = (uint64_t)n;
    return 0;
  case O_RANDOM_DEPTHS:
    return parse_ints(val, c->random_depths, &c->nrandom_depths)
               ? bad("--random-depths", val, "expected 1..1024, ...")
               : 0;
  case O_SEED:
    if (count_opt("--seed", val, 0, 0x7fffffffL, &n)) return 2;
    c->seed = (uint64_t)n;
    return 0;
  case O_APPEND_RECORDS:
    if (count_opt("--append-records", val, 1, 1000000, &n)) return 2;
    c->append_records = (int)n;
    return 0;
  case O_CHECKSUM:
    if (strcmp(val, "crc64") == 0)
      c->checksum = XIO_CHECKSUM_CRC64;
    else if (strcmp(val, "md5") == 0)
      c->checksum = XIO_CHECKSUM_MD5;
    else if (strcmp(val, "none") == 0)
      c->checksum = XIO_CHECKSUM_NONE;
    else
      return bad("--checksum", val, "expected crc64, md5 or none");
    return 0;
  case O_PACING:
  case O_MAX_RATE: return pacing_opt(c, id, val);
  default: return 2;
  }
}

int bench_options_parse(bench_config *c, int argc, char **argv) {
  defaults(c);
  int id;
  optind = 1;
  while ((id = getopt_long(argc, argv, "", long_opts, NULL)) != -1) {
    if (id == O_HELP) {
      fputs(usage, stdout);
      return 1;
    }
    if (id == '?') {
      fputs(usage, stderr);
      return 2;
    }
    if (apply(c, id, optarg) != 0) return 2;
  }
  if (optind < argc) return bad("unexpected argument", argv[optind], "see --help");
  if (c->max_rate_bps > 0 && !c->pacing_given) c->pacing = XIO_PACING_ON; /* a cap asks for it */
  if (c->random_file < c->random_io || c->random_file % c->random_io)
    return bad("--random-file", "", "must be a multiple of --random-io");
  return 0;
}
