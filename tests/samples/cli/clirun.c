/*
 * clirun.c - running the xio program from the tests (see clirun.h): the harness's
 * test_spawn in a clean environment with the emulator's dev account, a trace file
 * per run, and the secret checks every run goes through; runs in the background
 * that a test acts on while they go; making and comparing the local files the
 * transfers move.
 */
#define _GNU_SOURCE
#include "clirun.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <xio/auth.h>

#include "child.h"
#include "scratch.h"
#include "test.h"
#include "util.h"

#ifndef XIO_CLI_PATH
#error "XIO_CLI_PATH must name the xio program"
#endif

#define MAX_FORBIDDEN 32
#define MAX_ARGS      64

static char dir[512];
static char *forbidden[MAX_FORBIDDEN];
static int nforbidden;
static unsigned run_counter;

/* ------------------------------------------------------------ places ---- */

const char *clirun_dir(void) {
  if (!dir[0]) test_scratch_dir(dir, sizeof dir, "xio-cli");
  return dir;
}

void clirun_path(const char *name, char *out, size_t size) {
  int n = snprintf(out, size, "%s/%s", clirun_dir(), name);
  if (n < 0 || (size_t)n >= size) FAIL("%s/%s does not fit in %zu bytes", clirun_dir(), name, size);
}

void clirun_container(char *out, size_t size) { test_unique_name(out, size, "cli"); }

void clirun_url(const char *container, const char *blob, char *out, size_t size) {
  if (blob)
    snprintf(out, size, "%s/%s/%s", test_account_url(), container, blob);
  else
    snprintf(out, size, "%s/%s", test_account_url(), container);
}

void clirun_forbid(const char *secret) {
  if (nforbidden == MAX_FORBIDDEN) FAIL("too many forbidden secrets");
  forbidden[nforbidden++] = strdup(secret);
}

/* ------------------------------------------------------------ files ---- */

void clirun_write_file(const char *path, const void *data, size_t n) {
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(data, 1, n, f) != n || fclose(f) != 0) FAIL("cannot write %s", path);
}

void clirun_write_private_file(const char *path, const void *data, size_t n) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  FILE *f = fd >= 0 && fchmod(fd, 0600) == 0 ? fdopen(fd, "wb") : NULL;
  if (!f && fd >= 0) close(fd);
  if (!f || fwrite(data, 1, n, f) != n || fclose(f) != 0) FAIL("cannot write %s", path);
}

/* ------------------------------------------------------- environment ---- */

/* The child's environment: ours without credentials or xio settings, then the dev
 * connection string, then the extras. The array is malloc'd; its strings are not
 * (but for the connection string entry, which *owned gets). */
static char **make_env(unsigned flags, const char *const *extra, char **owned) {
  static const char *const drop[] = {"AZURE_STORAGE_",
                                     "XIO_TRACE=",
                                     "XIO_CREDENTIALS=",
                                     "XIO_CA_BUNDLE=",
                                     "XIO_DEMO_ENDPOINT=",
                                     "XIO_TEST_BLOB_ENDPOINT=",
                                     NULL};
  const char *all[MAX_ARGS + 2];
  size_t k = 0;
  *owned = NULL;
  if (!(flags & CLIRUN_NO_CREDS)) {
    const char *cs = test_dev_connection_string();
    size_t len = strlen(cs) + 40;
    if (!(*owned = malloc(len))) FAIL("out of memory");
    snprintf(*owned, len, "AZURE_STORAGE_CONNECTION_STRING=%s", cs);
    all[k++] = *owned;
  }
  for (size_t i = 0; extra && extra[i]; i++) {
    if (k == MAX_ARGS) FAIL("too many environment entries");
    all[k++] = extra[i];
  }
  all[k] = NULL;
  return test_env(drop, all);
}

/* ---------------------------------------------------------- running ---- */

static int has_trace_option(const char *const *args) {
  for (size_t i = 0; args[i]; i++)
    if (strncmp(args[i], "--trace", 7) == 0) return 1;
  return 0;
}

/* The account key never appears; SAS signatures (any "sig=", and the registered
 * secrets) only where `sas_allowed`. */
static void check_text(const char *text, const char *where, int sas_allowed) {
  if (strstr(text, XIO_AUTH_DEV_KEY) || strstr(text, "Eby8vdM02xNOcqFlqUwJ"))
    FAIL("the account key appears in %s:\n%s", where, text);
  if (sas_allowed) return;
  if (strstr(text, "sig=")) FAIL("a SAS signature appears in %s:\n%s", where, text);
  for (int i = 0; i < nforbidden; i++)
    if (strstr(text, forbidden[i]))
      FAIL("secret \"%s\" appears in %s:\n%s", forbidden[i], where, text);
}

static void check_secrets(const clirun *r, unsigned flags) {
  check_text(r->err, "stderr", 0);
  check_text(r->trace, "the trace", 0);
  check_text(r->out, "stdout", (flags & CLIRUN_SECRET_STDOUT) != 0);
}

void clirun_free(clirun *r) {
  free(r->out);
  free(r->err);
  free(r->trace);
  memset(r, 0, sizeof *r);
}

/* The arguments of a run: "xio", "--trace TRACE" unless `args` name a trace, then
 * `args`. */
static void make_argv(const char *const *args, const char *trace, const char **argv) {
  size_t k = 0;
  argv[k++] = "xio";
  if (!has_trace_option(args)) {
    argv[k++] = "--trace";
    argv[k++] = trace;
  }
  for (size_t i = 0; args[i]; i++) {
    if (k == MAX_ARGS) FAIL("too many arguments");
    argv[k++] = args[i];
  }
  argv[k] = NULL;
}

void clirun_v(clirun *r, unsigned flags, const char *const *env_extra, const char *const *args) {
  char trace[600];
  snprintf(trace, sizeof trace, "%s/run%u.trace", clirun_dir(), run_counter++);
  const char *argv[MAX_ARGS + 4];
  make_argv(args, trace, argv);
  char *owned;
  char **env = make_env(flags, env_extra, &owned);
  clirun_free(r);
  r->status = test_spawn(XIO_CLI_PATH, argv, env, &r->out, &r->err);
  free(env);
  free(owned);
  r->trace = test_read_file(trace);
  remove(trace);
  check_secrets(r, flags);
}

/* ------------------------------------------------------ background ---- */

static pid_t running_bg; /* a background run not yet finished, killed at exit */

static void kill_running_bg(void) {
  if (running_bg > 0) {
    kill(running_bg, SIGKILL);
    waitpid(running_bg, NULL, 0);
  }
}

/* In the child: stdin, stdout and stderr, then xio. */
static void exec_bg(const clirun_bg *b, int in, const char *const *argv, char **env) {
  int out = open(b->out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  int err = open(b->err, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (in < 0 || out < 0 || err < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
    _exit(126);
  execve(XIO_CLI_PATH, (char *const *)argv, env);
  _exit(127);
}

void clirun_start_v(clirun_bg *b, unsigned flags, const char *const *env_extra,
                    const char *const *args) {
  static int registered;
  if (running_bg > 0) FAIL("one background run at a time");
  if (!registered++) atexit(kill_running_bg);
  unsigned n = run_counter++;
  memset(b, 0, sizeof *b);
  b->flags = flags;
  char name[32];
  snprintf(name, sizeof name, "bg%u.out", n);
  clirun_path(name, b->out, sizeof b->out);
  snprintf(name, sizeof name, "bg%u.err", n);
  clirun_path(name, b->err, sizeof b->err);
  snprintf(name, sizeof name, "bg%u.trace", n);
  clirun_path(name, b->trace, sizeof b->trace);
  const char *argv[MAX_ARGS + 4];
  make_argv(args, b->trace, argv);
  char *owned;
  char **env = make_env(flags, env_extra, &owned);
  int pipefd[2] = {-1, -1};
  if ((flags & CLIRUN_STDIN_PIPE) && pipe2(pipefd, O_CLOEXEC) != 0) FAIL("pipe failed");
  int in = (flags & CLIRUN_STDIN_PIPE) ? pipefd[0] : open("/dev/null", O_RDONLY | O_CLOEXEC);
  fflush(NULL);
  pid_t pid = fork();
  if (pid < 0) FAIL("fork failed");
  if (pid == 0) exec_bg(b, in, argv, env);
  close(in);
  free(env);
  free(owned);
  b->pid = running_bg = pid;
  b->in = pipefd[1];
}

int clirun_ended(const clirun_bg *b) {
  siginfo_t si;
  memset(&si, 0, sizeof si);
  return waitid(P_PID, (id_t)b->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == b->pid;
}

void clirun_finish(clirun_bg *b, clirun *r, int max_s) {
  struct timespec tick = {0, 10 * 1000 * 1000};
  for (long waited = 0; !clirun_ended(b); waited++) {
    if (waited == (long)max_s * 100) {
      kill(b->pid, SIGKILL);
      waitpid(b->pid, NULL, 0);
      running_bg = 0;
      FAIL("xio still ran after %d s: stuck (its stderr: %s)", max_s, test_read_file(b->err));
    }
    nanosleep(&tick, NULL);
  }
  int status = 0;
  if (waitpid(b->pid, &status, 0) != b->pid) FAIL("waitpid failed");
  running_bg = 0;
  if (b->in >= 0) close(b->in);
  b->in = -1;
  clirun_free(r);
  r->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r->out = test_read_file(b->out);
  r->err = test_read_file(b->err);
  r->trace = test_read_file(b->trace);
  remove(b->out);
  remove(b->err);
  remove(b->trace);
  check_secrets(r, b->flags);
}

void clirun_cmdline(const clirun_bg *b, char *out, size_t size) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/cmdline", b->pid);
  int fd = open(path, O_RDONLY);
  if (fd < 0) FAIL("cannot open %s", path);
  ssize_t n = read(fd, out, size - 1);
  close(fd);
  if (n < 0) FAIL("cannot read %s", path);
  for (ssize_t i = 0; i < n; i++)
    if (out[i] == '\0') out[i] = ' ';
  out[n] = '\0';
}

/* ------------------------------------------------------------- JSON ---- */

cJSON *clirun_json(const clirun *r) {
  cJSON *j = cJSON_Parse(r->out);
  if (!j) FAIL("stdout is not JSON:\n%s", r->out);
  return j;
}

double clirun_num(const cJSON *o, const char *name) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
  if (!cJSON_IsNumber(v)) FAIL("no number \"%s\" in the JSON", name);
  return v->valuedouble;
}

int clirun_snapshot_count(const char *url) {
  clirun r = {0};
  XIO(&r, "--json", "snapshot", "list", url);
  EXPECT_EXIT(&r, 0);
  cJSON *j = clirun_json(&r);
  int n = cJSON_GetArraySize(cJSON_GetObjectItem(j, "snapshots"));
  cJSON_Delete(j);
  clirun_free(&r);
  return n;
}

const char *clirun_str(const cJSON *o, const char *name) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
  if (!cJSON_IsString(v)) FAIL("no string \"%s\" in the JSON", name);
  return v->valuestring;
}

/* Calls fn for each storage request in the trace: its xio_send_complete event (one
 * JSON object a line; the other events, such as a refused try's xio_failed_request,
 * are left out). */
static void each_event(const clirun *r, void (*fn)(const cJSON *ev, void *ud), void *ud) {
  const char *p = r->trace;
  while (*p) {
    size_t n = strcspn(p, "\n");
    cJSON *ev = cJSON_ParseWithLength(p, n);
    if (!ev) FAIL("a trace line is not JSON: %.*s", (int)n, p);
    if (strcmp(clirun_str(ev, "event"), "xio_send_complete") == 0) fn(ev, ud);
    cJSON_Delete(ev);
    p += n;
    if (*p) p++;
  }
}

typedef struct sum_state {
  const char *type;
  uint64_t sum;
  int count;
} sum_state;

static void add_if_type(const cJSON *ev, void *ud) {
  sum_state *s = ud;
  if (strcmp(clirun_str(ev, "request_type"), s->type) != 0) return;
  s->sum += (uint64_t)clirun_num(ev, "length");
  s->count++;
}

uint64_t clirun_trace_sum(const clirun *r, const char *type, int *count) {
  sum_state s = {type, 0, 0};
  each_event(r, add_if_type, &s);
  if (count) *count = s.count;
  return s.sum;
}

typedef struct others_state {
  const char *const *types;
  int n;
} others_state;

static void count_other(const cJSON *ev, void *ud) {
  others_state *s = ud;
  const char *t = clirun_str(ev, "request_type");
  for (size_t i = 0; s->types[i]; i++)
    if (strcmp(t, s->types[i]) == 0) return;
  s->n++;
}

int clirun_trace_others(const clirun *r, const char *const *types) {
  others_state s = {types, 0};
  each_event(r, count_other, &s);
  return s.n;
}

typedef struct on_state {
  const char *type, *path;
  int n;
} on_state;

static void count_on(const cJSON *ev, void *ud) {
  on_state *s = ud;
  s->n += strcmp(clirun_str(ev, "request_type"), s->type) == 0 &&
          strcmp(clirun_str(ev, "file_path"), s->path) == 0;
}

int clirun_trace_on(const clirun *r, const char *type, const char *path) {
  on_state s = {type, path, 0};
  each_event(r, count_on, &s);
  return s.n;
}

int clirun_trace_events(const clirun *r, const char *event) {
  char key[96];
  snprintf(key, sizeof key, "{\"event\":\"%s\"", event);
  int n = 0;
  for (const char *p = r->trace; (p = strstr(p, key)); p++)
    n += p == r->trace || p[-1] == '\n';
  return n;
}

/* ------------------------------------------------------- local files ---- */

#define PIECE ((size_t)4 << 20)

void clirun_make_source(const char *path, size_t size, uint64_t seed) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT(fd >= 0);
  char *b = malloc(PIECE);
  ASSERT(b != NULL);
  for (size_t off = 0; off < size; off += PIECE) {
    test_fill_random(b, PIECE, off + seed);
    ASSERT_EQ(pwrite(fd, b, PIECE, (off_t)off), (ssize_t)PIECE);
  }
  free(b);
  close(fd);
}

void clirun_expect_same_files(const char *a, const char *b) {
  int fa = open(a, O_RDONLY), fb = open(b, O_RDONLY);
  ASSERT(fa >= 0 && fb >= 0);
  struct stat sa, sb;
  ASSERT(fstat(fa, &sa) == 0 && fstat(fb, &sb) == 0);
  ASSERT_EQ(sa.st_size, sb.st_size);
  char *x = malloc(PIECE), *y = malloc(PIECE);
  ASSERT(x && y);
  for (off_t off = 0; off < sa.st_size;) {
    ssize_t n = pread(fa, x, PIECE, off), m = pread(fb, y, PIECE, off);
    ASSERT(n > 0);
    ASSERT_EQ(n, m);
    if (memcmp(x, y, (size_t)n) != 0)
      FAIL("%s and %s differ in [%lld, +%zd)", a, b, (long long)off, n);
    off += n;
  }
  free(x);
  free(y);
  close(fa);
  close(fb);
}
