/*
 * library_test.c - the backup library (samples/backup, xio_backup.h) called as an
 * engine would call it, in the engine's own context and without the command line:
 * a base and an incremental link with what each run did, the progress callback
 * reaching the link's bytes, the say callback for a DIR open to others, the chain
 * listed and a point restored byte for byte, keep folding the chain into one base,
 * and the arguments a run refuses; a point restored into a blob (only its data sent,
 * in as few writes as that takes), a blob that exists refused, replaced with force,
 * a restore stopped by its callback and finished with resume, into a local path, and
 * the arguments a restore refuses.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bkfix.h"
#include "test.h"
#include "util.h"
#include "xio_backup.h"

typedef struct heard {
  int progress_calls;
  uint64_t done, total;
  int notes;
  xio_backup_note note;
  char line[600];
} heard;

static void on_progress(void *ud, uint64_t done, uint64_t total) {
  heard *h = ud;
  if (done < h->done && h->progress_calls)
    FAIL("progress went back: %llu after %llu", (unsigned long long)done,
         (unsigned long long)h->done);
  h->progress_calls++;
  h->done = done;
  h->total = total;
}

static void on_say(void *ud, xio_backup_note note, const char *line) {
  heard *h = ud;
  h->notes++;
  h->note = note;
  snprintf(h->line, sizeof h->line, "%s", line);
}

/* One run of the library; what it did into `r`. */
static void run(const char *url, const char *dir, const char *id, size_t keep, heard *h,
                xio_backup_result *r) {
  xio_backup_options o = xio_backup_options_default();
  o.snapshot = id;
  o.keep = keep;
  o.progress = on_progress;
  o.say = on_say;
  o.ud = h;
  memset(h, 0, sizeof *h);
  xio_error e;
  ASSERT_OK(xio_backup_run(bkfix_ctx(), url, dir, &o, r, &e), &e);
}

/* Restores point `index` of the chain in `dir` into the local file `path`. */
static void restore(const char *dir, size_t index, const char *path, uint64_t *bytes) {
  xio_backup_chain *ch = NULL;
  xio_error e;
  ASSERT_OK(xio_backup_chain_open(dir, &ch, &e), &e);
  int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  ASSERT(fd >= 0);
  ASSERT_OK(xio_backup_restore_fd(ch, index, fd, path, bytes, &e), &e);
  close(fd);
  xio_backup_chain_close(ch);
}

TEST(the_library_backs_up_lists_and_restores_without_the_command_line) {
  char url[512], dir[512], id[64], ref[512], got[512];
  bkfix_url("library", url, sizeof url);
  clirun_path("bk-library", dir, sizeof dir);
  clirun_path("library.ref", ref, sizeof ref);
  clirun_path("library.got", got, sizeof got);
  xio_file *f = bkfix_open(url, 4 * MiB);
  xio_error e;
  heard h;
  xio_backup_result r;

  /* The base: the library takes the snapshot, reads the 1 MiB of data. */
  bkfix_write(f, 0, 1 * MiB, 11);
  ASSERT_OK(xio_file_wait(f, &e), &e);
  run(url, dir, NULL, 0, &h, &r);
  ASSERT_EQ(r.base, 1);
  ASSERT_EQ(r.resumed, 0);
  ASSERT_EQ(r.size, 4 * MiB);
  ASSERT_EQ(r.written_bytes, 1 * MiB);
  ASSERT_EQ(r.bytes_read, 1 * MiB);
  ASSERT_EQ(r.links, 1);
  ASSERT_STR_EQ(r.finished_first, "");
  ASSERT(h.progress_calls >= 1);
  ASSERT_EQ(h.done, 1 * MiB);
  ASSERT_EQ(h.total, 1 * MiB);
  ASSERT_EQ(h.notes, 0); /* the run made DIR: private, nothing to say */

  /* An incremental link of a snapshot the engine took. */
  bkfix_write(f, 2 * MiB, 64 * KiB, 12);
  bkfix_snapshot(f, id);
  run(url, dir, id, 0, &h, &r);
  ASSERT_EQ(r.base, 0);
  ASSERT_STR_EQ(r.snapshot, id);
  ASSERT_EQ(r.written_bytes, 64 * KiB);
  ASSERT_EQ(r.bytes_read, 64 * KiB);
  ASSERT_EQ(r.read_requests, 1);
  ASSERT_EQ(r.links, 2);
  ASSERT_EQ(h.done, 64 * KiB);

  /* The chain, listed and searched. */
  xio_backup_chain *ch = NULL;
  ASSERT_OK(xio_backup_chain_open(dir, &ch, &e), &e);
  ASSERT_EQ(xio_backup_chain_count(ch), 2);
  ASSERT_STR_EQ(xio_backup_chain_dir(ch), dir);
  ASSERT(strstr(url, xio_backup_chain_source(ch)) == url);
  ASSERT_EQ(xio_backup_chain_kind(ch), XIO_KIND_DATA);
  xio_backup_point p;
  ASSERT_EQ(xio_backup_chain_point(ch, 0, &p), XIO_OK);
  ASSERT_EQ(p.base, 1);
  ASSERT_EQ(p.written_bytes, 1 * MiB);
  ASSERT_EQ(xio_backup_chain_point(ch, 1, &p), XIO_OK);
  ASSERT_STR_EQ(p.snapshot, id);
  ASSERT_EQ(p.size, 4 * MiB);
  ASSERT_EQ(xio_backup_chain_point(ch, 2, &p), XIO_ERANGE);
  size_t at = 9;
  ASSERT_OK(xio_backup_chain_find(ch, NULL, &at, &e), &e);
  ASSERT_EQ(at, 1);
  ASSERT_OK(xio_backup_chain_find(ch, id, &at, &e), &e);
  ASSERT_EQ(at, 1);
  ASSERT_ERR(xio_backup_chain_find(ch, "nope", &at, &e), XIO_ENOTFOUND, &e);
  ASSERT_CONTAINS(e.message, "no link of snapshot nope");
  int fd = -1;
  uint64_t bytes = 0;
  ASSERT_OK(xio_backup_restore_scratch(ch, 1, &fd, &bytes, &e), &e);
  ASSERT(fd >= 0);
  ASSERT_EQ(bytes, 1 * MiB + 64 * KiB);
  struct stat st;
  ASSERT(fstat(fd, &st) == 0);
  ASSERT_EQ((uint64_t)st.st_size, 4 * MiB);
  close(fd);
  xio_backup_chain_close(ch);

  /* The point restored equals the snapshot read directly. */
  bkfix_get_snapshot(url, id, ref);
  restore(dir, 1, got, &bytes);
  clirun_expect_same_files(ref, got);

  /* A DIR open to others is said, not changed; keep 1 folds the chain into a base. */
  ASSERT(chmod(dir, 0755) == 0);
  bkfix_write(f, 3 * MiB, 4 * KiB, 13);
  ASSERT_OK(xio_file_wait(f, &e), &e);
  run(url, dir, NULL, 1, &h, &r);
  ASSERT_EQ(h.notes, 1);
  ASSERT_EQ(h.note, XIO_BACKUP_NOTE_DIR_OPEN);
  ASSERT_CONTAINS(h.line, "is open to other users (mode 755)");
  ASSERT(stat(dir, &st) == 0 && (st.st_mode & 0777) == 0755);
  ASSERT_EQ(r.links, 1);
  ASSERT_EQ(r.links_pruned, 2);
  ASSERT_EQ(r.snapshots_deleted, 2);
  ASSERT_EQ(r.base, 1);
  ASSERT(chmod(dir, 0700) == 0);
  xio_file_close(f, NULL);
}

TEST(the_library_refuses_what_cannot_be_backed_up) {
  char url[512], dir[512], snap[600];
  bkfix_url("library-bad", url, sizeof url);
  clirun_path("bk-library-bad", dir, sizeof dir);
  xio_backup_result r;
  xio_error e;
  ASSERT_ERR(xio_backup_run(bkfix_ctx(), dir, dir, NULL, &r, &e), XIO_EINVAL, &e);
  ASSERT_CONTAINS(e.message, "local files have no snapshots");
  snprintf(snap, sizeof snap, "%s?snapshot=2026-01-02T03:04:05.0000000Z", url);
  ASSERT_ERR(xio_backup_run(bkfix_ctx(), snap, dir, NULL, &r, &e), XIO_EINVAL, &e);
  ASSERT_CONTAINS(e.message, "not a snapshot's");
  xio_backup_options o = xio_backup_options_default();
  o.snapshot = "a/b";
  ASSERT_ERR(xio_backup_run(bkfix_ctx(), url, dir, &o, &r, &e), XIO_EINVAL, &e);
  ASSERT_CONTAINS(e.message, "is not a snapshot id");
  ASSERT(!bkfix_exists(dir)); /* refused before DIR was made */
  xio_backup_chain *ch = NULL;
  ASSERT_ERR(xio_backup_chain_open(dir, &ch, &e), XIO_ENOTFOUND, &e);
  ASSERT(ch == NULL);
}

/* A stop callback: stops once `*n` calls have returned 0 (-1: never, 0: at once). */
static int stop_after(void *ud) {
  int *n = ud;
  if (*n < 0) return 0;
  if (*n == 0) return 1;
  (*n)--;
  return 0;
}

/* Expects `url` (a blob or a local path) to hold the bytes of the local file `ref`. */
static void expect_same(const char *url, const char *ref) {
  char got[512];
  clirun_path("restored.got", got, sizeof got);
  clirun r = {0};
  XIO(&r, "get", "--force", url, got);
  EXPECT_EXIT(&r, 0);
  clirun_expect_same_files(ref, got);
  clirun_free(&r);
}

TEST(the_library_restores_into_a_blob_without_the_command_line) {
  char url[512], dir[512], id[64], ref[512], copy[600], local[512];
  bkfix_url("library-to", url, sizeof url);
  snprintf(copy, sizeof copy, "%s-copy", url);
  clirun_path("bk-library-to", dir, sizeof dir);
  clirun_path("library-to.ref", ref, sizeof ref);
  clirun_path("library-to.local", local, sizeof local);
  xio_file *f = bkfix_open(url, 4 * MiB);
  bkfix_write(f, 0, 1 * MiB, 21);
  bkfix_write(f, 2 * MiB, 64 * KiB, 22);
  bkfix_snapshot(f, id);
  xio_file_close(f, NULL);
  heard h;
  xio_backup_result br;
  run(url, dir, id, 0, &h, &br);
  bkfix_get_snapshot(url, id, ref);
  xio_backup_chain *ch = NULL;
  xio_error e;
  ASSERT_OK(xio_backup_chain_open(dir, &ch, &e), &e);

  /* Into a new blob: the two runs of data, one write each (the gap between them is
   * too long to bridge), the progress reaching what was gone through. */
  xio_backup_restore_options o = xio_backup_restore_options_default();
  o.progress = on_progress;
  o.ud = &h;
  memset(&h, 0, sizeof h);
  xio_backup_restore_result r;
  ASSERT_OK(xio_backup_restore_to(bkfix_ctx(), ch, 0, copy, &o, &r, &e), &e);
  ASSERT_EQ(r.size, 4 * MiB);
  ASSERT_EQ(r.bytes_read, 1 * MiB + 64 * KiB);
  ASSERT_EQ(r.writes, 2);
  ASSERT_EQ(r.bytes_sent, 1 * MiB + 64 * KiB);
  ASSERT(r.bytes_total >= 1 * MiB + 64 * KiB && r.bytes_total <= 4 * MiB);
  ASSERT_EQ(r.bytes_scanned, r.bytes_total);
  ASSERT_EQ(h.done, r.bytes_total);
  ASSERT_EQ(h.total, r.bytes_total);
  ASSERT(r.reached && r.marked && r.changed && !r.in_place);
  expect_same(copy, ref);

  /* It exists now: refused, and left as it is. */
  ASSERT_ERR(xio_backup_restore_to(bkfix_ctx(), ch, 0, copy, NULL, &r, &e), XIO_EEXIST, &e);
  ASSERT_CONTAINS(e.message, "already exists; --force replaces it");
  ASSERT(r.reached && !r.marked && !r.changed && !r.in_place);
  o = xio_backup_restore_options_default();
  o.resume = 1;
  ASSERT_ERR(xio_backup_restore_to(bkfix_ctx(), ch, 0, copy, &o, &r, &e), XIO_EEXIST, &e);
  ASSERT_CONTAINS(e.message, "nothing to resume");
  ASSERT(!r.marked && !r.changed && r.writes == 0);
  expect_same(copy, ref);

  /* force replaces it in place. */
  o = xio_backup_restore_options_default();
  o.force = 1;
  o.in_flight = 1;
  ASSERT_OK(xio_backup_restore_to(bkfix_ctx(), ch, 0, copy, &o, &r, &e), &e);
  ASSERT(r.in_place && r.marked && r.changed);
  ASSERT_EQ(r.writes, 2);
  expect_same(copy, ref);

  /* Stopped during the rebuild: nothing made. */
  char other[600];
  snprintf(other, sizeof other, "%s-other", url);
  int calls = 0;
  o = xio_backup_restore_options_default();
  o.stop = stop_after;
  o.ud = &calls;
  ASSERT_ERR(xio_backup_restore_to(bkfix_ctx(), ch, 0, other, &o, &r, &e), XIO_ECANCELED, &e);
  ASSERT_STR_EQ(e.operation, "Restore");
  ASSERT(!r.reached && !r.marked);
  xio_open_options ro = xio_open_options_default();
  ro.flags = XIO_OPEN_READONLY | XIO_OPEN_INCOMPLETE_OK;
  xio_file *g = NULL;
  ASSERT_ERR(xio_file_open(bkfix_ctx(), other, &ro, &g, &e), XIO_ENOTFOUND, &e);

  /* Stopped during the upload: the blob stays, marked incomplete, and resume
   * finishes it, comparing every byte. */
  calls = 4; /* two pieces, the target, the first extent */
  ASSERT_ERR(xio_backup_restore_to(bkfix_ctx(), ch, 0, other, &o, &r, &e), XIO_ECANCELED, &e);
  ASSERT(r.reached && r.marked && !r.in_place);
  ro.flags = XIO_OPEN_READONLY;
  ASSERT_ERR(xio_file_open(bkfix_ctx(), other, &ro, &g, &e), XIO_ECONFLICT, &e);
  o = xio_backup_restore_options_default();
  o.resume = 1;
  ASSERT_OK(xio_backup_restore_to(bkfix_ctx(), ch, 0, other, &o, &r, &e), &e);
  ASSERT(r.in_place && r.marked);
  ASSERT_EQ(r.bytes_total, 4 * MiB);
  ASSERT(r.bytes_sent <= 1 * MiB + 64 * KiB);
  expect_same(other, ref);

  /* Into a local path, through the file layer's local backend. */
  ASSERT_OK(xio_backup_restore_to(bkfix_ctx(), ch, 0, local, NULL, &r, &e), &e);
  clirun_expect_same_files(ref, local);

  /* What a restore refuses before it starts. */
  ASSERT_ERR(xio_backup_restore_to(bkfix_ctx(), ch, 0, NULL, NULL, &r, &e), XIO_EINVAL, &e);
  ASSERT_ERR(xio_backup_restore_to(NULL, ch, 0, copy, NULL, &r, &e), XIO_EINVAL, &e);
  o = xio_backup_restore_options_default();
  o.in_flight = 65;
  ASSERT_ERR(xio_backup_restore_to(bkfix_ctx(), ch, 0, copy, &o, &r, &e), XIO_EINVAL, &e);
  ASSERT_ERR(xio_backup_restore_to(bkfix_ctx(), ch, 1, copy, NULL, &r, &e), XIO_ERANGE, &e);
  xio_backup_chain_close(ch);
}
