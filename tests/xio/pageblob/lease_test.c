/*
 * lease_test.c - exclusive opens on page blobs: a second exclusive open is refused
 * as "in use", break-lease takes over, the lease is renewed in the background past
 * its duration, a lease the client's clock says ran out and a lease broken by
 * another client both stop writes with a clear error instead of writing
 * unprotected, and xio_file_lease_confirm asks the service only when the last
 * confirmation is older than its bound. The lease clock is moved ahead instead of
 * waiting for it.
 */
#define _DEFAULT_SOURCE
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include <time.h>

#include "leaseclock.h"
#include "test.h"
#include "util.h"
#include "xfix.h"

static xio_file *open_excl(xfix *fx, const char *name, unsigned extra, xio_err want) {
  char url[1024];
  xio_error e;
  xfix_target(fx, name, url, sizeof url);
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_CREATE | XIO_OPEN_EXCLUSIVE | extra;
  o.size = 1 << 20;
  xio_file *f = NULL;
  ASSERT_ERR(xio_file_open(fx->ctx, url, &o, &f, &e), want, &e);
  if (want == XIO_EBUSY) {
    ASSERT_CONTAINS(e.message, "in use");
    ASSERT_EQ(e.http_status, 409); /* the service's detail survives the clearer message */
    ASSERT_STR_EQ(e.service_code, "LeaseAlreadyPresent");
    ASSERT(e.request_id[0] != '\0');
  }
  return f;
}

TEST(second_exclusive_open_is_refused) {
  xfix fx;
  xio_error e;
  xfix_setup(&fx, 0, NULL);
  xio_file *f = open_excl(&fx, "excl.mdf", 0, XIO_OK);
  ASSERT(open_excl(&fx, "excl.mdf", 0, XIO_EBUSY) == NULL);
  /* A shared (non-exclusive) reader may still open and read. */
  char url[1024];
  xfix_target(&fx, "excl.mdf", url, sizeof url);
  xio_open_options ro = xio_open_options_default();
  ro.flags = XIO_OPEN_READONLY;
  xio_file *r = NULL;
  ASSERT_OK(xio_file_open(fx.ctx, url, &ro, &r, &e), &e);
  char buf[512];
  size_t got;
  ASSERT_OK(xio_file_read(r, 0, buf, sizeof buf, &got, &e), &e);
  ASSERT_ERR(xio_file_write(r, 0, buf, sizeof buf, &e), XIO_EREADONLY, &e);
  ASSERT_OK(xio_file_close(r, &e), &e);
  /* Closing releases the lease: the next exclusive open succeeds. */
  ASSERT_OK(xio_file_close(f, &e), &e);
  f = open_excl(&fx, "excl.mdf", 0, XIO_OK);
  ASSERT_OK(xio_file_close(f, &e), &e);
  xfix_teardown(&fx);
}

TEST(break_lease_takes_over) {
  xfix fx, other;
  xio_error e;
  xfix_setup(&fx, 0, NULL);
  xfix_setup(&other, 0, NULL);
  memcpy(other.base, fx.base, sizeof fx.base); /* the same container */
  xio_file *f = open_excl(&fx, "takeover.ldf", 0, XIO_OK);
  xio_file *g = open_excl(&other, "takeover.ldf", XIO_OPEN_BREAK_LEASE, XIO_OK);
  char page[512];
  memset(page, 7, sizeof page);
  ASSERT_OK(xio_file_write(g, 0, page, sizeof page, &e), &e);
  /* The first holder's next write fails: its lease is gone. */
  ASSERT_ERR(xio_file_write(f, 0, page, sizeof page, &e), XIO_ELEASELOST, &e);
  ASSERT_CONTAINS(e.message, "lease");
  /* ... and later writes fail at once, without a request. */
  int before = fx.trace.n;
  ASSERT_ERR(xio_file_write(f, 512, page, sizeof page, &e), XIO_ELEASELOST, &e);
  ASSERT_EQ(fx.trace.n, before);
  ASSERT_OK(xio_file_close(g, &e), &e);
  xio_file_close(f, NULL);
  xfix_teardown(&other);
  xfix_teardown(&fx);
}

/* Waits (at most 10 s) until `fx` has recorded at least `n` lease requests. */
static void wait_for_leases(xfix *fx, int n) {
  for (int i = 0; i < 1000 && xfix_count(fx, XIO_REQ_LEASE) < n; i++) {
    struct timespec ts = {0, 10 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  ASSERT(xfix_count(fx, XIO_REQ_LEASE) >= n);
}

TEST(lease_renewal_outlives_its_duration) {
  xfix fx;
  xio_error e;
  leaseclock *clock = leaseclock_new();
  xio_ctx_options o = xio_ctx_options_default();
  o.lease_duration_s = 15;
  o.lease_renew_s = 4;
  o.lease_clock = leaseclock_lease(clock);
  xfix_setup(&fx, 0, &o);
  xio_file *f = open_excl(&fx, "renewed.mdf", 0, XIO_OK);
  /* 20 s pass on the lease clock, in steps of one renewal period: past the 15 s
   * lease, which only the renewals keep. */
  for (int i = 1; i <= 5; i++) {
    leaseclock_advance(clock, 4 * 1000000);
    wait_for_leases(&fx, 1 + i); /* acquire + i renewals */
  }
  pthread_mutex_lock(&fx.trace.mu);
  int refused = 0;
  for (int i = 0; i < fx.trace.n; i++)
    refused += fx.trace.ev[i].type == XIO_REQ_LEASE && strcmp(fx.trace.ev[i].result, "ok") != 0;
  pthread_mutex_unlock(&fx.trace.mu);
  ASSERT_EQ(refused, 0);
  char page[512];
  memset(page, 3, sizeof page);
  ASSERT_OK(xio_file_write(f, 0, page, sizeof page, &e), &e);
  /* Still exclusive. */
  ASSERT(open_excl(&fx, "renewed.mdf", 0, XIO_EBUSY) == NULL);
  ASSERT_OK(xio_file_close(f, &e), &e);
  xfix_teardown(&fx);
  leaseclock_free(clock);
}

TEST(lease_unrenewed_for_its_duration_stops_writes) {
  xfix fx;
  xio_error e;
  leaseclock *clock = leaseclock_new();
  xio_ctx_options o = xio_ctx_options_default();
  o.lease_duration_s = 15;
  o.lease_renew_s = 10;
  o.lease_clock = leaseclock_lease(clock);
  xfix_setup(&fx, 0, &o);
  xio_file *f = open_excl(&fx, "ran-out.mdf", 0, XIO_OK);
  char page[512];
  memset(page, 5, sizeof page);
  ASSERT_OK(xio_file_write(f, 0, page, sizeof page, &e), &e);
  /* The lease clock jumps past the duration before any renewal: as if the process
   * had been paused for 16 s. The service still holds the lease for us, but the
   * client can no longer know that nobody took it meanwhile. */
  leaseclock_advance(clock, 16 * 1000000);
  int writes = xfix_count(&fx, XIO_REQ_WRITE);
  ASSERT_ERR(xio_file_write(f, 512, page, sizeof page, &e), XIO_ELEASELOST, &e);
  ASSERT_CONTAINS(e.message, "ran out");
  ASSERT_CONTAINS(e.message, "15 s");
  ASSERT_EQ(xfix_count(&fx, XIO_REQ_WRITE), writes); /* refused before sending */
  ASSERT_ERR(xio_file_set_size(f, 1 << 21, XIO_INIT_DEFAULT, &e), XIO_ELEASELOST, &e);
  /* Closing neither renews nor releases a lease it does not trust. */
  ASSERT_OK(xio_file_close(f, &e), &e);
  ASSERT_EQ(xfix_count(&fx, XIO_REQ_LEASE), 1);
  xfix_teardown(&fx);
  leaseclock_free(clock);
}

TEST(lease_broken_by_another_client_stops_writes) {
  xfix fx;
  xio_error e;
  xio_ctx_options o = xio_ctx_options_default();
  o.lease_duration_s = 15;
  o.lease_renew_s = 1;
  xfix_setup(&fx, 0, &o);
  xio_file *f = open_excl(&fx, "broken.ldf", 0, XIO_OK);
  /* An operator breaks the lease by hand (a request of its own, not the file's). */
  char url[1024];
  xfix_target(&fx, "broken.ldf", url, sizeof url);
  xio_lease_request brk = {XIO_LEASE_BREAK, NULL, 0, 0};
  xio_lease_result res;
  ASSERT_OK(xio_lease(fx.ctx, url, &brk, &res, &e), &e);
  ASSERT_EQ(res.remaining_s, 0);
  char page[512];
  memset(page, 9, sizeof page);
  ASSERT_ERR(xio_file_write(f, 0, page, sizeof page, &e), XIO_ELEASELOST, &e);
  ASSERT_CONTAINS(e.message, "lease");
  /* Nothing was written. */
  char back[512];
  xio_open_options ro = xio_open_options_default();
  ro.flags = XIO_OPEN_READONLY;
  xio_file *r = NULL;
  ASSERT_OK(xio_file_open(fx.ctx, url, &ro, &r, &e), &e);
  ASSERT_OK(xio_file_read(r, 0, back, sizeof back, NULL, &e), &e);
  ASSERT(test_all_zero(back, sizeof back));
  ASSERT_OK(xio_file_close(r, &e), &e);
  xio_file_close(f, NULL);
  xfix_teardown(&fx);
}

TEST(context_free_closes_files_and_releases_leases) {
  xfix fx, other;
  xfix_setup(&fx, 0, NULL);
  xio_file *f = open_excl(&fx, "left-open.mdf", 0, XIO_OK);
  (void)f; /* deliberately not closed: freeing the context must close it */
  xfix_setup(&other, 0, NULL);
  memcpy(other.base, fx.base, sizeof fx.base);
  ASSERT(open_excl(&other, "left-open.mdf", 0, XIO_EBUSY) == NULL);
  xio_ctx_free(fx.ctx);
  fx.ctx = NULL;
  xio_file *g = open_excl(&other, "left-open.mdf", 0, XIO_OK);
  xio_error e;
  ASSERT_OK(xio_file_close(g, &e), &e);
  xfix_teardown(&other);
  xfix_teardown(&fx);
}

/* Lease news as the callback tells it (one file). */
typedef struct news_seen {
  atomic_int lost, renew_failed, lost_was_polled;
} news_seen;

static void on_news(xio_file *f, xio_lease_news news, void *ud) {
  news_seen *n = ud;
  if (news == XIO_LEASE_LOST) {
    atomic_fetch_add(&n->lost, 1);
    atomic_store(&n->lost_was_polled, xio_file_lease_lost(f));
  }
  if (news == XIO_LEASE_RENEW_FAILED) atomic_fetch_add(&n->renew_failed, 1);
}

/* A paused process's lease is told lost by the keeper on its own, within about a
 * second of the lease clock running out, with no write made to find it out; a later
 * write fails without telling it again. */
TEST(lease_loss_is_told_before_any_write) {
  xfix fx;
  xio_error e;
  news_seen seen = {0};
  leaseclock *clock = leaseclock_new();
  xio_ctx_options o = xio_ctx_options_default();
  o.lease_duration_s = 15;
  o.lease_renew_s = 10;
  o.lease_clock = leaseclock_lease(clock);
  o.lease_news = on_news;
  o.lease_news_ud = &seen;
  xfix_setup(&fx, 0, &o);
  xio_file *f = open_excl(&fx, "told.mdf", 0, XIO_OK);
  leaseclock_advance(clock, 16 * 1000000);
  for (int i = 0; i < 500 && atomic_load(&seen.lost) == 0; i++) {
    struct timespec ts = {0, 10 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  ASSERT_EQ(atomic_load(&seen.lost), 1);
  ASSERT_EQ(atomic_load(&seen.lost_was_polled), 1);
  ASSERT_EQ(xfix_count(&fx, XIO_REQ_WRITE), 0);
  char page[512];
  memset(page, 1, sizeof page);
  ASSERT_ERR(xio_file_write(f, 0, page, sizeof page, &e), XIO_ELEASELOST, &e);
  ASSERT_EQ(atomic_load(&seen.lost), 1);
  ASSERT_OK(xio_file_close(f, &e), &e);
  xfix_teardown(&fx);
  leaseclock_free(clock);
}

/* Another client breaks the lease: the keeper's next renewal is refused and the
 * loss is told then, once. */
TEST(a_broken_lease_is_told_at_the_next_renewal) {
  xfix fx;
  xio_error e;
  news_seen seen = {0};
  leaseclock *clock = leaseclock_new();
  xio_ctx_options o = xio_ctx_options_default();
  o.lease_duration_s = 15;
  o.lease_renew_s = 4;
  o.lease_clock = leaseclock_lease(clock);
  o.lease_news = on_news;
  o.lease_news_ud = &seen;
  xfix_setup(&fx, 0, &o);
  xio_file *f = open_excl(&fx, "broken.mdf", 0, XIO_OK);
  char url[1024];
  xfix_target(&fx, "broken.mdf", url, sizeof url);
  xio_lease_request br = {XIO_LEASE_BREAK, NULL, 0, 0};
  ASSERT_OK(xio_lease(fx.ctx, url, &br, NULL, &e), &e);
  leaseclock_advance(clock, 4 * 1000000); /* the renewal is due */
  for (int i = 0; i < 500 && atomic_load(&seen.lost) == 0; i++) {
    struct timespec ts = {0, 10 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
  ASSERT_EQ(atomic_load(&seen.lost), 1);
  ASSERT_EQ(atomic_load(&seen.renew_failed), 0); /* refused, not unreachable */
  ASSERT_EQ(xio_file_lease_lost(f), 1);
  ASSERT_OK(xio_file_close(f, &e), &e);
  xfix_teardown(&fx);
  leaseclock_free(clock);
}

/* xio_file_lease_confirm asks the service only when the last confirmation is older
 * than the bound given (the lease clock is moved ahead instead of waiting; the
 * keeper, due every 59 s, stays out of it), and once another client broke and took
 * the lease it answers XIO_ELEASELOST, telling the loss, where the keeper would
 * find out only at its next renewal. A file without a lease has nothing to confirm. */
TEST(lease_confirm_asks_the_service_when_the_confirmation_is_stale) {
  xfix fx, other;
  xio_error e;
  news_seen seen = {0};
  leaseclock *clock = leaseclock_new();
  xio_ctx_options o = xio_ctx_options_default();
  o.lease_renew_s = 59;
  o.lease_clock = leaseclock_lease(clock);
  o.lease_news = on_news;
  o.lease_news_ud = &seen;
  xfix_setup(&fx, 0, &o);
  xfix_setup(&other, 0, NULL);
  memcpy(other.base, fx.base, sizeof fx.base); /* the same container */
  xio_file *f = open_excl(&fx, "confirm.mdf", 0, XIO_OK);
  ASSERT_EQ(xfix_count(&fx, XIO_REQ_LEASE), 1); /* the acquire */
  /* Confirmed by the acquire, well within a minute: nothing to ask. */
  ASSERT_OK(xio_file_lease_confirm(f, 60000, &e), &e);
  ASSERT_EQ(xfix_count(&fx, XIO_REQ_LEASE), 1);
  /* 10 s later on the lease clock, a 5 s bound asks: one renewal, granted. */
  leaseclock_advance(clock, 10 * 1000000);
  ASSERT_OK(xio_file_lease_confirm(f, 5000, &e), &e);
  ASSERT_EQ(xfix_count(&fx, XIO_REQ_LEASE), 2);
  /* A bound of 0 asks every time. */
  ASSERT_OK(xio_file_lease_confirm(f, 0, &e), &e);
  ASSERT_EQ(xfix_count(&fx, XIO_REQ_LEASE), 3);
  ASSERT_ERR(xio_file_lease_confirm(f, -1, &e), XIO_EINVAL, &e);

  /* Another client breaks the lease and takes the blob. */
  xio_file *g = open_excl(&other, "confirm.mdf", XIO_OPEN_BREAK_LEASE, XIO_OK);
  ASSERT_EQ(xio_file_lease_lost(f), 0); /* nothing told it yet */
  ASSERT_ERR(xio_file_lease_confirm(f, 0, &e), XIO_ELEASELOST, &e);
  ASSERT_CONTAINS(e.message, "lease");
  ASSERT_EQ(xfix_count(&fx, XIO_REQ_LEASE), 4); /* the renewal, refused */
  ASSERT_EQ(xio_file_lease_lost(f), 1);
  ASSERT_EQ(atomic_load(&seen.lost), 1);
  /* Known lost from now on: no request, whatever the bound. */
  ASSERT_ERR(xio_file_lease_confirm(f, 60000, &e), XIO_ELEASELOST, &e);
  ASSERT_EQ(xfix_count(&fx, XIO_REQ_LEASE), 4);
  char page[512];
  memset(page, 5, sizeof page);
  ASSERT_ERR(xio_file_write(f, 0, page, sizeof page, &e), XIO_ELEASELOST, &e);
  ASSERT_EQ(xfix_count(&fx, XIO_REQ_WRITE), 0);

  /* A read-only open holds no lease: confirmed, nothing sent. */
  char url[1024];
  xfix_target(&fx, "confirm.mdf", url, sizeof url);
  xio_open_options ro = xio_open_options_default();
  ro.flags = XIO_OPEN_READONLY;
  xio_file *r = NULL;
  ASSERT_OK(xio_file_open(fx.ctx, url, &ro, &r, &e), &e);
  ASSERT_OK(xio_file_lease_confirm(r, 0, &e), &e);
  ASSERT_EQ(xfix_count(&fx, XIO_REQ_LEASE), 4);
  ASSERT_OK(xio_file_close(r, &e), &e);
  ASSERT_OK(xio_file_close(g, &e), &e);
  xio_file_close(f, NULL);
  xfix_teardown(&other);
  xfix_teardown(&fx);
  leaseclock_free(clock);
}
