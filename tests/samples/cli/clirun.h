/*
 * clirun.h - running the xio program from the tests: spawn it with arguments and
 * an environment, capture stdout, stderr, the exit status and the trace file it
 * wrote, and check every run for leaked secrets.
 *
 * Each run gets the emulator's dev account through AZURE_STORAGE_CONNECTION_STRING
 * (unless CLIRUN_NO_CREDS) and "--trace FILE" (unless the arguments name a trace
 * themselves). After each run, stdout, stderr and the trace must not contain the
 * account key, "sig=" (stdout may, with CLIRUN_SECRET_STDOUT: the sas command), or
 * any secret registered with clirun_forbid().
 */
#ifndef XIO_TEST_CLIRUN_H
#define XIO_TEST_CLIRUN_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#define CLIRUN_NO_CREDS      0x1 /* no AZURE_STORAGE_CONNECTION_STRING */
#define CLIRUN_SECRET_STDOUT 0x2 /* stdout may carry a SAS (the sas command) */
#define CLIRUN_STDIN_PIPE    0x4 /* clirun_start: stdin from a pipe the test writes */

typedef struct clirun {
  int status;  /* exit status; 128 + N when killed by signal N */
  char *out;   /* stdout, NUL-terminated */
  char *err;   /* stderr */
  char *trace; /* the trace file ("" when none was written) */
} clirun;

/** Runs xio with `args` (NULL-terminated) and `env` extras (NULL-terminated
 *  "NAME=value" entries, or NULL). Frees what `r` held before; zero-initialize
 *  `r` before the first run. */
void clirun_v(clirun *r, unsigned flags, const char *const *env, const char *const *args);

#define XIO(r, ...) clirun_v((r), 0, NULL, (const char *const[]){__VA_ARGS__, NULL})
#define XIO_ENV(r, flags, env, ...)                                                                \
  clirun_v((r), (flags), (env), (const char *const[]){__VA_ARGS__, NULL})

void clirun_free(clirun *r);

/** An xio run in the background (clirun_start), until clirun_finish. */
typedef struct clirun_bg {
  int pid; /* its process */
  int in;  /* with CLIRUN_STDIN_PIPE: the write end of its stdin, else -1 */
  unsigned flags;
  char out[512], err[512], trace[512]; /* where its stdout, stderr and trace go */
} clirun_bg;

/** Starts xio as clirun_v does (same environment and trace), without waiting for
 *  it; stdin from /dev/null, or a pipe with CLIRUN_STDIN_PIPE. A run still going
 *  when the test process exits (a failed assertion) is killed then. */
void clirun_start_v(clirun_bg *b, unsigned flags, const char *const *env, const char *const *args);

#define XIO_START(b, flags, ...)                                                                   \
  clirun_start_v((b), (flags), NULL, (const char *const[]){__VA_ARGS__, NULL})

/** 1 once the background run has ended (it is not reaped: clirun_finish does). */
int clirun_ended(const clirun_bg *b);

/** Waits up to `max_s` seconds for the background run to end, then, if it still
 *  runs, kills it and fails the test saying it was stuck; fills `r` as clirun_v
 *  does, with the same secret checks. */
void clirun_finish(clirun_bg *b, clirun *r, int max_s);

/** Reads /proc/PID/cmdline of the background run, its NUL separators turned into
 *  spaces, into `out`. */
void clirun_cmdline(const clirun_bg *b, char *out, size_t size);

/** Every later run fails the test when its output contains `secret`. */
void clirun_forbid(const char *secret);

/** Asserts the exit status, printing both outputs when it differs. */
#define EXPECT_EXIT(r, want)                                                                       \
  do {                                                                                             \
    if ((r)->status != (want))                                                                     \
      FAIL("exit status %d, wanted %d\n--- stdout:\n%s--- stderr:\n%s", (r)->status, (want),       \
           (r)->out, (r)->err);                                                                    \
  } while (0)

/** A directory of this process for local files (removed at exit). */
const char *clirun_dir(void);

/** `out` = clirun_dir()/name; fails the test when it does not fit. */
void clirun_path(const char *name, char *out, size_t size);

/** A fresh container name for this test. */
void clirun_container(char *out, size_t size);

/** `out` = <account URL>/container[/blob]. */
void clirun_url(const char *container, const char *blob, char *out, size_t size);

/** Parses the run's stdout as JSON (fails the test when it is not). */
cJSON *clirun_json(const clirun *r);

/** A number member of `o` (fails the test when missing). */
double clirun_num(const cJSON *o, const char *name);

/** How many snapshots `url` has, by `xio --json snapshot list` (fails the test when
 *  the command fails). */
int clirun_snapshot_count(const char *url);

/** A string member of `o` (fails the test when missing). */
const char *clirun_str(const cJSON *o, const char *name);

/* The trace helpers below count storage requests: the trace's xio_send_complete
 * events. */

/** Sums the lengths of the trace's requests of `type`; *count gets how many (may be
 *  NULL). */
uint64_t clirun_trace_sum(const clirun *r, const char *type, int *count);

/** Number of the trace's requests that are not of the listed types (NULL-terminated). */
int clirun_trace_others(const clirun *r, const char *const *types);

/** Number of the trace's requests of `type` whose file_path is `path`. */
int clirun_trace_on(const clirun *r, const char *type, const char *path);

/** Number of the trace's lines that are events named `event` ("xio_failed_request"). */
int clirun_trace_events(const clirun *r, const char *event);

/** Writes `size` bytes (a multiple of 4 MiB) of random data to a new local file, each
 *  4 MiB block different, drawn from `seed`. */
void clirun_make_source(const char *path, size_t size, uint64_t seed);

/** Fails the test unless the two files have the same size and bytes (compared in 4 MiB
 *  pieces, never whole in memory), naming the first piece that differs. */
void clirun_expect_same_files(const char *a, const char *b);

/** Writes `n` bytes of `data` to a new local file. */
void clirun_write_file(const char *path, const void *data, size_t n);

/** The same for a file only its owner may read and write (mode 0600), as a
 *  credential file that holds a secret must be. */
void clirun_write_private_file(const char *path, const void *data, size_t n);

#endif
