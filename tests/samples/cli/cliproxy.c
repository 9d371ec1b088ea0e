/*
 * hold.c - holding the xio program at a known request (see hold.h): the fault
 * proxy in front of Azurite, with one STALL fault scripted at a time.
 */
#define _POSIX_C_SOURCE 200809L
#include "cliproxy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "faultproxy.h"
#include "test.h"
#include "util.h"

static faultproxy *proxy;

static void stop_proxy(void) { faultproxy_free(proxy); }

static faultproxy *the_proxy(void) {
  if (proxy) return proxy;
  proxy = faultproxy_start(test_endpoint());
  if (!proxy) FAIL("cannot start the fault proxy in front of %s", test_endpoint());
  atexit(stop_proxy);
  return proxy;
}

void cliproxy_url(const char *container, const char *blob, char *out, size_t size) {
  const char *ep = faultproxy_endpoint(the_proxy());
  if (blob)
    snprintf(out, size, "%s/devstoreaccount1/%s/%s", ep, container, blob);
  else
    snprintf(out, size, "%s/devstoreaccount1/%s", ep, container);
}

const char *const *cliproxy_env(void) {
  static char cs[1024];
  static const char *env[2];
  if (!env[0]) {
    char conn[900];
    test_dev_connection_string_at(faultproxy_endpoint(the_proxy()), conn, sizeof conn);
    snprintf(cs, sizeof cs, "AZURE_STORAGE_CONNECTION_STRING=%s", conn);
    env[0] = cs;
  }
  return env;
}

/* Scripts `f` as the only fault, after forgetting what the proxy recorded. */
static void script(faultproxy_fault *f, const char *method, const char *match, int skip) {
  faultproxy *p = the_proxy();
  faultproxy_clear_faults(p);
  faultproxy_forget(p);
  f->method = method;
  f->match = match;
  f->skip = skip;
  if (faultproxy_add(p, f) != 0) FAIL("cannot script the fault");
}

void cliproxy_hold(const char *method, const char *match, int skip) {
  faultproxy_fault f;
  memset(&f, 0, sizeof f);
  f.kind = FAULTPROXY_STALL;
  f.stall_ms = CLIPROXY_HOLD_MS;
  script(&f, method, match, skip);
}

void cliproxy_stall(const char *method, const char *match, int skip) {
  faultproxy_fault f;
  memset(&f, 0, sizeof f);
  f.kind = FAULTPROXY_STALL;
  f.stall_ms = CLIPROXY_STALL_MS;
  script(&f, method, match, skip);
}

void cliproxy_refuse(const char *method, const char *match, int skip, int status,
                     const char *code) {
  faultproxy_fault f;
  memset(&f, 0, sizeof f);
  f.kind = FAULTPROXY_STATUS;
  f.status = status;
  f.error_code = code;
  script(&f, method, match, skip);
}

void cliproxy_corrupt(const char *method, const char *match, int skip) {
  faultproxy_fault f;
  memset(&f, 0, sizeof f);
  f.kind = FAULTPROXY_CORRUPT_RESPONSE;
  script(&f, method, match, skip);
}

/* The record number of the held request, or 0 while the proxy has not seen it. */
static int held_record(void) {
  faultproxy_record rec;
  for (int i = 0; faultproxy_record_get(the_proxy(), i, &rec) == 0; i++)
    if (rec.fault == FAULTPROXY_STALL) return rec.no;
  return 0;
}

int cliproxy_wait(const clirun_bg *b) {
  struct timespec tick = {0, 2 * 1000 * 1000};
  int no;
  while ((no = held_record()) == 0) {
    if (clirun_ended(b)) FAIL("xio ended before the proxy held the request");
    nanosleep(&tick, NULL);
  }
  return no;
}

void cliproxy_check_held(int no) {
  faultproxy_record rec;
  for (int i = 0; faultproxy_record_get(the_proxy(), i, &rec) == 0; i++)
    if (rec.no == no) {
      if (rec.answered_us != 0)
        FAIL("request %d was answered before the test had acted (it was held %d ms): "
             "the machine was too slow for this test",
             no, CLIPROXY_HOLD_MS);
      return;
    }
  FAIL("the proxy has no record %d", no);
}
