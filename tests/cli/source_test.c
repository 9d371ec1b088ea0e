/*
 * source_test.c - put's read-ahead ring (samples/xio/source.c) on its own: loads
 * land at file offset % ring size, a span that runs past the ring's end reads on
 * through the mirror, loads that start off a 4 KiB block read the head buffered
 * and the rest with O_DIRECT (on ext4), --buffered reads everything buffered, and
 * a file that shrank under a load fails with an error that says so.
 */
#define _GNU_SOURCE
#include <fcntl.h>
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
#define EXT4_MAGIC 0xEF53

typedef struct fixture {
  char path[512];
  int fd;
  char *want; /* the file's bytes */
  cli_source src;
} fixture;

static void setup(fixture *fx, int direct) {
  const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
  snprintf(fx->path, sizeof fx->path, "%s/xio-source-XXXXXX", dir);
  fx->fd = mkstemp(fx->path);
  ASSERT(fx->fd >= 0);
  fx->want = malloc(FILE_SIZE);
  ASSERT(fx->want);
  test_fill_random(fx->want, FILE_SIZE, 11);
  ASSERT_EQ(pwrite(fx->fd, fx->want, FILE_SIZE, 0), (ssize_t)FILE_SIZE);
  ASSERT(fsync(fx->fd) == 0); /* O_DIRECT reads what is on the disk */
  xio_error err;
  ASSERT_OK(cli_source_open(&fx->src, fx->path, fx->fd, FILE_SIZE, RING, direct, &err), &err);
}

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

TEST(a_span_past_the_ring_end_reads_on_through_the_mirror) {
  fixture fx;
  setup(&fx, 1);
  /* [14 MiB, 18 MiB) sits at ring offsets [6 MiB, 10 MiB): past the end by 2 MiB */
  load_and_check(&fx, 14 * MiB, 2 * MiB);
  load_and_check(&fx, 16 * MiB, 4 * MiB);
  ASSERT_MEM_EQ(cli_source_at(&fx.src, 14 * MiB), fx.want + 14 * MiB, 4 * MiB);
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
