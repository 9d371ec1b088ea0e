/*
 * window.c - a window of requests in flight for bulk transfers (put, get): a ring
 * of slots, each a buffer and one asynchronous xio request. Taking the next slot
 * first waits for the request it carried before and hands it to the transfer's
 * completion function (get writes the bytes read to the local file there), so at
 * most `n` requests are in flight and memory stays at `n` buffers, whatever the
 * size of the file. Completions are handled in submission order. A window without
 * buffers (put) only counts requests: they point into memory the caller owns.
 *
 * The buffers lie one after the other in one mapping of transparent huge pages
 * (hugemem.c), each starting on a CLI_BUF_ALIGN boundary, so that get can hand
 * them to a local file opened with O_DIRECT. A buffer is backed by memory when its
 * slot is first used.
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <xio/alloc.h>

#include "cli.h"

xio_err cli_window_init(cli_window *w, int n, size_t bufsize, cli_slot_fn done, void *ud,
                        xio_error *err) {
  memset(w, 0, sizeof *w);
  w->slots = xio_calloc((size_t)n, sizeof *w->slots);
  if (!w->slots) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  w->stride = (bufsize + CLI_BUF_ALIGN - 1) / CLI_BUF_ALIGN * CLI_BUF_ALIGN;
  if (bufsize && !(w->mem = cli_huge_map((size_t)n * w->stride))) {
    int e = errno;
    cli_window_free(w);
    return xio_error_set(err, XIO_ENOMEM, "out of memory for %d buffers of %zu bytes: %s", n,
                         bufsize, strerror(e));
  }
  for (int k = 0; bufsize && k < n; k++)
    w->slots[k].buf = w->mem + (size_t)k * w->stride;
  w->n = n;
  w->bufsize = bufsize;
  w->done = done;
  w->ud = ud;
  return XIO_OK;
}

/* Waits for the slot's request and hands a success to the completion function. */
static xio_err settle(cli_window *w, cli_slot *s, xio_error *err) {
  if (!s->busy) return XIO_OK;
  xio_err rc = xio_io_wait(&s->io);
  s->busy = 0;
  if (rc != XIO_OK) {
    if (err) *err = s->io.error;
    return rc;
  }
  return w->done ? w->done(s, w->ud, err) : XIO_OK;
}

xio_err cli_window_next(cli_window *w, cli_slot **out, xio_error *err) {
  cli_slot *s = &w->slots[w->next];
  *out = NULL;
  xio_err rc = settle(w, s, err);
  if (rc != XIO_OK) return rc;
  w->next = (w->next + 1) % w->n;
  *out = s;
  return XIO_OK;
}

xio_err cli_window_submit(cli_window *w, cli_slot *s, xio_file *f, xio_io_op op, uint64_t off,
                          size_t len, void *buf, xio_error *err) {
  (void)w;
  memset(&s->io, 0, sizeof s->io);
  s->io.op = op;
  s->io.offset = off;
  s->io.length = len;
  s->io.buf = buf;
  xio_err rc = xio_file_submit(f, &s->io, err);
  s->busy = rc == XIO_OK;
  return rc;
}

int cli_window_oldest(const cli_window *w, uint64_t *off) {
  for (int k = 0; k < w->n; k++) {
    const cli_slot *s = &w->slots[(w->next + k) % w->n];
    if (s->busy) {
      *off = s->io.offset;
      return 1;
    }
  }
  return 0;
}

xio_err cli_window_drain(cli_window *w, xio_error *err) {
  for (int k = 0; k < w->n; k++) {
    xio_err rc = settle(w, &w->slots[(w->next + k) % w->n], err);
    if (rc != XIO_OK) return rc;
  }
  return XIO_OK;
}

xio_err cli_window_wait_below(cli_window *w, uint64_t limit, xio_error *err) {
  for (int k = 0; k < w->n; k++) {
    cli_slot *s = &w->slots[(w->next + k) % w->n];
    if (!s->busy) continue;
    if (s->io.offset >= limit) break;
    xio_err rc = settle(w, s, err);
    if (rc != XIO_OK) return rc;
  }
  return XIO_OK;
}

void cli_window_free(cli_window *w) {
  for (int k = 0; w->slots && k < w->n; k++)
    if (w->slots[k].busy) xio_io_wait(&w->slots[k].io);
  cli_huge_unmap(w->mem, (size_t)w->n * w->stride);
  xio_free(w->slots);
  memset(w, 0, sizeof *w);
}
