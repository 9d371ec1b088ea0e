/*
 * damaged_test.c - a chain.json or pending.json whose numbers are damaged (a size
 * past the largest page blob, pieces missing for its ranges) is refused as damaged
 * by restore and by backup, with a message naming the file, the link and the field,
 * before anything else is done with it: no TARGET, no partial file, no request for
 * the snapshot it names. (tests/samples/backup/manifest_test.c checks that such a
 * manifest is refused before anything is allocated from its numbers.)
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "bkfix.h"
#include "test.h"
#include "util.h"

#define SNAP "2026-01-02T03:04:05.0000000Z"

/* A link of one 4 KiB piece in a blob of `size` bytes. */
static void link_text(char *out, size_t n, const char *size) {
  snprintf(out, n,
           "{\"snapshot\": \"" SNAP "\", \"time\": \"2026-01-02T03:04:06Z\", \"size\": %s, "
           "\"base\": true, \"data\": \"link-000001.data\", \"seq\": 1, "
           "\"written\": [[0, 4095]], \"cleared\": [], "
           "\"pieces\": [{\"offset\": 0, \"length\": 4096, \"crc64\": \"0000000000000000\"}]}",
           size);
}

static void write_text(const char *dir, const char *name, const char *text) {
  char path[700];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  clirun_write_file(path, text, strlen(text));
}

TEST(damaged_sizes_in_a_manifest_are_refused_naming_the_field) {
  char url[512], dir[512], local[512], partial[600], link[1024], text[2048];
  bkfix_url("damaged", url, sizeof url);
  clirun_path("bk-sizes", dir, sizeof dir);
  clirun_path("sizes.restored", local, sizeof local);
  snprintf(partial, sizeof partial, "%s.xio-partial", local);
  ASSERT(mkdir(dir, 0700) == 0);
  static const char zeros[4096];
  char data[600];
  snprintf(data, sizeof data, "%s/link-000001.data", dir);
  clirun_write_file(data, zeros, sizeof zeros);

  /* chain.json: a link of a blob of 9e15 bytes (past 8 TiB). */
  link_text(link, sizeof link, "9000000000000000");
  snprintf(text, sizeof text,
           "{\"format\": \"xio-backup-chain\", \"version\": 1, \"source\": \"%s\", "
           "\"kind\": \"data\", \"next\": 2, \"links\": [%s]}",
           url, link);
  write_text(dir, "chain.json", text);
  clirun r = {0};
  XIO(&r, "restore", dir, local);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "chain.json: link " SNAP ": \"size\" 9000000000000000 is past the "
                         "largest page blob (8 TiB");
  ASSERT(!bkfix_exists(local));
  ASSERT(!bkfix_exists(partial));

  /* chain.json: 8 TiB written, no pieces. */
  snprintf(text, sizeof text,
           "{\"format\": \"xio-backup-chain\", \"version\": 1, \"source\": \"%s\", "
           "\"kind\": \"data\", \"next\": 2, \"links\": [{\"snapshot\": \"" SNAP "\", "
           "\"time\": \"2026-01-02T03:04:06Z\", \"size\": 8796093022208, \"base\": true, "
           "\"data\": \"link-000001.data\", \"seq\": 1, \"written\": [[0, 8796093022207]], "
           "\"cleared\": [], \"pieces\": []}]}",
           url);
  write_text(dir, "chain.json", text);
  XIO(&r, "restore", dir, local);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "chain.json: link " SNAP ": \"pieces\" has 0 entries where its "
                         "written ranges make 1048576");

  /* pending.json of this blob with the same damaged size: backup refuses it before
   * it asks the service for the snapshot it names. */
  remove(data);
  snprintf(text, sizeof text, "%s/chain.json", dir);
  remove(text);
  link_text(link, sizeof link, "9000000000000000");
  size_t n = strlen(link);
  snprintf(link + n - 1, sizeof link - n + 1,
           ", \"format\": \"xio-backup-pending\", \"version\": 1, \"source\": \"%s\"}", url);
  write_text(dir, "pending.json", link);
  XIO(&r, "backup", url, dir);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "pending.json: link " SNAP ": \"size\" 9000000000000000 is past");
  ASSERT_EQ(clirun_trace_events(&r, "xio_send_complete"), 0);
  clirun_free(&r);
}
