/*
 * zeros_test.c - the write pipeline's zeros policy: with XIO_OPEN_ZEROS_AS_CLEAR, a
 * queued or held write that reaches storage as whole sectors of zeros is one Put Page
 * clear (no bytes shipped, the pages freed), the same count of requests as the write;
 * without it, and for any run with a byte that is not zero, zeros are written.
 */
#include <string.h>

#include "test.h"
#include "util.h"
#include "xfix.h"

#define MiB (1024ull * 1024)

/* Fills the first MiB of `f` with 0xab and flushes it. */
static void fill(xio_file *f) {
  static char data[MiB];
  xio_error e;
  memset(data, 0xab, sizeof data);
  ASSERT_OK(xio_file_write(f, 0, data, sizeof data, &e), &e);
  ASSERT_OK(xio_file_flush(f, &e), &e);
}

/* The bytes of `f` the storage holds as written pages. */
static uint64_t ranges_bytes(xio_file *f) {
  xio_ranges r = {NULL, 0, 0};
  xio_error e;
  ASSERT_OK(xio_file_ranges(f, &r, &e), &e);
  uint64_t n = xio_ranges_bytes(&r);
  xio_ranges_clear(&r);
  return n;
}

TEST(zeros_as_clear_sends_a_write_of_zeros_as_one_clear) {
  static char zeros[MiB];
  xfix fx;
  xio_error e;
  xfix_setup(&fx, 0, NULL);
  xio_file *f =
      xfix_open(&fx, "z.mdf", XIO_OPEN_CREATE | XIO_OPEN_EXCLUSIVE | XIO_OPEN_ZEROS_AS_CLEAR,
                XIO_KIND_DATA, 8 * MiB);
  fill(f);
  ASSERT_U64_EQ(ranges_bytes(f), MiB);
  xfix_trace_reset(&fx);
  ASSERT_OK(xio_file_write(f, 0, zeros, 512 * 1024, &e), &e);
  ASSERT_OK(xio_file_hold(f, 512 * 1024, zeros, 512 * 1024, &e), &e);
  ASSERT_OK(xio_file_flush(f, &e), &e);
  ASSERT_EQ(xfix_count(&fx, XIO_REQ_ZERO), 2); /* the write, then the held run */
  ASSERT_EQ(xfix_count(&fx, XIO_REQ_WRITE), 0);
  xio_file_stats st;
  xio_file_get_stats(f, &st);
  ASSERT_U64_EQ(st.bytes_cleared, MiB);
  ASSERT_U64_EQ(ranges_bytes(f), 0); /* the pages are freed, not written with zeros */
  char buf[4096];
  size_t got = 0;
  memset(buf, 0x11, sizeof buf);
  ASSERT_OK(xio_file_read(f, MiB - sizeof buf, buf, sizeof buf, &got, &e), &e);
  ASSERT(test_all_zero(buf, sizeof buf));
  /* One byte that is not zero makes it a write. */
  memset(buf, 0, sizeof buf);
  buf[100] = 1;
  xfix_trace_reset(&fx);
  ASSERT_OK(xio_file_write(f, 0, buf, sizeof buf, &e), &e);
  ASSERT_EQ(xfix_count(&fx, XIO_REQ_WRITE), 1);
  ASSERT_EQ(xfix_count(&fx, XIO_REQ_ZERO), 0);
  ASSERT_OK(xio_file_close(f, &e), &e);
  xfix_teardown(&fx);
}

TEST(zeros_are_written_without_the_policy) {
  static char zeros[MiB];
  xfix fx;
  xio_error e;
  xfix_setup(&fx, 0, NULL);
  xio_file *f =
      xfix_open(&fx, "w.mdf", XIO_OPEN_CREATE | XIO_OPEN_EXCLUSIVE, XIO_KIND_DATA, 8 * MiB);
  fill(f);
  xfix_trace_reset(&fx);
  ASSERT_OK(xio_file_write(f, 0, zeros, sizeof zeros, &e), &e);
  ASSERT_EQ(xfix_count(&fx, XIO_REQ_WRITE), 1);
  ASSERT_EQ(xfix_count(&fx, XIO_REQ_ZERO), 0);
  ASSERT_U64_EQ(ranges_bytes(f), MiB); /* written, so still allocated */
  ASSERT_OK(xio_file_close(f, &e), &e);
  xfix_teardown(&fx);
}

TEST(zeros_as_clear_needs_an_exclusive_open) {
  xfix fx;
  xio_error e;
  xfix_setup(&fx, 0, NULL);
  char url[1024];
  xfix_target(&fx, "shared.mdf", url, sizeof url);
  xio_open_options o = {XIO_OPEN_CREATE | XIO_OPEN_ZEROS_AS_CLEAR, XIO_KIND_DATA, MiB,
                        XIO_INIT_DEFAULT};
  xio_file *f = NULL;
  ASSERT_ERR(xio_file_open(fx.ctx, url, &o, &f, &e), XIO_EINVAL, &e);
  ASSERT(strstr(e.message, "XIO_OPEN_LEASE") != NULL);
  ASSERT(f == NULL);
  xfix_teardown(&fx);
}
