/*
 * xml_quiet_test.c - the XML parsers write nothing to the terminal, even for the
 * bodies on which libxml2 reports through its generic error handler whatever the
 * parse options say ("encoding error : input conversion failed..."), and leave the
 * error handlers the host program set, on its own thread or the parsing one, as
 * they were.
 */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/xmlerror.h>

#include <xio/blob.h>

#include "scratch.h"
#include "test.h"
#include "xml_int.h"

/* Bodies libxml2 complains about on its generic handler. */
static const struct {
  const char *body;
  size_t len;
} noisy[] = {
    {"\xfe\xff\x00<\x00P\xd8\x00\x00"
     "a",
     10}, /* UTF-16BE, lone surrogate */
    {"\xff\xfe<\x00"
     "E\x00r\x00r\x00o\x00r\x00>\x00\x00\xdc",
     17}, /* UTF-16LE, lone surrogate */
    {"<?xml version=\"1.0\" encoding=\"UTF-16\"?><Error/>", 46},
    {"<?xml version=\"1.0\" encoding=\"no-such-charset\"?><Error/>", 55},
};

/* Runs every parser over every noisy body. */
static void parse_noisy(void) {
  for (size_t i = 0; i < sizeof noisy / sizeof *noisy; i++) {
    char code[64], msg[256];
    xio_ranges r = {0};
    xio_blob_list l = {0};
    char *marker = NULL;
    xio__blob_xml_error(noisy[i].body, noisy[i].len, code, sizeof code, msg, sizeof msg);
    ASSERT(xio__blob_xml_page_list(noisy[i].body, noisy[i].len, &r, NULL, &marker, NULL) ==
           XIO_EPARSE);
    ASSERT(xio__blob_xml_blob_list(noisy[i].body, noisy[i].len, &l, NULL) == XIO_EPARSE);
    xio_ranges_clear(&r);
    xio_blob_list_clear(&l);
  }
}

/* What the parsers write to stderr (fd 2), as a malloc'd string. */
static char *stderr_of_parsing(void) {
  char path[512];
  test_scratch_file(path, sizeof path, "xio-quiet");
  int fd = open(path, O_RDWR);
  ASSERT(fd >= 0);
  test_remove_tree(path);
  fflush(stderr);
  int saved = dup(2);
  ASSERT(saved >= 0 && dup2(fd, 2) == 2);
  parse_noisy();
  fflush(stderr);
  ASSERT(dup2(saved, 2) == 2);
  close(saved);
  off_t n = lseek(fd, 0, SEEK_END);
  char *text = calloc(1, (size_t)n + 1);
  ASSERT(text && pread(fd, text, (size_t)n, 0) == (ssize_t)n);
  close(fd);
  return text;
}

TEST(xml_parsers_write_nothing_to_stderr) {
  char *text = stderr_of_parsing();
  if (text[0]) FAIL("the XML parsers wrote to stderr: \"%.300s\"", text);
  free(text);
}

static int generic_calls, structured_calls;

static void host_generic(void *ctx, const char *fmt, ...) {
  (void)fmt;
  ++*(int *)ctx;
}

static void host_structured(void *ctx, xmlErrorPtr e) {
  (void)e;
  ++*(int *)ctx;
}

TEST(xml_host_handlers_kept_and_not_called) {
  xmlSetGenericErrorFunc(&generic_calls, host_generic);
  parse_noisy();
  ASSERT(xmlGenericError == host_generic && xmlGenericErrorContext == &generic_calls);
  ASSERT_EQ(generic_calls, 0);
  xmlSetStructuredErrorFunc(&structured_calls, host_structured);
  parse_noisy();
  ASSERT(xmlStructuredError == host_structured && xmlStructuredErrorContext == &structured_calls);
  ASSERT_EQ(structured_calls, 0);
  ASSERT_EQ(generic_calls, 0);
  xmlSetStructuredErrorFunc(NULL, NULL);
  xmlSetGenericErrorFunc(NULL, NULL);
}

/* On another thread: which generic handler it sees, then a parse. */
static void *other_thread(void *arg) {
  *(int *)arg = xmlGenericError == host_generic;
  parse_noisy();
  return NULL;
}

TEST(xml_handlers_are_per_thread) {
  /* The quiet parse relies on this build of libxml2 keeping the handlers per thread:
   * the host's handler on this thread is not the one another thread sees, and a
   * parse there neither calls it nor replaces it. */
  int seen = -1;
  pthread_t t;
  xmlInitParser();
  xmlSetGenericErrorFunc(&generic_calls, host_generic);
  ASSERT_EQ(pthread_create(&t, NULL, other_thread, &seen), 0);
  ASSERT_EQ(pthread_join(t, NULL), 0);
  ASSERT_EQ(seen, 0);
  ASSERT(xmlGenericError == host_generic);
  ASSERT_EQ(generic_calls, 0);
  xmlSetGenericErrorFunc(NULL, NULL);
}
