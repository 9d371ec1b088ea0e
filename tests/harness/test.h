/*
 * test.h - the test harness: a registry of named tests and assertion macros that
 * print the file, the line and both values.
 *
 * A test file defines tests with TEST(name) { ... } and links with harness/main.c.
 * The binary runs every test with no argument, or one test by name:
 *   ./test_auth                 run all
 *   ./test_auth sas_vectors     run one (ctest registers each TEST as its own test)
 * A failed assertion prints and ends the process with status 1, so every ctest test
 * is one process and a crash in one cannot hide another's result.
 * SKIP("why") ends a test with status 77, which ctest reports as skipped, never passed.
 */
#ifndef XIO_TEST_H
#define XIO_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void (*test_fn)(void);

void test__register(const char *name, test_fn fn);
void test__fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));
void test__skip(const char *why) __attribute__((noreturn));

#define TEST(name)                                                                                 \
  static void test_##name(void);                                                                   \
  __attribute__((constructor)) static void test__reg_##name(void) {                                \
    test__register(#name, test_##name);                                                            \
  }                                                                                                \
  static void test_##name(void)

#define FAIL(...) test__fail(__FILE__, __LINE__, __VA_ARGS__)
#define SKIP(why) test__skip(why)

#define ASSERT(cond)                                                                               \
  do {                                                                                             \
    if (!(cond)) FAIL("assertion failed: %s", #cond);                                              \
  } while (0)

#define ASSERT_EQ(a, b)                                                                            \
  do {                                                                                             \
    long long a_ = (long long)(a), b_ = (long long)(b);                                            \
    if (a_ != b_) FAIL("%s == %s: %lld != %lld", #a, #b, a_, b_);                                  \
  } while (0)

#define ASSERT_NE(a, b)                                                                            \
  do {                                                                                             \
    long long a_ = (long long)(a), b_ = (long long)(b);                                            \
    if (a_ == b_) FAIL("%s != %s: both %lld", #a, #b, a_);                                         \
  } while (0)

#define ASSERT_U64_EQ(a, b)                                                                        \
  do {                                                                                             \
    uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);                                               \
    if (a_ != b_) FAIL("%s == %s: %" PRIu64 " != %" PRIu64, #a, #b, a_, b_);                       \
  } while (0)

#define ASSERT_STR_EQ(a, b)                                                                        \
  do {                                                                                             \
    const char *a_ = (a), *b_ = (b);                                                               \
    if (!a_ || !b_ || strcmp(a_, b_) != 0)                                                         \
      FAIL("%s == %s: \"%s\" != \"%s\"", #a, #b, a_ ? a_ : "(null)", b_ ? b_ : "(null)");          \
  } while (0)

#define ASSERT_CONTAINS(hay, needle)                                                               \
  do {                                                                                             \
    const char *h_ = (hay), *n_ = (needle);                                                        \
    if (!h_ || !strstr(h_, n_))                                                                    \
      FAIL("%s contains \"%s\": got \"%s\"", #hay, n_, h_ ? h_ : "(null)");                        \
  } while (0)

#define ASSERT_NOT_CONTAINS(hay, needle)                                                           \
  do {                                                                                             \
    const char *h_ = (hay), *n_ = (needle);                                                        \
    if (h_ && strstr(h_, n_)) FAIL("%s must not contain \"%s\": got \"%s\"", #hay, n_, h_);        \
  } while (0)

#define ASSERT_MEM_EQ(a, b, n)                                                                     \
  do {                                                                                             \
    const unsigned char *a_ = (const unsigned char *)(a);                                          \
    const unsigned char *b_ = (const unsigned char *)(b);                                          \
    size_t n_ = (size_t)(n);                                                                       \
    for (size_t i_ = 0; i_ < n_; i_++)                                                             \
      if (a_[i_] != b_[i_])                                                                        \
        FAIL("%s and %s differ at byte %zu of %zu: 0x%02x != 0x%02x", #a, #b, i_, n_, a_[i_],      \
             b_[i_]);                                                                              \
  } while (0)

/* Asserts that an xio call returned `want`, printing the detail record if not. */
#define ASSERT_ERR(call, want, errp)                                                               \
  do {                                                                                             \
    int got_ = (int)(call);                                                                        \
    if (got_ != (int)(want)) {                                                                     \
      char buf_[1600];                                                                             \
      FAIL("%s: returned %s, wanted %s; %s", #call, xio_err_name((xio_err)got_),                   \
           xio_err_name(want), xio_error_format((errp), buf_, sizeof buf_));                       \
    }                                                                                              \
  } while (0)

#define ASSERT_OK(call, errp) ASSERT_ERR(call, XIO_OK, errp)

#endif /* XIO_TEST_H */
