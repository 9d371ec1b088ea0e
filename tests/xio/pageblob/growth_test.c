/*
 * growth_test.c - the central trick on page blobs: growing a log file by a
 * terabyte is one resize and one Put Page clear, and the grown region reads as
 * zero; a data file grows with no zeroing request at all; zeroing by writing, for
 * comparison, writes every byte.
 */
#include <string.h>

#include "test.h"
#include "util.h"
#include "xfix.h"

#define MiB (1024ull * 1024)
#define TiB (1024ull * 1024 * 1024 * 1024)

TEST(log_growth_to_1tib_is_two_requests) {
  xfix fx;
  xio_error e;
  xfix_setup(&fx, 0, NULL);
  xio_file *f = xfix_open(&fx, "db_log.ldf", XIO_OPEN_CREATE, XIO_KIND_LOG, 8 * MiB);
  char buf[4096];
  memset(buf, 0xab, sizeof buf);
  ASSERT_OK(xio_file_write(f, 8 * MiB - sizeof buf, buf, sizeof buf, &e), &e);
  xfix_trace_reset(&fx);
  ASSERT_OK(xio_file_set_size(f, TiB, XIO_INIT_DEFAULT, &e), &e);
  ASSERT_EQ(fx.trace.n, 2);
  ASSERT_EQ(xfix_count(&fx, XIO_REQ_SET_SIZE), 1);
  ASSERT_EQ(xfix_count(&fx, XIO_REQ_ZERO), 1);
  ASSERT_EQ(fx.trace.ev[1].type, XIO_REQ_ZERO);
  ASSERT_U64_EQ(fx.trace.ev[1].offset, 8 * MiB);
  ASSERT_U64_EQ(fx.trace.ev[1].length, TiB - 8 * MiB);
  ASSERT_EQ(fx.trace.ev[1].http_status, 201);
  ASSERT_STR_EQ(fx.trace.ev[1].result, "ok");
  ASSERT_U64_EQ(xio_file_size(f), TiB);
  size_t got = 0;
  memset(buf, 0x11, sizeof buf);
  ASSERT_OK(xio_file_read(f, TiB - sizeof buf, buf, sizeof buf, &got, &e), &e);
  ASSERT_EQ(got, sizeof buf);
  ASSERT(test_all_zero(buf, sizeof buf));
  /* What was written before the growth is still there. */
  ASSERT_OK(xio_file_read(f, 8 * MiB - sizeof buf, buf, sizeof buf, &got, &e), &e);
  ASSERT_EQ((unsigned char)buf[0], 0xab);
  xio_file_stats st;
  xio_file_get_stats(f, &st);
  ASSERT_U64_EQ(st.bytes_cleared, TiB); /* 8 MiB when created, the rest when grown */
  ASSERT_U64_EQ(st.bytes_zero_written, 0);
  ASSERT_OK(xio_file_close(f, &e), &e);
  xfix_teardown(&fx);
}

TEST(data_growth_sends_no_zeroing) {
  xfix fx;
  xio_error e;
  xfix_setup(&fx, 0, NULL);
  xio_file *f = xfix_open(&fx, "db.mdf", XIO_OPEN_CREATE, XIO_KIND_DATA, 8 * MiB);
  xfix_trace_reset(&fx);
  ASSERT_OK(xio_file_set_size(f, 64ull << 30, XIO_INIT_DEFAULT, &e), &e);
  ASSERT_EQ(fx.trace.n, 1);
  ASSERT_EQ(xfix_count(&fx, XIO_REQ_SET_SIZE), 1);
  ASSERT_EQ(xfix_count(&fx, XIO_REQ_ZERO), 0);
  char buf[512];
  size_t got;
  ASSERT_OK(xio_file_read(f, (64ull << 30) - 512, buf, 512, &got, &e), &e);
  ASSERT(test_all_zero(buf, 512));
  ASSERT_OK(xio_file_close(f, &e), &e);
  xfix_teardown(&fx);
}

TEST(zero_init_growth_writes_every_byte) {
  xfix fx;
  xio_error e;
  xfix_setup(&fx, 0, NULL);
  xio_file *f = xfix_open(&fx, "classic.ldf", XIO_OPEN_CREATE, XIO_KIND_LOG, 8 * MiB);
  xfix_trace_reset(&fx);
  ASSERT_OK(xio_file_set_size(f, 24 * MiB, XIO_INIT_ZERO, &e), &e);
  ASSERT_EQ(xfix_count(&fx, XIO_REQ_SET_SIZE), 1);
  ASSERT_EQ(xfix_count(&fx, XIO_REQ_ZERO), 4); /* 16 MiB in 4 MiB Put Pages */
  xio_file_stats st;
  xio_file_get_stats(f, &st);
  ASSERT_U64_EQ(st.bytes_zero_written, 16 * MiB);
  ASSERT_U64_EQ(st.bytes_cleared, 8 * MiB); /* only the log's creation */
  ASSERT_OK(xio_file_close(f, &e), &e);
  xfix_teardown(&fx);
}

TEST(create_log_clears_data_skips) {
  xfix fx;
  xio_error e;
  xfix_setup(&fx, 0, NULL);
  xio_file *f = xfix_open(&fx, "new.ldf", XIO_OPEN_CREATE, XIO_KIND_LOG, 32 * MiB);
  /* Look, try to create, create the missing container, create, clear. */
  const struct {
    xio_request_type type;
    const char *code;
  } want[] = {{XIO_REQ_OPEN, "ContainerNotFound"},
              {XIO_REQ_CREATE, "ContainerNotFound"},
              {XIO_REQ_CREATE, ""},
              {XIO_REQ_CREATE, ""},
              {XIO_REQ_ZERO, ""}};
  ASSERT_EQ(fx.trace.n, 5);
  for (int i = 0; i < 5; i++) {
    ASSERT_EQ(fx.trace.ev[i].type, want[i].type);
    ASSERT_STR_EQ(fx.trace.ev[i].error_code, want[i].code);
  }
  ASSERT_OK(xio_file_close(f, &e), &e);
  xfix_trace_reset(&fx);
  f = xfix_open(&fx, "new.mdf", XIO_OPEN_CREATE, XIO_KIND_DATA, 32 * MiB);
  ASSERT_EQ(xfix_count(&fx, XIO_REQ_ZERO), 0);
  ASSERT_EQ(xio_file_kind(f), XIO_KIND_DATA);
  ASSERT_OK(xio_file_close(f, &e), &e);
  xfix_teardown(&fx);
}
