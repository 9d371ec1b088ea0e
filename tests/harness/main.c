/*
 * main.c - runs the tests registered with TEST(): all of them, or those named on
 * the command line. Exit status: 0 all passed, 1 a test failed, 77 a test skipped.
 */
#include <stdarg.h>

#include "test.h"

#define MAX_TESTS 512

static struct {
  const char *name;
  test_fn fn;
} tests[MAX_TESTS];
static int ntests;
static const char *current = "?";

void test__register(const char *name, test_fn fn) {
  if (ntests == MAX_TESTS) {
    fprintf(stderr, "too many tests (max %d)\n", MAX_TESTS);
    exit(1);
  }
  tests[ntests].name = name;
  tests[ntests].fn = fn;
  ntests++;
}

void test__fail(const char *file, int line, const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "FAIL %s (%s:%d): ", current, file, line);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  fflush(NULL);
  exit(1);
}

void test__skip(const char *why) {
  fprintf(stderr, "SKIP %s: %s\n", current, why);
  fflush(NULL);
  exit(77);
}

static int run(int i) {
  current = tests[i].name;
  tests[i].fn();
  printf("ok %s\n", tests[i].name);
  fflush(stdout);
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "--list") == 0) {
    for (int i = 0; i < ntests; i++)
      printf("%s\n", tests[i].name);
    return 0;
  }
  if (argc == 1) {
    for (int i = 0; i < ntests; i++)
      run(i);
    return 0;
  }
  for (int a = 1; a < argc; a++) {
    int found = 0;
    for (int i = 0; i < ntests; i++)
      if (strcmp(tests[i].name, argv[a]) == 0) found = 1, run(i);
    if (!found) {
      fprintf(stderr, "no test named %s\n", argv[a]);
      return 2;
    }
  }
  return 0;
}
