/*
 * util.h - helpers shared by the tests: the emulator endpoint and its dev account's
 * connection string, unique names, deterministic random data.
 */
#ifndef XIO_TEST_UTIL_H
#define XIO_TEST_UTIL_H

#include <stddef.h>
#include <stdint.h>

/** The emulator's blob endpoint from XIO_TEST_BLOB_ENDPOINT, e.g.
 *  "http://127.0.0.1:41341"; fails the test when unset. */
const char *test_endpoint(void);

/** The account URL on the emulator: "<endpoint>/devstoreaccount1". Static buffer. */
const char *test_account_url(void);

/** Writes the connection string of the emulator's public dev account served at
 *  `endpoint` ("http://127.0.0.1:PORT" or https, whose scheme sets the protocol)
 *  into `out`; fails the test when it does not fit. */
void test_dev_connection_string_at(const char *endpoint, char *out, size_t size);

/** The same for test_endpoint(). Static buffer. */
const char *test_dev_connection_string(void);

/** Writes a name unique to this process and call into `buf`:
 *  "<prefix>-<pid>-<random tag>-<n>", lowercase, valid as a container name (the tag
 *  keeps a reused process id from meeting an earlier process's names). Fails the
 *  test when it does not fit. */
void test_unique_name(char *buf, size_t size, const char *prefix);

/** Fills `buf` with `n` pseudo-random bytes from `seed` (same seed, same bytes). */
void test_fill_random(void *buf, size_t n, uint64_t seed);

/** 1 when all `n` bytes at `buf` are zero. */
int test_all_zero(const void *buf, size_t n);

#endif
