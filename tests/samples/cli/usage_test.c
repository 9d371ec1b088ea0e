/*
 * usage_test.c - the command line's own surface: help for every command (exit 0),
 * the version, and bad usage (unknown commands and options, missing arguments,
 * bad sizes, durations and numbers) ending with exit 2 and a message that names
 * what was wrong; `xio demo` names the program the demo became.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>

#include "clirun.h"
#include "test.h"

static const char *const commands[] = {"create", "grow", "zero", "stat",  "ranges",  "put",
                                       "get",    "rm",   "sas",  "lease", "snapshot"};
#define NCOMMANDS (sizeof commands / sizeof *commands)

TEST(help_for_every_command) {
  clirun r = {0};
  char want[64];
  for (size_t i = 0; i < NCOMMANDS; i++) {
    snprintf(want, sizeof want, "usage: xio %s", commands[i]);
    XIO(&r, commands[i], "--help");
    EXPECT_EXIT(&r, 0);
    ASSERT_CONTAINS(r.out, want);
    ASSERT_STR_EQ(r.err, "");
    XIO(&r, "help", commands[i]);
    EXPECT_EXIT(&r, 0);
    ASSERT_CONTAINS(r.out, want);
    XIO(&r, commands[i], "-h");
    EXPECT_EXIT(&r, 0);
    ASSERT_CONTAINS(r.out, want);
  }
  XIO(&r, "--help");
  EXPECT_EXIT(&r, 0);
  for (size_t i = 0; i < NCOMMANDS; i++)
    ASSERT_CONTAINS(r.out, commands[i]);
  ASSERT_CONTAINS(r.out, "--trace");
  ASSERT_CONTAINS(r.out, "--allow-insecure-http");
  XIO(&r, "help");
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.out, "usage: xio");
  XIO(&r, "--version");
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.out, "xio ");
  clirun_free(&r);
}

TEST(unknown_command_and_option) {
  clirun r = {0};
  XIO(&r, "frobnicate", "x");
  EXPECT_EXIT(&r, 2);
  ASSERT_CONTAINS(r.err, "unknown command frobnicate");
  XIO(&r, "stat", "--frob", "x");
  EXPECT_EXIT(&r, 2);
  ASSERT_CONTAINS(r.err, "unknown option --frob");
  ASSERT_CONTAINS(r.err, "usage: xio stat");
  XIO(&r, "--frob", "stat", "x");
  EXPECT_EXIT(&r, 2);
  ASSERT_CONTAINS(r.err, "unknown option --frob");
  XIO(&r, "help", "frobnicate");
  EXPECT_EXIT(&r, 2);
  XIO_ENV(&r, 0, NULL, "--json"); /* no command at all */
  EXPECT_EXIT(&r, 2);
  ASSERT_CONTAINS(r.err, "no command");
  XIO(&r, "create", "x", "--size", "1M", "--kind", "index");
  EXPECT_EXIT(&r, 2);
  ASSERT_CONTAINS(r.err, "'index'");
  XIO(&r, "create", "x", "--size", "1M", "--init", "fast");
  EXPECT_EXIT(&r, 2);
  ASSERT_CONTAINS(r.err, "'fast'");
  XIO(&r, "zero", "x", "--offset", "0", "--length", "512", "--init", "none");
  EXPECT_EXIT(&r, 2);
  XIO(&r, "rm", "--json=yes", "x");
  EXPECT_EXIT(&r, 2);
  ASSERT_CONTAINS(r.err, "takes no value");
  clirun_free(&r);
}

/* The demo, a command of earlier versions, is a program of its own: `xio demo` says
 * which, and is not listed among the commands. */
TEST(demo_names_the_program_it_became) {
  clirun r = {0};
  XIO(&r, "demo", "--local", clirun_dir());
  EXPECT_EXIT(&r, 2);
  ASSERT_CONTAINS(r.err, "xio-demo");
  ASSERT_CONTAINS(r.err, "make demo");
  ASSERT_STR_EQ(r.out, "");
  XIO(&r, "--help");
  EXPECT_EXIT(&r, 0);
  ASSERT_NOT_CONTAINS(r.out, "demo");
  clirun_free(&r);
}

TEST(missing_arguments) {
  static const struct {
    const char *args[6];
    const char *message;
  } cases[] = {
      {{"create"}, "missing TARGET"},
      {{"create", "x.mdf"}, "missing --size"},
      {{"grow", "x.mdf"}, "missing --size"},
      {{"zero", "x.mdf", "--offset", "0"}, "missing --length"},
      {{"zero", "x.mdf", "--length", "512"}, "missing --offset"},
      {{"put", "only-one"}, "missing TARGET"},
      {{"get"}, "missing TARGET"},
      {{"stat", "a", "b"}, "unexpected argument 'b'"},
      {{"lease", "renew", "http://127.0.0.1:1/devstoreaccount1/cont/b"}, "--lease-id"},
      {{"lease", "steal", "x"}, "unknown action 'steal'"},
      {{"lease", "acquire"}, "missing TARGET"},
      {{"sas", "http://127.0.0.1:1/devstoreaccount1/cont/b", "--expiry", "1h"}, "--permissions"},
      {{"sas", "http://127.0.0.1:1/devstoreaccount1/cont/b", "--permissions", "r"}, "--expiry"},
      {{"stat", "x", "--trace"}, "--trace needs a value"},
  };
  clirun r = {0};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    const char *const *a = cases[i].args;
    XIO(&r, a[0], a[1], a[2], a[3], a[4], a[5]);
    EXPECT_EXIT(&r, 2);
    ASSERT_CONTAINS(r.err, cases[i].message);
    ASSERT_CONTAINS(r.err, "usage: xio");
  }
  clirun_free(&r);
}

TEST(bad_sizes_and_numbers) {
  static const char *const sizes[] = {
      "12Q", "-5", "1.5G", "abc", "", "1 G", "99999999999999999999", "16777216T", "0x10"};
  clirun r = {0};
  char want[64];
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
    XIO(&r, "create", "never.mdf", "--size", sizes[i]);
    EXPECT_EXIT(&r, 2);
    snprintf(want, sizeof want, "bad --size '%s'", sizes[i]);
    ASSERT_CONTAINS(r.err, want);
  }
  XIO(&r, "zero", "x", "--offset", "-1", "--length", "512");
  EXPECT_EXIT(&r, 2);
  ASSERT_CONTAINS(r.err, "bad --offset '-1'");
  XIO(&r, "lease", "acquire", "x", "--duration", "5");
  EXPECT_EXIT(&r, 2);
  ASSERT_CONTAINS(r.err, "'5'");
  XIO(&r, "lease", "acquire", "x", "--duration", "sixty");
  EXPECT_EXIT(&r, 2);
  XIO(&r, "lease", "break", "x", "--break-period", "61");
  EXPECT_EXIT(&r, 2);
  ASSERT_CONTAINS(r.err, "'61'");
  XIO(&r, "sas", "http://127.0.0.1:1/devstoreaccount1/cont/b", "--permissions", "r", "--expiry",
      "1x");
  EXPECT_EXIT(&r, 2);
  ASSERT_CONTAINS(r.err, "bad --expiry '1x'");
  XIO(&r, "sas", "http://127.0.0.1:1/devstoreaccount1/cont/b", "--permissions", "r", "--expiry",
      "2020-01-01T00:00:00Z");
  EXPECT_EXIT(&r, 2);
  ASSERT_CONTAINS(r.err, "already past");
  clirun_free(&r);
}

TEST(sizes_take_binary_suffixes) {
  static const struct {
    const char *text;
    double bytes;
  } cases[] = {{"4096", 4096},  {"4K", 4096},    {"4k", 4096},  {"2KiB", 2048},
               {"3M", 3 << 20}, {"1G", 1 << 30}, {"512B", 512}, {"1T", 1099511627776.0}};
  clirun r = {0};
  char path[256];
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    clirun_path("sized.mdf", path, sizeof path);
    XIO(&r, "create", path, "--size", cases[i].text);
    EXPECT_EXIT(&r, 0);
    XIO(&r, "--json", "stat", path);
    EXPECT_EXIT(&r, 0);
    cJSON *j = clirun_json(&r);
    ASSERT(clirun_num(j, "size") == cases[i].bytes);
    cJSON_Delete(j);
    XIO(&r, "rm", path);
    EXPECT_EXIT(&r, 0);
  }
  clirun_free(&r);
}

TEST(unsupported_scheme_is_named) {
  static const char *const targets[] = {"ftp://x/y/z", "s3://bucket/db.mdf"};
  static const char *const schemes[] = {"'ftp'", "'s3'"};
  clirun r = {0};
  for (size_t i = 0; i < sizeof targets / sizeof *targets; i++) {
    XIO(&r, "stat", targets[i]);
    EXPECT_EXIT(&r, 2);
    ASSERT_CONTAINS(r.err, "unsupported URL scheme");
    ASSERT_CONTAINS(r.err, schemes[i]);
    XIO(&r, "create", targets[i], "--size", "1M");
    EXPECT_EXIT(&r, 2);
    ASSERT_CONTAINS(r.err, schemes[i]);
    XIO(&r, "rm", targets[i]);
    EXPECT_EXIT(&r, 2);
    ASSERT_CONTAINS(r.err, schemes[i]);
  }
  char local[256];
  clirun_path("never-uploaded.mdf", local, sizeof local);
  clirun_write_file(local, "x", 1);
  XIO(&r, "put", local, "ftp://x/y/z");
  EXPECT_EXIT(&r, 2);
  ASSERT_CONTAINS(r.err, "'ftp'");
  clirun_free(&r);
}
