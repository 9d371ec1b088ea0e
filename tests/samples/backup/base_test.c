/*
 * base_test.c - the first link of a chain: `xio backup` of a sparse blob downloads
 * only its allocated ranges (counted in the trace's reads), and `xio restore` gives
 * back the snapshot byte for byte, as a sparse local file and as a new blob; the
 * manifest's format; a damaged piece is detected and leaves no target behind.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bkfix.h"
#include "test.h"
#include "util.h"

/* A 16 MiB blob with data in three places (5 MiB of it), snapshotted. */
static xio_file *sparse_blob(const char *url, char *id) {
  xio_file *f = bkfix_open(url, 16 * MiB);
  bkfix_write(f, 0, 1 * MiB, 1);
  bkfix_write(f, 4 * MiB, 3 * MiB, 2);
  bkfix_write(f, 15 * MiB, 1 * MiB, 3);
  bkfix_snapshot(f, id);
  return f;
}

TEST(base_link_is_the_allocated_ranges_and_restores_byte_identical) {
  char url[512], id[64], dir[512], ref[512], local[512], copy[1024], got[512];
  bkfix_url("base", url, sizeof url);
  xio_file *f = sparse_blob(url, id);
  clirun_path("bk-base", dir, sizeof dir);
  clirun_path("base.ref", ref, sizeof ref);
  clirun_path("base.restored", local, sizeof local);
  clirun_path("base.copy", got, sizeof got);
  clirun r = {0};
  XIO(&r, "--json", "backup", url, dir, "--snapshot", id);
  EXPECT_EXIT(&r, 0);
  cJSON *j = clirun_json(&r);
  ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(j, "base")));
  ASSERT_STR_EQ(clirun_str(j, "snapshot"), id);
  ASSERT_EQ((uint64_t)clirun_num(j, "written_bytes"), 5 * MiB);
  ASSERT_EQ((uint64_t)clirun_num(j, "bytes_read"), 5 * MiB);
  ASSERT_EQ((int)clirun_num(j, "read_requests"), 3); /* one per range: 1, 3, 1 MiB */
  int reads = 0;
  ASSERT_EQ(clirun_trace_sum(&r, "XIOTypeReadFile", &reads), 5 * MiB);
  ASSERT_EQ(reads, 3);
  ASSERT_EQ(clirun_trace_events(&r, "xio_send_complete") > 0, 1);
  cJSON_Delete(j);

  bkfix_get_snapshot(url, id, ref);
  bkfix_restore(dir, id, local);
  clirun_expect_same_files(ref, local);
  struct stat st;
  ASSERT(stat(local, &st) == 0);
  ASSERT((uint64_t)st.st_blocks * 512 < 8 * MiB); /* the holes stayed holes */

  /* Into a new blob: only the 5 MiB of data travel. */
  snprintf(copy, sizeof copy, "%s-copy", url);
  XIO(&r, "--json", "restore", dir, copy);
  EXPECT_EXIT(&r, 0);
  ASSERT_EQ(clirun_trace_sum(&r, "XIOTypeWriteFile", NULL), 5 * MiB);
  XIO(&r, "get", copy, got);
  EXPECT_EXIT(&r, 0);
  clirun_expect_same_files(ref, got);

  /* The manifest: versioned, one base link with a CRC-64 per piece. */
  char manifest[600];
  snprintf(manifest, sizeof manifest, "%s/chain.json", dir);
  FILE *mf = fopen(manifest, "r");
  ASSERT(mf != NULL);
  char text[8192];
  size_t n = fread(text, 1, sizeof text - 1, mf);
  fclose(mf);
  text[n] = '\0';
  cJSON *m = cJSON_Parse(text);
  ASSERT(m != NULL);
  ASSERT_STR_EQ(cJSON_GetObjectItem(m, "format")->valuestring, "xio-backup-chain");
  ASSERT_EQ((int)cJSON_GetObjectItem(m, "version")->valuedouble, 1);
  cJSON *links = cJSON_GetObjectItem(m, "links");
  ASSERT_EQ(cJSON_GetArraySize(links), 1);
  cJSON *pieces = cJSON_GetObjectItem(cJSON_GetArrayItem(links, 0), "pieces");
  ASSERT_EQ(cJSON_GetArraySize(pieces), 3);
  ASSERT_EQ(strlen(cJSON_GetObjectItem(cJSON_GetArrayItem(pieces, 1), "crc64")->valuestring), 16);
  cJSON_Delete(m);
  clirun_free(&r);
  xio_file_close(f, NULL);
}

TEST(damaged_piece_fails_the_restore_and_leaves_no_target) {
  char url[512], id[64], dir[512], local[512], partial[600], data[600];
  bkfix_url("damaged", url, sizeof url);
  xio_file *f = sparse_blob(url, id);
  clirun_path("bk-damaged", dir, sizeof dir);
  clirun_path("damaged.restored", local, sizeof local);
  cJSON_Delete(bkfix_backup(url, dir, NULL));
  /* One byte of the second piece flipped. */
  snprintf(data, sizeof data, "%s/link-000001.data", dir);
  int fd = open(data, O_RDWR);
  ASSERT(fd >= 0);
  char b;
  ASSERT_EQ(pread(fd, &b, 1, (off_t)(1 * MiB + 4097)), 1);
  b ^= 0x40;
  ASSERT_EQ(pwrite(fd, &b, 1, (off_t)(1 * MiB + 4097)), 1);
  close(fd);
  clirun r = {0};
  XIO(&r, "restore", dir, local);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "corrupt piece");
  ASSERT_CONTAINS(r.err, "link-000001.data");
  ASSERT_CONTAINS(r.err, "blob offset 4194304");
  snprintf(partial, sizeof partial, "%s.xio-partial", local);
  ASSERT(!bkfix_exists(local));
  ASSERT(!bkfix_exists(partial));
  /* Into a blob: refused before the blob is made. */
  char copy[1024];
  snprintf(copy, sizeof copy, "%s-copy", url);
  XIO(&r, "restore", dir, copy);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "corrupt piece");
  XIO(&r, "stat", copy);
  EXPECT_EXIT(&r, 1);
  clirun_free(&r);
  xio_file_close(f, NULL);
}
