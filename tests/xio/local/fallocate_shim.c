/*
 * fallocate_shim.c - a fault-injecting wrapper around fallocate(2): the test binary
 * defines fallocate, so the local backend (linked in statically) calls this one.
 * It counts the calls by mode and, per mode, refuses them with lt_falloc_errno
 * (EOPNOTSUPP unless set), like a file system without that mode; otherwise it makes
 * the real system call.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fixture.h"

_Atomic int lt_falloc_refuse;
_Atomic int lt_falloc_errno;
_Atomic int lt_falloc_calls_zero_range, lt_falloc_calls_punch_hole;

int fallocate(int fd, int mode, off_t offset, off_t len) {
  int bit = 0;
  if (mode & FALLOC_FL_ZERO_RANGE) {
    atomic_fetch_add(&lt_falloc_calls_zero_range, 1);
    bit = LT_FALLOC_ZERO_RANGE;
  } else if (mode & FALLOC_FL_PUNCH_HOLE) {
    atomic_fetch_add(&lt_falloc_calls_punch_hole, 1);
    bit = LT_FALLOC_PUNCH_HOLE;
  }
  if (atomic_load(&lt_falloc_refuse) & bit) {
    int e = atomic_load(&lt_falloc_errno);
    errno = e ? e : EOPNOTSUPP;
    return -1;
  }
  return (int)syscall(SYS_fallocate, fd, mode, offset, len);
}
