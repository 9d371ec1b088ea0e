/*
 * conventions_test.c - what users of AzCopy, az, rclone and git expect of a command
 * line: "did you mean" for a mistyped command or option (exit 2 as for any usage
 * error); an example in every command's help, whose syntax parses; the completion
 * words the shell scripts ask for (`xio __complete`); `put FILE CONTAINER_URL/`
 * naming the blob after FILE, as cp(1) does; a put onto what an interrupted put
 * left pointing at --resume; the resume summary telling pages already uploaded from
 * zero pages; hints that fit the error (a container name out of Azure's rules, a
 * container that does not exist, a local file that exists).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xio/xio.h>

#include "clirun.h"
#include "test.h"
#include "util.h"

#define MiB ((size_t)1 << 20)

/* The command names `xio --help` lists under "Commands:", into `out` (at most `max`). */
static int listed_commands(char out[][32], int max) {
  clirun r = {0};
  XIO(&r, "--help");
  EXPECT_EXIT(&r, 0);
  const char *p = strstr(r.out, "Commands:\n");
  ASSERT(p != NULL);
  p += strlen("Commands:\n");
  int n = 0;
  while (n < max && strncmp(p, "  ", 2) == 0) {
    sscanf(p, " %31s", out[n++]);
    p = strchr(p, '\n');
    if (!p) break;
    p++;
  }
  clirun_free(&r);
  ASSERT(n >= 16);
  return n;
}

TEST(mistyped_commands_and_options_get_a_suggestion) {
  clirun r = {0};
  XIO(&r, "lss", "x");
  EXPECT_EXIT(&r, 2);
  ASSERT_CONTAINS(r.err, "unknown command lss");
  ASSERT_CONTAINS(r.err, "did you mean 'ls'?");
  XIO(&r, "snapshto", "x");
  EXPECT_EXIT(&r, 2);
  ASSERT_CONTAINS(r.err, "did you mean 'snapshot'?");
  XIO(&r, "help", "puut");
  EXPECT_EXIT(&r, 2);
  ASSERT_CONTAINS(r.err, "did you mean 'put'?");
  XIO(&r, "put", "--resum", "a", "b");
  EXPECT_EXIT(&r, 2);
  ASSERT_CONTAINS(r.err, "unknown option --resum");
  ASSERT_CONTAINS(r.err, "did you mean --resume?");
  XIO(&r, "get", "--forse=1", "a", "b"); /* the name before '=' is what is compared */
  EXPECT_EXIT(&r, 2);
  ASSERT_CONTAINS(r.err, "did you mean --force?");
  XIO(&r, "stat", "--jsno", "x"); /* a global option, after the command */
  EXPECT_EXIT(&r, 2);
  ASSERT_CONTAINS(r.err, "did you mean --json?");
  XIO(&r, "--quite", "stat", "x"); /* before it */
  EXPECT_EXIT(&r, 2);
  ASSERT_CONTAINS(r.err, "did you mean --quiet?");
  XIO(&r, "emulator", "stats");
  EXPECT_EXIT(&r, 2);
  ASSERT_CONTAINS(r.err, "did you mean 'status'?");
  /* Nothing close: no guess. */
  XIO(&r, "frobnicate", "x");
  EXPECT_EXIT(&r, 2);
  ASSERT_NOT_CONTAINS(r.err, "did you mean");
  XIO(&r, "stat", "--frob", "x");
  EXPECT_EXIT(&r, 2);
  ASSERT_NOT_CONTAINS(r.err, "did you mean");
  clirun_free(&r);
}

/* The first line of `help` after "Example" that starts with "  xio ", split into
 * words (no quoting in examples) into `argv`; returns how many. */
static int example_words(const char *help, char *buf, size_t size, const char **argv, int max) {
  const char *p = strstr(help, "\nExample");
  ASSERT(p != NULL);
  p = strstr(p, "\n  xio ");
  ASSERT(p != NULL);
  p += strlen("\n  xio ");
  size_t n = strcspn(p, "\n");
  ASSERT(n < size);
  memcpy(buf, p, n);
  buf[n] = '\0';
  char *cut = strstr(buf, "  #"); /* a comment after the example */
  if (cut) *cut = '\0';
  int k = 0;
  for (char *w = strtok(buf, " "); w && k < max - 2; w = strtok(NULL, " "))
    argv[k++] = w;
  return k;
}

TEST(every_command_has_an_example_that_parses) {
  char cmds[40][32];
  int n = listed_commands(cmds, 40);
  clirun r = {0};
  for (int i = 0; i < n; i++) {
    XIO(&r, "help", cmds[i]);
    EXPECT_EXIT(&r, 0);
    /* Every line of the usage names the command, as the man page shows it. */
    char lead[1400], more[1400];
    snprintf(lead, sizeof lead, "usage: xio %s", cmds[i]);
    snprintf(more, sizeof more, "       xio %s ", cmds[i]);
    ASSERT(strncmp(r.out, lead, strlen(lead)) == 0);
    for (const char *l = strchr(r.out, '\n') + 1; *l != '\n'; l = strchr(l, '\n') + 1)
      if (strncmp(l, more, strlen(more)) != 0) FAIL("a usage line of %s: %.80s", cmds[i], l);
    ASSERT_CONTAINS(r.out, "\nExample");
    char buf[1024];
    const char *args[40];
    int k = example_words(r.out, buf, sizeof buf, args, 40);
    ASSERT(k >= 1);
    ASSERT_STR_EQ(args[0], cmds[i]);
    /* Parsed up to --help at its end: an unknown option or a missing value would be
     * a usage error (exit 2) before it. */
    args[k++] = "--help";
    args[k] = NULL;
    char help[1024];
    snprintf(help, sizeof help, "%s", r.out);
    clirun_v(&r, CLIRUN_NO_CREDS, NULL, args);
    if (r.status != 0) FAIL("the example of %s does not parse:\n%s", cmds[i], r.err);
    ASSERT_STR_EQ(r.err, "");
  }
  clirun_free(&r);
}

/* The words `xio __complete WORDS...` offers, newline-separated. */
static void complete(clirun *r, const char *const *words) {
  const char *args[16] = {"__complete"};
  int k = 1;
  for (; words[k - 1]; k++)
    args[k] = words[k - 1];
  args[k] = NULL;
  clirun_v(r, CLIRUN_NO_CREDS, NULL, args);
  EXPECT_EXIT(r, 0);
  ASSERT_STR_EQ(r->err, "");
}

static void has_word(const char *list, const char *word) {
  char line[80];
  snprintf(line, sizeof line, "\n%s\n", word);
  char *padded = malloc(strlen(list) + 2);
  ASSERT(padded != NULL);
  sprintf(padded, "\n%s", list);
  if (!strstr(padded, line)) FAIL("'%s' is not among the words offered:\n%s", word, list);
  free(padded);
}

/* (shell_test.sh checks, through the installed scripts, that every command's options
 * are offered and named in its help.) */
TEST(completion_words_come_from_the_command_tables) {
  char cmds[40][32];
  int n = listed_commands(cmds, 40);
  clirun r = {0};
  complete(&r, (const char *const[]){NULL});
  for (int i = 0; i < n; i++)
    has_word(r.out, cmds[i]);
  has_word(r.out, "help");
  has_word(r.out, "--json");
  complete(&r, (const char *const[]){"help", NULL});
  has_word(r.out, "put");
  complete(&r, (const char *const[]){"put", NULL});
  has_word(r.out, "--resume");
  has_word(r.out, "--in-flight");
  has_word(r.out, "--trace"); /* global options are taken after the command too */
  complete(&r, (const char *const[]){"--quiet", "get", "--force", NULL});
  has_word(r.out, "--snapshot");
  complete(&r, (const char *const[]){"emulator", NULL});
  has_word(r.out, "start");
  has_word(r.out, "status");
  complete(&r, (const char *const[]){"emulator", "start", NULL});
  has_word(r.out, "--faults");
  has_word(r.out, "--shell");
  complete(&r, (const char *const[]){"lease", NULL});
  has_word(r.out, "acquire");
  has_word(r.out, "break");
  complete(&r, (const char *const[]){"lease", "acquire", NULL});
  has_word(r.out, "--duration");
  complete(&r, (const char *const[]){"snapshot", "diff", NULL});
  has_word(r.out, "--since");
  /* After an option that takes a value: nothing (the shell completes a file). */
  complete(&r, (const char *const[]){"put", "--kind", NULL});
  ASSERT_STR_EQ(r.out, "");
  complete(&r, (const char *const[]){"--trace", NULL});
  ASSERT_STR_EQ(r.out, "");
  clirun_free(&r);
}

/* A 10,000-byte local file of seed `seed` at `path`. */
static void small_file(const char *path, uint64_t seed) {
  static char data[10000];
  test_fill_random(data, sizeof data, seed);
  clirun_write_file(path, data, sizeof data);
}

TEST(put_to_a_container_url_takes_the_file_name) {
  clirun r = {0};
  char container[64], cont_url[512], cont_slash[600], blob[512], src[512], back[512];
  clirun_container(container, sizeof container);
  clirun_url(container, NULL, cont_url, sizeof cont_url);
  snprintf(cont_slash, sizeof cont_slash, "%s/", cont_url);
  clirun_url(container, "named.mdf", blob, sizeof blob);
  clirun_path("named.mdf", src, sizeof src);
  clirun_path("named.back", back, sizeof back);
  small_file(src, 31);
  XIO(&r, "put", src, cont_slash);
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.out, blob);
  XIO(&r, "get", blob, back);
  EXPECT_EXIT(&r, 0);
  clirun_expect_same_files(src, back);
  /* Without the '/' too; it exists now, so --force, as for any TARGET. */
  XIO(&r, "put", src, cont_url);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "already exists");
  XIO(&r, "put", "--force", src, cont_url);
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.out, blob);
  XIO(&r, "rm", blob);
  EXPECT_EXIT(&r, 0);
  clirun_free(&r);
}

/* Leaves `url` as an interrupted put does: a blob of `size` bytes marked incomplete. */
static void make_incomplete(const char *url, uint64_t size) {
  xio_ctx_options co = xio_ctx_options_default();
  co.connection_string = test_dev_connection_string();
  co.use_environment = 0;
  xio_ctx *ctx;
  xio_error e;
  ASSERT_OK(xio_ctx_new(&co, &ctx, &e), &e);
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_CREATE_ONLY | XIO_OPEN_MARK_INCOMPLETE;
  o.size = size;
  xio_file *f;
  ASSERT_OK(xio_file_open(ctx, url, &o, &f, &e), &e);
  ASSERT_OK(xio_file_close(f, &e), &e);
  xio_ctx_free(ctx);
}

TEST(put_onto_an_interrupted_put_points_at_resume) {
  clirun r = {0};
  char container[64], url[512], src[512];
  clirun_container(container, sizeof container);
  clirun_url(container, "half.mdf", url, sizeof url);
  clirun_path("half.src", src, sizeof src);
  clirun_make_source(src, 4 * MiB, 41);
  make_incomplete(url, 4 * MiB);
  XIO(&r, "put", src, url);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "marked incomplete");
  ASSERT_CONTAINS(r.err, "xio put --resume");
  ASSERT_NOT_CONTAINS(r.err, "--force replaces it");
  ASSERT_EQ(clirun_trace_sum(&r, "XIOTypeWriteFile", NULL), 0);
  XIO(&r, "put", "--resume", src, url);
  EXPECT_EXIT(&r, 0);
  XIO(&r, "rm", url);
  EXPECT_EXIT(&r, 0);
  clirun_free(&r);
}

/* put --resume counts the pages it did not send for what they are: those the target
 * already held, and the zero pages. */
TEST(resume_summary_tells_uploaded_pages_from_zero_pages) {
  clirun r = {0};
  char container[64], url[512], src[512];
  clirun_container(container, sizeof container);
  clirun_url(container, "again.mdf", url, sizeof url);
  clirun_path("again.src", src, sizeof src);
  /* 4 MiB of data, then 4 MiB of zeros. */
  clirun_make_source(src, 4 * MiB, 43);
  FILE *f = fopen(src, "r+");
  ASSERT(f != NULL);
  ASSERT_EQ(ftruncate(fileno(f), (off_t)(8 * MiB)), 0);
  fclose(f);
  XIO(&r, "put", src, url);
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.out, "8192 zero pages");
  XIO(&r, "put", "--resume", "--force", src, url);
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.out, "8192 pages already uploaded");
  ASSERT_CONTAINS(r.out, "8192 zero pages skipped");
  XIO(&r, "--json", "put", "--resume", "--force", src, url);
  EXPECT_EXIT(&r, 0);
  cJSON *j = clirun_json(&r);
  ASSERT(clirun_num(j, "pages_already_uploaded") == 8192);
  ASSERT(clirun_num(j, "pages_zero") == 8192);
  ASSERT(clirun_num(j, "pages_skipped") == 16384);
  cJSON_Delete(j);
  XIO(&r, "rm", url);
  EXPECT_EXIT(&r, 0);
  clirun_free(&r);
}

TEST(hints_fit_the_error) {
  clirun r = {0};
  char container[64], url[512], upper[512], missing[512], src[512];
  clirun_container(container, sizeof container);
  clirun_url(container, "h.mdf", url, sizeof url);
  clirun_url("MyDatabases", "h.mdf", upper, sizeof upper);
  clirun_url("no-such-container-here", "h.mdf", missing, sizeof missing);
  clirun_path("hint.src", src, sizeof src);
  small_file(src, 47);
  /* A container name out of Azure's rules: the rules, nothing of CA files. */
  XIO(&r, "create", upper, "--size", "1M");
  EXPECT_EXIT(&r, 2);
  ASSERT_CONTAINS(r.err, "hint: container names are 3-63 lowercase letters, digits and hyphens");
  ASSERT_NOT_CONTAINS(r.err, "CA file");
  /* A container that does not exist, on get: nothing about creating one. */
  XIO(&r, "get", missing, src);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "hint: the container does not exist");
  ASSERT_CONTAINS(r.err, "`xio ls http://");
  ASSERT_CONTAINS(r.err, "devstoreaccount1`");
  ASSERT_NOT_CONTAINS(r.err, "xio create");
  /* A local file that exists: --force or another name, not `xio rm`. */
  XIO(&r, "put", src, url);
  EXPECT_EXIT(&r, 0);
  XIO(&r, "get", url, src);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "hint: add --force to overwrite the local file");
  ASSERT_NOT_CONTAINS(r.err, "xio rm");
  ASSERT_NOT_CONTAINS(r.err, "snapshots"); /* a blob's hint, not a local file's */
  XIO(&r, "get", "--dry-run", url, src);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "hint: add --force to overwrite the local file");
  XIO(&r, "rm", url);
  EXPECT_EXIT(&r, 0);
  clirun_free(&r);
}
