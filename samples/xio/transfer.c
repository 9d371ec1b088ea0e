/*
 * transfer.c - what the two transfer commands, put (put.c) and get (get.c), share:
 * the --in-flight option, the stop signals (SIGINT and SIGTERM stop issuing
 * requests and cancel the context: the requests on their way get a short grace,
 * then are cut; the transfer says what is left and exits 128 + the signal), the
 * check that LOCAL and TARGET are not one file, and the line that says the service
 * throttled requests.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

#define MAX_FLIGHT 64 /* --in-flight's ceiling */

/* --in-flight N (1..MAX_FLIGHT) into c->in_flight; NULL leaves `dflt`. */
int cli_take_in_flight(cli *c, const char *text, int dflt) {
  c->in_flight = dflt;
  if (!text) return CLI_CONTINUE;
  return cli_value_int(c, "--in-flight", text, 1, MAX_FLIGHT, &c->in_flight);
}

/* --------------------------------------------------------- signals ---- */

/*
 * SIGINT or SIGTERM during a transfer. The first one sets the flag the transfer
 * reads (it stops issuing requests, says what is left and exits 128 + the signal)
 * and cancels the context (xio_ctx_cancel): nothing is sent or retried any more,
 * and the requests on the wire get the grace (STOP_GRACE_S, or
 * XIO_STOP_GRACE_SECONDS) to end before they are cut, so a service that went
 * silent holds the command no longer than that. A second signal cuts them at once.
 * The handler only uses what is async-signal-safe: atomics, xio_ctx_cancel and
 * write(2) of notes made beforehand.
 */
#define STOP_GRACE_S     2
#define STOP_GRACE_MAX_S 3600

static volatile sig_atomic_t stop_signal; /* the first stop signal, or 0 */
static atomic_int stop_count;             /* stop signals received */
static xio_ctx *_Atomic stop_ctx;         /* the context to cancel, or NULL */
static atomic_int in_handler;             /* handlers running (cli_stop_detach waits) */
static int stop_grace_ms = STOP_GRACE_S * 1000;
static char stop_notes[2][2][160]; /* [SIGTERM?][again?]: what the handler writes */

static void write_note(const char *note) {
  size_t n = strlen(note); /* async-signal-safe */
  while (n) {
    ssize_t k = write(STDERR_FILENO, note, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return;
    note += k;
    n -= (size_t)k;
  }
}

static void on_stop_signal(int sig) {
  int saved = errno;
  atomic_fetch_add(&in_handler, 1);
  int again = atomic_fetch_add(&stop_count, 1) > 0;
  if (!again) stop_signal = sig;
  xio_ctx_cancel(atomic_load(&stop_ctx), again ? 0 : stop_grace_ms);
  write_note(stop_notes[sig == SIGTERM][again]);
  atomic_fetch_sub(&in_handler, 1);
  errno = saved;
}

int cli_stop_signal(void) { return stop_signal; }

/* The notes the handler writes, for each signal, first and again. */
static void make_notes(void) {
  for (int t = 0; t < 2; t++) {
    const char *name = t ? "SIGTERM" : "SIGINT";
    if (stop_grace_ms)
      snprintf(stop_notes[t][0], sizeof stop_notes[t][0],
               "xio: %s: stopping; requests on their way get %d s to end (SIGINT or SIGTERM "
               "again ends them at once)\n",
               name, stop_grace_ms / 1000);
    else
      snprintf(stop_notes[t][0], sizeof stop_notes[t][0], "xio: %s: stopping\n", name);
    snprintf(stop_notes[t][1], sizeof stop_notes[t][1], "xio: %s again: stopping at once\n", name);
  }
}

/* The grace: STOP_GRACE_S, or XIO_STOP_GRACE_SECONDS (whole seconds, 0..3600). */
static xio_err take_grace(xio_error *err) {
  const char *v = getenv("XIO_STOP_GRACE_SECONDS");
  if (!v || !*v) return XIO_OK;
  char *end;
  errno = 0;
  long s = strtol(v, &end, 10);
  if (errno || *end || end == v || s < 0 || s > STOP_GRACE_MAX_S)
    return xio_error_set(err, XIO_EINVAL,
                         "XIO_STOP_GRACE_SECONDS is '%.40s': give whole seconds, 0 to %d", v,
                         STOP_GRACE_MAX_S);
  stop_grace_ms = (int)s * 1000;
  return XIO_OK;
}

int cli_catch_stop_signals(cli *c) {
  xio_error e;
  xio_err rc = take_grace(&e);
  if (rc != XIO_OK) return cli_fail(c, rc, &e);
  make_notes();
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sigaddset(&sa.sa_mask, SIGINT);
  sigaddset(&sa.sa_mask, SIGTERM);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  return CLI_CONTINUE;
}

void cli_stop_attach(xio_ctx *ctx) {
  atomic_store(&stop_ctx, ctx);
  if (stop_signal) xio_ctx_cancel(ctx, atomic_load(&stop_count) > 1 ? 0 : stop_grace_ms);
}

void cli_stop_detach(void) {
  atomic_store(&stop_ctx, NULL);
  while (atomic_load(&in_handler)) /* a handler on another thread may still hold it */
    sched_yield();
}

const char *cli_stop_name(void) { return stop_signal == SIGINT ? "SIGINT" : "SIGTERM"; }

/* XIO_ECANCELED when a stop signal arrived. */
xio_err cli_check_stop(xio_error *err) {
  if (!stop_signal) return XIO_OK;
  return xio_error_set(err, XIO_ECANCELED, "interrupted by %s", cli_stop_name());
}

/* The exit status of a transfer stopped by a signal: 130 (SIGINT) or 143 (SIGTERM). */
int cli_stop_status(void) { return 128 + stop_signal; }

/* A stop signal that came before `cmd` had changed anything, so there is nothing
 * to finish: "xio: CMD interrupted by SIGTERM before " and what it had not done. */
int cli_stopped_before(const char *cmd, const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "xio: %s interrupted by %s before ", cmd, cli_stop_name());
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  return cli_stop_status();
}

/* A stop signal that came once the last request was on its way: the transfer is
 * whole all the same, and the exit status still says it was stopped. */
int cli_stopped_after(const char *cmd, const char *done) {
  fprintf(stderr, "xio: %s: %s came as the transfer finished; %s is complete\n", cmd,
          cli_stop_name(), done);
  return cli_stop_status();
}

/* ------------------------------------------------------ the target ---- */

/* 1 when `a` and `b` name the same local file (both exist). */
int cli_same_file(const char *a, const char *b) {
  struct stat sa, sb;
  if (cli_is_url(a) || cli_is_url(b) || stat(a, &sa) != 0 || stat(b, &sb) != 0) return 0;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* The line that says the service throttled a transfer's requests (`tries` of them
 * answered 503 ServerBusy or 500 OperationTimedOut, each retried), when it did. */
void cli_say_throttled(const cli *c, const char *cmd, uint64_t tries) {
  if (tries)
    cli_say(c,
            "%s: the service throttled %" PRIu64 " tr%s (503 ServerBusy or 500 "
            "OperationTimedOut), each retried after a wait; --trace shows each as an "
            "xio_failed_request",
            cmd, tries, tries == 1 ? "y" : "ies");
}
