/*
 * demo.h - the create-database experiment: create a database's data and log files
 * the classic way (every new byte written as zero) and the instant way (data files
 * not initialized, log files zeroed by metadata), grow the log from 8 MiB to 1 TiB,
 * and print the times side by side with the storage requests each took.
 */
#ifndef XIO_DEMO_H
#define XIO_DEMO_H

#include <stdint.h>
#include <stdio.h>

#include <xio/xio.h>

typedef struct xio_demo_options {
  const char *endpoint;  /* emulator blob endpoint "http://127.0.0.1:PORT", or NULL */
  const char *local_dir; /* run on local files in this directory instead, or NULL */
  uint64_t data_size;    /* default 2 GiB */
  uint64_t log_size;     /* default 512 MiB */
  uint64_t grow_from;    /* default 8 MiB */
  uint64_t grow_to;      /* default 1 TiB (local: capped to what the disk can hold) */
  int json;              /* results as one JSON object instead of the table */
  FILE *out;             /* default stdout */
  int progress;          /* the classic zero-writes' progress line on stderr: 0 (default)
                            on a terminal only, 1 also elsewhere (a line a second);
                            never with json */
} xio_demo_options;

/** Defaults as documented above; cannot fail. */
xio_demo_options xio_demo_options_default(void);

/**
 * Runs the experiment and prints its report to opts->out. Everything it creates is
 * deleted at the end. Errors: XIO_EINVAL (neither or both of endpoint and
 * local_dir), and any storage error, with its detail in `err`.
 */
xio_err xio_demo_run(const xio_demo_options *opts, xio_error *err);

#endif
