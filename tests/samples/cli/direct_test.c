/*
 * direct_test.c - get writes its local file with O_DIRECT where the file system
 * takes it (ext4), whole 4 KiB blocks straight from its read buffers and the edges
 * of ranges that do not start or end on a block buffered, and falls back to
 * buffered writes on a file system that refuses O_DIRECT; put reads its local file
 * the same way, into a ring of (in flight + 2) x 4 MiB that larger files go round
 * many times, with no request running past the ring's end (the count of writes
 * says the one being built was sent there). --buffered asks for the page cache
 * both ways. --json says which ("direct", "bytes_direct"); either way the copy is
 * byte-identical and as sparse as the source.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "clirun.h"
#include "scratch.h"
#include "test.h"
#include "util.h"

#define KiB 1024ull
#define MiB (1024ull * 1024)

#define EXT4_MAGIC 0xEF53 /* statfs f_type of ext2/3/4 */

/* Three blocks of 40.5 KiB at 1.5 KiB past each MiB (512-aligned, off 4 KiB
 * blocks), and 1000 bytes of tail at 3 MiB: a 3 MiB + 1000 byte sparse file. */
#define BLOCK  (40 * KiB + 512)
#define BLOCKS 3
#define TAIL   1000
#define SIZE   (3 * MiB + TAIL)
/* Whole 4 KiB blocks of each: [k MiB + 4 KiB, k MiB + 40 KiB); the tail has none. */
#define DIRECT_BYTES (BLOCKS * 36 * KiB)

static void write_source(const char *path) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ASSERT(fd >= 0 && ftruncate(fd, (off_t)SIZE) == 0);
  char *buf = malloc(BLOCK);
  for (int k = 0; k < BLOCKS; k++) {
    test_fill_random(buf, BLOCK, (uint64_t)k + 7);
    buf[0] = 1;
    ASSERT_EQ(pwrite(fd, buf, BLOCK, (off_t)((uint64_t)k * MiB + 1536)), (ssize_t)BLOCK);
  }
  test_fill_random(buf, TAIL, 99);
  buf[0] = 1;
  ASSERT_EQ(pwrite(fd, buf, TAIL, (off_t)(3 * MiB)), (ssize_t)TAIL);
  free(buf);
  close(fd);
}

/* Uploads the pattern to a fresh blob and gets it into dir/name (both with
 * --buffered when `buffered`); checks the copy and returns the get's --json, and
 * the put's in `*put` when not NULL. */
static cJSON *round_trip_as(const char *dir, const char *name, int buffered, cJSON **put) {
  clirun r = {0};
  char container[64], url[512], src[256], back[512];
  clirun_container(container, sizeof container);
  clirun_url(container, name, url, sizeof url);
  clirun_path("direct.src", src, sizeof src);
  snprintf(back, sizeof back, "%s/%s", dir, name);
  write_source(src);
  if (buffered)
    XIO(&r, "--json", "put", src, url, "--buffered");
  else
    XIO(&r, "--json", "put", src, url);
  EXPECT_EXIT(&r, 0);
  if (put) *put = clirun_json(&r);
  if (buffered)
    XIO(&r, "--json", "get", url, back, "--buffered");
  else
    XIO(&r, "--json", "get", url, back);
  EXPECT_EXIT(&r, 0);
  cJSON *j = clirun_json(&r);
  ASSERT(clirun_num(j, "ranges") == BLOCKS + 1);
  clirun_expect_same_files(src, back);
  struct stat st;
  ASSERT(stat(back, &st) == 0);
  if ((uint64_t)st.st_blocks * 512 > 1 * MiB) /* 3 x 44 KiB and a block of tail */
    FAIL("%s is not sparse: %llu bytes allocated", back, (unsigned long long)st.st_blocks * 512);
  remove(back);
  remove(src);
  clirun_free(&r);
  return j;
}

static cJSON *round_trip(const char *dir, const char *name) {
  return round_trip_as(dir, name, 0, NULL);
}

TEST(get_writes_whole_blocks_with_o_direct_on_ext4) {
  struct statfs fs;
  ASSERT(statfs(clirun_dir(), &fs) == 0);
  if (fs.f_type != EXT4_MAGIC) SKIP("the test directory is not on ext4");
  cJSON *j = round_trip(clirun_dir(), "direct.mdf");
  ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(j, "direct")));
  ASSERT(clirun_num(j, "bytes_direct") == (double)DIRECT_BYTES);
  cJSON_Delete(j);
}

/* A directory here whose file system refuses O_DIRECT, in `out`; 0 when none. */
static int refusing_dir(char *out, size_t size) {
  const char *candidates[] = {"/dev/shm"};
  for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
    if (access(candidates[i], W_OK) != 0) continue;
    test_scratch_dir_at(candidates[i], out, size, "xio-direct");
    char probe[600];
    snprintf(probe, sizeof probe, "%s/probe", out);
    int fd = open(probe, O_WRONLY | O_CREAT | O_DIRECT, 0600);
    int refused = fd < 0 && errno == EINVAL;
    if (fd >= 0) close(fd);
    remove(probe);
    if (refused) return 1;
    test_remove_tree(out);
  }
  return 0;
}

TEST(get_falls_back_to_buffered_writes_where_o_direct_is_refused) {
  char dir[512];
  if (!refusing_dir(dir, sizeof dir))
    SKIP("no file system here refuses O_DIRECT (/dev/shm absent, or a tmpfs that "
         "takes it, as since Linux 6.6)");
  cJSON *j = round_trip(dir, "buffered.mdf");
  test_remove_tree(dir);
  ASSERT(cJSON_IsFalse(cJSON_GetObjectItem(j, "direct")));
  ASSERT(clirun_num(j, "bytes_direct") == 0);
  cJSON_Delete(j);
}

TEST(put_reads_whole_blocks_with_o_direct_on_ext4) {
  struct statfs fs;
  ASSERT(statfs(clirun_dir(), &fs) == 0);
  if (fs.f_type != EXT4_MAGIC) SKIP("the test directory is not on ext4");
  cJSON *put = NULL, *get = round_trip_as(clirun_dir(), "direct-put.mdf", 0, &put);
  ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(put, "direct")));
  /* ext4's extents start on 4 KiB blocks: every byte read is read direct */
  ASSERT(clirun_num(put, "bytes_scanned") > 0);
  ASSERT(clirun_num(put, "bytes_direct") == clirun_num(put, "bytes_scanned"));
  cJSON_Delete(put);
  cJSON_Delete(get);
}

TEST(buffered_put_and_get_go_through_the_page_cache) {
  cJSON *put = NULL, *get = round_trip_as(clirun_dir(), "buffered-both.mdf", 1, &put);
  ASSERT(cJSON_IsFalse(cJSON_GetObjectItem(put, "direct")));
  ASSERT(clirun_num(put, "bytes_direct") == 0);
  ASSERT(cJSON_IsFalse(cJSON_GetObjectItem(get, "direct")));
  ASSERT(clirun_num(get, "bytes_direct") == 0);
  cJSON_Delete(put);
  cJSON_Delete(get);
}

/* A put of a local file named after a case (`name`, in the test directory) to a
 * blob of that name in a fresh container, and its copy back beside it. */
typedef struct ring_case {
  clirun r;
  char container[64], url[512], src[256], back[256];
} ring_case;

static void ring_case_open(ring_case *c, const char *name) {
  char bname[80];
  memset(c, 0, sizeof *c);
  clirun_container(c->container, sizeof c->container);
  clirun_url(c->container, name, c->url, sizeof c->url);
  clirun_path(name, c->src, sizeof c->src);
  snprintf(bname, sizeof bname, "%s.back", name);
  clirun_path(bname, c->back, sizeof c->back);
}

/* Gets the blob back (over an earlier copy) and checks it is byte-identical. */
static void ring_case_check_back(ring_case *c) {
  XIO(&c->r, "get", c->url, c->back, "--force");
  EXPECT_EXIT(&c->r, 0);
  clirun_expect_same_files(c->src, c->back);
}

static void ring_case_close(ring_case *c) {
  remove(c->src);
  remove(c->back);
  clirun_free(&c->r);
}

/* With one write in flight the ring holds 3 chunks (12 MiB): a 40 MiB file with
 * holes goes round it more than three times, and a hole in the middle moves the
 * chunks' places in the ring off the file's 12 MiB multiples. The writes after it
 * start 64 KiB past a chunk: the one being built at the ring's end (24 MiB) is
 * sent before the chunk there is loaded, or it would run past the ring's end. */
TEST(put_through_a_small_ring_is_byte_identical) {
  ring_case c;
  ring_case_open(&c, "ring.mdf");
  clirun_make_source(c.src, 40 * MiB, 5);
  int fd = open(c.src, O_WRONLY);
  ASSERT(fd >= 0);
  ASSERT(fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)(9 * MiB),
                   (off_t)(5 * MiB + 64 * KiB)) == 0);
  close(fd);
  XIO(&c.r, "--json", "put", c.src, c.url, "--in-flight", "1");
  EXPECT_EXIT(&c.r, 0);
  cJSON *j = clirun_json(&c.r);
  ASSERT(clirun_num(j, "bytes_scanned") == (double)(40 * MiB - 5 * MiB - 64 * KiB));
  cJSON_Delete(j);
  ring_case_check_back(&c);
  ring_case_close(&c);
}

/* Blocks one ring apart (the default ring is 8 chunks, 32 MiB; with one write in
 * flight 3 chunks, 12 MiB): each block's chunk takes the ring place of the block
 * before it, whose write is still being built when it is loaded. */
static void ring_apart(const char *name, uint64_t ring, const char *flight) {
  ring_case c;
  ring_case_open(&c, name);
  int fd = open(c.src, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ASSERT(fd >= 0 && ftruncate(fd, (off_t)(4 * ring + 8 * KiB)) == 0);
  char block[4096];
  for (int k = 0; k < 4; k++) {
    test_fill_random(block, sizeof block, (uint64_t)k + 21);
    ASSERT_EQ(pwrite(fd, block, sizeof block, (off_t)((uint64_t)k * ring)), (ssize_t)sizeof block);
  }
  close(fd);
  XIO(&c.r, "put", c.src, c.url, "--in-flight", flight);
  EXPECT_EXIT(&c.r, 0);
  ring_case_check_back(&c);
  ring_case_close(&c);
}

TEST(put_of_blocks_one_ring_apart_is_byte_identical) {
  ring_apart("apart-6.mdf", 32 * MiB, "6");
  ring_apart("apart-1.mdf", 12 * MiB, "1");
}

#define CHUNK      (4 * MiB)                      /* put's largest request and its load */
#define SMALL_RING (3 * CHUNK)                    /* --in-flight 1: 1 + 2 chunks */
#define ROUND_SIZE (3 * SMALL_RING + CHUNK + 512) /* three rings, a chunk, a page */

/* Requests of up to a chunk that [a, b) takes when it is sent from a on. */
static uint64_t requests_from(uint64_t a, uint64_t b) { return (b - a + CHUNK - 1) / CHUNK; }

/* A put round the small ring more than three times: zeros for `lead` bytes (a
 * page off a 4 KiB block, so the requests start off the chunks), then data to
 * the end, less a hole of `hole` bytes just past the first ring end (the extent
 * after it starts inside the ring's first chunk). No request may run past the
 * ring's end: the one being built is sent before the chunk past it. */
static void put_round_the_ring(const char *name, uint64_t lead, uint64_t hole) {
  ring_case c;
  ring_case_open(&c, name);
  clirun_make_source(c.src, ROUND_SIZE, 31); /* whole 4 MiB pieces: cut down below */
  int fd = open(c.src, O_WRONLY);
  ASSERT(fd >= 0 && ftruncate(fd, (off_t)ROUND_SIZE) == 0);
  char *zeros = calloc(1, lead);
  ASSERT(zeros && pwrite(fd, zeros, lead, 0) == (ssize_t)lead);
  free(zeros);
  if (hole)
    ASSERT(fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)SMALL_RING,
                     (off_t)hole) == 0);
  close(fd);
  XIO(&c.r, "--json", "put", c.src, c.url, "--in-flight", "1");
  EXPECT_EXIT(&c.r, 0);
  cJSON *j = clirun_json(&c.r);
  /* Each lap of the ring has its data cut into requests of a chunk from where the
   * data starts in it, the last one ending at the ring's end:
   *   lap 0, [lead, 12 MiB):             ceil((12 MiB - lead) / 4 MiB)        = 3
   *   lap 1, [12 MiB + hole, 24 MiB):    ceil((12 MiB - hole) / 4 MiB)        = 3
   *   lap 2, [24 MiB, 36 MiB):           12 MiB / 4 MiB                       = 3
   *   lap 3, [36 MiB, 40 MiB + 512):     ceil((4 MiB + 512) / 4 MiB)          = 2
   * 11 in all. Requests joined across the ring's ends would be 4 MiB each from
   * `lead` on, the hole bridged: ceil((40 MiB + 512 - lead) / 4 MiB) = 10. */
  uint64_t writes =
      requests_from(lead, SMALL_RING) + requests_from(SMALL_RING + hole, 2 * SMALL_RING) +
      requests_from(2 * SMALL_RING, 3 * SMALL_RING) + requests_from(3 * SMALL_RING, ROUND_SIZE);
  ASSERT(clirun_num(j, "writes") == (double)writes);
  ASSERT(clirun_num(j, "bytes_sent") == (double)(ROUND_SIZE - lead - hole));
  ASSERT(clirun_num(j, "bytes_bridged") == 0);
  cJSON_Delete(j);
  ring_case_check_back(&c);
  ring_case_close(&c);
}

TEST(put_round_a_small_ring_sends_no_request_across_its_end) {
  put_round_the_ring("round.mdf", 512, 0);
  put_round_the_ring("round-hole.mdf", 8 * KiB + 512, 4 * KiB);
}

/* One ring and 1000 bytes (--in-flight 1: 12 MiB), with 64 KiB of data from 1 KiB
 * on, inside the first 4 KiB block, and the last 1000 bytes past a hole: the
 * O_DIRECT load of that partial last block fills its whole block of the ring,
 * where the first write, sent just before, starts (ring offset 1 KiB). put waits
 * for that write before the load. Without the wait the write's first bytes may
 * still be sent after the load has overwritten them, or may already be gone: the
 * put is repeated so that a missing wait shows. */
TEST(put_waits_for_the_write_where_the_last_partial_block_is_read) {
  struct statfs fs;
  ASSERT(statfs(clirun_dir(), &fs) == 0);
  if (fs.f_type != EXT4_MAGIC) SKIP("the test directory is not on ext4: no O_DIRECT reads");
  ring_case c;
  ring_case_open(&c, "tail-block.mdf");
  int fd = open(c.src, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ASSERT(fd >= 0 && ftruncate(fd, (off_t)(SMALL_RING + 1000)) == 0);
  char *buf = malloc(64 * KiB);
  ASSERT(buf);
  test_fill_random(buf, 64 * KiB, 41);
  buf[0] = 1;
  ASSERT_EQ(pwrite(fd, buf, 64 * KiB, 1024), (ssize_t)(64 * KiB));
  ASSERT_EQ(pwrite(fd, buf, 1000, (off_t)SMALL_RING), 1000);
  free(buf);
  ASSERT(fsync(fd) == 0); /* O_DIRECT reads what is on the disk */
  close(fd);
  for (int k = 0; k < 6; k++) {
    char name[64];
    snprintf(name, sizeof name, "tail-block-%d.mdf", k);
    clirun_url(c.container, name, c.url, sizeof c.url); /* a fresh blob each time */
    XIO(&c.r, "--json", "put", c.src, c.url, "--in-flight", "1", "--checksum", "none");
    EXPECT_EXIT(&c.r, 0);
    cJSON *j = clirun_json(&c.r);
    ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(j, "direct")));
    ASSERT(clirun_num(j, "writes") == 2);
    cJSON_Delete(j);
    ring_case_check_back(&c);
  }
  ring_case_close(&c);
}
