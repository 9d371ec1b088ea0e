/*
 * transfer.c - what the two transfer commands, put (put.c) and get (get.c), share:
 * the --in-flight option, the stop signals (SIGINT and SIGTERM stop issuing
 * requests, the transfer waits for those in flight, says what is left and exits
 * 128 + the signal), the check that LOCAL and TARGET are not one file, and the
 * line that says the service throttled requests.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"

#define MAX_FLIGHT 64 /* --in-flight's ceiling */

/* --in-flight N (1..MAX_FLIGHT) into c->in_flight; NULL leaves `dflt`. */
int cli_take_in_flight(cli *c, const char *text, int dflt) {
  c->in_flight = dflt;
  if (!text) return CLI_CONTINUE;
  return cli_value_int(c, "--in-flight", text, 1, MAX_FLIGHT, &c->in_flight);
}

/* --------------------------------------------------------- signals ---- */

/* SIGINT or SIGTERM received during a transfer (0: none). The transfer stops issuing
 * requests, waits for those in flight, says what is left and exits 128 + the signal. */
static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig) { stop_signal = sig; }

int cli_stop_signal(void) { return stop_signal; }

void cli_catch_stop_signals(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
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
