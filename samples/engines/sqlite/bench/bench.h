/*
 * bench.h - xio-sqlite-bench, SQLite on page blobs against SQLite on a local file:
 * the stages of one run, their measurements, and the report.
 */
#ifndef XIO_SQLITE_BENCH_H
#define XIO_SQLITE_BENCH_H

#include <stdio.h>

#define BENCH_STAGES 7

/** What one stage cost. */
typedef struct bench_stage {
  const char *name;
  double wall_ms, cpu_ms; /* cpu: user + system time of the whole process */
  long requests;          /* storage requests (XIO_TRACE events) */
  long commits;           /* transactions committed in the stage (0: none) */
} bench_stage;

/** One run: a journal mode on one target. */
typedef struct bench_run {
  const char *mode;   /* "WAL" or "DELETE" */
  const char *target; /* "local" or "page blob" */
  bench_stage st[BENCH_STAGES];
  double db_mb; /* size of the database at the end */
} bench_run;

/** Runs every stage on database `name` (a path or a blob URL) in `mode`, counting
 *  requests from the trace file `trace` (NULL: none). Returns 0, or -1 with a message
 *  on stderr. */
int bench_run_stages(bench_run *r, const char *name, const char *trace);

/** Writes the Markdown report of `runs` (WAL local, WAL blob, DELETE local, DELETE
 *  blob) to `out`. */
void bench_report(FILE *out, const bench_run *runs, int n);

#endif
