/*
 * xio/base.h - the shared base of every xio library (part of libxio_auth, the ground
 * floor): the injectable clock and the time formats Azure uses, freeing secrets, and
 * lists of byte ranges. The error list lives beside it in <xio/error.h>. Credentials
 * and signing are in <xio/auth.h>. The text helpers the libraries share (URLs taken
 * apart, percent-encoding, base64) are internal: <xio/url_int.h>, never installed.
 *
 * Pure: nothing here sends, reads files or keeps global state.
 *
 * Ownership: every `char *` or struct member returned is heap memory owned by the
 * caller, released with the matching *_clear function (which accepts NULL) or with
 * free() where stated (xio_free, which is free() unless the program installed its
 * own allocator: see <xio/alloc.h>). All allocation goes through <xio/alloc.h>.
 */
#ifndef XIO_BASE_H
#define XIO_BASE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <xio/error.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- clock ---- */

/** A source of the current time (seconds since the epoch, UTC). */
typedef struct xio_auth_clock {
  time_t (*now)(void *ud); /* NULL means the system clock */
  void *ud;
} xio_auth_clock;

/** Returns the clock's time; `clock` may be NULL (system clock). */
time_t xio_auth_clock_now(const xio_auth_clock *clock);

/** Microseconds of the system's monotonic clock (CLOCK_MONOTONIC): for measuring
 *  durations and timeouts, never for wall time. Cannot fail. */
int64_t xio_auth_monotonic_us(void);

/** Formats `t` as an RFC 1123 date ("Mon, 01 Jan 2024 00:00:00 GMT"), locale-free.
 *  `buf` must hold 30 bytes. Returns `buf`. */
char *xio_auth_format_rfc1123(time_t t, char buf[30]);

/** Formats `t` as ISO 8601 UTC ("2024-01-01T00:00:00Z"). `buf` holds 21 bytes. */
char *xio_auth_format_iso8601(time_t t, char buf[21]);

/** Parses an ISO 8601 UTC time as SAS tokens use it ("2024-01-01T00:00:00Z",
 *  also "2024-01-01", fractional seconds and +hh:mm offsets). Errors: XIO_EPARSE
 *  (also for a time before 1970 or after 9999 UTC). */
xio_err xio_auth_parse_iso8601(const char *text, time_t *out, xio_error *err);

/* -------------------------------------------------------------- secrets ---- */

/** Wipes `n` bytes at `p` and frees it. `p` may be NULL. */
void xio_auth_secret_free(void *p, size_t n);

/* --------------------------------------------------------------- ranges ---- */

/** One range of bytes [start, end], inclusive: an allocated range of a file, a page
 *  range of a page blob (or, in diffs, a cleared one). */
typedef struct xio_range {
  uint64_t start;
  uint64_t end;
} xio_range;

/** A list of ranges, sorted and merged where they overlap or touch. Zero it to
 *  start (`{NULL, 0, 0}`); the caller owns it and frees it with xio_ranges_clear. */
typedef struct xio_ranges {
  xio_range *v; /* malloc'd */
  size_t n;
  size_t cap;
} xio_ranges;

/** Frees what `r` owns and zeroes it; `r` may be NULL. */
void xio_ranges_clear(xio_ranges *r);

/** Adds [start, end] (inclusive) to `r`, merging it with ranges it overlaps or
 *  touches; cheap when ranges come in ascending order. Errors: XIO_EINVAL (`r`
 *  NULL or start > end), XIO_ENOMEM (`r` is then unchanged). */
xio_err xio_ranges_add(xio_ranges *r, uint64_t start, uint64_t end);

/** Bytes covered by `r` (saturating at UINT64_MAX); 0 for NULL. */
uint64_t xio_ranges_bytes(const xio_ranges *r);

/** Makes room for `extra` more ranges in `r`, so that the next `extra` calls of
 *  xio_ranges_add cannot fail with XIO_ENOMEM (an add grows the list by at most one):
 *  lets a parser validate a whole body first and then apply it without leaving a
 *  half-applied list behind. Errors: XIO_ENOMEM, XIO_EINVAL (`r` NULL). */
xio_err xio_ranges_reserve(xio_ranges *r, size_t extra);

#ifdef __cplusplus
}
#endif
#endif /* XIO_BASE_H */
