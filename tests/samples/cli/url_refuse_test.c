/*
 * url_refuse_test.c - target URLs that would reach or sign something else than the
 * blob they name are refused before anything is sent: "a/../b" (libcurl and servers
 * resolve it, so a put with a SAS would write blob "b", an rm would delete it, and
 * with a key the request would be refused with a hint blaming the key), and a query
 * that is not a SAS or snapshot= (a '?' typed in a blob name, a stray "?comp=list").
 * Nothing is written or deleted, the exit status is 2 (bad usage, as a bad option),
 * and a name with an escaped '?' (%3F) works.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clirun.h"
#include "test.h"

/* A fresh container with blob `name` (64 KiB of 0x5a put from a local file). */
static void container_with(const char *name, char *container, char *local, size_t size) {
  char url[600], data[65536];
  clirun r = {0};
  clirun_container(container, 64);
  clirun_url(container, name, url, sizeof url);
  clirun_path("url-refuse.bin", local, size);
  memset(data, 0x5a, sizeof data);
  clirun_write_file(local, data, sizeof data);
  XIO(&r, "put", local, url);
  EXPECT_EXIT(&r, 0);
  clirun_free(&r);
}

/* A container SAS with every permission, signed with the dev key: `out` = URL?SAS
 * for blob `blob` (raw, as typed: not encoded). */
static void sas_url(const char *container, const char *blob, char *out, size_t size) {
  char cont_url[600], sas[2048];
  clirun r = {0};
  clirun_url(container, NULL, cont_url, sizeof cont_url);
  XIO_ENV(&r, CLIRUN_SECRET_STDOUT, NULL, "--quiet", "sas", cont_url, "--permissions", "rcwdl",
          "--expiry", "1h");
  EXPECT_EXIT(&r, 0);
  snprintf(sas, sizeof sas, "%.*s", (int)strcspn(r.out, "\n"), r.out);
  const char *q = strchr(sas, '?');
  ASSERT(q != NULL);
  snprintf(out, size, "%s/%s%s", cont_url, blob, q);
  clirun_free(&r);
}

/* Blob `name` of `container` reads back as the 64 KiB of container_with. */
static void expect_intact(const char *container, const char *name) {
  char url[600];
  clirun r = {0};
  clirun_url(container, name, url, sizeof url);
  XIO(&r, "--json", "stat", url);
  EXPECT_EXIT(&r, 0);
  cJSON *j = clirun_json(&r);
  ASSERT_EQ((long)clirun_num(j, "size"), 65536L);
  cJSON_Delete(j);
  clirun_free(&r);
}

static void expect_absent(const char *container, const char *name) {
  char url[600];
  clirun r = {0};
  clirun_url(container, name, url, sizeof url);
  XIO(&r, "stat", url);
  EXPECT_EXIT(&r, 1);
  ASSERT_CONTAINS(r.err, "BlobNotFound");
  clirun_free(&r);
}

TEST(dot_segments_reach_nothing) {
  char cont[64], local[512], url[4096], other[512];
  clirun r = {0};
  container_with("b.mdf", cont, local, sizeof local);
  clirun_path("other.bin", other, sizeof other);
  char zeros[4096] = {0};
  clirun_write_file(other, zeros, sizeof zeros);
  /* With a SAS: the put would have written b.mdf, the rm deleted it. */
  sas_url(cont, "a/../b.mdf", url, sizeof url);
  XIO(&r, "put", other, url, "--force");
  EXPECT_EXIT(&r, 2);
  ASSERT_CONTAINS(r.err, "'.' or '..' path segment");
  ASSERT_NOT_CONTAINS(r.err, "clock");
  XIO(&r, "rm", url);
  EXPECT_EXIT(&r, 2);
  ASSERT_CONTAINS(r.err, "'.' or '..' path segment");
  sas_url(cont, "a/%2E%2E/b.mdf", url, sizeof url);
  XIO(&r, "rm", url);
  EXPECT_EXIT(&r, 2);
  ASSERT_CONTAINS(r.err, "'.' or '..' path segment");
  expect_intact(cont, "b.mdf");
  /* With the key: refused for what it is, not with a hint about the key and clock. */
  clirun_url(cont, "a/./c.mdf", url, sizeof url);
  XIO(&r, "put", other, url);
  EXPECT_EXIT(&r, 2);
  ASSERT_CONTAINS(r.err, "'.' or '..' path segment");
  ASSERT_NOT_CONTAINS(r.err, "HTTP 403");
  ASSERT_NOT_CONTAINS(r.err, "clock");
  expect_absent(cont, "c.mdf");
  expect_absent(cont, "a/c.mdf");
  clirun_free(&r);
}

TEST(stray_query_refused_escaped_question_mark_works) {
  char cont[64], local[512], url[700], base[600];
  clirun r = {0};
  container_with("b.mdf", cont, local, sizeof local);
  clirun_url(cont, "b.mdf", base, sizeof base);
  snprintf(url, sizeof url, "%s?comp=list", base);
  XIO(&r, "stat", url);
  EXPECT_EXIT(&r, 2);
  ASSERT_CONTAINS(r.err, "query parameter 'comp'");
  ASSERT_CONTAINS(r.err, "%3F");
  ASSERT_NOT_CONTAINS(r.err, "HTTP 403");
  ASSERT_NOT_CONTAINS(r.err, "clock");
  /* A '?' typed in a blob name: refused, and nothing is made under either name. */
  clirun_url(cont, "what?.mdf", url, sizeof url);
  XIO(&r, "put", local, url);
  EXPECT_EXIT(&r, 2);
  ASSERT_CONTAINS(r.err, "query parameter '.mdf'");
  ASSERT_CONTAINS(r.err, "written %3F");
  expect_absent(cont, "what");
  /* Written %3F it is the name. */
  clirun_url(cont, "what%3F.mdf", url, sizeof url);
  XIO(&r, "put", local, url);
  EXPECT_EXIT(&r, 0);
  clirun_url(cont, NULL, base, sizeof base);
  XIO(&r, "--json", "ls", base);
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.out, "\"what?.mdf\"");
  /* snapshot= stays a target's query. */
  clirun_url(cont, "b.mdf", base, sizeof base);
  XIO(&r, "--quiet", "snapshot", base);
  EXPECT_EXIT(&r, 0);
  snprintf(url, sizeof url, "%s?snapshot=%.*s", base, (int)strcspn(r.out, "\n"), r.out);
  XIO(&r, "stat", url);
  EXPECT_EXIT(&r, 0);
  clirun_free(&r);
}
