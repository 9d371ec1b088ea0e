/*
 * clock.c - the monotonic clock the samples time operations with.
 */
#define _POSIX_C_SOURCE 200809L
#include <time.h>

#include "samples_common.h"

double samples_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
