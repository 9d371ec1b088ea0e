/*
 * source_test.c - put's read-ahead ring (samples/xio/source.c) on its own: the ring
 * is one private anonymous mapping at a 2 MiB boundary, advised for transparent
 * huge pages; loads land at file offset % ring size, the last chunk of the ring
 * ends at its end (with the O_DIRECT round-up of a file's last partial block
 * inside it), loads that start off a 4 KiB block read the head buffered and the
 * rest with O_DIRECT (on ext4), --buffered reads everything buffered, a file
 * that shrank under a load fails with an error that says so, and the check of a
 * file that must hold still: passed while it does, failed, naming what changed,
 * when it grew, was rewritten in place (with its modification time put back too),
 * or when its path was renamed over or removed.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
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
  ASSERT_OK(cli_source_open(&fx->src, fx->path, fx->fd, RING, direct, &err), &err);
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
  ASSERT_ERR(cli_source_load(&fx.src, 8 * MiB, 4 * MiB, &err), XIO_ECHANGED, &err);
  ASSERT_CONTAINS(err.message, "changed while it was being uploaded (it shrank");
  ASSERT_CONTAINS(err.message, "it ends at 10485760");
  ASSERT(fx.src.changed);
  teardown(&fx);
}

/* Sets the file's times an hour back, so that any write moves them. */
static void age(const fixture *fx) {
  struct timespec t[2];
  clock_gettime(CLOCK_REALTIME, &t[0]);
  t[0].tv_sec -= 3600;
  t[1] = t[0];
  ASSERT(futimens(fx->fd, t) == 0);
}

/* A fixture whose file was aged before its source was opened. */
static void setup_aged(fixture *fx) {
  setup(fx, 0);
  cli_source_close(&fx->src);
  age(fx);
  xio_error err;
  ASSERT_OK(cli_source_open(&fx->src, fx->path, fx->fd, RING, 0, &err), &err);
}

static void expect_changed(fixture *fx, const char *why) {
  xio_error err;
  ASSERT_ERR(cli_source_check(&fx->src, &err), XIO_ECHANGED, &err);
  ASSERT_CONTAINS(err.message, "changed while it was being uploaded");
  ASSERT_CONTAINS(err.message, why);
  ASSERT_CONTAINS(err.message, fx->path);
  ASSERT(fx->src.changed);
}

TEST(a_file_that_holds_still_passes_the_check) {
  fixture fx;
  setup_aged(&fx);
  load_and_check(&fx, 0, 4 * MiB);
  char buf[4096];
  ASSERT_EQ(pread(fx.fd, buf, sizeof buf, 0), (ssize_t)sizeof buf); /* reading changes nothing */
  xio_error err;
  ASSERT_OK(cli_source_check(&fx.src, &err), &err);
  ASSERT(!fx.src.changed);
  teardown(&fx);
}

TEST(a_file_that_grew_fails_the_check) {
  fixture fx;
  setup_aged(&fx);
  ASSERT_EQ(pwrite(fx.fd, "x", 1, FILE_SIZE), 1);
  expect_changed(&fx, "it grew from 20972520 to 20972521 bytes");
  teardown(&fx);
}

TEST(a_file_rewritten_in_place_fails_the_check) {
  fixture fx;
  setup_aged(&fx);
  ASSERT_EQ(pwrite(fx.fd, "x", 1, 0), 1);
  expect_changed(&fx, "it was modified");
  teardown(&fx);
}

TEST(a_file_whose_times_were_put_back_fails_the_check) {
  fixture fx;
  setup_aged(&fx);
  struct timespec t[2] = {fx.src.st.st_atim, fx.src.st.st_mtim};
  ASSERT_EQ(pwrite(fx.fd, "x", 1, 0), 1);
  ASSERT(futimens(fx.fd, t) == 0); /* the modification time as it was: ctime moves */
  expect_changed(&fx, "its status change time moved");
  teardown(&fx);
}

TEST(a_path_renamed_over_or_removed_fails_the_check) {
  fixture fx;
  setup_aged(&fx);
  char other[600];
  snprintf(other, sizeof other, "%s.other", fx.path);
  int fd = open(other, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ASSERT(fd >= 0);
  ASSERT_EQ(pwrite(fd, fx.want, FILE_SIZE, 0), (ssize_t)FILE_SIZE); /* the same bytes */
  close(fd);
  ASSERT(rename(other, fx.path) == 0);
  expect_changed(&fx, "the path now names another file");
  fx.src.changed = 0;
  ASSERT(unlink(fx.path) == 0);
  expect_changed(&fx, "its path no longer names it");
  teardown(&fx);
}

TEST(an_empty_file_needs_no_ring) {
  fixture fx;
  memset(&fx, 0, sizeof fx);
  xio_error err;
  int fd = open("/dev/null", O_RDONLY);
  ASSERT(fd >= 0);
  ASSERT_OK(cli_source_open(&fx.src, "/dev/null", fd, RING, 0, &err), &err);
  ASSERT(fx.src.ring == NULL);
  ASSERT_U64_EQ(fx.src.file_size, 0);
  cli_source_close(&fx.src);
  cli_source_close(&fx.src); /* safe to repeat */
  close(fd);
}
