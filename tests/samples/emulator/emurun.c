/*
 * emurun.c - the emulator tests' helpers (see emurun.h): the harness's test_spawn
 * in a clean environment, state directories stopped at exit (and then removed with
 * the test's scratch), JSON access, and /proc for whether a pid still runs.
 */
#define _GNU_SOURCE
#include "emurun.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "child.h"
#include "scratch.h"
#include "test.h"

#if !defined(XIO_CLI_PATH) || !defined(XIO_NODE_MODULES) || !defined(XIO_EMU_CLIENT_JS)
#error "XIO_CLI_PATH, XIO_NODE_MODULES and XIO_EMU_CLIENT_JS must be defined"
#endif

#define MAX_DIRS 8

static char work[512];
static char dirs[MAX_DIRS][600];
static int ndirs;

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

void emurun_debug_azurite(const char *tag, char *env, size_t env_size, char *debug,
                          size_t debug_size) {
  char scratch[512], wrapper[600], script[2048];
  test_scratch_dir(scratch, sizeof scratch, tag);
  snprintf(wrapper, sizeof wrapper, "%s/azurite-debug", scratch);
  snprintf(debug, debug_size, "%s/debug.log", scratch);
  snprintf(script, sizeof script, "#!/bin/sh\nexec '%s/.bin/azurite-blob' \"$@\" --debug '%s'\n",
           XIO_NODE_MODULES, debug);
  FILE *f = fopen(wrapper, "w");
  ASSERT(f != NULL);
  ASSERT(fputs(script, f) >= 0);
  ASSERT(fclose(f) == 0);
  ASSERT(chmod(wrapper, 0700) == 0);
  snprintf(env, env_size, "XIO_AZURITE=%s", wrapper);
}

/* ------------------------------------------------------------ running ---- */

void emurun_free(emurun *r) {
  free(r->out);
  free(r->err);
  memset(r, 0, sizeof *r);
}

void emurun_v(emurun *r, const char *const *env_extra, const char *const *args) {
  static const char *const drop[] = {"AZURE_STORAGE_", "XIO_", NULL};
  char **env = test_env(drop, env_extra);
  emurun_free(r);
  r->status = test_spawn(args[0], args, env, &r->out, &r->err);
  free(env);
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
