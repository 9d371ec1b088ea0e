/*
 * zero_test.c - zeroing on local files: CLEAR is metadata-only (FIEMAP shows no
 * written extents left in the range), ZERO writes; the fallbacks when a file system
 * refuses ZERO_RANGE or PUNCH_HOLE, remembered per file; growth and shrinking under
 * each init policy with the exact trace events and statistics.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <xio/xio.h>

#include "fixture.h"
#include "test.h"
#include "util.h"

#define MiB ((uint64_t)1 << 20)

/* ------------------------------------------------------------ helpers ---- */

static void read_all(xio_file *f, uint64_t off, void *buf, size_t len) {
  size_t n = 0;
  xio_error e;
  ASSERT_OK(xio_file_read(f, off, buf, len, &n, &e), &e);
  ASSERT_EQ(n, len);
}

static void assert_zero(xio_file *f, uint64_t off, uint64_t len) {
  char *buf = malloc(len ? len : 1);
  memset(buf, 0x5A, len);
  read_all(f, off, buf, len);
  for (uint64_t i = 0; i < len; i++)
    if (buf[i])
      FAIL("byte %" PRIu64 " of [%" PRIu64 ", +%" PRIu64 ") is 0x%02x, not zero", off + i, off, len,
           (unsigned char)buf[i]);
  free(buf);
}

/* Writes `len` random bytes from `seed` at `off` in 8 MiB pieces and fsyncs. */
static void fill(xio_file *f, uint64_t off, uint64_t len, uint64_t seed) {
  char *buf = malloc(8 * MiB);
  xio_error e;
  for (uint64_t done = 0; done < len; done += 8 * MiB) {
    size_t n = len - done < 8 * MiB ? (size_t)(len - done) : 8 * MiB;
    test_fill_random(buf, n, seed + done / (8 * MiB));
    ASSERT_OK(xio_file_write(f, off + done, buf, n, &e), &e);
  }
  ASSERT_OK(xio_file_flush(f, &e), &e);
  free(buf);
}

/* Checks [off, off+len) of a file filled by fill(.., 0, .., seed) still holds it. */
static void assert_filled(xio_file *f, uint64_t off, uint64_t len, uint64_t seed) {
  char *want = malloc(8 * MiB), *got = malloc(8 * MiB);
  for (uint64_t p = off; p < off + len;) {
    uint64_t piece = p / (8 * MiB), in = p % (8 * MiB);
    size_t n = (size_t)(8 * MiB - in < off + len - p ? 8 * MiB - in : off + len - p);
    test_fill_random(want, 8 * MiB, seed + piece);
    read_all(f, p, got, n);
    ASSERT_MEM_EQ(got, want + in, n);
    p += n;
  }
  free(want);
  free(got);
}

/* Bytes of [off, off+len) of `path` in written extents: not holes, not unwritten. */
static uint64_t written_bytes(const char *path, uint64_t off, uint64_t len) {
  enum { N = 256 };
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  ASSERT(fd >= 0);
  size_t size = sizeof(struct fiemap) + N * sizeof(struct fiemap_extent);
  struct fiemap *fm = malloc(size);
  uint64_t pos = off, end = off + len, written = 0;
  while (pos < end) {
    memset(fm, 0, size); /* extents too: valgrind does not see the ioctl fill them */
    fm->fm_start = pos;
    fm->fm_length = end - pos;
    fm->fm_flags = FIEMAP_FLAG_SYNC;
    fm->fm_extent_count = N;
    ASSERT_EQ(ioctl(fd, FS_IOC_FIEMAP, fm), 0);
    if (fm->fm_mapped_extents == 0) break;
    const struct fiemap_extent *x = NULL;
    for (unsigned i = 0; i < fm->fm_mapped_extents; i++) {
      x = &fm->fm_extents[i];
      uint64_t s = x->fe_logical > off ? x->fe_logical : off;
      uint64_t e = x->fe_logical + x->fe_length < end ? x->fe_logical + x->fe_length : end;
      if (e > s && !(x->fe_flags & (FIEMAP_EXTENT_UNWRITTEN | FIEMAP_EXTENT_DELALLOC)))
        written += e - s;
    }
    if (x->fe_flags & FIEMAP_EXTENT_LAST) break;
    pos = x->fe_logical + x->fe_length;
  }
  free(fm);
  close(fd);
  return written;
}

static int on_fs(const char *dir, long magic) {
  struct statfs s;
  return statfs(dir, &s) == 0 && s.f_type == magic;
}

static void reset_shim(void) {
  atomic_store(&lt_falloc_refuse, 0);
  atomic_store(&lt_falloc_errno, 0);
  atomic_store(&lt_falloc_calls_zero_range, 0);
  atomic_store(&lt_falloc_calls_punch_hole, 0);
}

/* Makes a 64 MiB data file of random bytes, fsynced. */
static xio_file *random_64(lt_env *env, const char *name, char *path, size_t size) {
  lt_path(env, name, path, size);
  xio_file *f = lt_create(env, name, XIO_KIND_DATA, 64 * MiB, XIO_INIT_NONE);
  fill(f, 0, 64 * MiB, 42);
  return f;
}

/* Zeroes [16, 48) MiB of a file from random_64 with `how` and checks the bytes.
 * Returns the time the zeroing took, and `*durable_us` that time with the flush
 * (fsync) that makes it durable; `*events` gets the trace events it made (the
 * events stay captured for the caller to look at until the next reset). */
static int64_t zero_middle(lt_env *env, xio_file *f, xio_init how, int *events,
                           int64_t *durable_us) {
  xio_error e;
  lt_reset(env);
  int64_t t0 = lt_now_us();
  ASSERT_OK(xio_file_zero(f, 16 * MiB, 32 * MiB, how, &e), &e);
  int64_t us = lt_now_us() - t0;
  *events = lt_total(env);
  ASSERT_OK(xio_file_flush(f, &e), &e);
  *durable_us = lt_now_us() - t0;
  assert_zero(f, 16 * MiB, 32 * MiB);
  assert_filled(f, 0, 16 * MiB, 42);
  assert_filled(f, 48 * MiB, 16 * MiB, 42);
  ASSERT_U64_EQ(xio_file_size(f), 64 * MiB);
  return us;
}

/* ------------------------------------------------------------ zeroing ---- */

TEST(clear_is_metadata_only) {
  lt_env env;
  lt_setup(&env);
  if (!on_fs(env.dir, EXT4_SUPER_MAGIC))
    SKIP("the temporary directory (TMPDIR, default /tmp) is not on ext4");
  reset_shim();
  char path[512];
  xio_file *f = random_64(&env, "clear.dat", path, sizeof path);
  ASSERT_U64_EQ(written_bytes(path, 16 * MiB, 32 * MiB), 32 * MiB);
  int events;
  int64_t clear_sync_us, zero_sync_us;
  int64_t clear_us = zero_middle(&env, f, XIO_INIT_CLEAR, &events, &clear_sync_us);
  ASSERT_EQ(events, 1);
  ASSERT_EQ(lt_count(&env, XIO_REQ_ZERO), 1);
  ASSERT_EQ(lt_count(&env, XIO_REQ_WRITE), 0);
  lt_event ev = lt_get(&env, 0);
  ASSERT_U64_EQ(ev.offset, 16 * MiB);
  ASSERT_U64_EQ(ev.length, 32 * MiB);
  ASSERT_EQ(atomic_load(&lt_falloc_calls_zero_range), 1); /* ext4 takes ZERO_RANGE */
  ASSERT_EQ(atomic_load(&lt_falloc_calls_punch_hole), 0);
  xio_error e;
  ASSERT_OK(xio_file_flush(f, &e), &e);
  ASSERT_U64_EQ(written_bytes(path, 16 * MiB, 32 * MiB), 0); /* unwritten or holes */
  ASSERT_U64_EQ(written_bytes(path, 0, 16 * MiB), 16 * MiB);
  xio_file_stats st;
  xio_file_get_stats(f, &st);
  ASSERT_U64_EQ(st.bytes_cleared, 32 * MiB);
  ASSERT_U64_EQ(st.bytes_zero_written, 0);
  ASSERT_OK(xio_file_close(f, &e), &e);

  /* The same with ZERO writes zeros: the range stays in written extents. */
  f = random_64(&env, "zero.dat", path, sizeof path);
  int64_t zero_us = zero_middle(&env, f, XIO_INIT_ZERO, &events, &zero_sync_us);
  ASSERT_EQ(events, 8); /* 4 MiB of zeros per request */
  ASSERT_EQ(lt_count(&env, XIO_REQ_ZERO), 8);
  ASSERT_OK(xio_file_flush(f, &e), &e);
  ASSERT_U64_EQ(written_bytes(path, 16 * MiB, 32 * MiB), 32 * MiB);
  xio_file_get_stats(f, &st);
  ASSERT_U64_EQ(st.bytes_cleared, 0);
  ASSERT_U64_EQ(st.bytes_zero_written, 32 * MiB);
  ASSERT_OK(xio_file_close(f, &e), &e);
  printf("zeroing 32 MiB of 64 MiB on ext4: clear (ZERO_RANGE) %lld us, %lld us with fsync; "
         "zero (writes) %lld us, %lld us with fsync\n",
         (long long)clear_us, (long long)clear_sync_us, (long long)zero_us,
         (long long)zero_sync_us);
  lt_teardown(&env);
}

TEST(clear_falls_back_to_punch_hole) {
  lt_env env;
  lt_setup(&env);
  reset_shim();
  atomic_store(&lt_falloc_refuse, LT_FALLOC_ZERO_RANGE);
  char path[512];
  xio_file *f = random_64(&env, "punch.dat", path, sizeof path);
  int events;
  int64_t durable_us;
  zero_middle(&env, f, XIO_INIT_CLEAR, &events, &durable_us);
  ASSERT_EQ(events, 1);
  ASSERT_EQ(lt_count(&env, XIO_REQ_ZERO), 1);
  ASSERT_STR_EQ(lt_get(&env, 0).result, "ok");
  ASSERT_EQ(atomic_load(&lt_falloc_calls_zero_range), 1);
  ASSERT_EQ(atomic_load(&lt_falloc_calls_punch_hole), 1);
  ASSERT_U64_EQ(written_bytes(path, 16 * MiB, 32 * MiB), 0);
  int fd = open(path, O_RDONLY | O_CLOEXEC); /* a hole, not unwritten extents */
  ASSERT_EQ(lseek(fd, (off_t)(16 * MiB), SEEK_HOLE), (off_t)(16 * MiB));
  ASSERT_EQ(lseek(fd, (off_t)(16 * MiB), SEEK_DATA), (off_t)(48 * MiB));
  close(fd);
  /* The refusal is remembered: the next clear goes straight to PUNCH_HOLE. */
  xio_error e;
  ASSERT_OK(xio_file_zero(f, 1 * MiB, 1 * MiB + 3, XIO_INIT_CLEAR, &e), &e);
  assert_zero(f, 1 * MiB, 1 * MiB + 3);
  ASSERT_EQ(atomic_load(&lt_falloc_calls_zero_range), 1);
  ASSERT_EQ(atomic_load(&lt_falloc_calls_punch_hole), 2);
  ASSERT_OK(xio_file_close(f, &e), &e);
  /* Per file: a new open tries ZERO_RANGE again. */
  f = lt_open(&env, "punch.dat", 0);
  ASSERT_OK(xio_file_zero(f, 0, 4096, XIO_INIT_CLEAR, &e), &e);
  ASSERT_EQ(atomic_load(&lt_falloc_calls_zero_range), 2);
  ASSERT_OK(xio_file_close(f, &e), &e);
  lt_teardown(&env);
}

TEST(clear_falls_back_to_writing_zeros) {
  lt_env env;
  lt_setup(&env);
  reset_shim();
  atomic_store(&lt_falloc_refuse, LT_FALLOC_ZERO_RANGE | LT_FALLOC_PUNCH_HOLE);
  atomic_store(&lt_falloc_errno, ENOSYS);
  char path[512];
  xio_file *f = random_64(&env, "write.dat", path, sizeof path);
  int events;
  int64_t durable_us;
  zero_middle(&env, f, XIO_INIT_CLEAR, &events, &durable_us);
  ASSERT_EQ(events, 1); /* one clear, one event, however it was done */
  ASSERT_EQ(lt_count(&env, XIO_REQ_ZERO), 1);
  ASSERT_U64_EQ(lt_get(&env, 0).length, 32 * MiB);
  ASSERT_EQ(atomic_load(&lt_falloc_calls_zero_range), 1);
  ASSERT_EQ(atomic_load(&lt_falloc_calls_punch_hole), 1);
  xio_error e;
  ASSERT_OK(xio_file_flush(f, &e), &e);
  ASSERT_U64_EQ(written_bytes(path, 16 * MiB, 32 * MiB), 32 * MiB); /* written zeros */
  ASSERT_OK(xio_file_zero(f, 7, 5 * MiB, XIO_INIT_CLEAR, &e), &e);
  assert_zero(f, 7, 5 * MiB);
  ASSERT_EQ(atomic_load(&lt_falloc_calls_zero_range), 1); /* not retried */
  ASSERT_EQ(atomic_load(&lt_falloc_calls_punch_hole), 1);
  xio_file_stats st;
  xio_file_get_stats(f, &st);
  ASSERT_U64_EQ(st.bytes_cleared, 37 * MiB);
  ASSERT_OK(xio_file_close(f, &e), &e);
  lt_teardown(&env);
}

TEST(clear_failure_is_reported_not_downgraded) {
  lt_env env;
  lt_setup(&env);
  reset_shim();
  xio_file *f = lt_create(&env, "fail.dat", XIO_KIND_DATA, 8 * MiB, XIO_INIT_NONE);
  atomic_store(&lt_falloc_refuse, LT_FALLOC_ZERO_RANGE);
  atomic_store(&lt_falloc_errno, ENOSPC);
  lt_reset(&env);
  xio_error e;
  xio_error_clear(&e);
  ASSERT_ERR(xio_file_zero(f, 0, MiB, XIO_INIT_CLEAR, &e), XIO_EIO, &e);
  ASSERT_EQ(e.sys_errno, ENOSPC);
  ASSERT_STR_EQ(e.operation, "ZeroFile");
  ASSERT_CONTAINS(e.message, "FALLOC_FL_ZERO_RANGE");
  ASSERT_CONTAINS(e.target, "fail.dat");
  ASSERT_EQ(lt_total(&env), 1);
  ASSERT_STR_EQ(lt_get(&env, 0).result, "XIO_EIO");
  ASSERT_EQ(atomic_load(&lt_falloc_calls_punch_hole), 0);
  xio_file_stats st;
  xio_file_get_stats(f, &st);
  ASSERT_U64_EQ(st.failures, 1);
  ASSERT_U64_EQ(st.bytes_cleared, 0);
  /* The failure was sticky until a flush reported it; ZERO_RANGE is used again. */
  ASSERT_ERR(xio_file_flush(f, &e), XIO_EIO, &e);
  ASSERT_OK(xio_file_flush(f, &e), &e);
  atomic_store(&lt_falloc_refuse, 0);
  ASSERT_OK(xio_file_zero(f, 0, MiB, XIO_INIT_CLEAR, &e), &e);
  ASSERT_EQ(atomic_load(&lt_falloc_calls_zero_range), 2);
  ASSERT_OK(xio_file_close(f, &e), &e);
  lt_teardown(&env);
}

TEST(clear_on_tmpfs) {
  if (!on_fs("/dev/shm", TMPFS_MAGIC)) SKIP("/dev/shm is not tmpfs");
  lt_env env;
  lt_setup_in(&env, "/dev/shm");
  reset_shim();
  xio_file *f = lt_create(&env, "shm.log", XIO_KIND_DATA, 0, XIO_INIT_NONE);
  fill(f, 0, 8 * MiB, 42);
  lt_reset(&env);
  xio_error e;
  ASSERT_OK(xio_file_zero(f, 1 * MiB + 1, 4 * MiB, XIO_INIT_CLEAR, &e), &e);
  assert_zero(f, 1 * MiB + 1, 4 * MiB);
  assert_filled(f, 0, 1 * MiB + 1, 42);
  assert_filled(f, 5 * MiB + 1, 3 * MiB - 1, 42);
  ASSERT_EQ(lt_count(&env, XIO_REQ_ZERO), 1);
  printf("tmpfs: ZERO_RANGE calls %d, PUNCH_HOLE calls %d\n",
         atomic_load(&lt_falloc_calls_zero_range), atomic_load(&lt_falloc_calls_punch_hole));
  ASSERT_OK(xio_file_close(f, &e), &e);
  lt_teardown(&env);
}

TEST(zero_unaligned_ranges_and_errors) {
  lt_env env;
  lt_setup(&env);
  xio_file *f = lt_create(&env, "u.dat", XIO_KIND_DATA, 0, XIO_INIT_NONE);
  fill(f, 0, 3 * MiB, 42);
  xio_error e;
  ASSERT_OK(xio_file_zero(f, 1, 1, XIO_INIT_CLEAR, &e), &e);
  ASSERT_OK(xio_file_zero(f, 4095, 4099, XIO_INIT_DEFAULT, &e), &e);
  ASSERT_OK(xio_file_zero(f, MiB + 3, 511, XIO_INIT_ZERO, &e), &e);
  assert_zero(f, 1, 1);
  assert_zero(f, 4095, 4099);
  assert_zero(f, MiB + 3, 511);
  assert_filled(f, 0, 1, 42);
  assert_filled(f, 2, 4093, 42);
  assert_filled(f, 8194, MiB + 3 - 8194, 42);
  assert_filled(f, MiB + 514, 2 * MiB - 514, 42);
  ASSERT_ERR(xio_file_zero(f, 0, 10, XIO_INIT_NONE, &e), XIO_EINVAL, &e);
  ASSERT_ERR(xio_file_zero(f, 3 * MiB - 1, 2, XIO_INIT_CLEAR, &e), XIO_ERANGE, &e);
  ASSERT_OK(xio_file_close(f, &e), &e);
  lt_teardown(&env);
}

/* ------------------------------------------------------------- growth ---- */

/* Grows a 1 MiB + 3 file of random bytes by `by` with `init`; checks the old bytes,
 * the new zeros and the trace events: one SetFileSize, then `zero_events` ZeroFile. */
static xio_file_stats grow_case(xio_kind kind, xio_init init, uint64_t by, int zero_events) {
  lt_env env;
  lt_setup(&env);
  uint64_t old = MiB + 3;
  xio_file *f = lt_create(&env, "g", kind, 0, XIO_INIT_NONE);
  fill(f, 0, old, 42);
  lt_reset(&env);
  xio_error e;
  ASSERT_OK(xio_file_set_size(f, old + by, init, &e), &e);
  ASSERT_U64_EQ(xio_file_size(f), old + by);
  ASSERT_EQ(lt_count(&env, XIO_REQ_SET_SIZE), 1);
  ASSERT_EQ(lt_count(&env, XIO_REQ_ZERO), zero_events);
  ASSERT_EQ(lt_total(&env), 1 + zero_events);
  lt_event first = lt_get(&env, 0);
  ASSERT_EQ(first.type, XIO_REQ_SET_SIZE);
  ASSERT_U64_EQ(first.length, old + by);
  uint64_t zeroed = 0;
  for (int i = 1; i <= zero_events; i++) {
    lt_event ev = lt_get(&env, i);
    ASSERT(ev.offset >= old && ev.offset + ev.length <= old + by);
    zeroed += ev.length;
  }
  ASSERT_U64_EQ(zeroed, zero_events ? by : 0);
  assert_zero(f, old, by);
  assert_filled(f, 0, old, 42);
  xio_file_stats st;
  xio_file_get_stats(f, &st);
  ASSERT_OK(xio_file_close(f, &e), &e);
  lt_teardown(&env);
  return st;
}

TEST(grow_with_init_none) {
  xio_file_stats st = grow_case(XIO_KIND_DATA, XIO_INIT_NONE, 10 * MiB + 5, 0);
  ASSERT_U64_EQ(st.bytes_cleared, 0);
  ASSERT_U64_EQ(st.bytes_zero_written, 0);
}

TEST(grow_with_init_zero) {
  xio_file_stats st = grow_case(XIO_KIND_DATA, XIO_INIT_ZERO, 10 * MiB + 5, 3);
  ASSERT_U64_EQ(st.bytes_cleared, 0);
  ASSERT_U64_EQ(st.bytes_zero_written, 10 * MiB + 5);
}

TEST(grow_with_init_clear) {
  xio_file_stats st = grow_case(XIO_KIND_DATA, XIO_INIT_CLEAR, 10 * MiB + 5, 1);
  ASSERT_U64_EQ(st.bytes_cleared, 10 * MiB + 5);
  ASSERT_U64_EQ(st.bytes_zero_written, 0);
}

TEST(grow_data_default_is_none) {
  xio_file_stats st = grow_case(XIO_KIND_DATA, XIO_INIT_DEFAULT, 3 * MiB, 0);
  ASSERT_U64_EQ(st.bytes_cleared, 0);
}

TEST(grow_log_default_clears) {
  xio_file_stats st = grow_case(XIO_KIND_LOG, XIO_INIT_DEFAULT, 100 * MiB + 1, 1);
  ASSERT_U64_EQ(st.bytes_cleared, 100 * MiB + 1);
  ASSERT_U64_EQ(st.bytes_zero_written, 0);
}

TEST(create_log_clears_its_size) {
  lt_env env;
  lt_setup(&env);
  xio_file *f = lt_create(&env, "new.log", XIO_KIND_LOG, 5 * MiB + 1, XIO_INIT_DEFAULT);
  ASSERT_EQ(lt_total(&env), 2);
  ASSERT_EQ(lt_get(&env, 0).type, XIO_REQ_CREATE);
  ASSERT_EQ(lt_get(&env, 1).type, XIO_REQ_ZERO);
  ASSERT_U64_EQ(lt_get(&env, 1).length, 5 * MiB + 1);
  assert_zero(f, 0, 5 * MiB + 1);
  xio_error e;
  ASSERT_OK(xio_file_close(f, &e), &e);
  lt_teardown(&env);
}

TEST(shrink_then_grow_reads_zero) {
  lt_env env;
  lt_setup(&env);
  xio_file *f = lt_create(&env, "s.dat", XIO_KIND_DATA, 0, XIO_INIT_NONE);
  fill(f, 0, 4 * MiB, 42);
  lt_reset(&env);
  xio_error e;
  ASSERT_OK(xio_file_set_size(f, MiB + 7, XIO_INIT_DEFAULT, &e), &e);
  ASSERT_U64_EQ(xio_file_size(f), MiB + 7);
  ASSERT_EQ(lt_total(&env), 1);
  ASSERT_EQ(lt_get(&env, 0).type, XIO_REQ_SET_SIZE);
  ASSERT_OK(xio_file_set_size(f, 4 * MiB, XIO_INIT_NONE, &e), &e);
  assert_zero(f, MiB + 7, 3 * MiB - 7);
  assert_filled(f, 0, MiB + 7, 42);
  ASSERT_OK(xio_file_set_size(f, 0, XIO_INIT_NONE, &e), &e);
  ASSERT_OK(xio_file_set_size(f, 10, XIO_INIT_ZERO, &e), &e);
  assert_zero(f, 0, 10);
  ASSERT_EQ(lt_count(&env, XIO_REQ_SET_SIZE), 4);
  ASSERT_OK(xio_file_close(f, &e), &e);
  f = lt_open(&env, "s.dat", 0);
  ASSERT_U64_EQ(xio_file_size(f), 10);
  ASSERT_OK(xio_file_close(f, &e), &e);
  lt_teardown(&env);
}

TEST(stats_count_calls_and_requests) {
  lt_env env;
  lt_setup(&env);
  xio_file *f = lt_create(&env, "st.dat", XIO_KIND_DATA, 0, XIO_INIT_NONE);
  size_t len = 9 * MiB;
  char *buf = calloc(1, len);
  xio_error e;
  lt_reset(&env);
  ASSERT_OK(xio_file_write(f, 0, buf, len, &e), &e);                /* grow + 2 writes */
  ASSERT_OK(xio_file_write(f, 100, buf, 100, &e), &e);              /* 1 write */
  read_all(f, 0, buf, len);                                         /* 2 reads */
  read_all(f, 5, buf, 10);                                          /* 1 read */
  ASSERT_OK(xio_file_zero(f, 0, 4096, XIO_INIT_CLEAR, &e), &e);     /* 1 clear */
  ASSERT_OK(xio_file_set_size(f, 10 * MiB, XIO_INIT_ZERO, &e), &e); /* 1 + 1 */
  ASSERT_OK(xio_file_flush(f, &e), &e);                             /* no request */
  xio_file_stats st;
  xio_file_get_stats(f, &st);
  ASSERT_U64_EQ(st.writes, 2);
  ASSERT_U64_EQ(st.bytes_written, len + 100);
  ASSERT_U64_EQ(st.reads, 2);
  ASSERT_U64_EQ(st.bytes_read, len + 10);
  ASSERT_U64_EQ(st.bytes_cleared, 4096);
  ASSERT_U64_EQ(st.bytes_zero_written, MiB);
  ASSERT_U64_EQ(st.requests, 10);
  ASSERT_EQ(lt_total(&env), 10);
  ASSERT_EQ(lt_count(&env, XIO_REQ_SET_SIZE), 2);
  ASSERT_EQ(lt_count(&env, XIO_REQ_WRITE), 3);
  ASSERT_EQ(lt_count(&env, XIO_REQ_READ), 3);
  ASSERT_EQ(lt_count(&env, XIO_REQ_ZERO), 2);
  ASSERT_U64_EQ(st.failures, 0);
  ASSERT_U64_EQ(st.retries, 0);
  ASSERT_OK(xio_file_close(f, &e), &e);
  free(buf);
  lt_teardown(&env);
}
