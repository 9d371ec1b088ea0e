/*
 * run.c - `xio-peers run --out FILE -- CMD ARGS...`: runs one client process and
 * measures it whole, as the kernel accounts it: wall time from fork to its exit,
 * user and system CPU and peak resident set from wait4()'s rusage. The child keeps
 * this process's standard streams; the measurement goes to FILE as one JSON line
 *   {"wall_s":..,"user_s":..,"sys_s":..,"cpu_s":..,"maxrss_kib":..,"exit":..}
 * Exits with the child's status (128 + signal when a signal ended it).
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "peers.h"

static double tv_secs(struct timeval tv) { return (double)tv.tv_sec + (double)tv.tv_usec / 1e6; }

static int write_result(const char *path, double wall, const struct rusage *ru, int code) {
  FILE *f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "xio-peers run: cannot write %s: %s\n", path, strerror(errno));
    return -1;
  }
  double u = tv_secs(ru->ru_utime), s = tv_secs(ru->ru_stime);
  fprintf(f,
          "{\"wall_s\":%.6f,\"user_s\":%.6f,\"sys_s\":%.6f,\"cpu_s\":%.6f,\"maxrss_kib\":%ld,"
          "\"exit\":%d}\n",
          wall, u, s, u + s, ru->ru_maxrss, code);
  return fclose(f) == 0 ? 0 : -1;
}

int peers_run(int argc, char **argv) {
  const char *out = NULL;
  int i = 0;
  for (; i < argc && strcmp(argv[i], "--") != 0; i++)
    if (strcmp(argv[i], "--out") == 0 && i + 1 < argc)
      out = argv[++i];
    else
      break;
  if (!out || i >= argc || strcmp(argv[i], "--") != 0 || i + 1 >= argc) {
    fprintf(stderr, "usage: xio-peers run --out FILE -- CMD [ARGS...]\n");
    return 2;
  }
  char **cmd = argv + i + 1;
  double t0 = samples_now();
  pid_t pid = fork();
  if (pid < 0) {
    fprintf(stderr, "xio-peers run: fork: %s\n", strerror(errno));
    return 1;
  }
  if (pid == 0) {
    execvp(cmd[0], cmd);
    fprintf(stderr, "xio-peers run: cannot run %s: %s\n", cmd[0], strerror(errno));
    _exit(127);
  }
  int status;
  struct rusage ru;
  while (wait4(pid, &status, 0, &ru) < 0)
    if (errno != EINTR) {
      fprintf(stderr, "xio-peers run: wait4: %s\n", strerror(errno));
      return 1;
    }
  double wall = samples_now() - t0;
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (write_result(out, wall, &ru, code) != 0) return 1;
  return code;
}
