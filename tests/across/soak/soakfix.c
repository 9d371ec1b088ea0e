/*
 * soakfix.c - the fault soaks' fixture: proxy at the soak's rates, the proxied and
 * the direct context, the run's clock and the report (see soakfix.h).
 */
#define _GNU_SOURCE
#include "soakfix.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <xio/alloc.h>

#include "test.h"
#include "util.h"

/* The fault mix, in the proxy's own spec language (see faultproxy_rates_parse). */
#define STR_(x) #x
#define STR(x)  STR_(x)
#define SOAK_SPEC                                                                                  \
  "503=10%:" STR(SOAK_RETRY_HINT_MS) "ms,reset=2%,lost=2%,torn=5%,stall=1%:" STR(SOAK_STALL_MS) "ms"

static int64_t now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec;
}

static int soak_seconds(void) {
  const char *v = getenv("XIO_SOAK_SECONDS");
  if (!v || !*v) return SOAK_DEFAULT_SECONDS;
  char *end = NULL;
  long s = strtol(v, &end, 10);
  if (*end || s < 1 || s > 86400) FAIL("XIO_SOAK_SECONDS must be 1..86400 seconds, not \"%s\"", v);
  return (int)s;
}

void soakfix_setup(soakfix *fx, const char *prefix) {
  memset(fx, 0, sizeof *fx);
  pthread_mutex_init(&fx->trace.mu, NULL);
  fx->seconds = soak_seconds();
  char err[256];
  if (faultproxy_rates_parse(SOAK_SPEC, &fx->rates, err, sizeof err) != 0)
    FAIL("fault spec %s: %s", SOAK_SPEC, err);
  const char *seed = getenv("XIO_SOAK_SEED");
  fx->rates.seed =
      seed && *seed ? strtoull(seed, NULL, 10) : ((uint64_t)time(NULL) << 20) ^ (uint64_t)getpid();
  fx->proxy = faultproxy_start(test_endpoint());
  ASSERT(fx->proxy != NULL);
  faultproxy_set_rates(fx->proxy, &fx->rates);
  char name[64];
  test_unique_name(name, sizeof name, prefix);
  snprintf(fx->container, sizeof fx->container, "%s/devstoreaccount1/%s",
           faultproxy_endpoint(fx->proxy), name);
  snprintf(fx->direct_container, sizeof fx->direct_container, "%s/%s", test_account_url(), name);
  test_dev_connection_string_at(faultproxy_endpoint(fx->proxy), fx->proxy_connstr,
                                sizeof fx->proxy_connstr);
  test_dev_connection_string_at(test_endpoint(), fx->direct_connstr, sizeof fx->direct_connstr);
  printf("soak %s: %d s, faults %s, seed %" PRIu64 " (XIO_SOAK_SEED repeats the draw)\n", prefix,
         fx->seconds, SOAK_SPEC, fx->rates.seed);
  fflush(stdout);
}

void soakfix_count(soak_trace *t, int retries, int ok, const char *json) {
  pthread_mutex_lock(&t->mu);
  t->events++;
  t->retries += (uint64_t)retries;
  if (retries > 0) t->retried++;
  if (retries > t->max_retries) t->max_retries = retries;
  if (!ok && json && strstr(json, "\"result\":\"XIO_ENOTFOUND\""))
    t->not_found++; /* an open's probe before it creates */
  else if (!ok && t->failed++ == 0 && json)
    snprintf(t->first_failure, sizeof t->first_failure, "%s", json);
  pthread_mutex_unlock(&t->mu);
}

static void on_trace(const xio_trace_event *ev, void *ud) {
  if (strcmp(ev->event, "xio_send_complete") != 0) return; /* a refused try: its request counts */
  int ok = strcmp(ev->result, "ok") == 0;
  char *json = ok ? NULL : xio_trace_event_json(ev);
  soakfix_count(ud, ev->retries, ok, json);
  xio_free(json);
}

void soakfix_ctx(soakfix *fx) {
  xio_ctx_options o = xio_ctx_options_default();
  o.use_environment = 0;
  o.connection_string = fx->proxy_connstr;
  o.retry.max_retries = SOAK_MAX_RETRIES;
  o.retry.base_delay_ms = SOAK_BASE_DELAY_MS;
  o.retry.max_delay_ms = SOAK_MAX_DELAY_MS;
  o.retry.try_timeout_ms = SOAK_TRY_TIMEOUT_MS;
  o.trace = on_trace;
  o.trace_ud = &fx->trace;
  xio_error e;
  ASSERT_OK(xio_ctx_new(&o, &fx->ctx, &e), &e);
}

xio_ctx *soakfix_direct_ctx(const soakfix *fx) {
  xio_ctx_options o = xio_ctx_options_default();
  o.use_environment = 0;
  o.connection_string = fx->direct_connstr;
  xio_ctx *c = NULL;
  xio_error e;
  ASSERT_OK(xio_ctx_new(&o, &c, &e), &e);
  return c;
}

void soakfix_url(const soakfix *fx, const char *name, int direct, char *out, size_t size) {
  snprintf(out, size, "%s/%s", direct ? fx->direct_container : fx->container, name);
}

int soakfix_running(soakfix *fx) {
  static int64_t start; /* one soak per process */
  static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
  pthread_mutex_lock(&mu);
  if (!start) start = now_s();
  int64_t t = now_s() - start;
  pthread_mutex_unlock(&mu);
  return t < fx->seconds;
}

static void append_report(const char *line) {
  const char *path = getenv("XIO_SOAK_REPORT");
  if (!path || !*path) return;
  FILE *f = fopen(path, "a");
  if (!f) FAIL("cannot append to XIO_SOAK_REPORT %s", path);
  fprintf(f, "%s\n", line);
  fclose(f);
}

void soakfix_report(soakfix *fx, const char *name, const soak_trace *t, const soak_result *r) {
  faultproxy_stats s;
  faultproxy_stats_get(fx->proxy, &s);
  static const int kinds[] = {FAULTPROXY_RULE_503, FAULTPROXY_RULE_RESET, FAULTPROXY_RULE_LOST,
                              FAULTPROXY_RULE_TORN, FAULTPROXY_RULE_STALL};
  char faults[256] = "";
  uint64_t total = 0;
  size_t k = 0;
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
    uint64_t n = s.injected[kinds[i]];
    total += n;
    k += (size_t)snprintf(faults + k, sizeof faults - k, "%s%s=%" PRIu64, i ? " " : "",
                          faultproxy_rule_name(kinds[i]), n);
  }
  /* Every request the proxy read is a try some trace event counts (the event's own
   * or one of its retries), except where libcurl itself sent a request again on a
   * fresh connection after a reused one died without an answer. */
  uint64_t tries = t->events + t->retries;
  uint64_t untraced = s.requests > tries ? s.requests - tries : 0;
  char line[1280];
  snprintf(line, sizeof line,
           "soak %s: %d s, %" PRIu64 " ops (%" PRIu64 " failed), %" PRIu64
           " requests at the proxy, %" PRIu64 " faults (%s), %" PRIu64 " trace events, %" PRIu64
           " retries on %" PRIu64 " requests (at most %d on one, bound %d), %" PRIu64
           " failed requests (and %" PRIu64 " not found, the probes of opens that create), %" PRIu64
           " sends that no trace event counts, %" PRIu64
           " bytes checked by the independent reader, %" PRIu64 " differ; %" PRIu64
           " bytes read back through the proxy, %" PRIu64 " differ",
           name, fx->seconds, r->ops, r->failed_ops, s.requests, total, faults, t->events,
           t->retries, t->retried, t->max_retries, SOAK_MAX_RETRIES, t->failed, t->not_found,
           untraced, r->bytes_checked, r->bytes_differ, r->read_checked, r->read_differ);
  printf("%s\n", line);
  if (t->failed) printf("soak %s: first failed request: %s\n", name, t->first_failure);
  fflush(stdout);
  append_report(line);
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
    if (s.injected[kinds[i]] == 0)
      FAIL("no %s fault was injected in %" PRIu64 " requests: run longer (XIO_SOAK_SECONDS)",
           faultproxy_rule_name(kinds[i]), s.requests);
  ASSERT(t->retries > 0);
  ASSERT(t->max_retries <= SOAK_MAX_RETRIES);
  ASSERT(r->bytes_checked > 0);
  ASSERT_U64_EQ(r->bytes_differ, 0);
  ASSERT_U64_EQ(r->read_differ, 0);
}

void soakfix_teardown(soakfix *fx) {
  xio_ctx_free(fx->ctx);
  fx->ctx = NULL;
  faultproxy_free(fx->proxy);
  fx->proxy = NULL;
}

void soakfix_fill(void *buf, size_t n, uint64_t seed) {
  if (seed == 0)
    memset(buf, 0, n);
  else
    test_fill_random(buf, n, seed);
}

uint64_t soakfix_diff(const void *a, const void *b, size_t n) {
  const unsigned char *x = a, *y = b;
  uint64_t d = 0;
  if (memcmp(x, y, n) == 0) return 0;
  for (size_t i = 0; i < n; i++)
    d += x[i] != y[i];
  return d;
}
