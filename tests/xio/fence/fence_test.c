/*
 * fence_test.c - a paused writer is fenced, with real processes on the emulator.
 *
 * Process A (a child) opens a page blob exclusively and writes; A is stopped with
 * SIGSTOP past its lease, while writes it submitted are still queued; then either
 * process B (the test itself) takes the file over (break with period 0, acquire)
 * and writes, or nobody touches it; then A is resumed with SIGCONT. Everything A
 * had queued and everything it tries next must fail with XIO_ELEASELOST, and B's
 * bytes must be intact, as read back by a plain Get Blob over libcurl that shares
 * nothing with xio.
 *
 * A's lease clock lives in memory shared with the test, which moves it ahead while
 * A is stopped: A then resumes as if paused that long, without the test waiting.
 * Only the case that needs the service itself to let the lease run out waits for
 * the real 15 s (the shortest lease the service grants).
 */
#define _DEFAULT_SOURCE
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>
#include <xio/auth.h>
#include <xio/url_int.h>

#include "leaseclock.h"
#include "test.h"
#include "util.h"
#include "xfix.h"

#define PAGE      512
#define LEASE_S   15
#define QUEUED    3 /* writes A submits just before it is stopped */
#define SECOND_US 1000000

/* ------------------------------------------------- the independent reader ---- */

typedef struct sink {
  unsigned char *buf;
  size_t len, cap;
} sink;

static size_t collect(char *data, size_t size, size_t n, void *ud) {
  sink *s = ud;
  size_t len = size * n;
  if (s->len + len > s->cap) return 0; /* more than asked for: fails the transfer */
  memcpy(s->buf + s->len, data, len);
  s->len += len;
  return len;
}

/* Reads [off, off+len) of the blob with one Get Blob under a read-only SAS: libcurl
 * and the account key only, no xio context, engine or cache. */
static void raw_read(const char *container, const char *blob, uint64_t off, size_t len,
                     unsigned char *out) {
  xio_error e;
  unsigned char *key = NULL;
  size_t key_len = 0;
  ASSERT_OK(xio_auth_base64_decode(XIO_AUTH_DEV_KEY, &key, &key_len, &e), &e);
  xio_auth_sas_options so = xio_auth_sas_options_default();
  so.permissions = "r";
  so.expiry = time(NULL) + 3600;
  char *sas = NULL;
  ASSERT_OK(xio_auth_sas_generate_service("devstoreaccount1", key, key_len, container, blob, &so,
                                          &sas, &e),
            &e);
  free(key);
  char url[2048], range[96];
  snprintf(url, sizeof url, "%s/%s/%s?%s", test_account_url(), container, blob, sas);
  snprintf(range, sizeof range, "x-ms-range: bytes=%llu-%llu", (unsigned long long)off,
           (unsigned long long)(off + len - 1));
  free(sas);
  CURL *c = curl_easy_init();
  ASSERT(c != NULL);
  struct curl_slist *h = curl_slist_append(NULL, "x-ms-version: 2025-11-05");
  h = curl_slist_append(h, range);
  sink s = {out, 0, len};
  curl_easy_setopt(c, CURLOPT_URL, url);
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &s);
  curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
  CURLcode rc = curl_easy_perform(c);
  long status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  curl_slist_free_all(h);
  curl_easy_cleanup(c);
  memset(url, 0, sizeof url); /* held the signature */
  if (rc != CURLE_OK) FAIL("Get Blob failed: %s", curl_easy_strerror(rc));
  ASSERT_EQ(status, 206);
  ASSERT_EQ(s.len, len);
}

/* 1 when all `n` bytes at `p` are `v`. */
static int all_are(const unsigned char *p, size_t n, unsigned char v) {
  for (size_t i = 0; i < n; i++)
    if (p[i] != v) return 0;
  return 1;
}

/* ------------------------------------------------------------- process A ---- */

typedef struct writer {
  _Atomic int writes;     /* Put Page requests that reached the service */
  _Atomic int refused;    /* ... and were refused with 412 */
  _Atomic int leases;     /* Lease Blob requests */
  _Atomic int stop_at;    /* 1: stop the process when the next write completes */
  _Atomic int all_queued; /* the main thread has submitted every queued write */
} writer;

/* Runs on A's I/O thread as each request completes. When asked to, it stops the
 * whole process right after a write completed: the I/O thread is inside this
 * callback, so writes submitted meanwhile stay queued, unsent, until A resumes. */
static void on_trace(const xio_trace_event *ev, void *ud) {
  writer *w = ud;
  if (ev->request_type == XIO_REQ_LEASE) atomic_fetch_add(&w->leases, 1);
  if (ev->request_type != XIO_REQ_WRITE) return;
  atomic_fetch_add(&w->writes, 1);
  if (ev->http_status == 412) atomic_fetch_add(&w->refused, 1);
  int armed = 1;
  if (!atomic_compare_exchange_strong(&w->stop_at, &armed, 0)) return;
  while (!atomic_load(&w->all_queued)) {
    struct timespec ts = {0, 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  raise(SIGSTOP);
}

typedef struct proc_a {
  writer w;
  xio_ctx *ctx;
  xio_file *f;
  xio_io io[QUEUED];
  unsigned char page[PAGE];
} proc_a;

/* A's context: one request on the wire at a time, so the writes it queues stay
 * queued; renewals due after 10 s, so none falls inside the test's real time. */
static void a_open(proc_a *a, const char *url, leaseclock *clock) {
  xio_error e;
  memset(a, 0, sizeof *a);
  xio_ctx_options o = xio_ctx_options_default();
  o.use_environment = 0;
  o.connection_string = test_dev_connection_string();
  o.max_in_flight = 1;
  o.lease_duration_s = LEASE_S;
  o.lease_renew_s = 10;
  /* Each write its own request, sent at once: what is fenced here are requests
   * already queued in the engine when the process stops, not the write queue. */
  o.combine_window_us = -1;
  if (clock) o.lease_clock = leaseclock_lease(clock);
  o.trace = on_trace;
  o.trace_ud = &a->w;
  ASSERT_OK(xio_ctx_new(&o, &a->ctx, &e), &e);
  xio_open_options oo = xio_open_options_default();
  oo.flags = XIO_OPEN_CREATE | XIO_OPEN_EXCLUSIVE;
  oo.size = 16 * PAGE;
  ASSERT_OK(xio_file_open(a->ctx, url, &oo, &a->f, &e), &e);
  ASSERT_EQ(atomic_load(&a->w.leases), 1); /* the acquire */
  memset(a->page, 'A', PAGE);
  ASSERT_OK(xio_file_write(a->f, 0, a->page, PAGE, &e), &e);
}

/* Submits QUEUED writes of 'a' at pages 1.. and stops the process once the first
 * has completed: the others are queued when the stop comes. */
static void a_queue_and_stop(proc_a *a) {
  xio_error e;
  memset(a->page, 'a', PAGE);
  atomic_store(&a->w.stop_at, 1);
  for (int i = 0; i < QUEUED; i++) {
    a->io[i].op = XIO_IO_WRITE;
    a->io[i].offset = (uint64_t)(1 + i) * PAGE;
    a->io[i].length = PAGE;
    a->io[i].buf = a->page;
    ASSERT_OK(xio_file_submit(a->f, &a->io[i], &e), &e);
  }
  atomic_store(&a->w.all_queued, 1);
}

/* After the resume: the first queued write was done before the stop; the rest
 * went to the service with A's lease id and were refused there. */
static void a_check_queued(proc_a *a) {
  ASSERT_OK(xio_io_wait(&a->io[0]), &a->io[0].error);
  for (int i = 1; i < QUEUED; i++) {
    ASSERT_ERR(xio_io_wait(&a->io[i]), XIO_ELEASELOST, &a->io[i].error);
    ASSERT_EQ(a->io[i].error.http_status, 412);
  }
  ASSERT_EQ(atomic_load(&a->w.refused), QUEUED - 1);
}

/* A's next write fails at once, without a request; closing sends no release. */
static void a_check_next_and_close(proc_a *a) {
  xio_error e;
  int writes = atomic_load(&a->w.writes);
  ASSERT_ERR(xio_file_write(a->f, 8 * PAGE, a->page, PAGE, &e), XIO_ELEASELOST, &e);
  ASSERT_CONTAINS(e.message, "lease");
  ASSERT_EQ(atomic_load(&a->w.writes), writes);
  ASSERT_ERR(xio_file_zero(a->f, 9 * PAGE, PAGE, XIO_INIT_CLEAR, &e), XIO_ELEASELOST, &e);
  ASSERT_OK(xio_file_close(a->f, &e), &e);
  /* The acquire only: no renewal brought the lease back, no release was sent. */
  ASSERT_EQ(atomic_load(&a->w.leases), 1);
  xio_ctx_free(a->ctx);
}

/* ------------------------------------------------------------- the test ---- */

typedef struct names {
  char container[64];
  char blob[32];
  char url[512];
} names;

static void make_names(names *n) {
  test_unique_name(n->container, sizeof n->container, "fence");
  snprintf(n->blob, sizeof n->blob, "paused.mdf");
  snprintf(n->url, sizeof n->url, "%s/%s/%s", test_account_url(), n->container, n->blob);
}

/* Forks A running `body`; returns its pid once A has stopped itself. A is forked
 * before this process starts any thread. */
static pid_t start_a(void (*body)(const names *, leaseclock *), const names *n, leaseclock *clock) {
  fflush(NULL);
  pid_t pid = fork();
  ASSERT(pid >= 0);
  if (pid == 0) {
    body(n, clock);
    fflush(NULL);
    exit(0);
  }
  int st = 0;
  ASSERT_EQ(waitpid(pid, &st, WUNTRACED), pid);
  if (!WIFSTOPPED(st)) FAIL("process A ended (status %d) before it was stopped", st);
  return pid;
}

/* Resumes A and waits for it to finish its checks. */
static void resume_a(pid_t pid) {
  int st = 0;
  ASSERT_EQ(kill(pid, SIGCONT), 0);
  ASSERT_EQ(waitpid(pid, &st, 0), pid);
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) FAIL("process A failed (status %d)", st);
}

static void a_taken_over(const names *n, leaseclock *clock) {
  proc_a a;
  a_open(&a, n->url, clock);
  a_queue_and_stop(&a);
  a_check_queued(&a);
  a_check_next_and_close(&a);
}

TEST(paused_writer_is_fenced_after_takeover) {
  names n;
  make_names(&n);
  leaseclock *clock = leaseclock_new();
  pid_t pid = start_a(a_taken_over, &n, clock);
  /* A sleeps past its lease (on its own clock); B takes the file over at once. */
  leaseclock_advance(clock, (LEASE_S + 1) * SECOND_US);
  xfix b;
  xio_error e;
  xfix_setup(&b, 0, NULL);
  xio_open_options oo = xio_open_options_default();
  oo.flags = XIO_OPEN_EXCLUSIVE | XIO_OPEN_BREAK_LEASE;
  xio_file *g = NULL;
  ASSERT_OK(xio_file_open(b.ctx, n.url, &oo, &g, &e), &e);
  unsigned char mine[8 * PAGE];
  memset(mine, 'B', sizeof mine);
  ASSERT_OK(xio_file_write(g, PAGE, mine, sizeof mine, &e), &e); /* over A's queued pages */
  resume_a(pid);
  unsigned char back[9 * PAGE];
  raw_read(n.container, n.blob, 0, sizeof back, back);
  ASSERT(all_are(back, PAGE, 'A'));            /* A's write from before the stop */
  ASSERT(all_are(back + PAGE, 8 * PAGE, 'B')); /* B's bytes, none of A's after */
  ASSERT_OK(xio_file_close(g, &e), &e);
  xfix_teardown(&b);
  leaseclock_free(clock);
}

static void a_left_alone(const names *n, leaseclock *clock) {
  proc_a a;
  a_open(&a, n->url, clock);
  raise(SIGSTOP);
  /* Resumed 16 s later on its clock: the service may have ended the lease and
   * handed the file to someone else, so the next write is refused before it is
   * sent, though nobody did and the service would still take it. */
  xio_error e;
  memset(a.page, 'a', PAGE);
  ASSERT_ERR(xio_file_write(a.f, PAGE, a.page, PAGE, &e), XIO_ELEASELOST, &e);
  ASSERT_CONTAINS(e.message, "ran out");
  ASSERT_EQ(atomic_load(&a.w.writes), 1);
  /* Give the keeper (which looks at its clock at least every second) its chance to
   * renew: it must not. */
  struct timespec ts = {1, 500 * 1000 * 1000};
  nanosleep(&ts, NULL);
  a_check_next_and_close(&a);
}

TEST(paused_writer_stops_on_its_own_clock) {
  names n;
  make_names(&n);
  leaseclock *clock = leaseclock_new();
  pid_t pid = start_a(a_left_alone, &n, clock);
  leaseclock_advance(clock, (LEASE_S + 1) * SECOND_US);
  resume_a(pid);
  unsigned char back[2 * PAGE];
  raw_read(n.container, n.blob, 0, sizeof back, back);
  ASSERT(all_are(back, PAGE, 'A'));
  ASSERT(all_are(back + PAGE, PAGE, 0)); /* nothing written after the pause */
  leaseclock_free(clock);
}

static void a_expired(const names *n, leaseclock *clock) {
  proc_a a;
  (void)clock;
  a_open(&a, n->url, NULL); /* the system's clock: the pause is real */
  a_queue_and_stop(&a);
  a_check_queued(&a); /* refused by the service: the lease had expired (LeaseLost) */
  a_check_next_and_close(&a);
}

TEST(queued_writes_meet_an_expired_lease) {
  names n;
  make_names(&n);
  pid_t pid = start_a(a_expired, &n, NULL);
  /* Nobody takes the file: the service lets A's lease run out. */
  sleep(LEASE_S + 1);
  resume_a(pid);
  unsigned char back[4 * PAGE];
  raw_read(n.container, n.blob, 0, sizeof back, back);
  ASSERT(all_are(back, PAGE, 'A'));
  ASSERT(all_are(back + PAGE, PAGE, 'a'));       /* done before the stop */
  ASSERT(all_are(back + 2 * PAGE, 2 * PAGE, 0)); /* the queued ones: refused */
}
