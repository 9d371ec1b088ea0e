/*
 * private_test.c - backups are their owner's, whatever the umask: a DIR that backup
 * makes is 0700 and every file in it 0600, base and incremental links alike; an
 * existing DIR open to others is warned about and left as it is. A restore to a
 * new local file makes it 0600, one replaced with --force keeps its mode. And the
 * restore's partial file, TARGET.xio-partial, belongs to one run: a restore into a
 * TARGET another run is writing is refused, naming that run's process, and a link
 * planted at the partial path is never followed, whether the restore would have
 * succeeded or failed.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bkfix.h"
#include "cliproxy.h"
#include "child.h"
#include "test.h"
#include "util.h"

static const char victim_text[] = "the bytes of a file the restore must never touch\n";

static mode_t mode_of(const char *dir, const char *name) {
  char path[1024];
  snprintf(path, sizeof path, "%s%s%s", dir, name ? "/" : "", name ? name : "");
  struct stat st;
  if (stat(path, &st) != 0) FAIL("cannot stat %s", path);
  return st.st_mode & 07777;
}

/* A 16 MiB blob with 5 MiB of data in three places, snapshotted, backed up to `dir`. */
static xio_file *backed_up_blob(const char *name, char *url, size_t size, const char *dir) {
  char id[64];
  bkfix_url(name, url, size);
  xio_file *f = bkfix_open(url, 16 * MiB);
  bkfix_write(f, 0, 1 * MiB, 41);
  bkfix_write(f, 4 * MiB, 3 * MiB, 42);
  bkfix_write(f, 15 * MiB, 1 * MiB, 43);
  bkfix_snapshot(f, id);
  cJSON_Delete(bkfix_backup(url, dir, NULL));
  return f;
}

static void expect_victim_untouched(const char *path) {
  char *got = test_read_file(path);
  ASSERT(got != NULL);
  ASSERT_STR_EQ(got, victim_text);
  free(got);
}

TEST(backups_and_restored_files_are_private_whatever_the_umask) {
  char url[512], dir[512], open_dir[512], local[512], ref[512], id[64];
  clirun_path("bk-private", dir, sizeof dir);
  clirun_path("bk-open", open_dir, sizeof open_dir);
  clirun_path("private.restored", local, sizeof local);
  clirun_path("private.ref", ref, sizeof ref);
  mode_t old = umask(022);
  xio_file *f = backed_up_blob("private", url, sizeof url, dir);
  ASSERT_EQ(mode_of(dir, NULL), 0700);
  ASSERT_EQ(mode_of(dir, "chain.json"), 0600);
  ASSERT_EQ(mode_of(dir, "link-000001.data"), 0600);
  ASSERT_EQ(mode_of(dir, "lock"), 0600);
  /* An incremental link, and the manifest written again: private too. */
  bkfix_write(f, 8 * MiB, 1 * MiB, 44);
  bkfix_snapshot(f, id);
  cJSON_Delete(bkfix_backup(url, dir, NULL));
  ASSERT_EQ(mode_of(dir, "link-000002.data"), 0600);
  ASSERT_EQ(mode_of(dir, "chain.json"), 0600);

  /* A restore to a new local file: 0600; over one with --force: its mode kept. */
  clirun r = {0};
  XIO(&r, "restore", dir, local);
  EXPECT_EXIT(&r, 0);
  ASSERT_EQ(mode_of(local, NULL), 0600);
  bkfix_get_snapshot(url, id, ref);
  clirun_expect_same_files(ref, local);
  ASSERT_EQ(chmod(local, 0640), 0);
  XIO(&r, "restore", "--force", dir, local);
  EXPECT_EXIT(&r, 0);
  ASSERT_EQ(mode_of(local, NULL), 0640);
  clirun_expect_same_files(ref, local);

  /* A DIR the user made open to others: warned about, left as it is, its files
   * private. */
  ASSERT_EQ(mkdir(open_dir, 0755), 0);
  XIO(&r, "backup", url, open_dir);
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.err, "is open to other users (mode 755)");
  ASSERT_CONTAINS(r.err, "chmod 700");
  ASSERT_EQ(mode_of(open_dir, NULL), 0755);
  ASSERT_EQ(mode_of(open_dir, "chain.json"), 0600);
  ASSERT_EQ(mode_of(open_dir, "link-000001.data"), 0600);
  /* Made private, it is not warned about. */
  ASSERT_EQ(chmod(open_dir, 0700), 0);
  bkfix_write(f, 9 * MiB, 1 * MiB, 45);
  bkfix_snapshot(f, id);
  XIO(&r, "backup", url, open_dir);
  EXPECT_EXIT(&r, 0);
  ASSERT_NOT_CONTAINS(r.err, "open to other users");
  umask(old);
  clirun_free(&r);
  xio_file_close(f, NULL);
}

TEST(a_restore_into_a_file_another_run_writes_is_refused) {
  char url[512], dir[512], container[64], held[512], src[512], target[512], partial[600];
  char holder[64];
  clirun_path("bk-busy", dir, sizeof dir);
  clirun_path("busy-src.bin", src, sizeof src);
  clirun_path("busy.target", target, sizeof target);
  snprintf(partial, sizeof partial, "%s.xio-partial", target);
  xio_file *f = backed_up_blob("busy", url, sizeof url, dir);
  clirun_container(container, sizeof container);
  cliproxy_url(container, "held.mdf", held, sizeof held);
  clirun_make_source(src, 4 * MiB, 46);
  clirun r = {0};
  XIO_PROXIED(&r, "put", src, held);
  EXPECT_EXIT(&r, 0);

  /* A get into TARGET, held at its read (after the range listing): its partial
   * file is open. */
  clirun_bg bg;
  cliproxy_hold("GET", "/held.mdf", 1);
  XIO_START_PROXIED(&bg, 0, "get", held, target);
  int no = cliproxy_wait(&bg);
  snprintf(holder, sizeof holder, "process %d", (int)bg.pid);
  XIO(&r, "restore", dir, target);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, partial);
  ASSERT_CONTAINS(r.err, "is being written by another run");
  ASSERT_CONTAINS(r.err, holder);
  XIO(&r, "restore", "--force", dir, target);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, holder);
  cliproxy_check_held(no);
  clirun_finish(&bg, &r, 120);
  EXPECT_EXIT(&r, 0);
  clirun_expect_same_files(src, target); /* the get's bytes, as it says */
  ASSERT(!bkfix_exists(partial));
  remove(src);
  remove(target);
  clirun_free(&r);
  xio_file_close(f, NULL);
}

TEST(a_restore_never_writes_through_a_link_at_the_partial_path) {
  char url[512], dir[512], target[512], partial[600], victim[512], data[600];
  clirun_path("bk-linked", dir, sizeof dir);
  clirun_path("linked.target", target, sizeof target);
  clirun_path("bk-victim.txt", victim, sizeof victim);
  snprintf(partial, sizeof partial, "%s.xio-partial", target);
  xio_file *f = backed_up_blob("linked", url, sizeof url, dir);
  clirun_write_file(victim, victim_text, strlen(victim_text));
  ASSERT_EQ(symlink(victim, partial), 0);
  clirun r = {0};
  XIO(&r, "restore", dir, target);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "is a symbolic link");
  expect_victim_untouched(victim);
  ASSERT(!bkfix_exists(target));

  /* A hard link to the file: refused as well. */
  ASSERT_EQ(unlink(partial), 0);
  ASSERT_EQ(link(victim, partial), 0);
  XIO(&r, "restore", "--force", dir, target);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "hard links");
  expect_victim_untouched(victim);

  /* A restore that fails anyway (a damaged piece) leaves it untouched too. */
  ASSERT_EQ(unlink(partial), 0);
  ASSERT_EQ(symlink(victim, partial), 0);
  snprintf(data, sizeof data, "%s/link-000001.data", dir);
  int fd = open(data, O_RDWR);
  ASSERT(fd >= 0);
  char b;
  ASSERT_EQ(pread(fd, &b, 1, (off_t)(2 * MiB)), 1);
  b ^= 0x40;
  ASSERT_EQ(pwrite(fd, &b, 1, (off_t)(2 * MiB)), 1);
  close(fd);
  XIO(&r, "restore", dir, target);
  EXPECT_EXIT(&r, 1);
  expect_victim_untouched(victim);
  ASSERT(!bkfix_exists(target));
  ASSERT_EQ(unlink(partial), 0);
  remove(victim);
  clirun_free(&r);
  xio_file_close(f, NULL);
}
