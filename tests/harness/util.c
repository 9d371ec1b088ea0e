/*
 * util.c - helpers shared by the tests (see util.h).
 */
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include <xio/auth.h>

#include "test.h"

const char *test_endpoint(void) {
  const char *e = getenv("XIO_TEST_BLOB_ENDPOINT");
  if (!e || !*e) FAIL("XIO_TEST_BLOB_ENDPOINT is not set: run through ctest (azurite fixture)");
  return e;
}

const char *test_account_url(void) {
  static char buf[512];
  snprintf(buf, sizeof buf, "%s/devstoreaccount1", test_endpoint());
  return buf;
}

void test_dev_connection_string_at(const char *endpoint, char *out, size_t size) {
  const char *proto = strncmp(endpoint, "https:", 6) == 0 ? "https" : "http";
  int n = snprintf(out, size,
                   "DefaultEndpointsProtocol=%s;AccountName=" XIO_AUTH_DEV_ACCOUNT
                   ";AccountKey=" XIO_AUTH_DEV_KEY ";BlobEndpoint=%s/" XIO_AUTH_DEV_ACCOUNT ";",
                   proto, endpoint);
  if (n < 0 || (size_t)n >= size) FAIL("the connection string does not fit in %zu bytes", size);
}

const char *test_dev_connection_string(void) {
  static char buf[1024];
  test_dev_connection_string_at(test_endpoint(), buf, sizeof buf);
  return buf;
}

/* A random tag drawn once per process (again after a fork): process ids are
 * reused within one run of the suites against one emulator, so the id alone
 * can meet a container an earlier process left behind. */
static unsigned process_tag(void) {
  static pid_t drawn_for;
  static unsigned tag;
  if (drawn_for != getpid()) {
    if (getrandom(&tag, sizeof tag, 0) != (ssize_t)sizeof tag) FAIL("getrandom failed");
    drawn_for = getpid();
  }
  return tag;
}

void test_unique_name(char *buf, size_t size, const char *prefix) {
  static unsigned counter;
  int n = snprintf(buf, size, "%s-%ld-%08x-%u", prefix, (long)getpid(), process_tag(), counter++);
  if (n < 0 || (size_t)n >= size) FAIL("the name does not fit in %zu bytes", size);
}

void test_fill_random(void *buf, size_t n, uint64_t seed) {
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  unsigned char *p = buf;
  for (size_t i = 0; i < n; i++) {
    if ((i & 7) == 0) { /* xorshift64* */
      x ^= x >> 12, x ^= x << 25, x ^= x >> 27;
    }
    p[i] = (unsigned char)((x * 0x2545F4914F6CDD1Dull) >> (8 * (i & 7)));
  }
}

int test_all_zero(const void *buf, size_t n) {
  const unsigned char *p = buf;
  for (size_t i = 0; i < n; i++)
    if (p[i]) return 0;
  return 1;
}
