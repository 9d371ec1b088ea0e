/*
 * child.c - running a program from a test (see child.h).
 */
#define _GNU_SOURCE /* mkostemp, environ */
#include "child.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scratch.h"
#include "test.h"

static int dropped(const char *kv, const char *const *drop) {
  for (size_t i = 0; drop && drop[i]; i++)
    if (strncmp(kv, drop[i], strlen(drop[i])) == 0) return 1;
  return 0;
}

char **test_env(const char *const *drop, const char *const *extra) {
  size_t n = 0, k = 0, nextra = 0;
  while (environ[n])
    n++;
  while (extra && extra[nextra])
    nextra++;
  char **env = calloc(n + nextra + 1, sizeof *env);
  if (!env) FAIL("out of memory");
  for (size_t i = 0; i < n; i++)
    if (!dropped(environ[i], drop)) env[k++] = environ[i];
  for (size_t i = 0; i < nextra; i++)
    env[k++] = (char *)extra[i];
  env[k] = NULL;
  return env;
}

/* Reads from `f` to its end into a malloc'd, NUL-terminated string. */
static char *read_stream(FILE *f) {
  size_t cap = 4096, len = 0;
  char *buf = malloc(cap);
  if (!buf) FAIL("out of memory");
  while (f) {
    if (cap - len < 2048 && !(buf = realloc(buf, cap *= 2))) FAIL("out of memory");
    size_t n = fread(buf + len, 1, cap - len - 1, f);
    if (n == 0) break;
    len += n;
  }
  buf[len] = '\0';
  return buf;
}

char *test_read_file(const char *path) {
  FILE *f = fopen(path, "rb");
  char *text = read_stream(f);
  if (f) fclose(f);
  return text;
}

/* An unlinked file under $TMPDIR, open for reading and writing. */
static int anonymous_file(void) {
  char path[512];
  int n = snprintf(path, sizeof path, "%s/xio-spawn-XXXXXX", test_tmpdir());
  if (n < 0 || (size_t)n >= sizeof path) FAIL("TMPDIR is too long");
  int fd = mkostemp(path, O_CLOEXEC);
  if (fd < 0) FAIL("cannot make a file %s: %s", path, strerror(errno));
  unlink(path);
  return fd;
}

/* What the child wrote to `fd`, from its start; closes `fd`. */
static char *take_output(int fd) {
  FILE *f = fdopen(fd, "rb");
  if (!f) FAIL("fdopen: %s", strerror(errno));
  rewind(f);
  char *text = read_stream(f);
  fclose(f);
  return text;
}

int test_spawn(const char *path, const char *const *argv, char *const *env, char **out,
               char **err) {
  int fo = anonymous_file(), fe = anonymous_file();
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, fo, 1);
  posix_spawn_file_actions_adddup2(&fa, fe, 2);
  pid_t pid;
  int rc = posix_spawn(&pid, path, &fa, NULL, (char *const *)argv, env);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) FAIL("cannot start %s: %s", path, strerror(rc));
  int status;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) FAIL("waitpid: %s", strerror(errno));
  *out = take_output(fo);
  *err = take_output(fe);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
