/*
 * rmw_test.c - unaligned writes to a page blob opened by several clients without
 * XIO_OPEN_EXCLUSIVE: each edge sector's read-modify-write is conditional on the
 * blob's ETag, so no client's bytes are lost to another's write of the same sector.
 * Writers are separate processes (fork), each with its own context, started
 * together; an independent context reads the result afterwards. A trace callback
 * that writes the blob through a second context between the read and the write of
 * an edge forces the conflict on demand.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"
#include "util.h"
#include "xfix.h"

#define SECTOR  512
#define SECTORS 300

/* ------------------------------------------------------------ fixtures ---- */

/* What a context's trace shows of conditional writes. */
typedef struct fence_trace {
  atomic_int reads, writes, refused; /* refused: writes answered 412 ConditionNotMet */
  void (*on_read)(const xio_trace_event *ev, void *ud);
  void *on_read_ud;
} fence_trace;

static void trace_cb(const xio_trace_event *ev, void *ud) {
  fence_trace *t = ud;
  if (ev->request_type == XIO_REQ_READ) atomic_fetch_add(&t->reads, 1);
  if (ev->request_type != XIO_REQ_WRITE) {
    if (ev->request_type == XIO_REQ_READ && t->on_read && strcmp(ev->result, "ok") == 0)
      t->on_read(ev, t->on_read_ud);
    return;
  }
  atomic_fetch_add(&t->writes, 1);
  if (ev->http_status == 412 && ev->error_code && strcmp(ev->error_code, "ConditionNotMet") == 0)
    atomic_fetch_add(&t->refused, 1);
}

static xio_ctx *new_ctx(fence_trace *t) {
  xio_ctx_options o = xio_ctx_options_default();
  o.use_environment = 0;
  o.connection_string = test_dev_connection_string();
  if (t) {
    o.trace = trace_cb;
    o.trace_ud = t;
  }
  xio_ctx *ctx = NULL;
  xio_error e;
  ASSERT_OK(xio_ctx_new(&o, &ctx, &e), &e);
  return ctx;
}

/* A fresh container's URL for blob `name`. */
static void fresh_url(const char *name, char *out, size_t size) {
  char c[64];
  test_unique_name(c, sizeof c, "rmw");
  snprintf(out, size, "%s/%s/%s", test_account_url(), c, name);
}

static xio_file *open_blob(xio_ctx *ctx, const char *url, unsigned flags, uint64_t size) {
  xio_open_options o = xio_open_options_default();
  o.flags = flags;
  o.size = size;
  xio_file *f = NULL;
  xio_error e;
  ASSERT_OK(xio_file_open(ctx, url, &o, &f, &e), &e);
  return f;
}

/* Creates the blob with `size` zero bytes, in a context that is gone on return (no
 * threads are left to fork with). */
static void create_blob(const char *url, uint64_t size) {
  xio_ctx *ctx = new_ctx(NULL);
  xio_error e;
  ASSERT_OK(xio_file_close(open_blob(ctx, url, XIO_OPEN_CREATE_ONLY, size), &e), &e);
  xio_ctx_free(ctx);
}

/* `n` bytes at `off`, read by a context of its own. */
static unsigned char *read_back(const char *url, uint64_t off, size_t n) {
  xio_ctx *ctx = new_ctx(NULL);
  xio_file *f = open_blob(ctx, url, XIO_OPEN_READONLY, 0);
  unsigned char *buf = malloc(n);
  ASSERT(buf != NULL);
  size_t got = 0;
  xio_error e;
  ASSERT_OK(xio_file_read(f, off, buf, n, &got, &e), &e);
  ASSERT_EQ(got, n);
  ASSERT_OK(xio_file_close(f, &e), &e);
  xio_ctx_free(ctx);
  return buf;
}

/* ------------------------------------------------------ writer processes ---- */

/* Writer `w` of `n` puts one byte into every sector, each writer at its own offset. */
static uint64_t byte_offset(int w, int n, int sector) {
  return (uint64_t)sector * SECTOR + (uint64_t)(w * (SECTOR / n) + sector % 7);
}

static unsigned char byte_value(int w, int sector) {
  return (unsigned char)(1 + (w * 61 + sector) % 255);
}

/* What a writer tells the parent when it is done. */
typedef struct writer_report {
  int failed_writes;
  uint64_t writes, conflicts; /* the file's counters */
  int refused;                /* 412 ConditionNotMet write events in its trace */
  char first_error[512];
} writer_report;

static void run_writer(const char *url, int w, int n, int go_fd, int report_fd) {
  fence_trace t;
  memset(&t, 0, sizeof t);
  xio_ctx *ctx = new_ctx(&t);
  xio_file *f = open_blob(ctx, url, XIO_OPEN_UNALIGNED, 0);
  char go;
  ASSERT_EQ(read(go_fd, &go, 1), 1); /* every writer starts at once */
  writer_report r;
  memset(&r, 0, sizeof r);
  for (int s = 0; s < SECTORS; s++) {
    unsigned char v = byte_value(w, s);
    xio_error e;
    if (xio_file_write(f, byte_offset(w, n, s), &v, 1, &e) != XIO_OK && r.failed_writes++ == 0)
      xio_error_format(&e, r.first_error, sizeof r.first_error);
  }
  xio_file_stats st;
  xio_file_get_stats(f, &st);
  r.writes = st.writes;
  r.conflicts = st.rmw_conflicts;
  r.refused = atomic_load(&t.refused);
  xio_error e;
  ASSERT_OK(xio_file_close(f, &e), &e);
  xio_ctx_free(ctx);
  ASSERT_EQ(write(report_fd, &r, sizeof r), (long)sizeof r);
}

/* Runs `n` writer processes over the same SECTORS sectors of a fresh blob, then
 * checks every byte of it from a context of its own. Returns the 412s all saw. */
static uint64_t writers_lose_nothing(int n) {
  char url[1024];
  fresh_url("shared.mdf", url, sizeof url);
  create_blob(url, (uint64_t)SECTORS * SECTOR);
  int go[2], rep[2];
  ASSERT_EQ(pipe(go), 0);
  ASSERT_EQ(pipe(rep), 0);
  pid_t pids[8];
  fflush(NULL);
  for (int w = 0; w < n; w++) {
    pids[w] = fork();
    ASSERT(pids[w] >= 0);
    if (pids[w] == 0) {
      close(go[1]);
      close(rep[0]);
      run_writer(url, w, n, go[0], rep[1]);
      _exit(0);
    }
  }
  close(go[0]);
  close(rep[1]);
  ASSERT_EQ(write(go[1], "gggggggg", (size_t)n), n);
  close(go[1]);
  uint64_t conflicts = 0;
  for (int w = 0; w < n; w++) {
    writer_report r;
    ASSERT_EQ(read(rep[0], &r, sizeof r), (long)sizeof r);
    if (r.failed_writes) FAIL("%d writes failed, the first: %s", r.failed_writes, r.first_error);
    ASSERT_U64_EQ(r.writes, SECTORS);
    ASSERT_U64_EQ(r.conflicts, (uint64_t)r.refused); /* every retry is in the trace */
    conflicts += r.conflicts;
  }
  close(rep[0]);
  for (int w = 0; w < n; w++) {
    int status = 0;
    ASSERT_EQ(waitpid(pids[w], &status, 0), pids[w]);
    ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  unsigned char *got = read_back(url, 0, (size_t)SECTORS * SECTOR);
  int lost = 0;
  for (int s = 0; s < SECTORS; s++)
    for (int w = 0; w < n; w++) {
      uint64_t off = byte_offset(w, n, s);
      lost += got[off] != byte_value(w, s);
      got[off] = 0;
    }
  ASSERT_EQ(lost, 0);
  ASSERT(test_all_zero(got, (size_t)SECTORS * SECTOR)); /* nothing written elsewhere */
  free(got);
  printf("%d writers: %d bytes written, 0 lost, %" PRIu64 " edge sectors written again\n", n,
         n * SECTORS, conflicts);
  return conflicts;
}

TEST(two_writer_processes_lose_no_byte) {
  /* Started together on the same sectors, each writer's reads and writes fall
   * between the other's: without the condition some bytes are lost, with it some
   * writes are refused and done again. */
  ASSERT(writers_lose_nothing(2) > 0);
}

TEST(four_writer_processes_lose_no_byte) { ASSERT(writers_lose_nothing(4) > 0); }

/* -------------------------------------------------- forced conflicts ---- */

/* Between the read and the write of the edge at `sector`, writes one byte of the same
 * sector through another context, `times` times. */
typedef struct meddler {
  xio_file *other;
  uint64_t sector;
  int times, done;
} meddler;

static void meddle(const xio_trace_event *ev, void *ud) {
  meddler *m = ud;
  if (ev->offset != m->sector || ev->length != SECTOR || m->done == m->times) return;
  unsigned char v = (unsigned char)(0x80 + m->done);
  xio_error e;
  ASSERT_OK(xio_file_write(m->other, m->sector + 10 + (uint64_t)m->done, &v, 1, &e), &e);
  m->done++;
}

TEST(a_sector_changed_between_read_and_write_is_read_again) {
  char url[1024];
  fresh_url("meddled.mdf", url, sizeof url);
  create_blob(url, 8 * SECTOR);
  fence_trace t;
  memset(&t, 0, sizeof t);
  xio_ctx *ctx = new_ctx(&t), *other_ctx = new_ctx(NULL);
  meddler m = {open_blob(other_ctx, url, XIO_OPEN_UNALIGNED, 0), 3 * SECTOR, 1, 0};
  t.on_read = meddle;
  t.on_read_ud = &m;
  xio_file *f = open_blob(ctx, url, XIO_OPEN_UNALIGNED, 0);
  xio_error e;
  ASSERT_OK(xio_file_write(f, 3 * SECTOR + 100, "A", 1, &e), &e);
  ASSERT_EQ(m.done, 1);
  xio_file_stats st;
  xio_file_get_stats(f, &st);
  ASSERT_U64_EQ(st.rmw_conflicts, 1);
  ASSERT_EQ(atomic_load(&t.refused), 1); /* the refused write is in the trace */
  ASSERT_EQ(atomic_load(&t.reads), 2);   /* read, refused write, read again, write */
  ASSERT_EQ(atomic_load(&t.writes), 2);
  ASSERT_OK(xio_file_flush(f, &e), &e); /* the refusal left no sticky error */
  ASSERT_OK(xio_file_close(f, &e), &e);
  ASSERT_OK(xio_file_close(m.other, &e), &e);
  xio_ctx_free(ctx);
  xio_ctx_free(other_ctx);
  unsigned char *got = read_back(url, 3 * SECTOR, SECTOR);
  ASSERT_EQ(got[10], 0x80); /* the other client's byte survived */
  ASSERT_EQ(got[100], 'A');
  got[10] = got[100] = 0;
  ASSERT(test_all_zero(got, SECTOR));
  free(got);
}

TEST(a_sector_that_keeps_changing_ends_in_a_clear_error) {
  char url[1024];
  fresh_url("busy.mdf", url, sizeof url);
  create_blob(url, 8 * SECTOR);
  fence_trace t;
  memset(&t, 0, sizeof t);
  xio_ctx *ctx = new_ctx(&t), *other_ctx = new_ctx(NULL);
  meddler m = {open_blob(other_ctx, url, XIO_OPEN_UNALIGNED, 0), 2 * SECTOR, 400, 0};
  t.on_read = meddle;
  t.on_read_ud = &m;
  xio_file *f = open_blob(ctx, url, XIO_OPEN_UNALIGNED, 0);
  xio_error e;
  ASSERT_ERR(xio_file_write(f, 2 * SECTOR + 300, "B", 1, &e), XIO_ECONFLICT, &e);
  ASSERT_CONTAINS(e.message, "changed under other writers");
  ASSERT_CONTAINS(e.message, "XIO_OPEN_LEASE");
  xio_file_stats st;
  xio_file_get_stats(f, &st);
  ASSERT(st.rmw_conflicts > 1); /* it tried again before giving up */
  ASSERT(m.done < m.times);     /* and gave up on its own */
  ASSERT_U64_EQ(st.rmw_conflicts, (uint64_t)atomic_load(&t.refused));
  ASSERT_EQ(atomic_load(&t.writes), atomic_load(&t.refused)); /* nothing got through */
  ASSERT_EQ(st.writes, 0);
  ASSERT_ERR(xio_file_flush(f, &e), XIO_ECONFLICT, &e); /* the failed write is reported */
  ASSERT_OK(xio_file_close(f, &e), &e);
  ASSERT_OK(xio_file_close(m.other, &e), &e);
  xio_ctx_free(ctx);
  xio_ctx_free(other_ctx);
  unsigned char *got = read_back(url, 2 * SECTOR, SECTOR);
  ASSERT_EQ(got[300], 0); /* not written */
  for (int i = 0; i < m.done; i++)
    ASSERT_EQ(got[10 + i], 0x80 + i); /* every byte of the other client is there */
  free(got);
}

/* ----------------------------------------------------- request counts ---- */

/* Requests an unaligned write of 1000 bytes at 100 (edges in sectors 0 and 2, sector
 * 1 whole) makes, with `flags`, checked against what lands. */
static void count_rmw(unsigned flags, int *reads, int *writes) {
  char url[1024];
  fresh_url("counted.mdf", url, sizeof url);
  fence_trace t;
  memset(&t, 0, sizeof t);
  xio_ctx *ctx = new_ctx(&t);
  xio_file *f = open_blob(ctx, url, XIO_OPEN_CREATE | XIO_OPEN_UNALIGNED | flags, 4 * SECTOR);
  char around[4 * SECTOR], data[1000];
  test_fill_random(around, sizeof around, 11);
  test_fill_random(data, sizeof data, 12);
  xio_error e;
  ASSERT_OK(xio_file_write(f, 0, around, sizeof around, &e), &e);
  atomic_store(&t.reads, 0);
  atomic_store(&t.writes, 0);
  ASSERT_OK(xio_file_write(f, 100, data, sizeof data, &e), &e);
  *reads = atomic_load(&t.reads);
  *writes = atomic_load(&t.writes);
  ASSERT_EQ(atomic_load(&t.refused), 0);
  ASSERT_OK(xio_file_close(f, &e), &e);
  xio_ctx_free(ctx);
  unsigned char *got = read_back(url, 0, sizeof around);
  memcpy(around + 100, data, sizeof data);
  ASSERT_MEM_EQ(got, around, sizeof around);
  free(got);
}

TEST(exclusive_opens_make_no_extra_requests) {
  int reads, writes;
  count_rmw(XIO_OPEN_EXCLUSIVE, &reads, &writes);
  ASSERT_EQ(reads, 2);  /* the two edge sectors */
  ASSERT_EQ(writes, 1); /* all three sectors at once: the lease keeps others out */
  count_rmw(0, &reads, &writes);
  ASSERT_EQ(reads, 2);
  ASSERT_EQ(writes, 3); /* each edge on its own condition, then the middle */
}
