/*
 * proc.c - the emulator's background processes: starting a program detached from
 * the caller (its own session, its output in a log), telling whether it still runs
 * (pid and start time from /proc, zombies count as gone), ending it with its process
 * group, waiting for one, finding the programs to run (the emulator's starter,
 * azurite.sh, and the fault proxy), and asking an endpoint whether it answers HTTP.
 * Everything here talks to 127.0.0.1 only.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <xio/alloc.h>
#include <xio/base.h>

#include "emulator_int.h"

int64_t emu_now_ms(void) { return xio_auth_monotonic_us() / 1000; }

void emu_sleep_ms(int ms) {
  struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
    ;
}

/* ------------------------------------------------------------ /proc ---- */

/* The state letter and start time of `pid` from /proc/PID/stat. 0, or -1 when there
 * is no such process. */
static int proc_stat(long pid, char *state, unsigned long long *start) {
  char path[64], buf[1024];
  snprintf(path, sizeof path, "/proc/%ld/stat", pid);
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  /* "PID (COMM) S ppid ... field 22 starttime": COMM may hold spaces and ')'. */
  char *p = strrchr(buf, ')');
  if (!p || p[1] != ' ') return -1;
  *state = p[2];
  p += 3;
  for (int field = 4; field < 22; field++) {
    p = strchr(p, ' ');
    if (!p) return -1;
    p++;
  }
  *start = strtoull(p, NULL, 10);
  return 0;
}

int xio_emulator_alive(const xio_emulator_proc *p) {
  char state;
  unsigned long long start;
  if (p->pid <= 0 || proc_stat(p->pid, &state, &start) != 0) return 0;
  return state != 'Z' && state != 'X' && start == p->start;
}

void emu_reap(const xio_emulator_proc *p) {
  if (p->pid > 0) waitpid((pid_t)p->pid, NULL, WNOHANG);
}

int emu_terminate(const xio_emulator_proc *p, int grace_ms) {
  emu_reap(p);
  if (!xio_emulator_alive(p)) return 0;
  /* Its own session: the process group is its pid and holds what it started. */
  if (kill((pid_t)-p->pid, SIGTERM) != 0) kill((pid_t)p->pid, SIGTERM);
  for (int64_t end = emu_now_ms() + grace_ms; emu_now_ms() < end;) {
    emu_reap(p);
    if (!xio_emulator_alive(p)) return 0;
    emu_sleep_ms(20);
  }
  if (kill((pid_t)-p->pid, SIGKILL) != 0) kill((pid_t)p->pid, SIGKILL);
  for (int i = 0; i < 100; i++) {
    emu_reap(p);
    if (!xio_emulator_alive(p)) return 0;
    emu_sleep_ms(20);
  }
  return -1;
}

/* ------------------------------------------------------------ spawn ---- */

/* In the child: the session, the directory and the descriptors, then the program.
 * Only async-signal-safe calls from here on. */
static void exec_child(const char *const *argv, char *const *envp, const char *dir, int logfd,
                       int nullfd) {
  setsid();
  if (chdir(dir) != 0) _exit(126);
  dup2(nullfd, 0);
  dup2(logfd, 1);
  dup2(logfd, 2);
  for (int fd = 3; fd < 1024; fd++)
    close(fd);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  execve(argv[0], (char *const *)argv, envp);
  _exit(127);
}

/* 1 when the environment entry `kv` sets a variable that one of `env` sets. */
static int overridden(const char *kv, const char *const *env) {
  size_t n = strcspn(kv, "=");
  for (size_t i = 0; env && env[i]; i++)
    if (strncmp(env[i], kv, n) == 0 && env[i][n] == '=') return 1;
  return 0;
}

/* This process's environment with `env` ("NAME=value" entries) set on top: a
 * malloc'd array of borrowed strings, or NULL on out-of-memory. */
static char **child_environment(const char *const *env) {
  size_t n = 0, k = 0;
  while (environ[n])
    n++;
  for (size_t i = 0; env && env[i]; i++)
    n++;
  char **out = xio_malloc((n + 1) * sizeof *out);
  if (!out) return NULL;
  for (size_t i = 0; environ[i]; i++)
    if (!overridden(environ[i], env)) out[k++] = environ[i];
  for (size_t i = 0; env && env[i]; i++)
    out[k++] = (char *)env[i];
  out[k] = NULL;
  return out;
}

xio_err emu_spawn(const char *const *argv, const char *const *env, const char *dir, const char *log,
                  xio_emulator_proc *out, xio_error *err) {
  memset(out, 0, sizeof *out);
  char **envp = child_environment(env);
  if (!envp) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  int logfd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  int nullfd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (logfd < 0 || nullfd < 0) {
    int saved = errno;
    xio_error_set(err, XIO_EIO, "cannot open %s: %s", logfd < 0 ? log : "/dev/null",
                  strerror(saved));
    if (err) err->sys_errno = saved;
    if (logfd >= 0) close(logfd);
    if (nullfd >= 0) close(nullfd);
    xio_free(envp);
    return XIO_EIO;
  }
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) exec_child(argv, envp, dir, logfd, nullfd);
  int saved = errno;
  close(logfd);
  close(nullfd);
  xio_free(envp);
  if (pid < 0) {
    xio_error_set(err, XIO_EIO, "cannot start %s: %s", argv[0], strerror(saved));
    if (err) err->sys_errno = saved;
    return XIO_EIO;
  }
  out->pid = pid;
  char state;
  if (proc_stat(pid, &state, &out->start) != 0)
    return xio_error_set(err, XIO_EIO, "cannot see the process of %s in /proc", argv[0]);
  return XIO_OK;
}

/* ------------------------------------------------------------ finding ---- */

/* 0 when `path` is an executable regular file (symlinks followed). */
static int executable(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0 ? 0 : -1;
}

/* The directory of this program (from /proc/self/exe) into `out`, "." if unknown. */
static void own_dir(char *out, size_t size) {
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n < 0) n = 0;
  self[n] = '\0';
  char *slash = strrchr(self, '/');
  if (slash) *slash = '\0';
  snprintf(out, size, "%s", slash ? self : ".");
}

xio_err emu_find_proxy(const char *given, char *out, size_t size, xio_error *err) {
  const char *env = getenv("XIO_FAULTPROXY");
  char self[PATH_MAX];
  if (given) {
    snprintf(out, size, "%s", given);
  } else if (env && *env) {
    snprintf(out, size, "%s", env);
  } else {
    own_dir(self, sizeof self);
    snprintf(out, size, "%s/xio-faultproxy", self);
  }
  if (executable(out) == 0) return XIO_OK;
  return xio_error_set(err, XIO_ENOTFOUND,
                       "the fault proxy is not there (looked for %s): it is built and installed "
                       "beside the xio program; or set XIO_FAULTPROXY to an xio-faultproxy program",
                       out);
}

xio_err emu_find_script(const char *given, char *out, size_t size, xio_error *err) {
  char dir[PATH_MAX];
  if (given) {
    snprintf(out, size, "%s", given);
  } else {
    own_dir(dir, sizeof dir);
    snprintf(out, size, "%s/../share/xio/azurite.sh", dir);
  }
  if (executable(out) == 0) return XIO_OK;
  return xio_error_set(err, XIO_ENOTFOUND,
                       "the emulator's starter is not there (looked for %s): it is installed with "
                       "xio in share/xio beside the xio program's bin, and the build makes a link "
                       "to it in the build tree's share/xio",
                       out);
}

int emu_proc_of(long pid, xio_emulator_proc *out) {
  char state;
  memset(out, 0, sizeof *out);
  if (pid <= 0 || proc_stat(pid, &state, &out->start) != 0) return -1;
  out->pid = pid;
  return 0;
}

int emu_wait(const xio_emulator_proc *p, int ms) {
  int status = 0;
  for (int64_t end = emu_now_ms() + ms; emu_now_ms() < end; emu_sleep_ms(20)) {
    pid_t r = waitpid((pid_t)p->pid, &status, WNOHANG);
    if (r == (pid_t)p->pid) return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (r < 0) return -1;
  }
  emu_terminate(p, 1000);
  return -1;
}

/* ------------------------------------------------------------ probing ---- */

/* The port of "http://127.0.0.1:PORT", or 0. */
static int loopback_port(const char *url) {
  const char *pre = "http://127.0.0.1:";
  if (strncmp(url, pre, strlen(pre)) != 0) return 0;
  char *end;
  long port = strtol(url + strlen(pre), &end, 10);
  return (*end == '\0' || *end == '/') && port > 0 && port < 65536 ? (int)port : 0;
}

/* Waits for `events` on `fd` until `end` (monotonic ms). 1 ready, 0 not. */
static int wait_until(int fd, short events, int64_t end) {
  for (;;) {
    int64_t left = end - emu_now_ms();
    if (left <= 0) return 0;
    struct pollfd pfd = {fd, events, 0};
    int r = poll(&pfd, 1, (int)left);
    if (r > 0) return 1;
    if (r < 0 && errno != EINTR) return 0;
  }
}

/* Connects to 127.0.0.1:port before `end`. The socket, or -1. */
static int connect_loopback(int port, int64_t end) {
  struct sockaddr_in a = {0};
  a.sin_family = AF_INET;
  a.sin_port = htons((uint16_t)port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return -1;
  int soerr = 0;
  socklen_t len = sizeof soerr;
  if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0 &&
      (errno != EINPROGRESS || !wait_until(fd, POLLOUT, end) ||
       getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) != 0 || soerr != 0)) {
    close(fd);
    return -1;
  }
  return fd;
}

int emu_answers(const char *url, int ms) {
  int port = loopback_port(url);
  if (!port) return 0;
  int64_t end = emu_now_ms() + ms;
  int fd = connect_loopback(port, end);
  if (fd < 0) return 0;
  char req[256], got[16];
  int n = snprintf(req, sizeof req,
                   "GET /devstoreaccount1?comp=list HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
                   "Connection: close\r\n\r\n",
                   port);
  size_t have = 0;
  int ok = wait_until(fd, POLLOUT, end) && send(fd, req, (size_t)n, MSG_NOSIGNAL) == n;
  while (ok && have < 9 && wait_until(fd, POLLIN, end)) {
    ssize_t r = recv(fd, got + have, 9 - have, 0);
    if (r <= 0) break;
    have += (size_t)r;
  }
  close(fd);
  return ok && have == 9 && memcmp(got, "HTTP/1.1 ", 9) == 0;
}
