/*
 * bench.h - xio-bench, the growth benchmark: how long creating, growing and zeroing
 * a file takes with each init policy (none, zero, clear) on each backend (page blobs
 * on the Azurite emulator, local files), how many storage requests each costs, and
 * what bulk and small random I/O through xio reach.
 *
 * The program is a handful of small modules, one concept each:
 *   options.c      the command line and its defaults (bench_config)
 *   stats.c        min / median / max and percentiles
 *   counter.c      counting storage requests from the trace callback
 *   emulator.c     the emulator's endpoint, its memory budget, and restarts
 *   target.c       a backend to measure on: a context, a place for files, and
 *                  the room left there (emulator memory, local free space); or a
 *                  container of any account (--target)
 *   sweep.c        deleting what a run made in a --target container, at the end
 *                  and on SIGINT/SIGTERM
 *   results.c      the list of result rows every section appends to
 *   growth.c       create-with-size, grow-by and zero-range measurements
 *   extrapolate.c  zero-write times past the cap, derived from the cap's rate
 *   bulk.c         bulk write/read throughput at several in-flight depths
 *   randio.c       8 KiB random reads and writes at queue depth 1 and 32
 *   append.c       a log writer's appends, naive against hand-aligned
 *   context.c      the machine the numbers were measured on
 *   out_csv.c, out_json.c   the reports for programs
 *   out_md.c       the reports for people: results.md and the terminal summary
 *   plot.c         drawing the plots with gnuplot (plot.gp)
 * The requests in flight with their latencies are the pump's (samples/common,
 * samples_pump.h), which the peer benchmark shares.
 */
#ifndef XIO_BENCH_H
#define XIO_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <xio/xio.h>

#include "samples_common.h"
#include "samples_pump.h"

#define BENCH_KiB 1024ull
#define BENCH_MiB (1024ull * 1024)
#define BENCH_GiB (1024ull * 1024 * 1024)
#define BENCH_TiB (1024ull * 1024 * 1024 * 1024)

#define BENCH_MAX_SIZES  32
#define BENCH_MAX_RUNS   64
#define BENCH_MAX_DEPTHS 8
#define BENCH_GROW_BASE  (8 * BENCH_MiB) /* grow-by starts from a file this big */

/* ------------------------------------------------------------- options ---- */

typedef struct bench_config {
  uint64_t sizes[BENCH_MAX_SIZES]; /* ascending, distinct */
  int nsizes;
  int runs;          /* runs per growth measurement */
  int zero_runs;     /* runs per init-zero measurement (they write every byte) */
  uint64_t zero_cap; /* init-zero sizes above this are extrapolated */
  int do_pageblob, do_local;
  int do_growth, do_bulk, do_random, do_append;
  int append_records;         /* records per append case (capped at 16 MiB of them) */
  const char *endpoint;       /* --endpoint */
  const char *endpoint_file;  /* --endpoint-file: read (again after a reset) */
  const char *target;         /* --target: a container URL of any account, or NULL */
  const char *emulator_reset; /* shell command that restarts the emulator */
  uint64_t emulator_budget;   /* bytes we may upload before the emulator is full; 0: no limit */
  const char *local_dir;      /* parent of the local backend's temporary directory */
  uint64_t disk_margin;       /* free space to leave; 0: max(4 GiB, 10% of the file system) */
  const char *out_dir;        /* NULL: no files */
  const char *plot_script;
  int plots;
  uint64_t bulk_size;
  int bulk_runs;
  size_t bulk_request; /* 4 MiB */
  int depths[BENCH_MAX_DEPTHS];
  int ndepths;
  uint64_t random_file; /* 256 MiB */
  size_t random_io;     /* 8 KiB */
  double random_seconds;
  uint64_t random_ops; /* cap per measurement */
  int random_depths[BENCH_MAX_DEPTHS];
  int nrandom_depths;
  int do_randread, do_randwrite; /* --random-kinds (default both) */
  uint64_t seed;
  xio_checksum checksum; /* on page-blob writes (default CRC64, xio's default) */
  xio_pacing pacing;     /* --pacing (default auto: paces --target, not the emulator) */
  double max_rate_bps;   /* --max-rate: a cap per blob, bytes per second; 0: none */
  int pacing_given;      /* --pacing was on the command line */
} bench_config;

/** Parses argv into `c` (defaults first). Returns 0, 1 for --help (printed), or 2
 *  for bad usage (message printed to stderr). */
int bench_options_parse(bench_config *c, int argc, char **argv);

/* --------------------------------------------------------------- stats ---- */

/** Sorts `v` ascending. */
void bench_sort(double *v, size_t n);

/** The p-quantile (0..1) of sorted `v`, nearest rank; 0 when n == 0. */
double bench_quantile(const double *sorted, size_t n, double p);

/** Min, median and max of `v` (copied, not reordered). */
void bench_summarize(const double *v, size_t n, double *min, double *med, double *max);

/* ------------------------------------------------------------- counter ---- */

#define BENCH_NTYPES (XIO_REQ_COUNT + 1) /* the request types, plus "other" */

/** Storage requests by trace request type, and the tries refused on the way. */
typedef struct bench_counts {
  uint64_t total;
  uint64_t by_type[BENCH_NTYPES];
  uint64_t throttled; /* tries answered 503 ServerBusy or 500 OperationTimedOut */
  uint64_t failed;    /* tries that failed otherwise (xio_failed_request events) */
  uint64_t retries;   /* tries sent again, summed over the requests */
} bench_counts;

typedef struct bench_counter bench_counter;

/** A counter to pass as xio_ctx_options.trace_ud with bench_counter_trace. */
bench_counter *bench_counter_new(void);
void bench_counter_free(bench_counter *c);
void bench_counter_trace(const xio_trace_event *ev, void *ud);
void bench_counter_reset(bench_counter *c);
void bench_counter_get(bench_counter *c, bench_counts *out);

/** Everything `c` counted since it was made, resets or not. */
void bench_counter_total(bench_counter *c, bench_counts *out);

/** Adds the counts of `b` to `a`. */
void bench_counts_add(bench_counts *a, const bench_counts *b);

/** "crc64", "md5", "none". */
const char *bench_checksum_name(xio_checksum c);

/** Name of type index `i` ("XIOTypeZeroFile"; "other" for the last). */
const char *bench_type_name(int i);

/** Index of "XIOTypeZeroFile". */
int bench_type_zero(void);

/** "XIOTypeSetFileSize:1 XIOTypeZeroFile:1" (types with a nonzero count). */
char *bench_counts_detail(const bench_counts *c, char *buf, size_t n);

/* ------------------------------------------------------------ emulator ---- */

typedef struct bench_emulator {
  char endpoint[512]; /* "http://127.0.0.1:PORT", "" when none */
  const char *endpoint_opt, *endpoint_file, *reset_cmd;
  uint64_t budget, used; /* bytes uploaded since the emulator (re)started */
  uint64_t total_uploaded;
  int generation; /* bumped by every restart */
  int resets;
  double reset_seconds;
} bench_emulator;

/** Finds the endpoint (--endpoint, --endpoint-file, XIO_TEST_BLOB_ENDPOINT). Returns
 *  0, or -1 when there is none (the page-blob backend is then skipped). */
int bench_emulator_init(bench_emulator *em, const bench_config *c);

/**
 * Makes room for uploading `bytes` to the emulator: Azurite keeps blobs in memory
 * and frees deleted ones only in a garbage collection every 10 minutes, so what we
 * upload adds up. Over the budget, the emulator is restarted with the reset command
 * (when there is one). Returns 1 when the upload may go ahead (and charges it), or 0
 * with the reason in `why`.
 */
int bench_emulator_reserve(bench_emulator *em, uint64_t bytes, char *why, size_t n);

/* -------------------------------------------------------------- target ---- */

/** A backend to measure on: a context (counting its requests) and a place for files. */
typedef struct bench_target {
  const char *backend; /* "pageblob" or "local" */
  xio_ctx *ctx;
  bench_counter *counter;
  char base[1024]; /* container URL or temporary directory */
  int max_in_flight;
  xio_checksum checksum;
  xio_pacing pacing;
  double max_rate_bps;
  bench_emulator *em;   /* page blob: the emulator */
  int generation;       /* the emulator generation the context was made for */
  uint64_t disk_margin; /* local */
  unsigned seq;
  /* --target: a container of any account (em is NULL) */
  int remote;
  char query[1024];    /* the URL's query (a SAS), appended to file URLs; "" when none */
  char account[128];   /* the account measured */
  char endpoint[512];  /* its blob endpoint */
  char container[512]; /* the container's log-safe URL */
  char prefix[96];     /* every blob of this run starts with it */
  char tier[32];       /* the blob tier the service reported, or "" */
  bench_counts *tally; /* when set, closing adds every count of the target to it */
} bench_target;

/** A page-blob target in a fresh container on the emulator, with a context of
 *  `max_in_flight` requests and the checksum and pacing of `c`. */
xio_err bench_target_pageblob(bench_target *t, bench_emulator *em, int max_in_flight,
                              const bench_config *c, xio_error *err);

/** A page-blob target in the container at `url` (any account, credentials from the
 *  context's usual chain); the files of the run go under a prefix of its own. Reads
 *  the account, endpoint and tier measured into `t`. Errors: XIO_EINVAL (the URL
 *  names no container, or a blob), credential and storage errors. */
xio_err bench_target_remote(bench_target *t, const char *url, int max_in_flight,
                            const bench_config *c, xio_error *err);

/** A local target in a fresh temporary directory under `parent`. */
xio_err bench_target_local(bench_target *t, const char *parent, uint64_t disk_margin,
                           xio_error *err);

/** Frees the context; removes the local temporary directory and anything left in it;
 *  adds the target's counts to its tally, when it has one. */
void bench_target_close(bench_target *t);

/** Writes a fresh file target (URL or path) named after `stem` into `out`. */
void bench_target_file(bench_target *t, const char *stem, char *out, size_t n);

/**
 * Checks that storing `bytes` more is possible: emulator memory (page blob, which
 * may restart the emulator and then remakes the context) or free disk space
 * (local). Returns 1 when possible, 0 with the reason in `why`, -1 on a failure to
 * remake the context (detail in `err`).
 */
int bench_target_reserve(bench_target *t, uint64_t bytes, char *why, size_t n, xio_error *err);

/* --------------------------------------------------------------- sweep ---- */

/** The prefix of every blob this process makes in a --target container. */
void bench_sweep_prefix(char *out, size_t n);

/**
 * Deletes every blob of `container_url` (with its query: a SAS) whose name starts
 * with `prefix`, with their snapshots, until a listing finds none. Returns the
 * number deleted, or -1 on a failure (detail in `err`).
 */
long bench_sweep(xio_ctx *ctx, const char *container_url, const char *prefix, xio_error *err);

/**
 * Arms the clean-up of a --target run: blocks SIGINT and SIGTERM in this thread (so
 * in every thread started later; call it before any context exists) and starts a
 * thread that waits for them; on one it deletes what the run made (bench_sweep with a
 * context of its own), says so on stderr and exits 128 + the signal. Returns 0, or
 * -1 when the thread cannot start.
 */
int bench_sweep_arm(const char *container_url);

/** Blocks the calling thread for good once a signal's clean-up has begun (so that it
 *  names no new blob); returns at once otherwise. */
void bench_sweep_hold(void);

/** The file system type holding `path` ("ext4", "tmpfs", "xfs", ... or "unknown"). */
const char *bench_fs_type(const char *path);

/* -------------------------------------------------------------- append ---- */

/** The append section (append.c): every case on each backend measured, printed and,
 *  with --out, written to append.md and append.csv; the page-blob requests and
 *  refused tries added to `tally`. Returns 1 when a case failed. */
int bench_append(const bench_config *c, bench_emulator *em, int have_em, bench_counts *tally);

/* ------------------------------------------------------------- results ---- */

typedef struct bench_row {
  const char *kind;    /* "growth", "bulk", "random" */
  const char *backend; /* "pageblob", "local" */
  const char *op;      /* create grow zero | write read | randread randwrite */
  const char *policy;  /* none zero clear, or "" */
  uint64_t size;       /* growth: SIZE; bulk: bytes per run; random: file size */
  size_t io_size;      /* bulk, random: bytes per request */
  int depth;           /* bulk, random: requests in flight */
  int runs;            /* completed runs */
  double times[BENCH_MAX_RUNS];
  double t_min, t_med, t_max; /* seconds per run */
  bench_counts req;           /* storage requests per run */
  int extrapolated;
  const char *status; /* "ok", "skipped", "failed" */
  char note[256];
  double mib_s;                /* bulk: at the median time */
  double cpu_s_per_gib;        /* bulk: median */
  double iops, p50_us, p99_us; /* random */
  uint64_t ops;                /* random: requests completed */
} bench_row;

#define BENCH_SECTIONS 4 /* growth, bulk, random, append */

typedef struct bench_results {
  bench_row *rows;
  size_t n, cap;
  bench_counts sections[BENCH_SECTIONS]; /* page-blob requests and refusals per section */
  int measured[BENCH_SECTIONS];          /* the section ran on page blobs */
} bench_results;

/** The sections' names, in report order: "growth", "bulk", "random", "append". */
extern const char *const bench_section_names[BENCH_SECTIONS];

/** The tally of section `name` (one of bench_section_names), marked as measured. */
bench_counts *bench_results_section(bench_results *r, const char *name);

/** Appends a zeroed row (status "ok") and returns it; exits on out-of-memory. */
bench_row *bench_results_add(bench_results *r);

/** Finds the growth row of backend/op/policy/size, or NULL. */
const bench_row *bench_results_find(const bench_results *r, const char *backend, const char *op,
                                    const char *policy, uint64_t size);

/** 1 when `w` (may be NULL) was measured or derived: status "ok" with runs. */
int bench_row_usable(const bench_row *w);

/** Number of rows with status "failed". */
int bench_results_failed(const bench_results *r);

void bench_results_free(bench_results *r);

/** Sets a row's min/median/max from its times. */
void bench_row_summarize(bench_row *row);

/* -------------------------------------------------------------- growth ---- */

/** The growth operations and policies, in report order. */
extern const char *const bench_growth_ops[3]; /* "create", "grow", "zero" */
extern const char *const bench_policies[3];   /* "none", "zero", "clear" */

/** 1 when policy `p` applies to op `op` (zero-range takes only zero and clear). */
int bench_policy_applies(const char *op, const char *policy);

/** Measures create / grow / zero for every size and policy on `t`; zero-writes past
 *  the cap are derived by bench_extrapolate instead of run. */
void bench_growth(const bench_config *c, bench_target *t, bench_results *r);

/* --------------------------------------------------------- extrapolate ---- */

/** Adds the rows of init-zero `op` on `backend` past the cap, scaled linearly from
 *  the row measured at the cap (times and zeroing requests). */
void bench_extrapolate(const bench_config *c, const char *backend, const char *op,
                       bench_results *r);

/* ------------------------------------------------------------ bulk, random ---- */

void bench_bulk(const bench_config *c, bench_emulator *em, bench_results *r);
void bench_random(const bench_config *c, bench_emulator *em, bench_results *r);

/** Fills `n` bytes with pseudo-random data from `seed`. */
void bench_fill_random(void *buf, size_t n, uint64_t seed);

/** xorshift64*: the next pseudo-random number of `state` (nonzero). */
uint64_t bench_rand(uint64_t *state);

/* ------------------------------------------------------------- context ---- */

typedef struct bench_context {
  char date[32]; /* UTC, ISO 8601 */
  long nproc;
  char cpu[128];
  uint64_t mem_bytes;
  char kernel[400];
  char local_dir[512];
  const char *local_fs;
  char endpoint[512];
  char target[1300]; /* --target: "account A at ENDPOINT, container C, blob tier T"; "" */
  char target_caveat[1400];
  int emulator_resets;
  uint64_t emulator_uploaded;
  double total_seconds;
  double load_start, load_end; /* 1-minute load average */
  int sanitized;
} bench_context;

/** Gathers what describes this machine. */
void bench_context_get(bench_context *x);

/** The 1-minute load average, or -1. */
double bench_load_average(void);

/** The one-line caveat printed with every set of numbers: what the page blobs were
 *  (the emulator, or the --target account `x` names). */
const char *bench_context_caveat(const bench_context *x);

/* --------------------------------------------------------------- table ---- */

#define BENCH_TABLE_ROWS 48
#define BENCH_TABLE_COLS 8
#define BENCH_TABLE_CELL 64

/** Rows of text cells; row 0 is the header. */
typedef struct bench_table {
  char cells[BENCH_TABLE_ROWS][BENCH_TABLE_COLS][BENCH_TABLE_CELL];
  int nrows, ncols;
} bench_table;

void bench_table_init(bench_table *t, int ncols);

/** The cell to write (BENCH_TABLE_CELL bytes); cells past the limits are dropped. */
char *bench_table_cell(bench_table *t, int row, int col);

/** Prints as markdown (md = 1) or as aligned text. */
void bench_table_print(const bench_table *t, int md, FILE *out);

/* ------------------------------------------------------------- reports ---- */

typedef struct bench_report {
  const bench_config *cfg;
  const bench_context *ctx;
  const bench_results *res;
  const char *plots[16]; /* files written by plot.c */
  int nplots;
  char plot_note[256]; /* why there are no plots, or "" */
} bench_report;

int bench_write_csv(const bench_report *rep, const char *path);
int bench_write_json(const bench_report *rep, const char *path);
int bench_write_md(const bench_report *rep, const char *path);
void bench_print_summary(const bench_report *rep, FILE *out);

/** The growth table of one backend/op, with its footnotes: markdown (md = 1) or
 *  aligned columns for the terminal. Prints nothing when there are no rows. */
void bench_growth_table(const bench_report *rep, const char *backend, const char *op, int md,
                        FILE *out);

/** The bulk and random I/O tables. */
void bench_bulk_table(const bench_report *rep, int md, FILE *out);
void bench_random_table(const bench_report *rep, int md, FILE *out);

/** The throttling table: per section, the page-blob requests, the tries refused by
 *  throttling (503 ServerBusy, 500 OperationTimedOut), other failed tries and the
 *  retries, with the pacing the run used. Prints nothing when no section ran on page
 *  blobs. */
void bench_throttling_table(const bench_report *rep, int md, FILE *out);

/** "auto", "on" or "off". */
const char *bench_pacing_name(xio_pacing p);

/** "page blob (Azurite)" or "local (ext4)". */
const char *bench_backend_title(const bench_report *rep, const char *backend, char *buf, size_t n);

/** "create with size", "grow by", "zero a range of". */
const char *bench_op_title(const char *op);

/** The headline sentences ("clear is 3500x faster than zero at 64 GiB ..."). */
void bench_headlines(const bench_report *rep, int md, FILE *out);

/** Draws the plots into the report's directory with gnuplot; fills rep->plots or
 *  rep->plot_note. Returns 0, or -1 when gnuplot failed. */
int bench_plot(bench_report *rep, const char *csv_path);

#endif
