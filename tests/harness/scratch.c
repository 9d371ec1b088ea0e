/*
 * scratch.c - the scratch files and directories of a test (see scratch.h): a table
 * of the paths this process made, emptied by an atexit handler. A forked child
 * that exits runs the handler too; it removes only what its own pid made.
 */
#define _GNU_SOURCE /* nftw, mkostemp */
#include "scratch.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"

#define MAX_SCRATCH 64

static struct {
  char path[512];
  pid_t owner;
} made[MAX_SCRATCH];

const char *test_tmpdir(void) {
  const char *t = getenv("TMPDIR");
  return t && *t ? t : "/tmp";
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)sb, (void)flag, (void)ftw;
  return remove(path) == 0 || errno == ENOENT ? 0 : -1;
}

/* Removes `path` and what is below it; 0, or -1 with errno. */
static int remove_quiet(const char *path) {
  if (nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS) == 0) return 0;
  return errno == ENOENT ? 0 : -1;
}

static void remove_all(void) {
  const char *keep = getenv("XIO_TEST_KEEP_SCRATCH");
  for (int i = 0; i < MAX_SCRATCH; i++) {
    if (!made[i].path[0] || made[i].owner != getpid()) continue;
    if (keep && *keep && strcmp(keep, "0") != 0) {
      if (access(made[i].path, F_OK) == 0)
        fprintf(stderr, "kept %s (XIO_TEST_KEEP_SCRATCH)\n", made[i].path);
    } else if (remove_quiet(made[i].path) != 0) {
      fprintf(stderr, "cannot remove %s: %s\n", made[i].path, strerror(errno));
    }
    made[i].path[0] = '\0';
  }
}

/* Writes "<parent>/<prefix>-XXXXXX" into `out` and finds a free slot for it. */
static int reserve(const char *parent, char *out, size_t size, const char *prefix) {
  static int registered;
  if (!registered) {
    if (atexit(remove_all) != 0) FAIL("atexit failed");
    registered = 1;
  }
  int n = snprintf(out, size, "%s/%s-XXXXXX", parent, prefix);
  if (n < 0 || (size_t)n >= size || (size_t)n >= sizeof made[0].path)
    FAIL("the scratch path %s/%s-XXXXXX is too long", parent, prefix);
  for (int i = 0; i < MAX_SCRATCH; i++)
    if (!made[i].path[0]) return i;
  FAIL("more than %d scratch paths at once", MAX_SCRATCH);
}

static void take(int slot, const char *path) {
  snprintf(made[slot].path, sizeof made[slot].path, "%s", path);
  made[slot].owner = getpid();
}

void test_scratch_dir_at(const char *parent, char *out, size_t size, const char *prefix) {
  int slot = reserve(parent ? parent : test_tmpdir(), out, size, prefix);
  if (!mkdtemp(out)) FAIL("cannot make a directory %s: %s", out, strerror(errno));
  take(slot, out);
}

void test_scratch_dir(char *out, size_t size, const char *prefix) {
  test_scratch_dir_at(NULL, out, size, prefix);
}

void test_scratch_file(char *out, size_t size, const char *prefix) {
  int slot = reserve(test_tmpdir(), out, size, prefix);
  int fd = mkostemp(out, O_CLOEXEC);
  if (fd < 0) FAIL("cannot make a file %s: %s", out, strerror(errno));
  close(fd);
  take(slot, out);
}

void test_remove_tree(const char *path) {
  for (int i = 0; i < MAX_SCRATCH; i++)
    if (made[i].path[0] && strcmp(made[i].path, path) == 0) made[i].path[0] = '\0';
  if (remove_quiet(path) != 0) FAIL("cannot remove %s: %s", path, strerror(errno));
}
