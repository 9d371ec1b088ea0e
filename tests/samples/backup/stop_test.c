/*
 * stop_test.c - a restore into a blob stopped by SIGINT says how to finish it: the
 * upload's scratch file vanishes with the process, so the command it names is
 * `xio restore --resume DIR@ID URL`, never put's, and that command, run as
 * printed, completes the restore byte for byte.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bkfix.h"
#include "cliproxy.h"
#include "test.h"
#include "util.h"

/* `url`'s container and blob names. */
static void split_url(const char *url, char *container, size_t csize, char *blob, size_t bsize) {
  const char *p = strrchr(url, '/');
  ASSERT(p != NULL);
  snprintf(blob, bsize, "%s", p + 1);
  const char *q = p - 1;
  while (q > url && *q != '/')
    q--;
  snprintf(container, csize, "%.*s", (int)(p - q - 1), q + 1);
}

/* Runs the command between the backquotes that follow "`xio " in `text`, split at
 * its spaces, through the proxy. */
static void run_printed(clirun *r, const char *text) {
  const char *start = strstr(text, "`xio ");
  ASSERT(start != NULL);
  start += 5;
  const char *end = strchr(start, '`');
  ASSERT(end != NULL);
  char line[2048];
  snprintf(line, sizeof line, "%.*s", (int)(end - start), start);
  const char *args[16];
  int n = 0;
  for (char *save = NULL, *w = strtok_r(line, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
    ASSERT(n < 15);
    args[n++] = w;
  }
  args[n] = NULL;
  clirun_v(r, CLIRUN_NO_CREDS, cliproxy_env(), args);
}

TEST(sigint_during_a_restore_names_the_restore_that_finishes_it) {
  char direct[512], id[64], dir[512], ref[512], got[512], url[1024], copy_direct[1024];
  char container[128], blob[128], want[2048];
  bkfix_url("stopped", direct, sizeof direct);
  xio_file *f = bkfix_open(direct, 16 * MiB);
  bkfix_write(f, 0, 16 * MiB, 31);
  bkfix_snapshot(f, id);
  clirun_path("bk-stopped", dir, sizeof dir);
  clirun_path("stopped.ref", ref, sizeof ref);
  clirun_path("stopped.got", got, sizeof got);
  clirun r = {0};
  XIO(&r, "backup", direct, dir, "--snapshot", id);
  EXPECT_EXIT(&r, 0);
  bkfix_get_snapshot(direct, id, ref);

  /* The restore into a new blob, through the proxy, stopped at its second write. */
  split_url(direct, container, sizeof container, blob, sizeof blob);
  snprintf(blob + strlen(blob), sizeof blob - strlen(blob), "-copy");
  cliproxy_url(container, blob, url, sizeof url);
  snprintf(copy_direct, sizeof copy_direct, "%s-copy", direct);
  cliproxy_hold("PUT", "comp=page", 1);
  clirun_bg b;
  XIO_START_PROXIED(&b, 0, "restore", dir, url);
  cliproxy_wait(&b);
  ASSERT_EQ(kill(b.pid, SIGINT), 0);
  clirun_finish(&b, &r, 60);
  EXPECT_EXIT(&r, 130);
  snprintf(want, sizeof want, "`xio restore --resume %s@%s %s` finishes it", dir, id, url);
  ASSERT_CONTAINS(r.err, want);
  ASSERT_NOT_CONTAINS(r.err, "/proc/self/fd");
  ASSERT_NOT_CONTAINS(r.err, "put --resume");
  XIO(&r, "get", copy_direct, got);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "incomplete");

  /* The command as printed finishes it. */
  run_printed(&r, want);
  EXPECT_EXIT(&r, 0);
  XIO(&r, "get", copy_direct, got);
  EXPECT_EXIT(&r, 0);
  clirun_expect_same_files(ref, got);
  clirun_free(&r);
  xio_file_close(f, NULL);
}
