/*
 * file_test.c - the file layer on page blobs: large writes split into concurrent
 * 4 MiB Put Pages, unaligned writes refused or done by read-modify-write, logical
 * sizes kept in metadata across reopen, the file kind kept, statistics, a trace
 * file, and no secret in any trace or error when the file is opened by SAS URL.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <xio/auth.h>
#include <xio/url_int.h>

#include "scratch.h"
#include "test.h"
#include "util.h"
#include "xfix.h"

#define MiB (1024ull * 1024)

/* The longest read request of the trace. */
static uint64_t longest_read(xfix *fx) {
  uint64_t longest = 0;
  for (int i = 0; i < fx->trace.n; i++)
    if (fx->trace.ev[i].type == XIO_REQ_READ && fx->trace.ev[i].length > longest)
      longest = fx->trace.ev[i].length;
  return longest;
}

/* A write goes out in Put Pages of at most 4 MiB, a read in Get Blobs of at most
 * 4 MiB, the longest range the service answers a checksum for: every byte read is
 * checked. With checksums off (`checksum` XIO_CHECKSUM_NONE) nothing is checked, and a
 * read goes in Get Blobs of 8 MiB. */
static void splits(xio_checksum checksum, int reads, uint64_t longest) {
  xfix fx;
  xio_error e;
  char url[1024];
  xio_ctx_options o = xio_ctx_options_default();
  o.checksum = checksum;
  xfix_setup(&fx, 0, &o);
  xfix_target(&fx, "big.mdf", url, sizeof url);
  xio_file *f = xfix_open_url(&fx, url, XIO_OPEN_CREATE, XIO_KIND_DATA, 64 * MiB);
  size_t n = 10 * MiB + 4096;
  char *src = malloc(n), *dst = malloc(n);
  test_fill_random(src, n, 77);
  xfix_trace_reset(&fx);
  ASSERT_OK(xio_file_write(f, 3 * MiB, src, n, &e), &e);
  ASSERT_EQ(xfix_count(&fx, XIO_REQ_WRITE), 3);
  for (int i = 0; i < fx.trace.n; i++)
    ASSERT(fx.trace.ev[i].length <= 4 * MiB);
  size_t got = 0;
  xfix_trace_reset(&fx);
  ASSERT_OK(xio_file_read(f, 3 * MiB, dst, n, &got, &e), &e);
  ASSERT_EQ(got, n);
  ASSERT_MEM_EQ(src, dst, n);
  ASSERT_EQ(xfix_count(&fx, XIO_REQ_READ), reads);
  ASSERT_U64_EQ(longest_read(&fx), longest);
  xio_file_stats st;
  xio_file_get_stats(f, &st);
  ASSERT_U64_EQ(st.writes, 1);
  ASSERT_U64_EQ(st.reads, 1);
  ASSERT_U64_EQ(st.bytes_written, n);
  ASSERT_U64_EQ(st.bytes_read, n);
  ASSERT_U64_EQ(st.failures, 0);
  ASSERT_U64_EQ(st.requests, 3 + (uint64_t)reads);
  free(src);
  free(dst);
  ASSERT_OK(xio_file_close(f, &e), &e);
  xfix_teardown(&fx);
}

TEST(large_write_splits_into_put_pages_and_a_read_into_checked_4_mib_gets) {
  splits(XIO_CHECKSUM_CRC64, 3, 4 * MiB); /* 4 MiB, 4 MiB, 2 MiB + 4 KiB */
}

TEST(unchecked_reads_go_in_8_mib_gets) {
  splits(XIO_CHECKSUM_NONE, 2, 8 * MiB); /* 8 MiB, then 2 MiB + 4 KiB */
}

TEST(unaligned_writes_need_the_flag) {
  xfix fx;
  xio_error e;
  char url[1024];
  xfix_setup(&fx, 0, NULL);
  xfix_target(&fx, "odd.mdf", url, sizeof url);
  xio_file *f = xfix_open_url(&fx, url, XIO_OPEN_CREATE, XIO_KIND_DATA, MiB);
  char buf[1000];
  test_fill_random(buf, sizeof buf, 1);
  ASSERT_ERR(xio_file_write(f, 100, buf, sizeof buf, &e), XIO_EALIGN, &e);
  ASSERT_CONTAINS(e.message, "XIO_OPEN_UNALIGNED");
  ASSERT_OK(xio_file_close(f, &e), &e);
  f = xfix_open_url(&fx, url, XIO_OPEN_UNALIGNED, XIO_KIND_DATA, 0);
  char around[2048];
  test_fill_random(around, sizeof around, 2);
  ASSERT_OK(xio_file_write(f, 0, around, sizeof around, &e), &e);
  ASSERT_OK(xio_file_write(f, 100, buf, sizeof buf, &e), &e);
  char back[2048];
  size_t got;
  ASSERT_OK(xio_file_read(f, 0, back, sizeof back, &got, &e), &e);
  ASSERT_MEM_EQ(back, around, 100); /* head sector kept */
  ASSERT_MEM_EQ(back + 100, buf, sizeof buf);
  ASSERT_MEM_EQ(back + 1100, around + 1100, 948); /* tail sector kept */
  ASSERT_OK(xio_file_close(f, &e), &e);
  xfix_teardown(&fx);
}

TEST(logical_size_and_kind_survive_reopen) {
  xfix fx;
  xio_error e;
  char url[1024];
  xfix_setup(&fx, 0, NULL);
  xfix_target(&fx, "sized.ldf", url, sizeof url);
  xio_file *f = xfix_open_url(&fx, url, XIO_OPEN_CREATE | XIO_OPEN_UNALIGNED, XIO_KIND_LOG, 1000);
  ASSERT_U64_EQ(xio_file_size(f), 1000);
  char data[300];
  test_fill_random(data, sizeof data, 3);
  ASSERT_OK(xio_file_write(f, 900, data, sizeof data, &e), &e); /* grows to 1200 */
  ASSERT_U64_EQ(xio_file_size(f), 1200);
  ASSERT_OK(xio_file_close(f, &e), &e);
  f = xfix_open_url(&fx, url, 0, XIO_KIND_DATA, 0);
  ASSERT_U64_EQ(xio_file_size(f), 1200);
  ASSERT_EQ(xio_file_kind(f), XIO_KIND_LOG);
  char back[400];
  size_t got = 0;
  ASSERT_OK(xio_file_read(f, 900, back, sizeof back, &got, &e), &e);
  ASSERT_EQ(got, 300); /* short at the logical end */
  ASSERT_MEM_EQ(back, data, 300);
  ASSERT_OK(xio_file_close(f, &e), &e);
  /* Shrink inside a sector, then grow: the bytes past the old end read as zero. */
  f = xfix_open_url(&fx, url, XIO_OPEN_UNALIGNED, XIO_KIND_DATA, 0);
  ASSERT_OK(xio_file_set_size(f, 1000, XIO_INIT_NONE, &e), &e);
  ASSERT_OK(xio_file_set_size(f, 1536, XIO_INIT_NONE, &e), &e);
  ASSERT_OK(xio_file_read(f, 1000, back, 400, &got, &e), &e);
  ASSERT(test_all_zero(back, 400));
  ASSERT_OK(xio_file_close(f, &e), &e);
  xfix_teardown(&fx);
}

TEST(sas_url_never_appears_in_traces_or_errors) {
  xfix fx;
  xio_error e;
  char url[1024], sas_url[2048];
  xfix_setup(&fx, 0, NULL);
  xfix_target(&fx, "secret.mdf", url, sizeof url);
  xio_file *f = xfix_open_url(&fx, url, XIO_OPEN_CREATE, XIO_KIND_DATA, MiB);
  ASSERT_OK(xio_file_close(f, &e), &e);
  unsigned char *key;
  size_t key_len;
  ASSERT_OK(xio_auth_base64_decode(XIO_AUTH_DEV_KEY, &key, &key_len, &e), &e);
  xio_auth_sas_options so = xio_auth_sas_options_default();
  so.permissions = "rw";
  so.expiry = time(NULL) + 3600;
  char *tok = NULL;
  const char *container = strrchr(fx.base, '/') + 1;
  ASSERT_OK(xio_auth_sas_generate_service(XIO_AUTH_DEV_ACCOUNT, key, key_len, container,
                                          "secret.mdf", &so, &tok, &e),
            &e);
  snprintf(sas_url, sizeof sas_url, "%s?%s", url, tok);
  const char *sig = strstr(tok, "sig=") + 4;
  xfix_trace_reset(&fx);
  f = xfix_open_url(&fx, sas_url, 0, XIO_KIND_DATA, 0);
  ASSERT_NOT_CONTAINS(xio_file_path(f), "?");
  char page[512] = {1};
  ASSERT_OK(xio_file_write(f, 0, page, sizeof page, &e), &e);
  /* An error through the same SAS: the token lacks 'd'. */
  ASSERT_ERR(xio_file_delete(fx.ctx, sas_url, &e), XIO_EPERM, &e);
  char line[2048];
  xio_error_format(&e, line, sizeof line);
  ASSERT_NOT_CONTAINS(line, sig);
  ASSERT_NOT_CONTAINS(line, "sig=");
  ASSERT(fx.trace.json != NULL);
  ASSERT_NOT_CONTAINS(fx.trace.json, sig);
  ASSERT_NOT_CONTAINS(fx.trace.json, "sig=");
  ASSERT_CONTAINS(fx.trace.json, "\"file_path\":\"");
  ASSERT_OK(xio_file_close(f, &e), &e);
  free(tok);
  xio_auth_secret_free(key, key_len);
  xfix_teardown(&fx);
}

TEST(trace_file_gets_json_lines) {
  char path[512];
  test_scratch_file(path, sizeof path, "xio-trace");
  xio_ctx_options o = xio_ctx_options_default();
  o.trace_path = path;
  xfix fx;
  xio_error e;
  char url[1024];
  xfix_setup(&fx, 0, &o);
  xfix_target(&fx, "traced.ldf", url, sizeof url);
  xio_file *f = xfix_open_url(&fx, url, XIO_OPEN_CREATE, XIO_KIND_LOG, 8 * MiB);
  ASSERT_OK(xio_file_set_size(f, 1ull << 40, XIO_INIT_CLEAR, &e), &e);
  ASSERT_OK(xio_file_close(f, &e), &e);
  xfix_teardown(&fx);
  FILE *in = fopen(path, "r");
  char line[4096];
  int lines = 0, zero = 0, growth = 0;
  while (fgets(line, sizeof line, in)) {
    lines++;
    ASSERT(line[0] == '{');
    ASSERT_CONTAINS(line, "\"event\":\"xio_send_complete\"");
    ASSERT_CONTAINS(line, "\"timestamp\":\"");
    if (strstr(line, "\"request_type\":\"XIOTypeZeroFile\"")) {
      zero++;
      if (strstr(line, "\"length\":1099503239168")) {
        growth++; /* the clear of everything past the first 8 MiB */
        ASSERT_CONTAINS(line, "\"offset\":8388608");
        ASSERT_CONTAINS(line, "\"result\":\"ok\"");
      }
    }
  }
  fclose(in);
  test_remove_tree(path);
  ASSERT(lines >= 5);
  ASSERT_EQ(zero, 2);   /* at create (8 MiB) and at growth */
  ASSERT_EQ(growth, 1); /* the growth's clear is there, once */
}

TEST(xio_trace_environment_variable_names_the_trace_file) {
  char path[512];
  test_scratch_file(path, sizeof path, "xio-envtrace");
  setenv("XIO_TRACE", path, 1);
  xio_ctx_options o = xio_ctx_options_default(); /* use_environment = 1 */
  o.connection_string = test_dev_connection_string();
  xio_ctx *ctx = NULL;
  xio_error e;
  ASSERT_OK(xio_ctx_new(&o, &ctx, &e), &e);
  unsetenv("XIO_TRACE");
  char url[1024], name[64];
  test_unique_name(name, sizeof name, "envtrace");
  snprintf(url, sizeof url, "%s/%s/t.mdf", test_account_url(), name);
  xio_open_options oo = xio_open_options_default();
  oo.flags = XIO_OPEN_CREATE;
  oo.size = MiB;
  xio_file *f = NULL;
  ASSERT_OK(xio_file_open(ctx, url, &oo, &f, &e), &e);
  ASSERT_OK(xio_file_close(f, &e), &e);
  xio_ctx_free(ctx);
  FILE *in = fopen(path, "r");
  char line[4096];
  int creates = 0;
  while (fgets(line, sizeof line, in))
    creates += strstr(line, "\"request_type\":\"XIOTypeCreateFile\"") != NULL;
  fclose(in);
  test_remove_tree(path);
  ASSERT(creates >= 1);
}
