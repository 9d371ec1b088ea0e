/*
 * source_test.c - put's read-ahead ring (samples/xio/source.c) on its own: the ring
 * is one private anonymous mapping at a 2 MiB boundary, advised for transparent
 * huge pages; loads land at file offset % ring size, the last chunk of the ring
 * ends at its end (with the O_DIRECT round-up of a file's last partial block
 * inside it), loads that start off a 4 KiB block read the head buffered and the
 * rest with O_DIRECT (on ext4), --buffered reads everything buffered, and a file
 * that shrank under a load fails with an error that says so.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "cli.h"
#include "test.h"
#include "util.h"

#define KiB        ((size_t)1024)
#define MiB        ((size_t)1024 * 1024)
#define RING       (8 * MiB)
#define FILE_SIZE  (20 * MiB + 1000) /* two and a half rings and an odd tail */
#define HUGE_PAGE  (2 * MiB)
#define EXT4_MAGIC 0xEF53

typedef struct fixture {
  char path[512];
  int fd;
  char *want; /* the file's bytes */
  cli_source src;
} fixture;

/* A file of `size` random bytes, on the disk, and its source with a ring of RING. */
static void setup_sized(fixture *fx, size_t size, int direct) {
  const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
  snprintf(fx->path, sizeof fx->path, "%s/xio-source-XXXXXX", dir);
  fx->fd = mkstemp(fx->path);
  ASSERT(fx->fd >= 0);
  fx->want = malloc(size);
  ASSERT(fx->want);
  test_fill_random(fx->want, size, 11);
  ASSERT_EQ(pwrite(fx->fd, fx->want, size, 0), (ssize_t)size);
  ASSERT(fsync(fx->fd) == 0); /* O_DIRECT reads what is on the disk */
  xio_error err;
  ASSERT_OK(cli_source_open(&fx->src, fx->path, fx->fd, size, RING, direct, &err), &err);
}

static void setup(fixture *fx, int direct) { setup_sized(fx, FILE_SIZE, direct); }

static void teardown(fixture *fx) {
  cli_source_close(&fx->src);
  close(fx->fd);
  unlink(fx->path);
  free(fx->want);
}

static int on_ext4(const char *path) {
  struct statfs fs;
  return statfs(path, &fs) == 0 && fs.f_type == EXT4_MAGIC;
}

/* Loads [off, off + n) and checks the ring holds the file's bytes there. */
static void load_and_check(fixture *fx, uint64_t off, size_t n) {
  xio_error err;
  ASSERT_OK(cli_source_load(&fx->src, off, n, &err), &err);
  ASSERT_MEM_EQ(cli_source_at(&fx->src, off), fx->want + off, n);
}

TEST(loads_land_at_their_offset_around_the_ring) {
  fixture fx;
  setup(&fx, 1);
  for (uint64_t off = 0; off < FILE_SIZE; off += 4 * MiB) {
    size_t n = off + 4 * MiB <= FILE_SIZE ? 4 * MiB : (size_t)(FILE_SIZE - off);
    load_and_check(&fx, off, n);
    ASSERT(cli_source_at(&fx.src, off) == cli_source_at(&fx.src, off + RING));
  }
  teardown(&fx);
}

/* The /proc/self/smaps entry of the mapping that holds `addr`: its bounds, its
 * header line (permissions, offset, name) in `head` and its VmFlags in `flags`.
 * 0 when no mapping holds it. */
static int find_mapping(const void *addr, uintptr_t *lo, uintptr_t *hi, char *head, size_t hsize,
                        char *flags, size_t fsize) {
  FILE *f = fopen("/proc/self/smaps", "r");
  ASSERT(f);
  char line[512];
  int found = 0;
  while (fgets(line, sizeof line, f)) {
    unsigned long a, b;
    if (sscanf(line, "%lx-%lx ", &a, &b) == 2) { /* a mapping's header line */
      if (found) break;                          /* the next mapping's */
      found = (uintptr_t)addr >= a && (uintptr_t)addr < b;
      if (found) *lo = a, *hi = b, snprintf(head, hsize, "%s", line);
    } else if (found && strncmp(line, "VmFlags:", 8) == 0) {
      snprintf(flags, fsize, "%s", line + 8);
    }
  }
  fclose(f);
  return found;
}

TEST(the_ring_is_one_private_mapping_on_huge_page_boundaries) {
  fixture fx;
  setup(&fx, 1);
  ASSERT_U64_EQ((uintptr_t)fx.src.ring % HUGE_PAGE, 0);
  ASSERT_U64_EQ(fx.src.size, RING);
  load_and_check(&fx, 0, 4 * MiB);
  uintptr_t lo = 0, hi = 0;
  char head[512] = "", flags[512] = "";
  ASSERT(find_mapping(fx.src.ring, &lo, &hi, head, sizeof head, flags, sizeof flags));
  ASSERT(lo <= (uintptr_t)fx.src.ring && hi >= (uintptr_t)fx.src.ring + RING);
  ASSERT_CONTAINS(head, " rw-p "); /* private: no memory file shared by two mappings */
  ASSERT(strstr(head, "memfd") == NULL);
  int thp = access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK) == 0;
  if (thp) ASSERT_CONTAINS(flags, " hg"); /* MADV_HUGEPAGE */
  teardown(&fx);
  if (!thp) SKIP("this kernel has no transparent huge pages: the advice is not checked");
}

TEST(the_ring_last_chunk_ends_at_the_ring_end) {
  fixture fx;
  /* Two rings less 1000 bytes: the last chunk [12 MiB, 16 MiB - 1000) sits at ring
   * offsets [4 MiB, 8 MiB - 1000), and its last block, read whole with O_DIRECT,
   * ends exactly at the ring's end. */
  setup_sized(&fx, 2 * RING - 1000, 1);
  load_and_check(&fx, 8 * MiB, 4 * MiB);
  load_and_check(&fx, 12 * MiB, 4 * MiB - 1000);
  ASSERT(cli_source_at(&fx.src, 12 * MiB) + 4 * MiB == fx.src.ring + RING);
  ASSERT_MEM_EQ(cli_source_at(&fx.src, 8 * MiB), fx.want + 8 * MiB, 4 * MiB); /* untouched */
  if (!on_ext4(fx.path)) {
    teardown(&fx);
    SKIP("the temporary directory is not on ext4: O_DIRECT may be refused");
  }
  ASSERT(fx.src.direct);
  ASSERT_U64_EQ(fx.src.bytes_direct, (uint64_t)(8 * MiB - 1000));
  teardown(&fx);
}

TEST(an_unaligned_head_is_read_buffered_and_the_rest_direct) {
  fixture fx;
  setup(&fx, 1);
  load_and_check(&fx, 1536, 4 * MiB - 1536);       /* head of 2.5 KiB before 4 KiB */
  load_and_check(&fx, 20 * MiB + 512, 1000 - 512); /* the tail, inside one block */
  if (!on_ext4(fx.path)) {
    teardown(&fx);
    SKIP("the temporary directory is not on ext4: O_DIRECT may be refused");
  }
  ASSERT(fx.src.direct);
  ASSERT_U64_EQ(fx.src.bytes_direct, (uint64_t)(4 * MiB - 4 * KiB));
  teardown(&fx);
}

TEST(buffered_reads_everything_through_the_page_cache) {
  fixture fx;
  setup(&fx, 0);
  load_and_check(&fx, 0, 4 * MiB);
  load_and_check(&fx, 20 * MiB, 1000);
  ASSERT(!fx.src.direct);
  ASSERT_U64_EQ(fx.src.bytes_direct, 0);
  teardown(&fx);
}

TEST(a_file_that_shrank_fails_the_load_with_a_message) {
  fixture fx;
  setup(&fx, 1);
  ASSERT(ftruncate(fx.fd, (off_t)(10 * MiB)) == 0);
  xio_error err;
  ASSERT_ERR(cli_source_load(&fx.src, 8 * MiB, 4 * MiB, &err), XIO_EIO, &err);
  ASSERT_CONTAINS(err.message, "shrank while it was being read");
  ASSERT_CONTAINS(err.message, "the file ends at 10485760");
  teardown(&fx);
}

TEST(an_empty_file_needs_no_ring) {
  fixture fx;
  memset(&fx, 0, sizeof fx);
  xio_error err;
  ASSERT_OK(cli_source_open(&fx.src, "/dev/null", -1, 0, RING, 0, &err), &err);
  ASSERT(fx.src.ring == NULL);
  cli_source_close(&fx.src);
  cli_source_close(&fx.src); /* safe to repeat */
}
