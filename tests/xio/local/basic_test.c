/*
 * basic_test.c - the local backend's files: round trips at any offset and size,
 * short reads at the end, persistence across reopen (data, size, kind), the open
 * flags and their errors, exclusive locks, deletion, file:// URLs, and the trace
 * events of opens.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <xio/xio.h>

#include "fixture.h"
#include "test.h"
#include "util.h"

#define MiB ((size_t)1 << 20)

static void read_all(xio_file *f, uint64_t off, void *buf, size_t len) {
  size_t n = 0;
  xio_error e;
  ASSERT_OK(xio_file_read(f, off, buf, len, &n, &e), &e);
  ASSERT_EQ(n, len);
}

static void write_random(xio_file *f, uint64_t off, size_t len, uint64_t seed, char *shadow) {
  char *buf = malloc(len ? len : 1);
  test_fill_random(buf, len, seed);
  xio_error e;
  ASSERT_OK(xio_file_write(f, off, buf, len, &e), &e);
  if (shadow) memcpy(shadow + off, buf, len);
  free(buf);
}

static xio_err open_flags(lt_env *env, const char *name, unsigned flags, xio_file **f,
                          xio_error *e) {
  char path[512];
  lt_path(env, name, path, sizeof path);
  xio_open_options o = xio_open_options_default();
  o.flags = flags;
  return xio_file_open(env->ctx, path, &o, f, e);
}

TEST(roundtrip_offsets) {
  lt_env env;
  lt_setup(&env);
  static const struct {
    uint64_t off;
    size_t len;
  } w[] = {{0, 1},
           {1, 1},
           {511, 3},
           {512, 512},
           {4095, 4097},
           {100000, 65536},
           {8 * MiB - 1, 2},
           {3 * MiB + 7, 9 * MiB + 13},
           {13 * MiB + 1, 8 * MiB},
           {2, 0},
           {21 * MiB + 5, 17},
           {123457, 999983}};
  size_t total = 22 * MiB;
  char *shadow = calloc(1, total), *got = malloc(total);
  xio_file *f = lt_create(&env, "rt.dat", XIO_KIND_DATA, 0, XIO_INIT_DEFAULT);
  uint64_t end = 0;
  for (size_t i = 0; i < sizeof w / sizeof w[0]; i++) {
    write_random(f, w[i].off, w[i].len, 100 + i, shadow);
    if (w[i].len && w[i].off + w[i].len > end) end = w[i].off + w[i].len;
    ASSERT_U64_EQ(xio_file_size(f), end);
  }
  read_all(f, 0, got, (size_t)end);
  ASSERT_MEM_EQ(got, shadow, end);
  for (size_t i = 0; i < sizeof w / sizeof w[0]; i++) { /* each piece alone, unaligned */
    memset(got, 0xAA, w[i].len + 3);
    read_all(f, w[i].off, got, w[i].len);
    ASSERT_MEM_EQ(got, shadow + w[i].off, w[i].len);
  }
  xio_error e;
  ASSERT_OK(xio_file_close(f, &e), &e);
  free(shadow);
  free(got);
  lt_teardown(&env);
}

TEST(large_write_splits_into_8mib_requests) {
  lt_env env;
  lt_setup(&env);
  size_t len = 16 * MiB + 100;
  char *buf = malloc(len), *got = malloc(len);
  test_fill_random(buf, len, 7);
  xio_file *f = lt_create(&env, "big.dat", XIO_KIND_DATA, len + 5, XIO_INIT_NONE);
  lt_reset(&env);
  xio_error e;
  ASSERT_OK(xio_file_write(f, 5, buf, len, &e), &e);
  ASSERT_EQ(lt_total(&env), 3);
  ASSERT_EQ(lt_count(&env, XIO_REQ_WRITE), 3);
  uint64_t seen = 0;
  for (int i = 0; i < 3; i++) {
    lt_event ev = lt_get(&env, i);
    ASSERT(ev.length == 8 * MiB || ev.length == 100);
    ASSERT_EQ((ev.offset - 5) % (8 * MiB), 0);
    seen += ev.length;
  }
  ASSERT_U64_EQ(seen, len);
  lt_reset(&env);
  read_all(f, 5, got, len);
  ASSERT_EQ(lt_count(&env, XIO_REQ_READ), 3);
  ASSERT_MEM_EQ(got, buf, len);
  ASSERT_OK(xio_file_close(f, &e), &e);
  free(buf);
  free(got);
  lt_teardown(&env);
}

TEST(read_past_eof_is_short) {
  lt_env env;
  lt_setup(&env);
  xio_file *f = lt_create(&env, "short.dat", XIO_KIND_DATA, 0, XIO_INIT_DEFAULT);
  char buf[4096];
  write_random(f, 0, 1000, 3, NULL);
  size_t n = 12345;
  xio_error e;
  ASSERT_OK(xio_file_read(f, 900, buf, sizeof buf, &n, &e), &e);
  ASSERT_EQ(n, 100);
  lt_reset(&env);
  ASSERT_OK(xio_file_read(f, 1000, buf, sizeof buf, &n, &e), &e);
  ASSERT_EQ(n, 0);
  ASSERT_OK(xio_file_read(f, 50000, buf, sizeof buf, &n, &e), &e);
  ASSERT_EQ(n, 0);
  ASSERT_EQ(lt_total(&env), 0); /* nothing to read: no request */
  ASSERT_OK(xio_file_close(f, &e), &e);
  lt_teardown(&env);
}

TEST(reopen_keeps_data_and_size) {
  lt_env env;
  lt_setup(&env);
  size_t len = 3 * MiB + 333;
  char *want = malloc(len), *got = malloc(len);
  xio_file *f = lt_create(&env, "keep.dat", XIO_KIND_DATA, 0, XIO_INIT_DEFAULT);
  write_random(f, 0, len, 11, want);
  xio_error e;
  ASSERT_OK(xio_file_flush(f, &e), &e);
  ASSERT_OK(xio_file_close(f, &e), &e);
  f = lt_open(&env, "keep.dat", 0);
  ASSERT_U64_EQ(xio_file_size(f), len);
  ASSERT_STR_EQ(xio_file_backend(f), "local");
  read_all(f, 0, got, len);
  ASSERT_MEM_EQ(got, want, len);
  ASSERT_OK(xio_file_close(f, &e), &e);
  free(want);
  free(got);
  lt_teardown(&env);
}

TEST(kind_persists_across_reopen) {
  lt_env env;
  lt_setup(&env);
  xio_error e;
  ASSERT_OK(xio_file_close(lt_create(&env, "k.log", XIO_KIND_LOG, 4096, XIO_INIT_DEFAULT), &e), &e);
  ASSERT_OK(xio_file_close(lt_create(&env, "k.dat", XIO_KIND_DATA, 4096, XIO_INIT_DEFAULT), &e),
            &e);
  xio_file *log = lt_open(&env, "k.log", 0), *dat = lt_open(&env, "k.dat", XIO_OPEN_READONLY);
  ASSERT_EQ(xio_file_kind(log), XIO_KIND_LOG);
  ASSERT_EQ(xio_file_kind(dat), XIO_KIND_DATA);
  char path[512], v[16] = {0};
  lt_path(&env, "k.log", path, sizeof path);
  ASSERT_EQ(getxattr(path, "user.xio.kind", v, sizeof v - 1), 3);
  ASSERT_STR_EQ(v, "log");
  ASSERT_OK(xio_file_close(log, &e), &e);
  ASSERT_OK(xio_file_close(dat, &e), &e);
  /* A file made by someone else (no xattr) opens as data. */
  lt_path(&env, "plain", path, sizeof path);
  FILE *fp = fopen(path, "w");
  fclose(fp);
  xio_file *plain = lt_open(&env, "plain", 0);
  ASSERT_EQ(xio_file_kind(plain), XIO_KIND_DATA);
  ASSERT_OK(xio_file_close(plain, &e), &e);
  lt_teardown(&env);
}

TEST(create_sets_size_of_zeros) {
  lt_env env;
  lt_setup(&env);
  size_t size = 3 * MiB + 12345;
  xio_file *f = lt_create(&env, "z.dat", XIO_KIND_DATA, size, XIO_INIT_DEFAULT);
  ASSERT_U64_EQ(xio_file_size(f), size);
  char *got = malloc(size);
  memset(got, 1, size);
  read_all(f, 0, got, size);
  ASSERT(test_all_zero(got, size));
  char path[512];
  struct stat st;
  lt_path(&env, "z.dat", path, sizeof path);
  ASSERT_EQ(stat(path, &st), 0);
  ASSERT_U64_EQ(st.st_size, size); /* exact: no rounding on local files */
  xio_error e;
  ASSERT_OK(xio_file_close(f, &e), &e);
  free(got);
  lt_teardown(&env);
}

TEST(create_only_on_existing_is_eexist) {
  lt_env env;
  lt_setup(&env);
  xio_error e;
  ASSERT_OK(xio_file_close(lt_create(&env, "x.dat", XIO_KIND_DATA, 10, XIO_INIT_DEFAULT), &e), &e);
  xio_file *f = (xio_file *)1;
  ASSERT_ERR(open_flags(&env, "x.dat", XIO_OPEN_CREATE_ONLY, &f, &e), XIO_EEXIST, &e);
  ASSERT(f == NULL);
  ASSERT_EQ(e.sys_errno, EEXIST);
  ASSERT_STR_EQ(e.operation, "CreateFile");
  /* CREATE on an existing file opens it, keeping its contents. */
  ASSERT_OK(open_flags(&env, "x.dat", XIO_OPEN_CREATE, &f, &e), &e);
  ASSERT_U64_EQ(xio_file_size(f), 10);
  ASSERT_OK(xio_file_close(f, &e), &e);
  lt_teardown(&env);
}

TEST(open_missing_is_enotfound) {
  lt_env env;
  lt_setup(&env);
  xio_file *f = NULL;
  xio_error e;
  xio_error_clear(&e);
  char path[512];
  lt_path(&env, "missing.dat", path, sizeof path);
  ASSERT_ERR(open_flags(&env, "missing.dat", 0, &f, &e), XIO_ENOTFOUND, &e);
  ASSERT_EQ(e.code, XIO_ENOTFOUND);
  ASSERT_EQ(e.sys_errno, ENOENT);
  ASSERT_STR_EQ(e.operation, "OpenFile");
  ASSERT_STR_EQ(e.target, path);
  ASSERT_CONTAINS(e.message, "open");
  ASSERT_EQ(access(path, F_OK), -1); /* and nothing was created */
  /* Creating in a missing directory is not found either. */
  ASSERT_ERR(open_flags(&env, "no/such/dir.dat", XIO_OPEN_CREATE, &f, &e), XIO_ENOTFOUND, &e);
  lt_teardown(&env);
}

TEST(readonly_refuses_writes) {
  lt_env env;
  lt_setup(&env);
  xio_error e;
  xio_file *f = lt_create(&env, "ro.dat", XIO_KIND_DATA, 0, XIO_INIT_DEFAULT);
  write_random(f, 0, 8192, 5, NULL);
  ASSERT_OK(xio_file_close(f, &e), &e);
  f = lt_open(&env, "ro.dat", XIO_OPEN_READONLY);
  char buf[8192];
  ASSERT_ERR(xio_file_write(f, 0, buf, 10, &e), XIO_EREADONLY, &e);
  ASSERT_ERR(xio_file_zero(f, 0, 10, XIO_INIT_CLEAR, &e), XIO_EREADONLY, &e);
  ASSERT_ERR(xio_file_set_size(f, 100, XIO_INIT_NONE, &e), XIO_EREADONLY, &e);
  read_all(f, 0, buf, sizeof buf);
  ASSERT_OK(xio_file_flush(f, &e), &e);
  ASSERT_OK(xio_file_close(f, &e), &e);
  lt_teardown(&env);
}

TEST(exclusive_twice_is_ebusy) {
  lt_env env;
  lt_setup(&env);
  xio_error e;
  ASSERT_OK(xio_file_close(lt_create(&env, "ex.dat", XIO_KIND_DATA, 512, XIO_INIT_DEFAULT), &e),
            &e);
  lt_reset(&env);
  xio_file *a = lt_open(&env, "ex.dat", XIO_OPEN_EXCLUSIVE), *b = NULL;
  ASSERT_EQ(lt_count(&env, XIO_REQ_LEASE), 1);
  ASSERT_ERR(open_flags(&env, "ex.dat", XIO_OPEN_EXCLUSIVE, &b, &e), XIO_EBUSY, &e);
  ASSERT_CONTAINS(e.message, "in use");
  ASSERT(b == NULL);
  ASSERT_ERR(open_flags(&env, "ex.dat", XIO_OPEN_EXCLUSIVE | XIO_OPEN_BREAK_LEASE, &b, &e),
             XIO_EBUSY, &e);
  ASSERT_CONTAINS(e.message, "cannot be broken");
  ASSERT_EQ(lt_count(&env, XIO_REQ_LEASE), 3);
  lt_event ev = lt_get(&env, lt_total(&env) - 1);
  ASSERT_EQ(ev.type, XIO_REQ_LEASE);
  ASSERT_STR_EQ(ev.result, "XIO_EBUSY");
  /* A shared open still works and can write (the lock is advisory, like a lease's
   * readers); once the holder closes, an exclusive open succeeds. */
  ASSERT_OK(open_flags(&env, "ex.dat", 0, &b, &e), &e);
  ASSERT_OK(xio_file_close(b, &e), &e);
  ASSERT_OK(xio_file_close(a, &e), &e);
  ASSERT_EQ(lt_count(&env, XIO_REQ_LEASE), 4); /* the release */
  ASSERT_OK(open_flags(&env, "ex.dat", XIO_OPEN_EXCLUSIVE, &b, &e), &e);
  ASSERT_OK(xio_file_close(b, &e), &e);
  lt_teardown(&env);
}

TEST(delete_then_open_is_enotfound) {
  lt_env env;
  lt_setup(&env);
  xio_error e;
  char path[512];
  lt_path(&env, "del.dat", path, sizeof path);
  ASSERT_OK(xio_file_close(lt_create(&env, "del.dat", XIO_KIND_LOG, 4096, XIO_INIT_DEFAULT), &e),
            &e);
  lt_reset(&env);
  ASSERT_OK(xio_file_delete(env.ctx, path, &e), &e);
  ASSERT_EQ(lt_total(&env), 1);
  lt_event ev = lt_get(&env, 0);
  ASSERT_EQ(ev.type, XIO_REQ_DELETE);
  ASSERT_STR_EQ(ev.path, path);
  ASSERT_STR_EQ(ev.result, "ok");
  xio_file *f = NULL;
  ASSERT_ERR(open_flags(&env, "del.dat", 0, &f, &e), XIO_ENOTFOUND, &e);
  ASSERT_ERR(xio_file_delete(env.ctx, path, &e), XIO_ENOTFOUND, &e);
  ASSERT_EQ(e.sys_errno, ENOENT);
  ASSERT_STR_EQ(e.operation, "DeleteFile");
  ASSERT_CONTAINS(e.message, "unlink");
  lt_teardown(&env);
}

TEST(delete_while_exclusive_is_ebusy) {
  lt_env env;
  lt_setup(&env);
  char path[512];
  lt_path(&env, "held.dat", path, sizeof path);
  xio_error e;
  xio_file *f = lt_create(&env, "held.dat", XIO_KIND_DATA, 0, XIO_INIT_DEFAULT);
  ASSERT_OK(xio_file_close(f, &e), &e);
  f = lt_open(&env, "held.dat", XIO_OPEN_EXCLUSIVE);
  lt_reset(&env);
  ASSERT_ERR(xio_file_delete(env.ctx, path, &e), XIO_EBUSY, &e);
  ASSERT_CONTAINS(e.message, "in use");
  ASSERT_EQ(lt_total(&env), 1);
  ASSERT_STR_EQ(lt_get(&env, 0).result, "XIO_EBUSY");
  ASSERT_EQ(access(path, F_OK), 0);
  ASSERT_OK(xio_file_write(f, 0, "still here", 10, &e), &e);
  ASSERT_OK(xio_file_close(f, &e), &e);
  ASSERT_OK(xio_file_delete(env.ctx, path, &e), &e);
  ASSERT_EQ(access(path, F_OK), -1);
  lt_teardown(&env);
}

TEST(file_url_targets) {
  lt_env env;
  lt_setup(&env);
  char url[600], path[512];
  snprintf(url, sizeof url, "file://%s/a%%20b.dat", env.dir);
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_CREATE;
  o.size = 100;
  xio_file *f = NULL;
  xio_error e;
  ASSERT_OK(xio_file_open(env.ctx, url, &o, &f, &e), &e);
  lt_path(&env, "a b.dat", path, sizeof path);
  ASSERT_STR_EQ(xio_file_path(f), path);
  ASSERT_EQ(access(path, F_OK), 0);
  ASSERT_OK(xio_file_close(f, &e), &e);
  snprintf(url, sizeof url, "FILE://localhost%s/a%%20b.dat", env.dir);
  o.flags = 0;
  ASSERT_OK(xio_file_open(env.ctx, url, &o, &f, &e), &e);
  ASSERT_U64_EQ(xio_file_size(f), 100);
  ASSERT_OK(xio_file_close(f, &e), &e);
  ASSERT_ERR(xio_file_open(env.ctx, "file://remote/x", &o, &f, &e), XIO_EPARSE, &e);
  ASSERT_ERR(xio_file_open(env.ctx, "file:///tmp/bad%zz", &o, &f, &e), XIO_EPARSE, &e);
  ASSERT_ERR(xio_file_open(env.ctx, "file:///tmp/nul%00", &o, &f, &e), XIO_EPARSE, &e);
  ASSERT_OK(xio_file_delete(env.ctx, url, &e), &e);
  ASSERT_EQ(access(path, F_OK), -1);
  lt_teardown(&env);
}

TEST(directory_is_not_a_file) {
  lt_env env;
  lt_setup(&env);
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_READONLY;
  xio_file *f = NULL;
  xio_error e;
  ASSERT_ERR(xio_file_open(env.ctx, env.dir, &o, &f, &e), XIO_EINVAL, &e);
  ASSERT_CONTAINS(e.message, "not a regular file");
  o.flags = 0;
  ASSERT_ERR(xio_file_open(env.ctx, env.dir, &o, &f, &e), XIO_EIO, &e);
  ASSERT_EQ(e.sys_errno, EISDIR);
  lt_teardown(&env);
}

TEST(open_and_create_trace_events) {
  lt_env env;
  lt_setup(&env);
  char path[512];
  lt_path(&env, "t.dat", path, sizeof path);
  xio_error e;
  xio_file *f = NULL;
  /* CREATE on a missing file: an open that finds nothing, then the create. */
  lt_reset(&env);
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_CREATE;
  o.size = 5000;
  int64_t t0 = lt_now_us();
  ASSERT_OK(xio_file_open(env.ctx, path, &o, &f, &e), &e);
  int64_t t1 = lt_now_us();
  ASSERT_EQ(lt_total(&env), 2);
  lt_event open = lt_get(&env, 0), create = lt_get(&env, 1);
  ASSERT_EQ(open.type, XIO_REQ_OPEN);
  ASSERT_STR_EQ(open.result, "ok"); /* the missing file was expected: no failure */
  ASSERT_EQ(create.type, XIO_REQ_CREATE);
  ASSERT_STR_EQ(create.result, "ok");
  ASSERT_STR_EQ(create.path, path);
  ASSERT_U64_EQ(create.length, 5000);
  ASSERT_EQ(create.http_status, 0);
  ASSERT_STR_EQ(create.request_id, "");
  /* Both requests were measured, on the monotonic clock, inside the call's span:
   * making a file takes time, and no measurement can exceed the call around it. */
  ASSERT(create.duration_us > 0);
  ASSERT(open.duration_us + create.duration_us <= t1 - t0);
  ASSERT_OK(xio_file_close(f, &e), &e);
  /* Opening an existing file: one open. */
  lt_reset(&env);
  f = lt_open(&env, "t.dat", 0);
  ASSERT_EQ(lt_total(&env), 1);
  ASSERT_EQ(lt_get(&env, 0).type, XIO_REQ_OPEN);
  ASSERT_STR_EQ(lt_get(&env, 0).result, "ok");
  ASSERT_OK(xio_file_close(f, &e), &e);
  ASSERT_EQ(lt_total(&env), 1); /* closing a shared open makes no request */
  /* CREATE_ONLY: just the create. */
  lt_reset(&env);
  ASSERT_OK(xio_file_close(lt_create(&env, "t2.dat", XIO_KIND_DATA, 0, XIO_INIT_DEFAULT), &e), &e);
  ASSERT_EQ(lt_total(&env), 1);
  ASSERT_EQ(lt_get(&env, 0).type, XIO_REQ_CREATE);
  /* Opening a missing file: one failed open. */
  lt_reset(&env);
  ASSERT_ERR(open_flags(&env, "none.dat", 0, &f, &e), XIO_ENOTFOUND, &e);
  ASSERT_EQ(lt_total(&env), 1);
  ASSERT_STR_EQ(lt_get(&env, 0).result, "XIO_ENOTFOUND");
  lt_teardown(&env);
}

/* The descriptor behind `path` in this process, or -1. */
static int fd_of(const char *path) {
  for (int fd = 0; fd < 1024; fd++) {
    char link[64], target[512];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, target, sizeof target - 1);
    if (n <= 0) continue;
    target[n] = '\0';
    if (strcmp(target, path) == 0) return fd;
  }
  return -1;
}

TEST(descriptors_close_on_exec) {
  lt_env env;
  lt_setup(&env);
  char path[512];
  lt_path(&env, "cx.dat", path, sizeof path);
  xio_file *f = lt_create(&env, "cx.dat", XIO_KIND_DATA, 1, XIO_INIT_DEFAULT);
  int fd = fd_of(path);
  ASSERT(fd >= 0);
  ASSERT(fcntl(fd, F_GETFD) & FD_CLOEXEC);
  xio_error e;
  ASSERT_OK(xio_file_close(f, &e), &e);
  ASSERT_EQ(fd_of(path), -1);
  f = lt_open(&env, "cx.dat", XIO_OPEN_READONLY);
  ASSERT(fcntl(fd_of(path), F_GETFD) & FD_CLOEXEC);
  ASSERT_OK(xio_file_close(f, &e), &e);
  lt_teardown(&env);
}

TEST(ctx_free_closes_files_and_locks) {
  lt_env env;
  lt_setup(&env);
  char path[512];
  lt_path(&env, "open.dat", path, sizeof path);
  xio_file *f = lt_create(&env, "open.dat", XIO_KIND_DATA, 0, XIO_INIT_DEFAULT);
  xio_error e;
  ASSERT_OK(xio_file_write(f, 0, "abc", 3, &e), &e);
  xio_file_close(lt_open(&env, "open.dat", XIO_OPEN_EXCLUSIVE), &e);
  xio_file *held = lt_open(&env, "open.dat", XIO_OPEN_EXCLUSIVE);
  (void)held;
  xio_ctx_free(env.ctx); /* closes both files, dropping the lock */
  env.ctx = NULL;
  ASSERT_EQ(fd_of(path), -1);
  xio_ctx_options o = xio_ctx_options_default();
  o.use_environment = 0;
  ASSERT_OK(xio_ctx_new(&o, &env.ctx, &e), &e);
  f = lt_open(&env, "open.dat", XIO_OPEN_EXCLUSIVE);
  ASSERT_U64_EQ(xio_file_size(f), 3);
  ASSERT_OK(xio_file_close(f, &e), &e);
  lt_teardown(&env);
}

TEST(set_size_to_same_size_makes_no_request) {
  lt_env env;
  lt_setup(&env);
  xio_file *f = lt_create(&env, "same.dat", XIO_KIND_LOG, 4097, XIO_INIT_NONE);
  lt_reset(&env);
  xio_error e;
  ASSERT_OK(xio_file_set_size(f, 4097, XIO_INIT_DEFAULT, &e), &e);
  ASSERT_OK(xio_file_write(f, 0, "", 0, &e), &e);
  ASSERT_EQ(lt_total(&env), 0);
  ASSERT_OK(xio_file_close(f, &e), &e);
  lt_teardown(&env);
}

TEST(request_type_names_at_the_trace_edge) {
  /* Each request type has its SQL Server name, and the JSON line carries it. */
  const char *want[XIO_REQ_COUNT] = {
      "XIOTypeCreateFile",  "XIOTypeOpenFile",         "XIOTypeReadFile",
      "XIOTypeWriteFile",   "XIOTypeZeroFile",         "XIOTypeGetFileSize",
      "XIOTypeSetFileSize", "XIOTypeGetRanges",        "XIOTypeDeleteFile",
      "XIOTypeLease",       "XIOTypeSnapshot",         "XIOTypeListFiles",
      "XIOTypeCopyFile",    "XIOTypeUserDelegationKey"};
  for (int t = 0; t < XIO_REQ_COUNT; t++) {
    ASSERT_STR_EQ(xio_request_type_name((xio_request_type)t), want[t]);
    xio_trace_event ev;
    memset(&ev, 0, sizeof ev);
    ev.event = "xio_send_complete";
    ev.request_type = (xio_request_type)t;
    ev.result = "ok";
    char *line = xio_trace_event_json(&ev);
    ASSERT(line != NULL);
    char field[64];
    snprintf(field, sizeof field, "\"request_type\":\"%s\"", want[t]);
    ASSERT_CONTAINS(line, field);
    free(line);
  }
  ASSERT_STR_EQ(xio_request_type_name(XIO_REQ_COUNT), "?");
  ASSERT_STR_EQ(xio_request_type_name((xio_request_type)-1), "?");
}
