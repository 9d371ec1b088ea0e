/*
 * fork_test.c - a process that uses xio forks (as Python's multiprocessing and
 * pre-forking servers do): an xio context the child inherited fails at once with a
 * message naming fork instead of hanging, and a context of its own works; the
 * parent goes on working, its lease still its own. Each child runs under a
 * deadline: one that hangs is killed and the test fails.
 *
 * A child reports through its exit status and stderr and ends with _exit: the
 * test's own exit handlers (scratch files) belong to the parent.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xio/xio.h>

#include "sqfix.h"
#include "test.h"
#include "xio_sqlite.h"

#define DEADLINE_S 60

/* In a child: ends it with status 1 and a message when `cond` is false. */
#define CHILD_CHECK(cond)                                                                          \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "child: %s:%d: %s | %s\n", __FILE__, __LINE__, #cond,                        \
              xio_sqlite_last_error());                                                            \
      _exit(1);                                                                                    \
    }                                                                                              \
  } while (0)

/* The child's part of forked_child_cannot_use_the_parents_context. */
static void xio_child(xio_ctx *parents, xio_file *f, const char *held, const char *own) {
  xio_error e;
  char buf[512];
  memset(buf, 7, sizeof buf);
  /* Everything of the parent's fails at once, naming fork. */
  CHILD_CHECK(xio_file_write(f, 0, buf, sizeof buf, &e) == XIO_EINVAL);
  CHILD_CHECK(strstr(e.message, "fork") != NULL);
  CHILD_CHECK(xio_file_read(f, 0, buf, sizeof buf, NULL, &e) == XIO_EINVAL);
  CHILD_CHECK(xio_file_flush(f, &e) == XIO_EINVAL);
  xio_file *g = NULL;
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_CREATE;
  CHILD_CHECK(xio_file_open(parents, own, &o, &g, &e) == XIO_EINVAL);
  CHILD_CHECK(xio_file_delete(parents, own, &e) == XIO_EINVAL);
  /* Closing the file or freeing the context does nothing: no lease released. */
  CHILD_CHECK(xio_file_close(f, &e) == XIO_EINVAL);
  CHILD_CHECK(xio_ctx_free(parents) == XIO_EINVAL);
  /* A context of its own works, and is refused the file the parent holds. */
  xio_ctx_options co = xio_ctx_options_default();
  xio_ctx *c = NULL;
  CHILD_CHECK(xio_ctx_new(&co, &c, &e) == XIO_OK);
  o.flags = XIO_OPEN_EXCLUSIVE;
  CHILD_CHECK(xio_file_open(c, held, &o, &g, &e) == XIO_EBUSY);
  o.flags = XIO_OPEN_CREATE | XIO_OPEN_EXCLUSIVE;
  o.size = 4096;
  CHILD_CHECK(xio_file_open(c, own, &o, &g, &e) == XIO_OK);
  CHILD_CHECK(xio_file_write(g, 512, buf, sizeof buf, &e) == XIO_OK);
  char back[512];
  CHILD_CHECK(xio_file_read(g, 512, back, sizeof back, NULL, &e) == XIO_OK);
  CHILD_CHECK(memcmp(back, buf, sizeof buf) == 0);
  CHILD_CHECK(xio_file_close(g, &e) == XIO_OK);
  CHILD_CHECK(xio_ctx_free(c) == XIO_OK);
  _exit(0);
}

TEST(forked_child_cannot_use_the_parents_context) {
  sqfix fx;
  sqfix_setup(&fx);
  char held[512], own[512];
  sqfix_url(&fx, "held.bin", held, sizeof held);
  sqfix_url(&fx, "own.bin", own, sizeof own);
  xio_ctx_options co = xio_ctx_options_default();
  xio_ctx *c = NULL;
  xio_error e;
  ASSERT_OK(xio_ctx_new(&co, &c, &e), &e);
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_CREATE | XIO_OPEN_EXCLUSIVE;
  o.size = 4096;
  xio_file *f = NULL;
  ASSERT_OK(xio_file_open(c, held, &o, &f, &e), &e);
  unsigned char one[512], two[512], back[512];
  memset(one, 1, sizeof one);
  memset(two, 2, sizeof two);
  ASSERT_OK(xio_file_write(f, 0, one, sizeof one, &e), &e);
  fflush(NULL);
  pid_t pid = fork();
  ASSERT(pid >= 0);
  if (pid == 0) xio_child(c, f, held, own);
  ASSERT_EQ(sqfix_wait(pid, DEADLINE_S, "the forked child"), 0);
  /* The parent's lease is still its own: it writes, and others are refused. */
  ASSERT_OK(xio_file_write(f, 0, two, sizeof two, &e), &e);
  ASSERT_OK(xio_file_read(f, 0, back, sizeof back, NULL, &e), &e);
  ASSERT_MEM_EQ(back, two, sizeof two);
  xio_ctx *other = NULL;
  ASSERT_OK(xio_ctx_new(&co, &other, &e), &e);
  xio_file *g = NULL;
  o.flags = XIO_OPEN_EXCLUSIVE;
  ASSERT_ERR(xio_file_open(other, held, &o, &g, &e), XIO_EBUSY, &e);
  /* The child's file is there, and the parent's close releases its lease. */
  o.flags = XIO_OPEN_READONLY;
  ASSERT_OK(xio_file_open(other, own, &o, &g, &e), &e);
  ASSERT_OK(xio_file_read(g, 512, back, sizeof back, NULL, &e), &e);
  ASSERT(back[0] == 7 && back[511] == 7);
  xio_file_close(g, NULL);
  ASSERT_OK(xio_file_close(f, &e), &e);
  o.flags = XIO_OPEN_EXCLUSIVE;
  ASSERT_OK(xio_file_open(other, held, &o, &g, &e), &e);
  ASSERT_OK(xio_file_close(g, &e), &e);
  xio_ctx_free(other);
  ASSERT_EQ(xio_ctx_free(c), XIO_OK);
}
