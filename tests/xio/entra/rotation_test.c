/*
 * rotation_test.c - credentials renewed while files stay open: a SAS from the
 * credential file that expires in seconds is replaced in the file and writing goes
 * on, with the expiry warning before (as an event and in the trace file); a request
 * refused for its SAS is sent once more after the file is read again; a credential
 * replaced through the API at run time.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "efix.h"
#include "standin.h"
#include "test.h"

static void sleep_ms(int ms) {
  nanosleep(&(struct timespec){ms / 1000, (ms % 1000) * 1000000L}, NULL);
}

typedef struct events {
  pthread_mutex_t mu;
  int expiring;
  int64_t expires, at_us;
  char message[512], source[256];
} events;

static void on_event(const xio_cred_event *ev, void *ud) {
  events *s = ud;
  if (strstr(ev->message, "sig=") || (ev->url && strchr(ev->url, '?')))
    FAIL("a credential event carries a secret: %s", ev->message);
  pthread_mutex_lock(&s->mu);
  if (strcmp(ev->event, XIO_CRED_EXPIRING) == 0) {
    s->expiring++;
    s->expires = ev->expires;
    s->at_us = ev->timestamp_us;
    snprintf(s->message, sizeof s->message, "%s", ev->message);
    snprintf(s->source, sizeof s->source, "%s", ev->source);
  }
  pthread_mutex_unlock(&s->mu);
}

static void write_cred_file(const char *path, const efix *f, const char *sas) {
  char text[2048];
  snprintf(text, sizeof text, "{\"%s\": \"%s\"}\n", f->container_url, sas);
  standin_write_file(path, text);
}

static xio_file *open_blob(efix *f, const char *name) {
  char url[600];
  xio_file *file;
  xio_error e;
  efix_blob(f, name, url, sizeof url);
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_CREATE;
  o.size = 1 << 20;
  ASSERT_OK(xio_file_open(f->ctx, url, &o, &file, &e), &e);
  return file;
}

static char *read_text(const char *path) {
  FILE *fp = fopen(path, "r");
  static char buf[1 << 16];
  size_t n = fp ? fread(buf, 1, sizeof buf - 1, fp) : 0;
  if (fp) fclose(fp);
  buf[n] = '\0';
  return buf;
}

TEST(sas_renewed_in_credential_file_while_open) {
  char path[512], trace[512];
  standin_env_reset(0, NULL);
  standin_path("creds.json", path, sizeof path);
  standin_path("trace.jsonl", trace, sizeof trace);
  efix f;
  xio_error e;
  xio_ctx_options o = xio_ctx_options_default();
  o.credential_file = path;
  o.trace_path = trace;
  efix_name(&f);
  efix_create_container(&f);
  time_t first_expiry = time(NULL) + 6;
  char *sas1 = efix_container_sas(&f, "rcw", first_expiry, 0);
  write_cred_file(path, &f, sas1); /* read when the context starts */
  efix_setup(&f, &o);
  events ev = {PTHREAD_MUTEX_INITIALIZER, 0, 0, 0, "", ""};
  xio_cred_options co = xio_cred_options_default();
  co.sas_warning_s = 30;
  co.recheck_ms = 100;
  co.on_event = on_event;
  co.on_event_ud = &ev;
  ASSERT_OK(xio_ctx_set_credential_options(f.ctx, &co, &e), &e);
  xio_file *file = open_blob(&f, "rotating.ldf");
  char buf[4096];
  memset(buf, 0x77, sizeof buf);
  int renewed = 0, writes = 0;
  while (time(NULL) <= first_expiry + 2) {
    if (!renewed && time(NULL) >= first_expiry - 3) {
      char *sas2 = efix_container_sas(&f, "rcw", time(NULL) + 3600, 0);
      write_cred_file(path, &f, sas2);
      xio_free(sas2);
      renewed = 1;
    }
    ASSERT_OK(xio_file_write(file, (uint64_t)(writes % 16) * sizeof buf, buf, sizeof buf, &e), &e);
    writes++;
    sleep_ms(200);
  }
  ASSERT_OK(xio_file_close(file, &e), &e);
  ASSERT_EQ(atomic_load(&f.failures), 0);
  efix_teardown(&f);
  /* Warned once, before the SAS expired, naming the file to renew it in. */
  ASSERT_EQ(ev.expiring, 1);
  ASSERT_EQ((long)ev.expires, (long)first_expiry);
  ASSERT(ev.at_us < (int64_t)first_expiry * 1000000);
  ASSERT_CONTAINS(ev.message, path);
  ASSERT_CONTAINS(ev.message, "expires at");
  ASSERT_CONTAINS(ev.source, "credential file");
  const char *t = read_text(trace);
  ASSERT_CONTAINS(t, "\"event\":\"xio_credential_expiring\"");
  ASSERT_NOT_CONTAINS(t, "sig=");
  ASSERT_NOT_CONTAINS(t, "sig%3D");
  xio_free(sas1);
}

TEST(refused_sas_sent_again_after_reading_the_file) {
  char path[512];
  standin_env_reset(0, NULL);
  standin_path("creds.json", path, sizeof path);
  efix f;
  xio_error e;
  efix_name(&f);
  efix_create_container(&f);
  /* The context starts with a SAS signed by a key that was rotated away. */
  char *bad = efix_container_sas(&f, "rcw", time(NULL) + 3600, 1);
  char *good = efix_container_sas(&f, "rcw", time(NULL) + 3600, 0);
  write_cred_file(path, &f, bad);
  xio_ctx_options o = xio_ctx_options_default();
  o.credential_file = path;
  efix_setup(&f, &o);
  xio_cred_options co = xio_cred_options_default();
  co.recheck_ms = 3600 * 1000; /* no periodic look: only a refusal reads the file */
  ASSERT_OK(xio_ctx_set_credential_options(f.ctx, &co, &e), &e);
  write_cred_file(path, &f, good);
  xio_file *file = open_blob(&f, "refused.mdf");
  ASSERT_OK(xio_file_close(file, &e), &e);
  efix_teardown(&f);
  /* A file that still holds the refused SAS: sent once more, then the error. */
  write_cred_file(path, &f, bad);
  efix_setup(&f, &o);
  char burl[600];
  efix_blob(&f, "refused.mdf", burl, sizeof burl);
  xio_open_options ro = xio_open_options_default();
  ASSERT_ERR(xio_file_open(f.ctx, burl, &ro, &file, &e), XIO_EAUTH, &e);
  ASSERT_EQ(e.http_status, 403);
  ASSERT_EQ(atomic_load(&f.requests), 1); /* one request, whatever it took */
  efix_teardown(&f);
  xio_free(bad);
  xio_free(good);
}

TEST(credential_replaced_through_the_api) {
  standin_env_reset(0, NULL);
  efix f;
  xio_error e;
  efix_name(&f);
  efix_create_container(&f);
  efix_setup(&f, NULL);
  time_t expiry = time(NULL) + 5;
  char *sas1 = efix_container_sas(&f, "rcw", expiry, 0);
  xio_auth_cred c = {.kind = XIO_AUTH_CRED_SAS, .sas = sas1};
  ASSERT_OK(xio_ctx_set_credential(f.ctx, f.container_url, &c, &e), &e);
  xio_file *file = open_blob(&f, "api.mdf");
  char buf[512];
  memset(buf, 9, sizeof buf);
  ASSERT_OK(xio_file_write(file, 0, buf, sizeof buf, &e), &e);
  while (time(NULL) <= expiry)
    sleep_ms(100);
  ASSERT_ERR(xio_file_write(file, 0, buf, sizeof buf, &e), XIO_EEXPIRED, &e);
  char *sas2 = efix_container_sas(&f, "rcw", time(NULL) + 3600, 0);
  c.sas = sas2;
  ASSERT_OK(xio_ctx_set_credential(f.ctx, f.container_url, &c, &e), &e);
  ASSERT_OK(xio_file_write(file, 512, buf, sizeof buf, &e), &e);
  ASSERT_OK(xio_file_close(file, &e), &e);
  efix_teardown(&f);
  xio_free(sas1);
  xio_free(sas2);
}
