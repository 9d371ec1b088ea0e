/*
 * emurun.h - what the emulator tests share: running a program (xio, node, sh) with
 * arguments and extra environment and capturing its exit status and output; a
 * state directory per test whose emulator is stopped at exit whatever happens; the
 * JSON that `xio emulator` prints; and whether a pid still runs.
 *
 * Runs get the environment of the test without any AZURE_STORAGE_* or XIO_*
 * variable, then the extras given.
 */
#ifndef XIO_TEST_EMURUN_H
#define XIO_TEST_EMURUN_H

#include <cjson/cJSON.h>

typedef struct emurun {
  int status; /* exit status; 128 + N when killed by signal N */
  char *out;  /* stdout, NUL-terminated */
  char *err;  /* stderr */
} emurun;

/** Runs `args[0]` (a path) with `args` (NULL-terminated) and `env` extras
 *  ("NAME=value", NULL-terminated, or NULL). Frees what `r` held; zero-initialize
 *  `r` before its first run. */
void emurun_v(emurun *r, const char *const *env, const char *const *args);

void emurun_free(emurun *r);

/** `xio ARGS...` */
#define EMU_XIO(r, ...) emurun_v((r), NULL, (const char *const[]){XIO_CLI_PATH, __VA_ARGS__, NULL})
#define EMU_XIO_ENV(r, env, ...)                                                                   \
  emurun_v((r), (env), (const char *const[]){XIO_CLI_PATH, __VA_ARGS__, NULL})

/** Asserts the exit status, printing both outputs when it differs. */
#define EXPECT_STATUS(r, want)                                                                     \
  do {                                                                                             \
    if ((r)->status != (want))                                                                     \
      FAIL("exit status %d, wanted %d\n--- stdout:\n%s--- stderr:\n%s", (r)->status, (want),       \
           (r)->out, (r)->err);                                                                    \
  } while (0)

/** A fresh state directory for this test (removed at exit, after `xio emulator
 *  stop --dir` has run on it). Static buffer per call, valid to the end. */
const char *emurun_dir(void);

/** Writes a program that runs the tests' Azurite with --debug into a fresh scratch
 *  directory named after `tag`: `env` gets "XIO_AZURITE=PROGRAM" for the emulator's
 *  environment, `debug` the path of the debug log it writes. Fails the test on an
 *  error. */
void emurun_debug_azurite(const char *tag, char *env, size_t env_size, char *debug,
                          size_t debug_size);

/** Parses the run's stdout as JSON (fails the test when it is not). */
cJSON *emurun_json(const emurun *r);

/** A member of `o` by a path of names ("proxy", "pid"); fails when missing. */
const cJSON *emurun_get(const cJSON *o, const char *a, const char *b);

/** Number / string / bool members (fail the test when missing or of another type). */
double emurun_num(const cJSON *o, const char *a, const char *b);
const char *emurun_str(const cJSON *o, const char *a, const char *b);
int emurun_bool(const cJSON *o, const char *a, const char *b);

/** 1 when process `pid` exists and is no zombie. */
int emurun_pid_runs(long pid);

/** Runs the JavaScript SDK client (client.js) against `connection_string` writing
 *  and reading `pages` pages; returns its JSON result (fails the test unless it
 *  reports ok). Delete with cJSON_Delete. */
cJSON *emurun_js_client(const char *connection_string, int pages);

#endif
