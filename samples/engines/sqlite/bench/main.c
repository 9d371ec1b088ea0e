/*
 * main.c - xio-sqlite-bench: runs the SQLite benchmark in WAL and DELETE mode on a
 * local file and on a page blob of an emulator (or any account the environment's
 * credentials reach), and writes a Markdown report.
 *   xio-sqlite-bench --endpoint URL | --endpoint-file FILE  [--local-dir DIR]
 *                    [--out FILE] [--container NAME]
 * With an emulator endpoint and no AZURE_STORAGE_CONNECTION_STRING, the emulator's
 * public development account is used.
 */
#define _GNU_SOURCE
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <xio/auth.h>

#include "bench.h"
#include "xio_sqlite.h"

typedef struct opts {
  char endpoint[512];
  const char *local_dir, *out, *container;
} opts;

static int usage(void) {
  fprintf(stderr, "usage: xio-sqlite-bench --endpoint URL | --endpoint-file FILE "
                  "[--local-dir DIR] [--out FILE] [--container NAME]\n");
  return 2;
}

static int read_endpoint(const char *file, char *out, size_t size) {
  FILE *f = fopen(file, "r");
  if (!f || !fgets(out, (int)size, f)) {
    fprintf(stderr, "xio-sqlite-bench: cannot read the endpoint from %s\n", file);
    if (f) fclose(f);
    return -1;
  }
  fclose(f);
  out[strcspn(out, "\r\n")] = '\0';
  return 0;
}

static int parse(int argc, char **argv, opts *o) {
  memset(o, 0, sizeof *o);
  o->local_dir = "/tmp";
  o->container = "sqlite-bench";
  for (int i = 1; i < argc; i += 2) { /* every option takes a value */
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!v) return -1;
    if (strcmp(a, "--endpoint") == 0)
      snprintf(o->endpoint, sizeof o->endpoint, "%s", v);
    else if (strcmp(a, "--endpoint-file") == 0) {
      if (read_endpoint(v, o->endpoint, sizeof o->endpoint)) return -1;
    } else if (strcmp(a, "--local-dir") == 0)
      o->local_dir = v;
    else if (strcmp(a, "--out") == 0)
      o->out = v;
    else if (strcmp(a, "--container") == 0)
      o->container = v;
    else
      return -1;
  }
  return o->endpoint[0] ? 0 : -1;
}

static void remove_local(const char *path) {
  char p[600];
  unlink(path);
  snprintf(p, sizeof p, "%s-wal", path);
  unlink(p);
  snprintf(p, sizeof p, "%s-journal", path);
  unlink(p);
  snprintf(p, sizeof p, "%s-shm", path);
  unlink(p);
}

int main(int argc, char **argv) {
  opts o;
  if (parse(argc, argv, &o)) return usage();
  char trace[] = "/tmp/xio-sqlite-bench-trace-XXXXXX", cs[1024];
  int fd = mkstemp(trace);
  if (fd < 0) return 1;
  close(fd);
  setenv("XIO_TRACE", trace, 1);
  snprintf(cs, sizeof cs,
           "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=%s;"
           "BlobEndpoint=%s/devstoreaccount1;",
           XIO_AUTH_DEV_KEY, o.endpoint);
  setenv("AZURE_STORAGE_CONNECTION_STRING", cs, 0);
  if (xio_sqlite_register(1) != SQLITE_OK) return 1;
  bench_run runs[4];
  const char *modes[2] = {"WAL", "DELETE"};
  unsigned tag = (unsigned)time(NULL) ^ (unsigned)getpid();
  for (int m = 0; m < 2; m++) {
    char path[512], url[1024];
    snprintf(path, sizeof path, "%s/xio-sqlite-bench-%s.db", o.local_dir, modes[m]);
    snprintf(url, sizeof url, "%s/devstoreaccount1/%s/bench-%x-%s.sqlite", o.endpoint, o.container,
             tag, modes[m]);
    remove_local(path);
    runs[2 * m] = (bench_run){.mode = modes[m], .target = "local"};
    runs[2 * m + 1] = (bench_run){.mode = modes[m], .target = "page blob"};
    if (bench_run_stages(&runs[2 * m], path, NULL) ||
        bench_run_stages(&runs[2 * m + 1], url, trace)) {
      fprintf(stderr, "xio-sqlite-bench: %s\n", xio_sqlite_last_error());
      return 1;
    }
    remove_local(path);
  }
  bench_report(stdout, runs, 4);
  if (o.out) {
    FILE *f = fopen(o.out, "w");
    if (!f) return 1;
    bench_report(f, runs, 4);
    fclose(f);
  }
  unlink(trace);
  return 0;
}
