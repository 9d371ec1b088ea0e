/*
 * samples_pump.h - keeping `depth` asynchronous requests in flight on one file, the
 * way an engine drives its I/O (pump.c); the benchmarks measure with it.
 */
#ifndef XIO_SAMPLES_PUMP_H
#define XIO_SAMPLES_PUMP_H

#include <stdint.h>

#include <xio/xio.h>

/** Fills request `i` in slot `slot` (0 .. depth-1, one request at a time: a slot's
 *  own buffer can be used): op, offset, length, buf; the pump sets done and ud.
 *  Returns 0, or -1 when there is no request `i` (the pump then stops issuing). */
typedef int (*samples_pump_next)(void *ud, uint64_t i, int slot, xio_io *io);

typedef struct samples_pump_result {
  uint64_t ops;    /* requests completed */
  uint64_t bytes;  /* bytes transferred */
  double seconds;  /* first submit to last completion */
  double *lat_us;  /* per request, submit to completion callback; malloc'd, caller frees */
  xio_err rc;      /* the first failure, or XIO_OK */
  xio_error error; /* its detail */
} samples_pump_result;

/**
 * Runs up to `max_ops` requests on `f` with up to `depth` of them in flight, until
 * `next` has no more or `max_seconds` have passed (0: no limit), then waits for all
 * in flight. Returns the first failure (XIO_EINVAL for a depth below 1, XIO_ENOMEM
 * when the pump's own memory cannot be had, or a request's error); `out` is filled
 * either way with what completed, and the caller frees out->lat_us (NULL-safe).
 */
xio_err samples_pump(xio_file *f, int depth, uint64_t max_ops, double max_seconds,
                     samples_pump_next next, void *ud, samples_pump_result *out);

#endif /* XIO_SAMPLES_PUMP_H */
