/*
 * manifest_test.c - reading a backup chain's manifests (samples/backup: chain.c,
 * pending.c) on their own, under an allocator that records the largest allocation asked for and
 * refuses any above 64 MiB:
 *  - a damaged chain.json of a few hundred bytes (a link written [0, 9e15) with no
 *    pieces; 8 TiB written with no pieces) is refused as damaged, naming the file,
 *    the link and the field, before anything is allocated from its numbers: no
 *    allocation of even 1 MiB is asked for;
 *  - a whole manifest still loads, its pieces the cut of its ranges;
 *  - pending.json: the versioned layout records the blob it is of, the unversioned
 *    layout of older xio is read with its source unknown, another version or
 *    format is refused.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <xio/alloc.h>

#include "backup_int.h"
#include "scratch.h"
#include "test.h"

#define LIMIT ((size_t)64 << 20)

static size_t largest; /* the largest allocation asked for since the last reset */

static void *rec_malloc(size_t n) {
  if (n > largest) largest = n;
  return n > LIMIT ? NULL : malloc(n);
}
static void *rec_calloc(size_t k, size_t n) {
  size_t total = n && k > SIZE_MAX / n ? SIZE_MAX : k * n;
  if (total > largest) largest = total;
  return total > LIMIT ? NULL : calloc(k, n);
}
static void *rec_realloc(void *p, size_t n) {
  if (n > largest) largest = n;
  return n > LIMIT ? NULL : realloc(p, n);
}

static void install(void) {
  static const xio_allocator a = {rec_malloc, rec_calloc, rec_realloc, free};
  xio_alloc_set(&a);
}

static char dir[512];

static void write_file(const char *name, const char *text) {
  if (!dir[0]) test_scratch_dir(dir, sizeof dir, "xio-manifest");
  char path[700];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  if (!f || fputs(text, f) < 0 || fclose(f) != 0) FAIL("cannot write %s", path);
}

#define CHAIN_HEAD                                                                                 \
  "{\"format\": \"xio-backup-chain\", \"version\": 1, "                                            \
  "\"source\": \"http://127.0.0.1:10000/devstoreaccount1/c/b\", \"kind\": \"data\", "              \
  "\"next\": 2, \"links\": ["
#define LINK_HEAD                                                                                  \
  "{\"snapshot\": \"2026-01-02T03:04:05.0000000Z\", \"time\": \"2026-01-02T03:04:06Z\", "          \
  "\"base\": true, \"data\": \"link-000001.data\", \"seq\": 1, \"cleared\": [], "

/* Loads chain.json of `text`: expects it refused as damaged with `want` in the
 * message, and no allocation of 1 MiB or more on the way. */
static void expect_refused(const char *text, const char *want) {
  write_file("chain.json", text);
  bk_chain ch;
  xio_error e;
  largest = 0;
  ASSERT_ERR(bk_chain_load(&ch, dir, 0, &e), XIO_EPARSE, &e);
  ASSERT_CONTAINS(e.message, "chain.json: link 2026-01-02T03:04:05.0000000Z: ");
  ASSERT_CONTAINS(e.message, want);
  if (largest >= ((size_t)1 << 20)) FAIL("an allocation of %zu bytes was asked for", largest);
  bk_chain_free(&ch);
}

TEST(damaged_sizes_are_refused_before_allocating) {
  install();
  /* The link of the report: written [0, 9e15), no pieces (about 300 bytes). */
  const char *text = CHAIN_HEAD LINK_HEAD "\"size\": 9000000000000000, "
                                          "\"written\": [[0, 8999999999999999]], \"pieces\": []}]}";
  ASSERT(strlen(text) < 400);
  expect_refused(text, "\"size\" 9000000000000000 is past the largest page blob");
  /* A size that fits, ranges that do not. */
  expect_refused(CHAIN_HEAD LINK_HEAD "\"size\": 4096, \"written\": [[0, 8999999999999999]], "
                                      "\"pieces\": []}]}",
                 "\"written\" is missing or malformed (ranges [start, end]");
  /* 8 TiB written and no pieces: 2^20 pieces counted, none made. */
  expect_refused(CHAIN_HEAD LINK_HEAD "\"size\": 8796093022208, "
                                      "\"written\": [[0, 8796093022207]], \"pieces\": []}]}",
                 "\"pieces\" has 0 entries where its written ranges make 1048576");
  /* Fields named. */
  expect_refused(CHAIN_HEAD LINK_HEAD "\"size\": -1, \"written\": [], \"pieces\": []}]}",
                 "\"size\" is missing or malformed");
}

TEST(whole_manifest_loads_with_its_pieces) {
  install();
  write_file("chain.json", CHAIN_HEAD LINK_HEAD
             "\"size\": 20971520, \"written\": [[0, 16781311], [20967424, 20971519]], "
             "\"pieces\": [{\"offset\": 0, \"length\": 8388608, \"crc64\": \"0123456789abcdef\"},"
             "{\"offset\": 8388608, \"length\": 8388608, \"crc64\": \"0000000000000001\"},"
             "{\"offset\": 16777216, \"length\": 4096, \"crc64\": \"0000000000000002\"},"
             "{\"offset\": 20967424, \"length\": 4096, \"crc64\": \"0000000000000003\"}]}]}");
  bk_chain ch;
  xio_error e;
  ASSERT_OK(bk_chain_load(&ch, dir, 0, &e), &e);
  ASSERT_EQ(ch.n, 1);
  ASSERT_EQ(ch.links[0].npieces, 4);
  ASSERT_U64_EQ(ch.links[0].pieces[3].pos, 16781312);
  ASSERT_U64_EQ(ch.links[0].pieces[0].crc, 0x0123456789abcdefull);
  ASSERT_U64_EQ(bk_count_pieces(&ch.links[0].written), 4);
  bk_chain_free(&ch);
}

/* A link without its closing brace. */
#define PENDING_LINK LINK_HEAD "\"size\": 1048576, \"written\": [[0, 65535]], \"pieces\": []"

TEST(pending_records_its_source_and_reads_the_older_layout) {
  install();
  bk_link l;
  char *source = NULL;
  xio_error e;
  write_file("pending.json", PENDING_LINK ", \"format\": \"xio-backup-pending\", "
                                          "\"version\": 1, \"source\": \"http://h/a/c/b\"}");
  ASSERT_OK(bk_pending_load(dir, &l, &source, &e), &e);
  ASSERT_STR_EQ(source, "http://h/a/c/b");
  ASSERT_EQ(l.npieces, 1);
  ASSERT_EQ(l.verified, 0);
  /* Saved again: the same source, read back. */
  xio_free(source);
  ASSERT_OK(bk_pending_save(dir, &l, "http://h/a/c/other", &e), &e);
  bk_link_free(&l);
  ASSERT_OK(bk_pending_load(dir, &l, &source, &e), &e);
  ASSERT_STR_EQ(source, "http://h/a/c/other");
  xio_free(source);
  bk_link_free(&l);

  /* The unversioned layout of older xio: read, source unknown. */
  write_file("pending.json", PENDING_LINK "}");
  ASSERT_OK(bk_pending_load(dir, &l, &source, &e), &e);
  ASSERT(source == NULL);
  ASSERT_STR_EQ(l.snapshot, "2026-01-02T03:04:05.0000000Z");
  bk_link_free(&l);

  write_file("pending.json", PENDING_LINK ", \"format\": \"xio-backup-pending\", "
                                          "\"version\": 2, \"source\": \"http://h/a/c/b\"}");
  ASSERT_ERR(bk_pending_load(dir, &l, &source, &e), XIO_EPARSE, &e);
  ASSERT_CONTAINS(e.message, "pending.json is of format version 2; this xio reads version 1");
  ASSERT(source == NULL);
  bk_link_free(&l);
  write_file("pending.json", PENDING_LINK ", \"format\": \"xio-backup-pending\", "
                                          "\"version\": 1}");
  ASSERT_ERR(bk_pending_load(dir, &l, &source, &e), XIO_EPARSE, &e);
  ASSERT_CONTAINS(e.message, "pending.json: \"source\" is missing or malformed");
  bk_link_free(&l);
}
