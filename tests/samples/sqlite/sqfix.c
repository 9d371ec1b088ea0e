/*
 * sqfix.c - fixtures of the SQLite VFS tests (see sqfix.h).
 */
#define _GNU_SOURCE
#include "sqfix.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "scratch.h"
#include "test.h"
#include "util.h"
#include "xio_sqlite.h"

static char last_log[1024];
static char lease_log[1024]; /* the last "xio: lease lost" message */
static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;

/* Any thread: the VFS logs lease news from the file layer's threads. The VFS's
 * continued pieces ("xio: ... ") are joined to the message they continue, and no
 * piece is longer than SQLite's log buffer. */
static void on_log(void *ud, int code, const char *msg) {
  (void)ud, (void)code;
  if (strncmp(msg, "xio: ", 5) == 0 && strlen(msg) > 200)
    FAIL("a log message longer than SQLite keeps: %s", msg);
  pthread_mutex_lock(&log_mu);
  if (strncmp(msg, "xio: ... ", 9) == 0) {
    size_t n = strlen(last_log);
    snprintf(last_log + n, sizeof last_log - n, " %s", msg + 9);
    if (strncmp(last_log, "xio: lease lost", 15) == 0)
      snprintf(lease_log, sizeof lease_log, "%s", last_log);
    pthread_mutex_unlock(&log_mu);
    return;
  }
  snprintf(last_log, sizeof last_log, "%s", msg);
  if (strncmp(msg, "xio: lease lost", 15) == 0) snprintf(lease_log, sizeof lease_log, "%s", msg);
  pthread_mutex_unlock(&log_mu);
}

const char *sqfix_last_log(void) { return last_log; }

void sqfix_lease_log(char *out, size_t size) {
  pthread_mutex_lock(&log_mu);
  snprintf(out, size, "%s", lease_log);
  lease_log[0] = '\0';
  pthread_mutex_unlock(&log_mu);
}

void sqfix_setup(sqfix *fx) {
  memset(fx, 0, sizeof *fx);
  sqlite3_config(SQLITE_CONFIG_LOG, on_log, NULL); /* before SQLite initializes */
  setenv("AZURE_STORAGE_CONNECTION_STRING", test_dev_connection_string(), 1);
  unsetenv("XIO_SQLITE_TAKEOVER");
  test_scratch_file(fx->trace, sizeof fx->trace, "xio-sqlite-trace");
  setenv("XIO_TRACE", fx->trace, 1);
  char name[64];
  test_unique_name(name, sizeof name, "sqlite");
  snprintf(fx->container, sizeof fx->container, "%s/%s", test_account_url(), name);
  ASSERT_EQ(xio_sqlite_register(1), SQLITE_OK);
}

void sqfix_url(const sqfix *fx, const char *name, char *out, size_t size) {
  snprintf(out, size, "%s/%s", fx->container, name);
}

/* Counts the trace lines from line `from` on that match. */
static long lines(const sqfix *fx, long from, const char *type, const char *suffix,
                  long long offset) {
  FILE *f = fopen(fx->trace, "r");
  if (!f) return 0;
  char line[4096], want_type[96], want_path[600], want_off[48];
  snprintf(want_off, sizeof want_off, "\"offset\":%lld,", offset);
  snprintf(want_type, sizeof want_type, "\"request_type\":\"%s\"", type ? type : "");
  snprintf(want_path, sizeof want_path, "%s\",", suffix ? suffix : "");
  long n = 0, counted = 0;
  while (fgets(line, sizeof line, f)) {
    if (n++ < from) continue;
    if (type && !strstr(line, want_type)) continue;
    if (offset >= 0 && !strstr(line, want_off)) continue;
    if (suffix) {
      char *p = strstr(line, "\"file_path\":\"");
      char *q = p ? strstr(p + 13, "\",") : NULL;
      size_t k = strlen(suffix);
      if (!q || (size_t)(q - (p + 13)) < k || memcmp(q - k, suffix, k) != 0) continue;
    }
    counted++;
  }
  fclose(f);
  return counted;
}

void sqfix_mark(sqfix *fx) { fx->mark = lines(fx, 0, NULL, NULL, -1); }

long sqfix_count(const sqfix *fx, const char *type, const char *suffix) {
  return lines(fx, fx->mark, type, suffix, -1);
}

long sqfix_count_at(const sqfix *fx, const char *type, const char *suffix, long long offset) {
  return lines(fx, fx->mark, type, suffix, offset);
}

void sqfix_exec(sqlite3 *db, const char *sql) {
  char *msg = NULL;
  int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
  if (rc != SQLITE_OK) FAIL("%s: rc=%d %s | %s", sql, rc, msg ? msg : "", xio_sqlite_last_error());
}

long long sqfix_int(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st = NULL;
  int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
  if (rc != SQLITE_OK) FAIL("%s: %s | %s", sql, sqlite3_errmsg(db), xio_sqlite_last_error());
  rc = sqlite3_step(st);
  if (rc != SQLITE_ROW)
    FAIL("%s: rc=%d %s | %s", sql, rc, sqlite3_errmsg(db), xio_sqlite_last_error());
  long long v = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  return v;
}

sqlite3 *sqfix_open(const char *url) {
  sqlite3 *db = NULL;
  int rc = sqlite3_open_v2(url, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
  if (rc != SQLITE_OK) FAIL("open %s: rc=%d %s", url, rc, xio_sqlite_last_error());
  return db;
}

pid_t sqfix_spawn(const char *const *args, int *out, int *in) {
  int po[2], pi[2];
  ASSERT(pipe(po) == 0 && pipe(pi) == 0);
  pid_t pid = fork();
  ASSERT(pid >= 0);
  if (pid == 0) {
    dup2(po[1], 1);
    dup2(pi[0], 0);
    close(po[0]), close(po[1]), close(pi[0]), close(pi[1]);
    const char *argv[16] = {SQLITE_WORKER};
    for (int i = 0; args[i] && i < 14; i++)
      argv[i + 1] = args[i];
    execv(SQLITE_WORKER, (char *const *)argv);
    _exit(127);
  }
  close(po[1]);
  close(pi[0]);
  *out = po[0];
  if (in)
    *in = pi[1];
  else
    close(pi[1]);
  return pid;
}

static size_t read_all(int fd, char *buf, size_t size) {
  size_t n = 0;
  ssize_t r;
  while (n + 1 < size && (r = read(fd, buf + n, size - 1 - n)) > 0)
    n += (size_t)r;
  buf[n] = '\0';
  return n;
}

int sqfix_run(const char *const *args, char *buf, size_t size) {
  int out;
  pid_t pid = sqfix_spawn(args, &out, NULL);
  read_all(out, buf, size);
  close(out);
  int st;
  ASSERT(waitpid(pid, &st, 0) == pid);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int sqfix_shell(const char *cmd, char *buf, size_t size) {
  FILE *p = popen(cmd, "r");
  ASSERT(p != NULL);
  size_t n = fread(buf, 1, size - 1, p);
  buf[n] = '\0';
  int st = pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int sqfix_wait(pid_t pid, int seconds, const char *what) {
  struct timespec start, now, pause = {0, 50 * 1000 * 1000};
  clock_gettime(CLOCK_MONOTONIC, &start);
  int st;
  for (;;) {
    pid_t r = waitpid(pid, &st, WNOHANG);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) FAIL("waitpid %d: %s", (int)pid, strerror(errno));
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (now.tv_sec - start.tv_sec >= seconds) {
      if (getpgid(pid) == pid) kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      waitpid(pid, &st, 0);
      FAIL("%s: still running after %d s, killed", what, seconds);
    }
    nanosleep(&pause, NULL);
  }
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}
