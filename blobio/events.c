/*
 * events.c - what the I/O thread waits for: libcurl's sockets in an epoll set,
 * libcurl's one timer, and an eventfd that other threads write to wake it.
 *
 * libcurl drives its transfers in one of two ways. curl_multi_perform runs every
 * transfer on each call, and each checks its own socket with a poll of its own, so
 * each pass of the loop costs a poll per transfer plus the wait's poll over all of
 * them, thousands of polls per GiB. curl_multi_socket_action runs only the transfers whose socket
 * the kernel reported ready, with what it reported, and libcurl says which sockets to watch for
 * what (CURLMOPT_SOCKETFUNCTION) and when its next timeout falls (CURLMOPT_TIMERFUNCTION): the
 * engine keeps them in an epoll set, which the kernel maintains between waits instead of taking the
 * whole list on every wait. An upload then makes far fewer system calls and uses less client CPU, a
 * download a little less (measured: docs/benchmarks/design.md#engine-epoll).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "events_int.h"
#include <xio/error_int.h>

#define MAX_EVENTS 64

/* What a socket libcurl watches carries (curl_multi_assign): that it is in the
 * epoll set, so that the next change is a modification. */
static char watched;

/* libcurl's CURLMOPT_SOCKETFUNCTION: watch socket `s` for `what`, or no more. It
 * returns 0 whatever happens (-1 would stop the whole multi handle at once); a
 * socket that epoll refuses (the kernel short of memory) marks the handle failed
 * instead, for the engine to abandon. */
static int on_socket(CURL *easy, curl_socket_t s, int what, void *ud, void *socketp) {
  xio__blob_events *ev = ud;
  (void)easy;
  if (what == CURL_POLL_REMOVE) {
    (void)epoll_ctl(ev->epfd, EPOLL_CTL_DEL, s, NULL); /* closed already: gone anyway */
    curl_multi_assign(ev->multi, s, NULL);
    return 0;
  }
  struct epoll_event e = {0};
  e.events = (what & CURL_POLL_IN ? EPOLLIN : 0u) | (what & CURL_POLL_OUT ? EPOLLOUT : 0u);
  e.data.fd = s;
  int rc = epoll_ctl(ev->epfd, socketp == &watched ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, s, &e);
  if (rc != 0 && errno == ENOENT) rc = epoll_ctl(ev->epfd, EPOLL_CTL_ADD, s, &e);
  if (rc != 0 && errno == EEXIST) rc = epoll_ctl(ev->epfd, EPOLL_CTL_MOD, s, &e);
  if (rc != 0) ev->failed = 1;
  curl_multi_assign(ev->multi, s, rc == 0 ? &watched : NULL);
  return 0;
}

/* libcurl's CURLMOPT_TIMERFUNCTION: its timeout falls in `ms` (-1: none). */
static int on_timer(CURLM *multi, long ms, void *ud) {
  xio__blob_events *ev = ud;
  (void)multi;
  ev->due_us = ms < 0 ? -1 : xio_auth_monotonic_us() + (int64_t)ms * 1000;
  return 0;
}

/* Notes the outcome of a call that drives transfers. libcurl 7.88 does not hand a
 * failure to record a socket (out of memory in its socket hash) to the transfer:
 * the transfer would wait for events on a socket nobody watches, and the hash
 * entry is left half made, so that the next change to it divides by zero. Only a
 * new multi handle is safe after that. */
static void note(xio__blob_events *ev, CURLMcode rc) {
  if (rc != CURLM_OK) ev->failed = 1;
}

xio_err xio__blob_events_init(xio__blob_events *ev, xio_error *err) {
  ev->wakefd = -1;
  ev->epfd = epoll_create1(EPOLL_CLOEXEC);
  if (ev->epfd < 0) return xio_error_from_errno(err, errno, "StartEngine", "epoll_create1", "");
  ev->wakefd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (ev->wakefd < 0) return xio_error_from_errno(err, errno, "StartEngine", "eventfd", "");
  struct epoll_event e = {0};
  e.events = EPOLLIN;
  e.data.fd = ev->wakefd;
  if (epoll_ctl(ev->epfd, EPOLL_CTL_ADD, ev->wakefd, &e) != 0)
    return xio_error_from_errno(err, errno, "StartEngine", "epoll_ctl", "");
  return XIO_OK;
}

void xio__blob_events_attach(xio__blob_events *ev, CURLM *multi) {
  ev->multi = multi;
  ev->due_us = -1;
  ev->failed = 0;
  if (!multi) return;
  curl_multi_setopt(multi, CURLMOPT_SOCKETFUNCTION, on_socket);
  curl_multi_setopt(multi, CURLMOPT_SOCKETDATA, ev);
  curl_multi_setopt(multi, CURLMOPT_TIMERFUNCTION, on_timer);
  curl_multi_setopt(multi, CURLMOPT_TIMERDATA, ev);
}

void xio__blob_events_fail(xio__blob_events *ev) { ev->failed = 1; }

void xio__blob_events_wake(xio__blob_events *ev) {
  uint64_t one = 1;
  ssize_t n;
  do
    n = write(ev->wakefd, &one, sizeof one);
  while (n < 0 && errno == EINTR); /* EAGAIN: the counter is full, a wake is pending */
}

int xio__blob_events_timeout(const xio__blob_events *ev, int64_t now, int ms) {
  if (ev->due_us < 0) return ms;
  int64_t d = (ev->due_us - now + 999) / 1000;
  if (d < 0) d = 0;
  return d < ms ? (int)d : ms;
}

void xio__blob_events_run_timers(xio__blob_events *ev) {
  int running;
  ev->due_us = -1; /* a timeout left after the call is reported to on_timer again */
  if (ev->multi) note(ev, curl_multi_socket_action(ev->multi, CURL_SOCKET_TIMEOUT, 0, &running));
}

/* Runs libcurl's timeout when it is due. */
static void run_due(xio__blob_events *ev) {
  if (ev->due_us >= 0 && ev->due_us <= xio_auth_monotonic_us()) xio__blob_events_run_timers(ev);
}

void xio__blob_events_wait(xio__blob_events *ev, int ms) {
  struct epoll_event got[MAX_EVENTS];
  int n = epoll_wait(ev->epfd, got, MAX_EVENTS, ms);
  for (int i = 0; i < n; i++) {
    int fd = got[i].data.fd, running;
    if (fd == ev->wakefd) {
      uint64_t v;
      (void)!read(ev->wakefd, &v, sizeof v);
      continue;
    }
    uint32_t e = got[i].events;
    int bits = (e & (EPOLLIN | EPOLLHUP | EPOLLRDHUP) ? CURL_CSELECT_IN : 0) |
               (e & EPOLLOUT ? CURL_CSELECT_OUT : 0) | (e & EPOLLERR ? CURL_CSELECT_ERR : 0);
    if (ev->multi) note(ev, curl_multi_socket_action(ev->multi, fd, bits, &running));
  }
  run_due(ev);
}

void xio__blob_events_free(xio__blob_events *ev) {
  if (ev->epfd >= 0) close(ev->epfd);
  if (ev->wakefd >= 0) close(ev->wakefd);
  ev->epfd = ev->wakefd = -1;
}
