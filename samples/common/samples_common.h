/*
 * samples_common.h - what the sample programs (the xio CLI, the create-database
 * demo, the benchmark, the nbdkit plugin) share: sizes, durations and ratios
 * written for people, the monotonic clock they time operations with, and a target
 * read from a file. Parsing sizes and classifying
 * targets are the library's (xio_size_parse, xio_target_classify in xio/xio.h),
 * since any program on xio needs them.
 *
 * Every formatter writes into the caller's buffer (at most `n` bytes, always
 * NUL-terminated) and returns it, so a call can sit in a printf argument list;
 * SAMPLES_FMT_LEN bytes always suffice.
 */
#ifndef XIO_SAMPLES_COMMON_H
#define XIO_SAMPLES_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define SAMPLES_FMT_LEN 40

/** A size in binary units with three significant digits: "512 B", "1.00 GiB",
 *  "64.0 MiB", "256 GiB". */
char *samples_fmt_size(uint64_t bytes, char *buf, size_t n);

/** A duration: "850 us", "3.20 ms", "12.6 ms", "4.85 s", "83.0 min", "4.7 h"; "-"
 *  for a negative, infinite or NaN value (nothing measured). */
char *samples_fmt_secs(double secs, char *buf, size_t n);

/** A speed-up: "1.8x", "42x", "9,420x", "6,210,000x" (three significant digits past
 *  1000, since the inputs are noisy timings); "-" for no ratio (<= 0, inf, NaN). */
char *samples_fmt_ratio(double ratio, char *buf, size_t n);

/** Takes the emulator account's path (/devstoreaccount1) and trailing slashes off an
 *  endpoint in place, so the account URL `xio emulator start` prints and the bare
 *  endpoint name the same emulator; returns the new length. */
size_t samples_bare_endpoint(char *ep);

/**
 * Reads a target from `f` into `line` (`size` bytes): its first line without the
 * line end and the blanks around it; the lines after it must be blank (not read
 * when `one_line`, for a terminal where the person typing stops at one). Returns
 * NULL, or what is wrong with the file as words that follow its name ("is empty",
 * "has an empty first line", "has a first line that is too long", "holds more than
 * one line ...", "holds control characters in its first line", "holds a line that
 * starts with '@' ...", "cannot be read" with *errnum set). Never quotes what it
 * read: the line may hold a SAS.
 */
const char *samples_read_first_line(FILE *f, int one_line, char *line, size_t size, int *errnum);

/** Monotonic seconds since an arbitrary point: for durations only. */
double samples_now(void);

#endif /* XIO_SAMPLES_COMMON_H */
