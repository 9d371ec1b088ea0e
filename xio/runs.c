/*
 * runs.c - queued runs on their way to storage, in order.
 *
 * A queued run is sent when it is due (someone waits for it: xio_io_wait on a member,
 * a flush, close, xio_file_wait; its combining window passed, window.c; or a write
 * closed it) and never before every earlier run in the send list that shares a sector
 * with it has completed: overlapping writes reach storage in the order they were made.
 * Each member completes only once its run's bytes are acknowledged, with its run's
 * result; a failed run's sectors are known no more. A run of zeros goes as a clear
 * where the file asked for it (XIO_OPEN_ZEROS_AS_CLEAR).
 */
#define _POSIX_C_SOURCE 200809L
#include <string.h>

#include <xio/alloc.h>

#include "pending_int.h"

static int runs_overlap(const xio__run *a, const xio__run *b) {
  return a->start < b->end && b->start < a->end;
}

/* 1 when a run before `r` in the send list shares a sector with it. */
static int blocked(const xio__pending *p, const xio__run *r) {
  for (const xio__run *e = p->out; e && e != r; e = e->next)
    if (runs_overlap(e, r)) return 1;
  return 0;
}

/* With the lock held: the due runs that may go now, marked sent (the open one, when
 * it may go, moves to the send list first). */
static int take_sendable(xio__pending *p, xio__run **out, int max) {
  int n = 0;
  if (p->open && p->open->due && !blocked(p, p->open))
    xio__pending_close_open(p); /* blocked, it stays open: later writes may still join it */
  for (xio__run *r = p->out; r && n < max; r = r->next) {
    if (r->sent || !r->due || blocked(p, r)) continue;
    r->sent = 1;
    out[n++] = r;
  }
  return n;
}

static void run_done(xio_io *io, void *ud);

static void run_done_with(xio__run *r, xio_err rc, const xio_error *detail);

/* 1 when `r` goes as a clear: its file asked for zeros to be (XIO_OPEN_ZEROS_AS_CLEAR)
 * and every byte of it is zero. */
static int as_clear(const xio__run *r) {
  return (r->file->flags & XIO_OPEN_ZEROS_AS_CLEAR) &&
         xio_is_zero(r->buf, (size_t)(r->end - r->start));
}

/* Sends `r` as one internal request (cut at max_request only when a single write
 * was larger). Its completion comes to run_done. */
static void launch(xio__run *r) {
  xio_file *f = r->file;
  size_t piece = f->backend->max_request;
  uint64_t len = r->end - r->start;
  memset(&r->io, 0, sizeof r->io);
  r->io.op = XIO_IO_WRITE;
  r->io.offset = r->start;
  r->io.length = (size_t)len;
  r->io.buf = r->buf;
  r->io.done = run_done;
  r->io.ud = r;
  xio__io_state *st;
  xio_error e;
  xio_error_clear(&e);
  int nsubs = as_clear(r) ? 1 : (int)((len + piece - 1) / piece);
  if (xio__io_begin(f, &r->io, nsubs, &st, &e) != XIO_OK) {
    run_done_with(r, XIO_ENOMEM, &e);
    return;
  }
  st->internal = 1;
  st->no_sticky = 1; /* each member records its own failure */
  if (as_clear(r))
    xio__io_add(st, XIO__SUB_CLEAR, r->start, 0, NULL)->clear_length = len;
  else
    xio__add_pieces(st, XIO__SUB_WRITE, r->start, len, r->buf, piece, 0);
  xio__io_launch(st);
}

void xio__pending_pump(xio_file *f, int all) {
  xio__pending *p = &f->pend;
  for (;;) {
    xio__run *go[16];
    pthread_mutex_lock(&p->mu);
    if (all && !p->batches && p->open) p->open->due = 1; /* a batch's end kicks */
    int n = take_sendable(p, go, 16);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < n; i++)
      launch(go[i]);
    if (n < 16) return;
  }
}

int xio__pending_idle(xio_file *f) {
  pthread_mutex_lock(&f->pend.mu);
  int idle = !f->pend.out && !f->pend.open;
  pthread_mutex_unlock(&f->pend.mu);
  return idle;
}

/* Takes `r` off the send list, forgetting what it wrote when it failed. */
static void unlink_run(xio_file *f, xio__run *r, xio_err rc) {
  xio__pending *p = &f->pend;
  pthread_mutex_lock(&p->mu);
  for (xio__run **q = &p->out; *q; q = &(*q)->next)
    if (*q == r) {
      *q = r->next;
      break;
    }
  if (rc != XIO_OK) xio__known_drop(p, r->start, r->end);
  pthread_mutex_unlock(&p->mu);
}

static void run_done_with(xio__run *r, xio_err rc, const xio_error *detail) {
  xio_file *f = r->file;
  xio_error d; /* `detail` may live in `r` */
  if (detail)
    d = *detail;
  else
    xio_error_clear(&d);
  unlink_run(f, r, rc);
  xio__io_state *m = r->members;
  if (r->cap) xio_free(r->buf);
  xio_free(r);
  xio__pending_pump(f, 0); /* runs that waited for this one */
  while (m) {
    xio__io_state *next = m->next_member;
    xio__io_fail(m, rc, rc == XIO_OK ? NULL : &d);
    m = next;
  }
}

static void run_done(xio_io *io, void *ud) { run_done_with(ud, io->result, &io->error); }
