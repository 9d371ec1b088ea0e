/*
 * transport_test.c - transport failures no retry mends, as the command line reports
 * them: at once, after one try (the trace shows no retried request), with a hint
 * that says what to use instead. https:// to the plain-http emulator (its front
 * answers the TLS hello as Azurite does) names the http:// URL; a host name that
 * does not resolve says so, tried in a network namespace of its own whose only
 * interface, loopback, is down (no name server can be reached, nothing leaves the
 * machine). And a URL typed without its scheme, which would be taken as a missing
 * local path, is refused before anything is done, naming the URL meant and never
 * its query; a local path that looks like one but exists stays local.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clirun.h"
#include "test.h"

/* The run failed after exactly one storage request, none of it retried. */
static void expect_one_try(const clirun *r) {
  ASSERT_EQ(clirun_trace_events(r, "xio_failed_request"), 0);
  ASSERT_EQ(clirun_trace_events(r, "xio_send_complete"), 1);
  ASSERT_CONTAINS(r->trace, "\"retries\":0");
}

/* The reason of the --json error record on stdout. */
static void expect_reason(const clirun *r, const char *reason) {
  cJSON *j = clirun_json(r);
  ASSERT_STR_EQ(clirun_str(cJSON_GetObjectItem(j, "error"), "reason"), reason);
  cJSON_Delete(j);
}

TEST(https_to_the_plain_http_emulator_fails_at_once) {
  clirun r = {0};
  char container[64], url[512], https[520], hint[600];
  clirun_container(container, sizeof container);
  clirun_url(container, "b.mdf", url, sizeof url);
  ASSERT_EQ(strncmp(url, "http://", 7), 0);
  snprintf(https, sizeof https, "https://%s", url + 7);
  snprintf(hint, sizeof hint, "\nhint: this endpoint speaks http, not https: use %s\n", url);
  XIO(&r, "--json", "stat", https);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "the server answered the TLS handshake in plain http");
  ASSERT_CONTAINS(r.err, hint);
  expect_reason(&r, "XIO_REASON_SPEAKS_HTTP");
  expect_one_try(&r);
  clirun_free(&r);
}

/* A network namespace of this test process alone, with nothing but a loopback that
 * is down: no name server answers, and no packet can leave. */
static void isolate_network(void) {
  if (unshare(CLONE_NEWNET) == 0) return;
  int first = errno;
  if (unshare(CLONE_NEWUSER | CLONE_NEWNET) == 0) return;
  char why[200];
  snprintf(why, sizeof why, "no network namespace can be made here (unshare: %s, %s)",
           strerror(first), strerror(errno));
  SKIP(why);
}

TEST(unresolvable_host_fails_at_once) {
  clirun r = {0};
  isolate_network();
  XIO_ENV(&r, CLIRUN_NO_CREDS, NULL, "--json", "ls",
          "https://nosuchaccount.blob.core.windows.net/cont?sv=2022-11-02&sr=c&sp=rl"
          "&se=2099-01-01T00:00:00Z&sig=AAAA");
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "the host name nosuchaccount.blob.core.windows.net does not resolve");
  ASSERT_CONTAINS(r.err, "\nhint: the host name does not resolve: check the account name");
  expect_reason(&r, "XIO_REASON_RESOLVE");
  expect_one_try(&r);
  clirun_free(&r);
}

/* `bare` (a URL without its scheme) is refused with exit 2 before anything is done,
 * the message naming `meant`. */
static void expect_meant(clirun *r, const char *meant) {
  char want[700];
  EXPECT_EXIT(r, 2);
  snprintf(want, sizeof want, "did you mean %s?", meant);
  ASSERT_CONTAINS(r->err, "has no scheme");
  ASSERT_CONTAINS(r->err, want);
  ASSERT_STR_EQ(r->trace, "");
}

TEST(url_without_scheme_names_the_url_meant) {
  clirun r = {0};
  char cwd[4096], container[64], url[512], cont_url[512], local[512];
  ASSERT(getcwd(cwd, sizeof cwd) != NULL);
  ASSERT_EQ(chdir(clirun_dir()), 0); /* the bare URLs are relative paths from here */
  clirun_container(container, sizeof container);
  clirun_url(container, "b.mdf", url, sizeof url);
  clirun_url(container, NULL, cont_url, sizeof cont_url);
  clirun_path("source.bin", local, sizeof local);
  char zeros[4096] = {0};
  clirun_write_file(local, zeros, sizeof zeros);
  XIO(&r, "stat", url + 7);
  expect_meant(&r, url);
  XIO(&r, "ls", cont_url + 7);
  expect_meant(&r, cont_url);
  XIO(&r, "put", local, url + 7);
  expect_meant(&r, url);
  char host[64];
  snprintf(host, sizeof host, "%.*s", (int)strcspn(url + 7, "/"), url + 7);
  ASSERT(access(host, F_OK) != 0); /* nothing was made locally */
  XIO(&r, "get",
      "myaccount.blob.core.windows.net/cont/b.mdf?sv=2022-11-02&sr=b&sp=r"
      "&se=2099-01-01T00:00:00Z&sig=c2VjcmV0c2VjcmV0",
      "out.mdf");
  expect_meant(&r, "https://myaccount.blob.core.windows.net/cont/b.mdf (with its query)");
  ASSERT_NOT_CONTAINS(r.err, "c2VjcmV0c2VjcmV0");
  ASSERT(access("out.mdf", F_OK) != 0);
  /* A local directory of that name: the same text is a local path. */
  ASSERT_EQ(mkdir(host, 0700), 0);
  char path[600];
  snprintf(path, sizeof path, "%s/disk.img", host);
  XIO(&r, "create", path, "--size", "1M");
  EXPECT_EXIT(&r, 0);
  struct stat st;
  ASSERT_EQ(stat(path, &st), 0);
  ASSERT_EQ((long)st.st_size, 1024L * 1024);
  XIO(&r, "--json", "stat", path);
  EXPECT_EXIT(&r, 0);
  /* A name with a colon and digits but no path is a file to make, not a host. */
  XIO(&r, "create", "db:1", "--size", "1M");
  EXPECT_EXIT(&r, 0);
  ASSERT_EQ(access("db:1", F_OK), 0);
  ASSERT_EQ(chdir(cwd), 0);
  clirun_free(&r);
}
