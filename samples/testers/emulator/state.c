/*
 * state.c - the emulator's state directory: where it is (given, or a default of
 * the session's), the state file that says what runs from it ("NAME VALUE" lines, written
 * through a temporary file and a rename), the files the fault proxy keeps there (its
 * endpoint and its counts), and the ends of the logs. The files hold pids, ports and
 * the fault spec; no key (the dev account's is written for callers, never stored).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "emulator_int.h"

#define STATE_FILE "state"

int emu_path(const char *dir, const char *name, char *out, size_t size) {
  int n = snprintf(out, size, "%s/%s", dir, name);
  return n > 0 && (size_t)n < size ? 0 : -1;
}

/* The default state directory: this session's (getsid: a terminal's shell and what
 * it runs, `eval "$(xio emulator start --shell)"` included, share it; another
 * terminal is another session), under $XDG_RUNTIME_DIR/xio-emulator, else
 * /tmp/xio-emulator-UID. Returns what snprintf does. */
static int session_dir(char *out, size_t size) {
  const char *xdg = getenv("XDG_RUNTIME_DIR");
  long sid = (long)getsid(0);
  if (xdg && xdg[0] == '/') return snprintf(out, size, "%s/xio-emulator/session-%ld", xdg, sid);
  return snprintf(out, size, "/tmp/xio-emulator-%ld/session-%ld", (long)getuid(), sid);
}

xio_err xio_emulator_dir(const char *dir, char *out, size_t size, xio_error *err) {
  char cwd[4096];
  int n;
  const char *shared = getenv("XIO_EMULATOR_DIR");
  if (dir && !*dir) return xio_error_set(err, XIO_EINVAL, "--dir: empty directory name");
  if (!dir && shared && *shared) dir = shared;
  if (dir && dir[0] != '/') {
    if (!getcwd(cwd, sizeof cwd))
      return xio_error_set(err, XIO_EIO, "cannot tell the current directory: %s", strerror(errno));
    n = snprintf(out, size, "%s/%s", cwd, dir);
  } else if (dir) {
    n = snprintf(out, size, "%s", dir);
  } else {
    n = session_dir(out, size);
  }
  if (n <= 0 || (size_t)n >= size - 64)
    return xio_error_set(err, XIO_EINVAL, "the state directory's name is too long");
  while (n > 1 && out[n - 1] == '/')
    out[--n] = '\0';
  return XIO_OK;
}

xio_err emu_mkdir(const char *dir, xio_error *err) {
  char path[4096];
  snprintf(path, sizeof path, "%s", dir);
  for (char *p = path + 1;; p++) {
    char c = *p;
    if (c != '/' && c != '\0') continue;
    *p = '\0';
    if (mkdir(path, 0700) != 0 && errno != EEXIST) {
      int saved = errno;
      xio_error_set(err, XIO_EIO, "cannot make the state directory %s: %s", path, strerror(saved));
      if (err) err->sys_errno = saved;
      return XIO_EIO;
    }
    *p = c;
    if (!c) break;
  }
  struct stat st;
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
    return xio_error_set(err, XIO_EIO, "the state directory %s is not a directory", dir);
  return XIO_OK;
}

/* ------------------------------------------------------------ state ---- */

/* One "NAME VALUE" line into `st`; unknown names are ignored (a newer xio). */
static void state_line(xio_emulator_state *st, const char *name, const char *value) {
  struct {
    const char *name;
    char *text;
    size_t size;
  } texts[] = {
      {"azurite_url", st->azurite_url, sizeof st->azurite_url},
      {"proxy_url", st->proxy_url, sizeof st->proxy_url},
      {"faults", st->faults, sizeof st->faults},
      {"profile", st->profile, sizeof st->profile},
  };
  for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
    if (strcmp(name, texts[i].name) == 0) snprintf(texts[i].text, texts[i].size, "%s", value);
  if (strcmp(name, "azurite_pid") == 0) st->azurite.pid = strtol(value, NULL, 10);
  if (strcmp(name, "azurite_start") == 0) st->azurite.start = strtoull(value, NULL, 10);
  if (strcmp(name, "proxy_pid") == 0) st->proxy.pid = strtol(value, NULL, 10);
  if (strcmp(name, "proxy_start") == 0) st->proxy.start = strtoull(value, NULL, 10);
  if (strcmp(name, "seed") == 0) st->seed = strtoull(value, NULL, 10);
}

int emu_state_read(const char *dir, xio_emulator_state *st, xio_error *err) {
  char path[4200], line[512];
  memset(st, 0, sizeof *st);
  if (emu_path(dir, STATE_FILE, path, sizeof path) != 0) return 0;
  FILE *f = fopen(path, "r");
  if (!f && errno == ENOENT) return 0;
  if (!f) {
    int saved = errno;
    xio_error_set(err, XIO_EIO, "cannot read %s: %s", path, strerror(saved));
    if (err) err->sys_errno = saved;
    return -1;
  }
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = '\0';
    char *sp = strchr(line, ' ');
    if (!sp) continue;
    *sp = '\0';
    state_line(st, line, sp + 1);
  }
  fclose(f);
  return 1;
}

/* XIO_EIO for a state file that cannot be written, from errno. */
static xio_err write_failed(const char *path, xio_error *err) {
  int saved = errno;
  xio_error_set(err, XIO_EIO, "cannot write %s: %s", path, strerror(saved));
  if (err) err->sys_errno = saved;
  return XIO_EIO;
}

xio_err emu_state_write(const char *dir, const xio_emulator_state *st, xio_error *err) {
  char path[4200], tmp[4300];
  if (emu_path(dir, STATE_FILE, path, sizeof path) != 0 ||
      emu_path(dir, STATE_FILE ".tmp", tmp, sizeof tmp) != 0)
    return xio_error_set(err, XIO_EINVAL, "the state directory's name is too long");
  FILE *f = fopen(tmp, "w");
  if (!f) return write_failed(tmp, err);
  fprintf(f, "azurite_pid %ld\nazurite_start %llu\nazurite_url %s\n", st->azurite.pid,
          st->azurite.start, st->azurite_url);
  if (st->proxy.pid)
    fprintf(f, "proxy_pid %ld\nproxy_start %llu\nproxy_url %s\nfaults %s\nseed %llu\nprofile %s\n",
            st->proxy.pid, st->proxy.start, st->proxy_url, st->faults, st->seed, st->profile);
  int ok = !ferror(f);
  ok = fclose(f) == 0 && ok;
  if (ok && rename(tmp, path) == 0) return XIO_OK;
  xio_err rc = write_failed(path, err);
  remove(tmp);
  return rc;
}

void emu_state_remove(const char *dir) {
  static const char *const names[] = {
      STATE_FILE,
      /* one name. NOLINTNEXTLINE(bugprone-suspicious-missing-comma) */
      STATE_FILE ".tmp", "proxy.endpoint", "proxy.endpoint.tmp", "proxy.stats", "proxy.stats.tmp",
      "pid", "endpoint"};
  char path[4200];
  for (size_t i = 0; i < sizeof names / sizeof *names; i++)
    if (emu_path(dir, names[i], path, sizeof path) == 0) remove(path);
}

/* ------------------------------------------------------- proxy files ---- */

int emu_read_line(const char *dir, const char *name, char *out, size_t size) {
  char path[4200];
  out[0] = '\0';
  if (emu_path(dir, name, path, sizeof path) != 0) return -1;
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  int ok = fgets(out, (int)size, f) != NULL;
  fclose(f);
  out[strcspn(out, "\n")] = '\0';
  return ok && out[0] ? 0 : -1;
}

void emu_stats_read(const char *dir, xio_emulator_stats *out) {
  char path[4200], name[32];
  unsigned long long v;
  memset(out, 0, sizeof *out);
  if (emu_path(dir, "proxy.stats", path, sizeof path) != 0) return;
  FILE *f = fopen(path, "r");
  if (!f) return;
  while (fscanf(f, "%31s %llu", name, &v) == 2) {
    out->valid = 1;
    if (strcmp(name, "requests") == 0) out->requests = v;
    for (int i = 0; i < XIO_EMULATOR_FAULT_KINDS; i++)
      if (strcmp(name, xio_emulator_fault_name(i)) == 0) out->injected[i] = v;
    if (strcmp(name, "throttled") == 0) out->throttled = v;
    if (strcmp(name, "refused") == 0) out->refused = v;
    if (strcmp(name, "paged") == 0) out->paged = v;
    if (strcmp(name, "diffs") == 0) out->diffs = v;
  }
  fclose(f);
}

void emu_log_tail(const char *dir, const char *name, xio_emulator_log *log) {
  char path[sizeof log->path];
  if (!log) return;
  memset(log, 0, sizeof *log);
  if (emu_path(dir, name, path, sizeof path) != 0) return;
  FILE *f = fopen(path, "r");
  if (!f) return;
  char *buf = log->tail;
  long room = (long)sizeof log->tail - 1;
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, len > room ? len - room : 0, SEEK_SET);
  size_t n = fread(buf, 1, (size_t)room, f);
  fclose(f);
  buf[n] = '\0';
  snprintf(log->path, sizeof log->path, "%s", path);
}
