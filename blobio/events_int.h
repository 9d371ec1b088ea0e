/*
 * events_int.h - the I/O thread's waiting (events.c): libcurl's sockets in an
 * epoll set, libcurl's timer, and a wakeup for other threads. Internal.
 */
#ifndef XIO_BLOB_EVENTS_INT_H
#define XIO_BLOB_EVENTS_INT_H

#include <stdint.h>

#include <curl/curl.h>

#include <xio/base.h>

typedef struct xio__blob_events {
  CURLM *multi;
  int epfd;       /* libcurl's sockets, and wakefd */
  int wakefd;     /* an eventfd: any thread writes, the I/O thread's wait returns */
  int64_t due_us; /* libcurl's next timeout (monotonic), -1: none */
  int failed;     /* a libcurl call failed, or epoll refused a socket: the multi
                     handle must be abandoned (events.c: note) */
} xio__blob_events;

/**
 * Makes the epoll set and the wakeup. On failure what was made is freed by
 * xio__blob_events_free, which must be called in any case. Errors: XIO_ENOMEM or
 * another errno-derived code when the kernel refuses a descriptor (EMFILE, ...).
 */
xio_err xio__blob_events_init(xio__blob_events *ev, xio_error *err);

/** Has `multi` report its sockets and timer to `ev` (which must stay where it is
 *  while `multi` lives: it is the callbacks' data), and clears the failure. Called
 *  for each new multi handle, the first and those made after one was abandoned;
 *  NULL when there is none (a new one could not be made). Never fails. */
void xio__blob_events_attach(xio__blob_events *ev, CURLM *multi);

/** Marks the multi handle failed, as a call into libcurl outside this file found
 *  it (curl_easy_pause out of memory). */
void xio__blob_events_fail(xio__blob_events *ev);

/** Wakes the I/O thread's wait, or its next one; any thread. Never fails. */
void xio__blob_events_wake(xio__blob_events *ev);

/** The wait, in milliseconds, to use at monotonic time `now`: `ms`, or less when
 *  libcurl's timeout falls before. */
int xio__blob_events_timeout(const xio__blob_events *ev, int64_t now, int ms);

/** Waits up to `ms` (0: not at all) for a socket or a wakeup, hands every ready
 *  socket to libcurl with what the kernel reported, and then runs libcurl's
 *  timeout if it is due. A libcurl call that fails (out of memory) or a socket
 *  epoll refuses sets ev->failed: the caller must then abandon the multi handle,
 *  whose transfers may no longer be driven. I/O thread only. */
void xio__blob_events_wait(xio__blob_events *ev, int ms);

/** Runs every transfer whose libcurl timer has expired, now. For transfers that
 *  were made due outside a call that reports libcurl's timer (curl_easy_pause),
 *  which xio__blob_events_wait would not see as due. I/O thread only. */
void xio__blob_events_run_timers(xio__blob_events *ev);

/** Closes the epoll set and the wakeup (after the multi handle is cleaned up). */
void xio__blob_events_free(xio__blob_events *ev);

#endif
