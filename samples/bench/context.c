/*
 * context.c - the machine the numbers come from, printed beside them: processors,
 * CPU model, memory, kernel, the local file system, and the caveat that the page
 * blobs were an in-memory emulator on loopback, not Azure; and the load average, since
 * other work on a shared machine shows up as noise.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

static void cpu_model(char *out, size_t n) {
  char line[256];
  FILE *f = fopen("/proc/cpuinfo", "r");
  snprintf(out, n, "unknown");
  if (!f) return;
  while (fgets(line, sizeof line, f)) {
    char *colon = strchr(line, ':');
    if (strncmp(line, "model name", 10) != 0 || !colon) continue;
    colon += 1 + (colon[1] == ' ');
    colon[strcspn(colon, "\n")] = '\0';
    snprintf(out, n, "%s", colon);
    break;
  }
  fclose(f);
}

void bench_context_get(bench_context *x) {
  memset(x, 0, sizeof *x);
  time_t now = time(NULL);
  struct tm tm;
  gmtime_r(&now, &tm);
  strftime(x->date, sizeof x->date, "%Y-%m-%dT%H:%M:%SZ", &tm);
  x->nproc = sysconf(_SC_NPROCESSORS_ONLN);
  cpu_model(x->cpu, sizeof x->cpu);
  long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
  x->mem_bytes = pages > 0 && psize > 0 ? (uint64_t)pages * (uint64_t)psize : 0;
  struct utsname u;
  if (uname(&u) == 0)
    snprintf(x->kernel, sizeof x->kernel, "%s %s %s", u.sysname, u.release, u.machine);
  x->load_start = bench_load_average();
#if defined(__SANITIZE_ADDRESS__)
  x->sanitized = 1;
#endif
}

double bench_load_average(void) {
  double l[1];
  return getloadavg(l, 1) == 1 ? l[0] : -1;
}

const char *bench_context_caveat(const bench_context *x) {
  if (x && x->target[0]) return x->target_caveat;
  return "page blobs: Azurite, an in-memory emulator on loopback (127.0.0.1), not Azure; "
         "client and emulator share this machine's CPUs";
}
