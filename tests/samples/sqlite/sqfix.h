/*
 * sqfix.h - fixtures of the SQLite VFS tests: the emulator's credentials in the
 * environment, the VFS registered as the default, a fresh container per test, the
 * trace (XIO_TRACE JSON lines) counted by request type, and child processes (waited
 * for with a deadline, so that one that hangs fails the test instead of stalling it).
 */
#ifndef XIO_TEST_SQFIX_H
#define XIO_TEST_SQFIX_H

#include <sqlite3.h>
#include <stddef.h>
#include <sys/types.h>

/* A common table expression s(value) counting 1..N (the library has no
 * generate_series), to put before an INSERT ... SELECT ... FROM s. */
#define SERIES(n)                                                                                  \
  "WITH RECURSIVE s(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM s WHERE "                  \
  "value < " #n ")"

typedef struct sqfix {
  char container[128]; /* container URL on the emulator */
  char trace[512];     /* the XIO_TRACE file (removed when the test ends) */
  long mark;           /* trace lines before this are not counted */
} sqfix;

/** Sets AZURE_STORAGE_CONNECTION_STRING and XIO_TRACE, registers the VFS as the
 *  default, and picks a fresh container. Call before anything opens a database. */
void sqfix_setup(sqfix *fx);

/** The last message SQLite logged (sqlite3_log) in this process. */
const char *sqfix_last_log(void);

/** The last "xio: lease lost ..." message SQLite's log received since the last call
 *  ("" when none), into `out`; clears it. */
void sqfix_lease_log(char *out, size_t size);

/** Writes the URL of blob `name` in the test's container. */
void sqfix_url(const sqfix *fx, const char *name, char *out, size_t size);

/** Starts counting requests from now. */
void sqfix_mark(sqfix *fx);

/** Trace lines since the mark whose request_type is `type` (NULL: any) and whose
 *  file_path ends with `suffix` (NULL: any). */
long sqfix_count(const sqfix *fx, const char *type, const char *suffix);

/** The same, counting only requests at `offset`. */
long sqfix_count_at(const sqfix *fx, const char *type, const char *suffix, long long offset);

/** Runs `sql` on `db`, failing the test with SQLite's message on an error. */
void sqfix_exec(sqlite3 *db, const char *sql);

/** The first column of the first row of `sql`, as an integer. */
long long sqfix_int(sqlite3 *db, const char *sql);

/** Opens `url` read-write (creating it), failing the test on an error. */
sqlite3 *sqfix_open(const char *url);

/** Starts the worker (tests/samples/sqlite/worker.c) with `args` (NULL-terminated, after the
 *  program name); *out reads its stdout, *in writes its stdin (may be NULL). */
pid_t sqfix_spawn(const char *const *args, int *out, int *in);

/** Runs the worker to the end; its stdout (NUL-terminated) in `buf`. Returns its exit
 *  status, or -1 when it died of a signal. */
int sqfix_run(const char *const *args, char *buf, size_t size);

/** Runs a shell command to the end with its output in `buf`; returns its status. */
int sqfix_shell(const char *cmd, char *buf, size_t size);

/** Waits for child `pid` to end, at most `seconds`: a child still running then is
 *  killed (with its process group when it leads one) and the test fails, naming
 *  `what`. Returns its exit status, or -1 when a signal ended it. */
int sqfix_wait(pid_t pid, int seconds, const char *what);

#endif
