/*
 * space.c - the local file system under the local backend: how much room it has,
 * and what kind it is. Clearing a local range (fallocate FALLOC_FL_ZERO_RANGE)
 * allocates real blocks on ext4 (as unwritten extents), so a 64 GiB clear needs
 * 64 GiB free: measurements that would not fit with a safety margin are skipped.
 */
#define _GNU_SOURCE
#include <sys/statfs.h>
#include <sys/statvfs.h>

#include "bench.h"

int bench_space(const char *path, uint64_t margin, uint64_t *avail, uint64_t *keep) {
  struct statvfs s;
  if (statvfs(path, &s) != 0) return -1;
  *avail = (uint64_t)s.f_bavail * s.f_frsize;
  uint64_t total = (uint64_t)s.f_blocks * s.f_frsize;
  *keep = margin ? margin : total / 10 > 4 * BENCH_GiB ? total / 10 : 4 * BENCH_GiB;
  return 0;
}

const char *bench_fs_type(const char *path) {
  static const struct {
    unsigned long magic;
    const char *name;
  } types[] = {{0xEF53, "ext4"},      {0x01021994, "tmpfs"},     {0x58465342, "xfs"},
               {0x9123683E, "btrfs"}, {0x794C7630, "overlayfs"}, {0x6969, "nfs"},
               {0x2FC12FC1, "zfs"},   {0x65735546, "fuse"}};
  struct statfs s;
  if (statfs(path, &s) != 0) return "unknown";
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
    if ((unsigned long)s.f_type == types[i].magic) return types[i].name;
  return "unknown";
}
