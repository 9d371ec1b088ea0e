/*
 * header_test.c - what the public headers show an engine author: no internal name
 * (xio__...) in any installed header, xio_io's file-layer state kept in one
 * reserved member while its layout stays the one callers allocate, and "storage
 * errors", which xio.h's functions list among their errors, defined in xio.h.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdalign.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <xio/xio.h>

#include "child.h"
#include "test.h"

/* The installed headers (cmake/install.cmake), relative to the source tree. */
static const char *const installed[] = {
    "auth/include/xio/error.h",
    "auth/include/xio/base.h",
    "auth/include/xio/auth.h",
    "auth/include/xio/alloc.h",
    "auth/include/xio/entra.h",
    "blobio/include/xio/blob.h",
    "blobio/include/xio/blob_crc.h",
    "blobio/include/xio/blob_alloc.h",
    "blobio/include/xio/blob_engine.h",
    "blobio/include/xio/blob_target.h",
    "blobio/include/xio/blob_call.h",
    "blobio/include/xio/blob_sync.h",
    "xio/include/xio/xio.h",
    "xio/include/xio/credentials.h",
};

static char *read_header(const char *rel) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", XIO_SOURCE_DIR, rel);
  char *text = test_read_file(path);
  if (!*text) FAIL("cannot read %s", path);
  return text;
}

/* The line of `text` that `at` points into, for a message. */
static void line_of(const char *text, const char *at, char *out, size_t size) {
  const char *start = at;
  while (start > text && start[-1] != '\n')
    start--;
  size_t n = strcspn(start, "\n");
  snprintf(out, size, "%.*s", (int)(n < size ? n : size - 1), start);
}

TEST(installed_headers_name_nothing_internal) {
  for (size_t i = 0; i < sizeof installed / sizeof *installed; i++) {
    char *text = read_header(installed[i]);
    const char *hit = strstr(text, "xio__");
    if (hit) {
      char line[256];
      line_of(text, hit, line, sizeof line);
      free(text);
      FAIL("%s names an internal of the library: %s", installed[i], line);
    }
    free(text);
  }
}

/* xio_io as callers allocated it when its private fields were named: the layout the
 * reserved member must keep. */
typedef struct io_v1 {
  xio_io_op op;
  uint64_t offset;
  size_t length;
  void *buf;
  xio_init init;
  xio_io_done_fn done;
  void *ud;
  xio_err result;
  size_t transferred;
  xio_error error;
  void *state, *file;
  int complete;
} io_v1;

TEST(xio_io_keeps_the_layout_callers_allocate) {
  ASSERT_EQ(sizeof(xio_io), sizeof(io_v1));
  ASSERT_EQ(alignof(xio_io), alignof(io_v1));
  ASSERT_EQ(offsetof(xio_io, op), offsetof(io_v1, op));
  ASSERT_EQ(offsetof(xio_io, offset), offsetof(io_v1, offset));
  ASSERT_EQ(offsetof(xio_io, length), offsetof(io_v1, length));
  ASSERT_EQ(offsetof(xio_io, buf), offsetof(io_v1, buf));
  ASSERT_EQ(offsetof(xio_io, init), offsetof(io_v1, init));
  ASSERT_EQ(offsetof(xio_io, done), offsetof(io_v1, done));
  ASSERT_EQ(offsetof(xio_io, ud), offsetof(io_v1, ud));
  ASSERT_EQ(offsetof(xio_io, result), offsetof(io_v1, result));
  ASSERT_EQ(offsetof(xio_io, transferred), offsetof(io_v1, transferred));
  ASSERT_EQ(offsetof(xio_io, error), offsetof(io_v1, error));
}

/* Counts the occurrences of `what` in `text`. */
static int count(const char *text, const char *what) {
  int n = 0;
  for (const char *p = strstr(text, what); p; p = strstr(p + 1, what))
    n++;
  return n;
}

TEST(storage_errors_are_defined_where_they_are_used) {
  char *text = read_header("xio/include/xio/xio.h");
  int uses = count(text, "storage errors");
  int defined = count(text, "Storage errors: ");
  free(text);
  if (uses < 1) FAIL("xio.h no longer lists storage errors among any function's errors");
  if (defined != 1)
    FAIL("xio.h lists storage errors %d times and defines them %d times (want once, as "
         "\"Storage errors: \" followed by the codes)",
         uses, defined);
}
