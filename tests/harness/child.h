/*
 * child.h - running a program from a test: posix_spawn with stdin from /dev/null
 * and stdout and stderr captured whole (through unlinked files under $TMPDIR, so
 * nothing is left behind), in an environment made from the test's own with some
 * variables dropped and others added.
 */
#ifndef XIO_TEST_CHILD_H
#define XIO_TEST_CHILD_H

/** The test's environment without the entries that start with one of `drop`
 *  ("NAME=" or a prefix such as "XIO_"; NULL-terminated, or NULL), then the
 *  `extra` entries ("NAME=value", NULL-terminated, or NULL). The array is
 *  malloc'd (free it); its strings are borrowed. Fails the test when out of memory. */
char **test_env(const char *const *drop, const char *const *extra);

/** Runs the program at `path` with `argv` (NULL-terminated) and `env`, and waits
 *  for it. *out and *err get its stdout and stderr, malloc'd and NUL-terminated
 *  (free them). Returns its exit status, or 128 + N when signal N ended it. Fails
 *  the test when it cannot be started. */
int test_spawn(const char *path, const char *const *argv, char *const *env, char **out, char **err);

/** The whole file at `path`, malloc'd and NUL-terminated; "" when it cannot be
 *  read. Fails the test when out of memory. */
char *test_read_file(const char *path);

#endif
