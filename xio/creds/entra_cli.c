/*
 * entra_cli.c - tokens from the Azure CLI: runs `az account get-access-token
 * --resource RESOURCE --output json` (the command the SDKs' AzureCliCredential runs)
 * with no shell, stdin from /dev/null, and its output captured, never shown. A CLI
 * that is not installed makes the source not apply; one that fails or overruns the
 * timeout (it is then killed) is reported with the first line it wrote on stderr.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "entra_int.h"

extern char **environ;

#define MAX_OUT (64u << 10)

typedef struct child {
  pid_t pid;
  int out, err;
  char obuf[MAX_OUT];
  size_t olen;
  char ebuf[1024];
  size_t elen;
} child;

/* Starts az with its stdout and stderr on pipes. Returns 0 or an errno. */
static int start(child *c, const char *az, const char *resource) {
  int po[2], pe[2];
  if (pipe2(po, O_CLOEXEC) != 0) return errno;
  if (pipe2(pe, O_CLOEXEC) != 0) {
    close(po[0]), close(po[1]);
    return errno;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, po[1], 1);
  posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
  char *argv[] = {
      (char *)az, "account", "get-access-token", "--resource", (char *)resource, "--output",
      "json",     NULL};
  int rc = posix_spawnp(&c->pid, az, &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  close(po[1]);
  close(pe[1]);
  if (rc != 0) {
    close(po[0]), close(pe[0]);
    return rc;
  }
  c->out = po[0];
  c->err = pe[0];
  return 0;
}

/* Reads what is ready on `fd` into the buffer; closes it at EOF (sets *fd -1). */
static void drain(int *fd, char *buf, size_t cap, size_t *len) {
  char tmp[4096];
  ssize_t n = read(*fd, tmp, sizeof tmp);
  if (n <= 0) {
    if (n == 0 || (errno != EINTR && errno != EAGAIN)) close(*fd), *fd = -1;
    return;
  }
  size_t take = (size_t)n < cap - 1 - *len ? (size_t)n : cap - 1 - *len;
  memcpy(buf + *len, tmp, take);
  *len += take;
  OPENSSL_cleanse(tmp, sizeof tmp);
}

/* Collects both outputs until the child closes them or the deadline passes. */
static int collect(child *c, int timeout_ms) {
  int64_t deadline = xio_auth_monotonic_us() / 1000 + timeout_ms;
  while (c->out >= 0 || c->err >= 0) {
    int64_t left = deadline - xio_auth_monotonic_us() / 1000;
    if (left <= 0) return -1;
    struct pollfd p[2] = {{c->out, POLLIN, 0}, {c->err, POLLIN, 0}};
    if (poll(p, 2, (int)left) < 0 && errno != EINTR) return -1;
    if (c->out >= 0 && p[0].revents) drain(&c->out, c->obuf, sizeof c->obuf, &c->olen);
    if (c->err >= 0 && p[1].revents) drain(&c->err, c->ebuf, sizeof c->ebuf, &c->elen);
  }
  return 0;
}

static void finish(child *c, int kill_it, int *status) {
  if (c->out >= 0) close(c->out);
  if (c->err >= 0) close(c->err);
  if (kill_it) kill(c->pid, SIGKILL);
  while (waitpid(c->pid, status, 0) < 0 && errno == EINTR) {
  }
}

/* The first line of what az wrote on stderr, for the reason. */
static const char *first_line(child *c) {
  c->ebuf[c->elen] = '\0';
  c->ebuf[strcspn(c->ebuf, "\r\n")] = '\0';
  return c->ebuf[0] ? c->ebuf : "no message";
}

static xio_err judge(child *c, int status, const xio__entra_env *env, xio_auth_token *out,
                     char why[XIO__WHY_SIZE]) {
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    snprintf(why, XIO__WHY_SIZE, "az failed (exit %d): %.100s",
             WIFEXITED(status) ? WEXITSTATUS(status) : -1, first_line(c));
    return XIO_EAUTH;
  }
  c->obuf[c->olen] = '\0';
  xio_error e;
  xio_error_clear(&e);
  xio_err rc = xio_auth_token_parse_json(c->obuf, env->now, out, &e);
  if (rc == XIO_OK) return XIO_OK;
  snprintf(why, XIO__WHY_SIZE, "az printed no token: %.120s", e.message);
  return rc == XIO_ENOMEM ? rc : XIO_EAUTH;
}

xio_err xio__entra_azure_cli(const xio__entra_env *env, const char *resource, xio_auth_token *out,
                             char why[XIO__WHY_SIZE]) {
  child *c = xio_calloc(1, sizeof *c);
  if (!c) return XIO_ENOMEM;
  const char *az = env->az ? env->az : "az";
  int rc = start(c, az, resource);
  xio_err result;
  if (rc != 0) {
    snprintf(why, XIO__WHY_SIZE, "%s: %s", az,
             rc == ENOENT ? "not installed (not found on PATH)" : strerror(rc));
    result = rc == ENOENT ? XIO_ENOCRED : XIO_EAUTH;
  } else {
    int status = 0, late = collect(c, env->timeout_ms > 0 ? env->timeout_ms : 10000) != 0;
    finish(c, late, &status);
    if (late) {
      snprintf(why, XIO__WHY_SIZE, "az did not finish within %d ms", env->timeout_ms);
      result = XIO_EAUTH;
    } else {
      result = judge(c, status, env, out, why);
    }
  }
  OPENSSL_cleanse(c->obuf, sizeof c->obuf);
  xio_free(c);
  return result;
}
