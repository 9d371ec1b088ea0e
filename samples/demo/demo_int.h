/*
 * demo_int.h - what the experiment (demo.c) measured, handed to the report
 * (demo_report.c).
 */
#ifndef XIO_DEMO_INT_H
#define XIO_DEMO_INT_H

#include "demo.h"
#include "samples_common.h"

typedef struct demo_row {
  const char *operation;    /* "create data file" */
  const char *file;         /* "data.mdf" */
  uint64_t size;            /* bytes initialized */
  uint64_t shown_size;      /* the size column: the file's size when done */
  const char *classic_init; /* policy of the classic run: "zero" */
  const char *instant_init; /* "none" or "clear" */
  double classic_s, instant_s;
  int classic_requests, instant_requests;
  int classic_estimated; /* classic not run: estimated from the zero-write rate */
} demo_row;

typedef struct demo_result {
  const char *backend; /* "page blob (Azurite)" or "local files" */
  const char *where;   /* endpoint or directory */
  demo_row rows[3];
  int nrows;
  double zero_rate; /* measured zero-write rate, bytes per second */
  uint64_t grow_from, grow_to;
  char *growth_trace; /* JSON lines of the instant log growth */
  int growth_events, growth_set_size, growth_zero;
  int samples, samples_zero; /* reads of the grown region, and how many were zero */
} demo_result;

/** Prints the table (or, with json, one JSON object) to `out`. */
void demo_report(FILE *out, const demo_result *r, int json);

#endif
