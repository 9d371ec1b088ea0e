/*
 * clock.c - this process's CPU time (all threads, user + system), the client's cost
 * of a transfer; wall time is samples_now (samples/common).
 */
#define _POSIX_C_SOURCE 200809L
#include <sys/resource.h>

#include "bench.h"

static double tv_seconds(struct timeval tv) { return (double)tv.tv_sec + (double)tv.tv_usec / 1e6; }

double bench_cpu_seconds(void) {
  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru) != 0) return 0;
  return tv_seconds(ru.ru_utime) + tv_seconds(ru.ru_stime);
}
