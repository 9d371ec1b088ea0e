/*
 * io.c - the life of an asynchronous request: its state and storage-sized subs,
 * completion when the last sub finishes (first failure wins), the file's in-flight
 * count and sticky error, waiting and polling, asynchronous flushes, and the sector
 * range locks that keep concurrent read-modify-writes of one sector apart.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <xio/alloc.h>

#include "xio_int.h"

/* ---------------------------------------------------------- range locks ---- */

static int overlaps(const xio__rlock *a, const xio__rlock *b) {
  return a->first < b->end && b->first < a->end;
}

void xio__rlock_acquire(xio_file *f, xio__rlock *l) {
  pthread_mutex_lock(&f->rmw_mu);
  for (;;) {
    const xio__rlock *o = f->rmw_locked;
    while (o && !overlaps(o, l))
      o = o->next;
    if (!o) break;
    pthread_cond_wait(&f->rmw_cv, &f->rmw_mu);
  }
  l->next = f->rmw_locked;
  f->rmw_locked = l;
  pthread_mutex_unlock(&f->rmw_mu);
}

void xio__rlock_release(xio_file *f, xio__rlock *l) {
  pthread_mutex_lock(&f->rmw_mu);
  for (xio__rlock **p = &f->rmw_locked; *p; p = &(*p)->next)
    if (*p == l) {
      *p = l->next;
      break;
    }
  pthread_cond_broadcast(&f->rmw_cv);
  pthread_mutex_unlock(&f->rmw_mu);
}

/* -------------------------------------------------------------- states ---- */

/* What the file layer keeps in an xio_io (its reserved member, see xio.h): the file it
 * was submitted on, and a mark set once it has completed (the io itself, as any
 * pointer other than NULL would do). */
enum { IO_FILE, IO_COMPLETE, IO_QUEUED };

static xio_file *io_file(const xio_io *io) { return io->reserved_[IO_FILE]; }

static int io_complete(const xio_io *io) { return io->reserved_[IO_COMPLETE] != NULL; }

static void io_set_complete(xio_io *io, int complete) {
  io->reserved_[IO_COMPLETE] = complete ? io : NULL;
}

xio_err xio__io_begin(xio_file *f, xio_io *io, int nsubs, xio__io_state **out, xio_error *err) {
  xio__io_state *st = xio_calloc(1, sizeof *st + (size_t)nsubs * sizeof(xio__sub));
  *out = NULL;
  if (!st) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  st->io = io;
  st->file = f;
  st->cap = nsubs;
  pthread_mutex_init(&st->mu, NULL);
  io->reserved_[IO_FILE] = f;
  io->reserved_[IO_QUEUED] = NULL; /* set when queued (queue.c) */
  io_set_complete(io, 0);
  io->result = XIO_OK;
  io->transferred = 0;
  xio_error_clear(&io->error);
  pthread_mutex_lock(&f->io_mu);
  f->inflight++;
  pthread_mutex_unlock(&f->io_mu);
  *out = st;
  return XIO_OK;
}

xio__sub *xio__io_add(xio__io_state *st, xio__sub_op op, uint64_t offset, size_t length,
                      void *buf) {
  xio__sub *s = &st->subs[st->nsubs++];
  memset(s, 0, sizeof *s);
  s->op = op;
  s->file = st->file;
  s->offset = offset;
  s->length = length;
  s->buf = buf;
  s->owner = st;
  return s;
}

/* API-level counters: one read or write per API call, bytes moved. */
static void count_api(xio__io_state *st, size_t moved) {
  xio_file *f = st->file;
  if (st->internal) return;
  if (st->io->op == XIO_IO_READ) {
    atomic_fetch_add(&f->stats.reads, 1);
    atomic_fetch_add(&f->stats.bytes_read, moved);
  } else if (st->io->op == XIO_IO_WRITE) {
    atomic_fetch_add(&f->stats.writes, 1);
    atomic_fetch_add(&f->stats.bytes_written, moved);
  }
}

static void record_sticky(xio_file *f, xio_err rc, const xio_error *detail) {
  pthread_mutex_lock(&f->io_mu);
  if (f->sticky == XIO_OK) {
    f->sticky = rc;
    f->sticky_detail = *detail;
  }
  pthread_mutex_unlock(&f->io_mu);
}

static xio__io_state *take_flushes_locked(xio_file *f);
static void start_flushes(xio_file *f, xio__io_state *list);

/* The io is done: publish its result, release what it held, tell the caller. */
static void finish(xio__io_state *st) {
  xio_io *io = st->io;
  xio_file *f = st->file;
  size_t moved = atomic_load(&st->transferred);
  if (st->first == XIO_OK && st->report_len) moved = st->report_len;
  io->result = st->first;
  io->error = st->detail;
  io->error.code = st->first;
  io->transferred = st->first == XIO_OK ? moved : 0;
  if (st->first == XIO_OK && io->op == XIO_IO_READ && !st->internal && moved)
    f->overlay_held(f, io->offset, io->buf, moved); /* the engine sees what it held */
  if (st->first == XIO_OK)
    count_api(st, moved);
  else if (io->op != XIO_IO_FLUSH && !st->no_sticky)
    record_sticky(f, st->first, &st->detail);
  if (st->lock_held) xio__rlock_release(f, &st->lock);
  xio_free(st->tmp);
  pthread_mutex_destroy(&st->mu);
  xio_free(st);
  xio_io_done_fn done = io->done;
  if (done) {
    /* The callback may free or reuse `io`: mark it complete first, never touch it
     * after. The file stays in flight until the callback returns. */
    pthread_mutex_lock(&f->io_mu);
    io_set_complete(io, 1);
    pthread_cond_broadcast(&f->io_cv);
    pthread_mutex_unlock(&f->io_mu);
    done(io, io->ud);
  }
  pthread_mutex_lock(&f->io_mu);
  f->inflight--;
  if (!done) io_set_complete(io, 1);
  xio__io_state *flushes = take_flushes_locked(f);
  pthread_cond_broadcast(&f->io_cv);
  pthread_mutex_unlock(&f->io_mu);
  start_flushes(f, flushes);
}

void xio__sub_done(xio__sub *s, xio_err result, const xio_error *detail, size_t transferred) {
  xio__io_state *st = s->owner;
  xio_file *f = st->file;
  if (transferred) atomic_fetch_add(&st->transferred, transferred);
  if (result == XIO_OK && s->op == XIO__SUB_CLEAR)
    atomic_fetch_add(&f->stats.bytes_cleared, s->clear_length);
  if (result == XIO_OK && s->zeroing) atomic_fetch_add(&f->stats.bytes_zero_written, s->length);
  if (result != XIO_OK) {
    pthread_mutex_lock(&st->mu);
    if (st->first == XIO_OK) {
      st->first = result;
      if (detail)
        st->detail = *detail;
      else
        xio_error_clear(&st->detail);
    }
    pthread_mutex_unlock(&st->mu);
  }
  if (atomic_fetch_sub(&st->pending, 1) == 1) finish(st);
}

static void run_finish(xio__job *job) {
  finish((xio__io_state *)((char *)job - offsetof(xio__io_state, job)));
}

/* Finishes an io whose subs all completed while it was being launched. Not on the
 * launching thread: that is the caller of xio_file_submit (or a sync call), where a
 * completion callback must not run (it may take the caller's locks, and a sync call
 * it makes would wait for the io it runs in instead of being refused). The job is
 * the state's own, so this cannot fail for want of memory. */
static void finish_elsewhere(xio__io_state *st) {
  st->job.run = run_finish;
  xio__ctx_run(st->file->ctx, &st->job);
}

void xio__io_launch(xio__io_state *st) {
  const xio_backend *b = st->file->backend;
  atomic_store(&st->pending, st->nsubs + 1); /* +1: no finish while still launching */
  int n = st->nsubs;
  for (int i = 0; i < n; i++)
    b->submit(st->file, &st->subs[i]);
  if (atomic_fetch_sub(&st->pending, 1) != 1) return;
  if (n == 0)
    finish(st); /* nothing was sent: complete before submit returns */
  else
    finish_elsewhere(st);
}

void xio__io_finish_elsewhere(xio__io_state *st, xio_err rc, const xio_error *detail) {
  st->first = rc;
  if (detail) st->detail = *detail;
  atomic_store(&st->pending, 0);
  finish_elsewhere(st);
}

void xio__io_fail(xio__io_state *st, xio_err rc, const xio_error *detail) {
  st->first = rc;
  if (detail) st->detail = *detail;
  atomic_store(&st->pending, 1);
  finish(st);
}

/* --------------------------------------------------------- async flush ---- */

static void run_flush(xio__job *job) {
  xio__io_state *st = (xio__io_state *)((char *)job - offsetof(xio__io_state, job));
  xio_file *f = st->file;
  xio_error detail;
  xio_error_clear(&detail);
  xio_err rc = f->backend->sync(f, &detail);
  pthread_mutex_lock(&f->io_mu);
  if (rc == XIO_OK && f->sticky != XIO_OK) rc = f->sticky, detail = f->sticky_detail;
  f->sticky = XIO_OK;
  pthread_mutex_unlock(&f->io_mu);
  if (rc != XIO_OK)
    xio__io_fail(st, rc, &detail);
  else
    xio__io_fail(st, XIO_OK, NULL);
}

/* With io_mu held: when nothing else is in flight, takes the waiting flushes and
 * counts them in flight again (so a close waits for them). */
static xio__io_state *take_flushes_locked(xio_file *f) {
  if (f->inflight != 0 || !f->flush_waiting) return NULL;
  xio__io_state *list = f->flush_waiting;
  f->flush_waiting = NULL;
  for (xio__io_state *s = list; s; s = s->next_flush)
    f->inflight++;
  return list;
}

/* Runs the flushes taken on the workers (the backend's sync may block), each with
 * its state's own job: nothing to allocate, so the completion never falls back to
 * the thread that queued it. */
static void start_flushes(xio_file *f, xio__io_state *list) {
  while (list) {
    xio__io_state *st = list;
    list = st->next_flush;
    st->job.run = run_flush;
    xio__ctx_run(f->ctx, &st->job);
  }
}

void xio__io_flush(xio_file *f, xio__io_state *st) {
  pthread_mutex_lock(&f->io_mu);
  f->inflight--; /* a waiting flush does not wait for itself */
  st->next_flush = f->flush_waiting;
  f->flush_waiting = st;
  xio__io_state *flushes = take_flushes_locked(f);
  pthread_mutex_unlock(&f->io_mu);
  start_flushes(f, flushes);
  f->send_queued(f); /* a flush waits for the queued writes: send them now */
}

/* ---------------------------------------------------------- waiting ---- */

/* 1 when `io` has completed, read under its file's lock. */
static int polled(const xio_io *io) {
  xio_file *f = io_file(io);
  pthread_mutex_lock(&f->io_mu);
  int done = io_complete(io);
  pthread_mutex_unlock(&f->io_mu);
  return done;
}

int xio_io_poll(const xio_io *io) { return polled(io); }

xio_err xio__io_wait(xio_io *io) {
  xio_file *f = io_file(io);
  if (io->reserved_[IO_QUEUED] && !polled(io)) f->send_queued(f); /* send its run now */
  pthread_mutex_lock(&f->io_mu);
  while (!io_complete(io))
    pthread_cond_wait(&f->io_cv, &f->io_mu);
  pthread_mutex_unlock(&f->io_mu);
  return io->result;
}

xio_err xio_io_wait(xio_io *io) { return xio__io_wait(io); }
