/*
 * fuzz.h - what the fuzz targets share. Each target is one file defining
 * LLVMFuzzerTestOneInput for one parser of outside input; it is linked either with
 * libFuzzer (clang, make fuzz) or with replay.c, which feeds it every file of a
 * committed corpus (ctest, label fuzz_replay). A target checks properties of the
 * parser's answer with FUZZ_CHECK, which aborts so both drivers report the input.
 */
#ifndef XIO_FUZZ_H
#define XIO_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/** The entry point every target defines (libFuzzer's contract: returns 0). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/** Aborts with the file, line and condition when `cond` is false. */
#define FUZZ_CHECK(cond)                                                                           \
  do {                                                                                             \
    if (!(cond)) xio__fuzz_fail(__FILE__, __LINE__, #cond);                                        \
  } while (0)

/** Prints where a property broke and aborts. */
void xio__fuzz_fail(const char *file, int line, const char *what) __attribute__((noreturn));

/** The input as a malloc'd NUL-terminated string (an embedded NUL ends it early).
 *  Aborts on out-of-memory: a fuzz run has nothing better to do. */
char *xio__fuzz_text(const uint8_t *data, size_t size);

/** Number of (possibly overlapping) occurrences of s[0..n) in `hay`. */
size_t xio__fuzz_count(const char *hay, const char *s, size_t n);

/** 1 when `out` contains s[0..n). */
int xio__fuzz_contains(const char *out, const char *s, size_t n);

/** Length of a parameter value at `s`: up to the first of "&;#\"'<>" or white space
 *  (where the redactor and the query parsers end a value). */
size_t xio__fuzz_value_len(const char *s);

/**
 * 1 when `out` (may be NULL) leaks v[0..n): it shows there, not inside text the
 * marker "REDACTED" spells nor across a "://" (where a dropped user:password@ glues
 * two pieces of the input), and `rest` (the non-secret parts of the input, may be
 * NULL) does not explain it: v shows nowhere in `rest`, raw or percent-decoded, in
 * any letter case.
 */
int xio__fuzz_leaked(const char *out, const char *v, size_t n, const char *rest);

/**
 * Checks that no secret value of `text` shows in `out`: each value of a parameter
 * named by one of `names` (case-insensitive, "name=" at the start of `text` or
 * after one of the characters `seps`). A value is looked for when it is at least 8
 * characters long, holds a digit or one of "+/%" but neither "REDACTED" nor "://"
 * (text the code writes itself may hold those). It leaks (xio__fuzz_leaked) unless
 * the rest of `text` or `except` (may be NULL) explains it: a message may quote
 * such other text. Aborts on a leak.
 */
void xio__fuzz_no_secret(const char *text, const char *const *names, const char *seps,
                         const char *out, const char *except);

#endif
