/*
 * atfile_test.c - a target read from a file (@FILE) or from standard input (@-),
 * which keeps a URL's SAS off the command line: a SAS URL given either way works
 * alone (no other credential) for put, stat and get, and while the command runs
 * its /proc/PID/cmdline holds "@..." but not the signature; bad uses end with exit
 * 2 and a message naming the argument and the file (a missing or empty file, a
 * second line, a second @-, a bare @), never what the file holds; a local path
 * that starts with '@' is written ./@name. A SAS URL given as an argument all the
 * same has its signature overwritten in the command's /proc/PID/cmdline.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cliproxy.h"
#include "clirun.h"
#include "test.h"
#include "util.h"

#define MiB ((size_t)1 << 20)

/* A SAS URL for `url` with `perms`, valid an hour; its signature is registered
 * as a secret no output may show. Free it. */
static char *sas_url(const char *url, const char *perms) {
  clirun r = {0};
  XIO_ENV(&r, CLIRUN_SECRET_STDOUT, NULL, "--quiet", "sas", url, "--permissions", perms, "--expiry",
          "1h");
  EXPECT_EXIT(&r, 0);
  r.out[strcspn(r.out, "\n")] = '\0';
  char *sig = strstr(r.out, "sig=");
  ASSERT(sig != NULL);
  clirun_forbid(sig + 4);
  char *s = strdup(r.out);
  clirun_free(&r);
  return s;
}

/* Writes `text` to the file `path`. */
static void write_text(const char *path, const char *text) {
  clirun_write_file(path, text, strlen(text));
}

/* Runs `xio ARGS` (no credential) with `input` on its standard input. */
static void run_with_stdin(clirun *r, const char *input, const char *const *args) {
  clirun_bg b;
  clirun_start_v(&b, CLIRUN_STDIN_PIPE | CLIRUN_NO_CREDS, NULL, args);
  ASSERT_EQ(write(b.in, input, strlen(input)), (ssize_t)strlen(input));
  close(b.in);
  b.in = -1;
  clirun_finish(&b, r, 120);
}

#define XIO_STDIN(r, input, ...)                                                                   \
  run_with_stdin((r), (input), (const char *const[]){__VA_ARGS__, NULL})

TEST(a_sas_url_from_a_file_or_stdin_works_alone) {
  clirun r = {0};
  char container[64], url[512], src[512], back[512], urlfile[512], line[2100];
  clirun_container(container, sizeof container);
  clirun_url(container, "fromfile.mdf", url, sizeof url);
  clirun_path("fromfile.bin", src, sizeof src);
  clirun_path("fromfile.back", back, sizeof back);
  clirun_path("fromfile.url", urlfile, sizeof urlfile);
  clirun_make_source(src, 4 * MiB, 31);
  XIO(&r, "create", url, "--size", "4K"); /* the container, for a blob SAS to write into */
  EXPECT_EXIT(&r, 0);
  XIO(&r, "rm", url);
  EXPECT_EXIT(&r, 0);
  char *sas = sas_url(url, "rcw");
  snprintf(line, sizeof line, "  %s  \r\n\n", sas); /* blanks around it, a blank line after */
  write_text(urlfile, line);
  char at[600];
  snprintf(at, sizeof at, "@%s", urlfile);

  XIO_ENV(&r, CLIRUN_NO_CREDS, NULL, "put", src, at);
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.out, url); /* printed without its query */
  XIO_ENV(&r, CLIRUN_NO_CREDS, NULL, "stat", at);
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.out, "4194304 bytes");
  XIO_ENV(&r, CLIRUN_NO_CREDS, NULL, "get", at, back);
  EXPECT_EXIT(&r, 0);
  clirun_expect_same_files(src, back);
  remove(back);

  snprintf(line, sizeof line, "%s\n", sas);
  XIO_STDIN(&r, line, "put", "--force", src, "@-");
  EXPECT_EXIT(&r, 0);
  XIO_STDIN(&r, line, "stat", "@-");
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.out, "4194304 bytes");
  XIO_STDIN(&r, line, "get", "@-", back);
  EXPECT_EXIT(&r, 0);
  clirun_expect_same_files(src, back);
  remove(back);

  XIO(&r, "rm", url);
  EXPECT_EXIT(&r, 0);
  remove(src);
  remove(urlfile);
  free(sas);
  clirun_free(&r);
}

/* The SAS URL of `url` through the proxy: the same query on the proxy's address
 * (a signature does not cover the host). */
static void proxied_sas(const char *sas, const char *container, const char *blob, char *out,
                        size_t size) {
  char base[512];
  cliproxy_url(container, blob, base, sizeof base);
  snprintf(out, size, "%s%s", base, strchr(sas, '?'));
}

/* While put and get run with their SAS URL from @FILE and @-, held at a request,
 * their command lines hold the @ argument and no signature. */
TEST(a_command_given_its_sas_url_through_a_file_shows_no_signature_in_proc) {
  clirun r = {0};
  clirun_bg b;
  char container[64], url[512], src[512], back[512], urlfile[512], proxied[2100];
  char line[2200], cmdline[4096];
  clirun_container(container, sizeof container);
  clirun_url(container, "hidden.mdf", url, sizeof url);
  clirun_path("hidden.bin", src, sizeof src);
  clirun_path("hidden.back", back, sizeof back);
  clirun_path("hidden.url", urlfile, sizeof urlfile);
  clirun_make_source(src, 4 * MiB, 32);
  XIO(&r, "create", url, "--size", "4K");
  EXPECT_EXIT(&r, 0);
  XIO(&r, "rm", url);
  EXPECT_EXIT(&r, 0);
  char *sas = sas_url(url, "rcw");
  const char *sig = strstr(sas, "sig=") + 4;
  proxied_sas(sas, container, "hidden.mdf", proxied, sizeof proxied);
  snprintf(line, sizeof line, "%s\n", proxied);
  write_text(urlfile, line);
  char at[600];
  snprintf(at, sizeof at, "@%s", urlfile);

  cliproxy_hold("PUT", "comp=page", 0);
  clirun_start_v(&b, CLIRUN_NO_CREDS, NULL, (const char *const[]){"put", src, at, NULL});
  int no = cliproxy_wait(&b);
  clirun_cmdline(&b, cmdline, sizeof cmdline);
  ASSERT_CONTAINS(cmdline, at);
  ASSERT_NOT_CONTAINS(cmdline, sig);
  ASSERT_NOT_CONTAINS(cmdline, "sig=");
  cliproxy_check_held(no);
  clirun_finish(&b, &r, 120);
  EXPECT_EXIT(&r, 0);

  cliproxy_hold("GET", "/hidden.mdf", 1); /* the read, after the ranges */
  clirun_start_v(&b, CLIRUN_STDIN_PIPE | CLIRUN_NO_CREDS, NULL,
                 (const char *const[]){"get", "@-", back, NULL});
  ASSERT_EQ(write(b.in, line, strlen(line)), (ssize_t)strlen(line));
  close(b.in);
  b.in = -1;
  no = cliproxy_wait(&b);
  clirun_cmdline(&b, cmdline, sizeof cmdline);
  ASSERT_CONTAINS(cmdline, "get @- ");
  ASSERT_NOT_CONTAINS(cmdline, sig);
  cliproxy_check_held(no);
  clirun_finish(&b, &r, 120);
  EXPECT_EXIT(&r, 0);
  clirun_expect_same_files(src, back);

  XIO(&r, "rm", url);
  EXPECT_EXIT(&r, 0);
  remove(src);
  remove(back);
  remove(urlfile);
  free(sas);
  clirun_free(&r);
}

/* A SAS URL given on the command line itself: while put runs, held at a request,
 * its /proc/PID/cmdline shows the URL with its signature overwritten by '*' (as
 * many as the signature had characters), and the put works with the real one. */
TEST(a_sas_url_given_as_an_argument_is_overwritten_in_proc) {
  clirun r = {0};
  clirun_bg b;
  char container[64], url[512], src[512], proxied[2100], cmdline[4096], stars[256];
  clirun_container(container, sizeof container);
  clirun_url(container, "argv.mdf", url, sizeof url);
  clirun_path("argv.bin", src, sizeof src);
  clirun_make_source(src, 4 * MiB, 33);
  XIO(&r, "create", url, "--size", "4K");
  EXPECT_EXIT(&r, 0);
  XIO(&r, "rm", url);
  EXPECT_EXIT(&r, 0);
  char *sas = sas_url(url, "rcw");
  const char *sig = strstr(sas, "sig=") + 4;
  size_t siglen = strcspn(sig, "&");
  ASSERT(siglen > 0 && siglen < sizeof stars - 5);
  snprintf(stars, sizeof stars, "sig=%.*s", (int)siglen,
           "**************************************************************************"
           "**************************************************************************");
  proxied_sas(sas, container, "argv.mdf", proxied, sizeof proxied);

  cliproxy_hold("PUT", "comp=page", 0);
  clirun_start_v(&b, CLIRUN_NO_CREDS, NULL, (const char *const[]){"put", src, proxied, NULL});
  int no = cliproxy_wait(&b);
  clirun_cmdline(&b, cmdline, sizeof cmdline);
  ASSERT_NOT_CONTAINS(cmdline, sig);
  ASSERT_CONTAINS(cmdline, stars);
  ASSERT_CONTAINS(cmdline, "/argv.mdf?"); /* the rest of the URL as given */
  cliproxy_check_held(no);
  clirun_finish(&b, &r, 120);
  EXPECT_EXIT(&r, 0);
  XIO(&r, "stat", url);
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.out, "4194304 bytes");

  XIO(&r, "rm", url);
  EXPECT_EXIT(&r, 0);
  remove(src);
  free(sas);
  clirun_free(&r);
}

TEST(a_target_file_that_gives_no_target_is_a_usage_error) {
  clirun r = {0};
  char dir_at[600], missing[600], empty[512], two[512], at_line[512], at[600], local[512];
  const char *secret = "sig=NeverShownInAnyMessage";
  clirun_forbid("NeverShownInAnyMessage");
  snprintf(dir_at, sizeof dir_at, "@%s", clirun_dir());
  snprintf(missing, sizeof missing, "@%s/no-such.url", clirun_dir());
  clirun_path("empty.url", empty, sizeof empty);
  clirun_path("two.url", two, sizeof two);
  clirun_path("at.url", at_line, sizeof at_line);
  write_text(empty, "\n  \n");
  char text[256];
  snprintf(text, sizeof text, "http://127.0.0.1:1/devstoreaccount1/c/b?%s\nsecond line\n", secret);
  write_text(two, text);
  write_text(at_line, "@elsewhere\n");

  XIO(&r, "stat", missing);
  EXPECT_EXIT(&r, 2);
  ASSERT_CONTAINS(r.err, "TARGET @");
  ASSERT_CONTAINS(r.err, "no-such.url: No such file or directory");
  XIO(&r, "stat", dir_at);
  EXPECT_EXIT(&r, 2);
  ASSERT_CONTAINS(r.err, "cannot be read: Is a directory");
  snprintf(at, sizeof at, "@%s", empty);
  XIO(&r, "stat", at);
  EXPECT_EXIT(&r, 2);
  ASSERT_CONTAINS(r.err, "has an empty first line");
  snprintf(at, sizeof at, "@%s", two);
  XIO(&r, "get", at, "out.img");
  EXPECT_EXIT(&r, 2);
  ASSERT_CONTAINS(r.err, "TARGET @");
  ASSERT_CONTAINS(r.err, "holds more than one line");
  snprintf(at, sizeof at, "@%s", at_line);
  XIO(&r, "rm", at);
  EXPECT_EXIT(&r, 2);
  ASSERT_CONTAINS(r.err, "starts with '@'");
  XIO(&r, "stat", "@");
  EXPECT_EXIT(&r, 2);
  ASSERT_CONTAINS(r.err, "names no file");
  XIO_STDIN(&r, "", "stat", "@-");
  EXPECT_EXIT(&r, 2);
  ASSERT_CONTAINS(r.err, "TARGET @-: standard input is empty");
  XIO_STDIN(&r, "http://127.0.0.1:1/devstoreaccount1/c/a\n", "cp", "@-", "@-");
  EXPECT_EXIT(&r, 2);
  ASSERT_CONTAINS(r.err, "DST @-: standard input was read for another argument already");
  ASSERT_STR_EQ(r.trace, ""); /* none of them sent or opened anything */

  /* A local path that starts with '@': ./@name. */
  char *cwd = getcwd(NULL, 0);
  ASSERT(cwd != NULL);
  ASSERT_EQ(chdir(clirun_dir()), 0);
  XIO(&r, "create", "./@local.img", "--size", "4K");
  EXPECT_EXIT(&r, 0);
  XIO(&r, "stat", "./@local.img");
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.out, "4096 bytes");
  clirun_path("@local.img", local, sizeof local);
  ASSERT_EQ(chdir(cwd), 0);
  free(cwd);
  ASSERT(access(local, F_OK) == 0);
  remove(local);
  remove(empty);
  remove(two);
  remove(at_line);
  clirun_free(&r);
}
