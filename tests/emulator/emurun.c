/*
 * emurun.c - the emulator tests' helpers (see emurun.h): posix_spawn with stdout
 * and stderr sent to files, a clean environment, state directories stopped and
 * removed at exit, JSON access, and /proc for whether a pid still runs.
 */
#define _GNU_SOURCE
#include "emurun.h"

#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scratch.h"
#include "test.h"

#if !defined(XIO_CLI_PATH) || !defined(XIO_NODE_MODULES) || !defined(XIO_EMU_CLIENT_JS)
#error "XIO_CLI_PATH, XIO_NODE_MODULES and XIO_EMU_CLIENT_JS must be defined"
#endif

#define MAX_DIRS 8

static char work[512];
static char dirs[MAX_DIRS][600];
static int ndirs;
static unsigned runs;

/* ------------------------------------------------------------ places ---- */

/* At exit: stop whatever each state directory (or the default one below it, when
 * it served as XDG_RUNTIME_DIR) still runs; the scratch handler, registered
 * before this one, runs after it and removes them all. */
static void cleanup(void) {
  for (int i = 0; i < ndirs; i++) {
    char below[sizeof dirs + 16];
    emurun r = {0};
    snprintf(below, sizeof below, "%s/xio-emulator", dirs[i]);
    EMU_XIO(&r, "emulator", "stop", "--dir", dirs[i]);
    EMU_XIO(&r, "emulator", "stop", "--dir", below);
    emurun_free(&r);
  }
}

static const char *work_dir(void) {
  if (!work[0]) {
    test_scratch_dir(work, sizeof work, "xio-emutest");
    if (atexit(cleanup) != 0) FAIL("atexit failed");
  }
  return work;
}

const char *emurun_dir(void) {
  if (ndirs == MAX_DIRS) FAIL("too many state directories");
  snprintf(dirs[ndirs], sizeof dirs[ndirs], "%s/state%d", work_dir(), ndirs);
  return dirs[ndirs++];
}

/* ------------------------------------------------------------ running ---- */

static char *read_all(const char *path) {
  FILE *f = fopen(path, "rb");
  size_t cap = 4096, len = 0;
  char *buf = malloc(cap);
  if (!buf) FAIL("out of memory");
  while (f) {
    if (cap - len < 2048 && !(buf = realloc(buf, cap *= 2))) FAIL("out of memory");
    size_t n = fread(buf + len, 1, cap - len - 1, f);
    if (n == 0) break;
    len += n;
  }
  if (f) fclose(f);
  buf[len] = '\0';
  return buf;
}

static char **make_env(const char *const *extra) {
  size_t n = 0, k = 0, nextra = 0;
  while (environ[n])
    n++;
  while (extra && extra[nextra])
    nextra++;
  char **env = calloc(n + nextra + 1, sizeof *env);
  if (!env) FAIL("out of memory");
  for (size_t i = 0; i < n; i++)
    if (strncmp(environ[i], "AZURE_STORAGE_", 14) != 0 && strncmp(environ[i], "XIO_", 4) != 0)
      env[k++] = environ[i];
  for (size_t i = 0; i < nextra; i++)
    env[k++] = (char *)extra[i];
  env[k] = NULL;
  return env;
}

void emurun_free(emurun *r) {
  free(r->out);
  free(r->err);
  memset(r, 0, sizeof *r);
}

void emurun_v(emurun *r, const char *const *env_extra, const char *const *args) {
  char out[600], err[600];
  unsigned n = runs++;
  snprintf(out, sizeof out, "%s/run%u.out", work_dir(), n);
  snprintf(err, sizeof err, "%s/run%u.err", work_dir(), n);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&fa, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  char **env = make_env(env_extra);
  pid_t pid;
  int rc = posix_spawn(&pid, args[0], &fa, NULL, (char *const *)args, env);
  posix_spawn_file_actions_destroy(&fa);
  free(env);
  if (rc != 0) FAIL("cannot start %s: %s", args[0], strerror(rc));
  int status;
  while (waitpid(pid, &status, 0) < 0)
    ;
  emurun_free(r);
  r->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r->out = read_all(out);
  r->err = read_all(err);
  remove(out);
  remove(err);
}

/* ------------------------------------------------------------- JSON ---- */

cJSON *emurun_json(const emurun *r) {
  cJSON *j = cJSON_Parse(r->out);
  if (!j) FAIL("stdout is not JSON:\n%s\n--- stderr:\n%s", r->out, r->err);
  return j;
}

const cJSON *emurun_get(const cJSON *o, const char *a, const char *b) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, a);
  if (v && b) v = cJSON_GetObjectItemCaseSensitive(v, b);
  if (!v) FAIL("no \"%s%s%s\" in the JSON", a, b ? "." : "", b ? b : "");
  return v;
}

double emurun_num(const cJSON *o, const char *a, const char *b) {
  const cJSON *v = emurun_get(o, a, b);
  if (!cJSON_IsNumber(v)) FAIL("\"%s%s%s\" is no number", a, b ? "." : "", b ? b : "");
  return v->valuedouble;
}

const char *emurun_str(const cJSON *o, const char *a, const char *b) {
  const cJSON *v = emurun_get(o, a, b);
  if (!cJSON_IsString(v)) FAIL("\"%s%s%s\" is no string", a, b ? "." : "", b ? b : "");
  return v->valuestring;
}

int emurun_bool(const cJSON *o, const char *a, const char *b) {
  const cJSON *v = emurun_get(o, a, b);
  if (!cJSON_IsBool(v)) FAIL("\"%s%s%s\" is no boolean", a, b ? "." : "", b ? b : "");
  return cJSON_IsTrue(v);
}

/* ------------------------------------------------------------ others ---- */

int emurun_pid_runs(long pid) {
  char path[64], buf[512];
  snprintf(path, sizeof path, "/proc/%ld/stat", pid);
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  const char *p = strrchr(buf, ')');
  return p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
}

cJSON *emurun_js_client(const char *connection_string, int pages) {
  char cs[1024], np[1024], npages[16];
  snprintf(cs, sizeof cs, "AZURE_STORAGE_CONNECTION_STRING=%s", connection_string);
  snprintf(np, sizeof np, "NODE_PATH=%s", XIO_NODE_MODULES);
  snprintf(npages, sizeof npages, "%d", pages);
  emurun r = {0};
  emurun_v(&r, (const char *const[]){cs, np, NULL},
           (const char *const[]){"/usr/bin/env", "node", XIO_EMU_CLIENT_JS, npages, NULL});
  if (r.status == 127 || strstr(r.err, "Cannot find module"))
    FAIL("node or the JavaScript SDK is missing (run scripts/install-deps.sh):\n%s", r.err);
  cJSON *j = emurun_json(&r);
  if (r.status != 0 || !emurun_bool(j, "ok", NULL))
    FAIL("the JavaScript client failed (exit %d):\n%s\n%s", r.status, r.out, r.err);
  emurun_free(&r);
  return j;
}
