/*
 * scratch.h - the scratch files and directories of a test: made under $TMPDIR
 * (default /tmp) and removed when the process that made them exits, also when a
 * test fails (FAIL ends the process through exit). ctest gives every suite a
 * TMPDIR of its own and checks after the run that each is empty, so a test that
 * leaves something behind fails that check. XIO_TEST_KEEP_SCRATCH=1 in the
 * environment keeps them, for a look after a failure: their paths go to stderr.
 */
#ifndef XIO_TEST_SCRATCH_H
#define XIO_TEST_SCRATCH_H

#include <stddef.h>

/** The directory for temporary files: $TMPDIR when set and not empty, else "/tmp". */
const char *test_tmpdir(void);

/** Makes a fresh directory "<tmpdir>/<prefix>-XXXXXX" and writes its path into
 *  `out`; it and everything below it are removed when this process exits. Fails
 *  the test when the path does not fit or the directory cannot be made. */
void test_scratch_dir(char *out, size_t size, const char *prefix);

/** The same in `parent` instead of the temporary directory (NULL: that one), for a
 *  test that needs a particular file system. */
void test_scratch_dir_at(const char *parent, char *out, size_t size, const char *prefix);

/** The same for an empty file "<tmpdir>/<prefix>-XXXXXX" (made, closed, and
 *  removed when this process exits). */
void test_scratch_file(char *out, size_t size, const char *prefix);

/** Removes `path` and, for a directory, everything below it, now; a path made by
 *  test_scratch_dir/test_scratch_file is then no longer removed at exit. A path
 *  that does not exist is no error; one that cannot be removed fails the test. */
void test_remove_tree(const char *path);

#endif
