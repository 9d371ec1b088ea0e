/*
 * clock.c - the two clocks the benchmark reads: monotonic wall time for durations
 * and this process's CPU time (all threads, user + system) for the client's cost.
 */
#define _POSIX_C_SOURCE 200809L
#include <sys/resource.h>
#include <time.h>

#include "bench.h"

double bench_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double tv_seconds(struct timeval tv) { return (double)tv.tv_sec + (double)tv.tv_usec / 1e6; }

double bench_cpu_seconds(void) {
  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru) != 0) return 0;
  return tv_seconds(ru.ru_utime) + tv_seconds(ru.ru_stime);
}
