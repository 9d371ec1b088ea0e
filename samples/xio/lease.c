/*
 * lease.c - the lease command: acquire, renew, release or break the lease on a
 * page blob by hand, as an operator does after a crash left a file leased (SQL
 * Server's files on page blobs hold a lease while open), through the file layer's
 * xio_lease. acquire proposes a lease id (--lease-id, else a fresh one, so a retry
 * after a lost response gets the same lease) and prints it; renew and release need
 * it back with --lease-id; break ends whoever's lease.
 *
 * Leases are a blob thing: a local file is locked (flock) only while a command has
 * it open, so there is nothing to hold between commands.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include <xio/alloc.h>

#include "cli.h"

/* One lease action through the file layer (xio_lease, traced as XIOTypeLease). */
static xio_err lease_call(cli *c, const char *url, const xio_lease_request *req,
                          xio_lease_result *out, xio_error *err) {
  xio_ctx *ctx;
  xio_err rc = cli_context(c, &ctx, err);
  if (rc == XIO_OK)
    rc = xio_lease(ctx, url, req, out, err);
  else
    out->remaining_s = -1;
  /* A lease error on a call carrying an id means that id is not the blob's lease. */
  if (rc == XIO_ELEASELOST && err) err->code = XIO_ECONFLICT;
  return rc == XIO_ELEASELOST ? XIO_ECONFLICT : rc;
}

xio_err cli_lease_break(cli *c, const char *url, int period_s, int *remaining_s, xio_error *err) {
  xio_lease_request a = {XIO_LEASE_BREAK, NULL, 0, period_s};
  xio_lease_result res;
  xio_error e;
  xio_err rc = lease_call(c, url, &a, &res, &e);
  if (rc == XIO_ECONFLICT && strcmp(e.service_code, "LeaseNotPresentWithLeaseOperation") == 0) {
    rc = XIO_OK;
    res.remaining_s = 0;
  }
  if (rc != XIO_OK && err) *err = e;
  if (remaining_s) *remaining_s = res.remaining_s;
  return rc;
}

/* ------------------------------------------------------------ options ---- */

typedef struct lease_opts {
  xio_lease_action action;
  const char *target;
  const char *lease_id;
  int duration_s;
  int break_period_s;
} lease_opts;

static int parse_action(const cli *c, const char *word, xio_lease_action *out) {
  static const struct {
    const char *name;
    xio_lease_action action;
  } actions[] = {{"acquire", XIO_LEASE_ACQUIRE},
                 {"renew", XIO_LEASE_RENEW},
                 {"release", XIO_LEASE_RELEASE},
                 {"break", XIO_LEASE_BREAK}};
  for (size_t i = 0; i < sizeof actions / sizeof *actions; i++)
    if (strcmp(word, actions[i].name) == 0) {
      *out = actions[i].action;
      return CLI_CONTINUE;
    }
  return cli_usage_error(c, "unknown action '%s': use acquire, renew, release or break", word);
}

static int check_duration(const cli *c, const char *text, int *out) {
  int r = cli_value_int(c, "--duration", text, -1, 60, out);
  if (r == CLI_CONTINUE && *out != -1 && *out < 15)
    return cli_usage_error(c, "bad --duration '%s': use -1 (infinite) or 15..60 seconds", text);
  return r;
}

static int lease_args(cli *c, int argc, char **argv, lease_opts *lo) {
  const char *dur_s = NULL, *period_s = NULL, *pos[2];
  const cli_opt opts[] = {{"--duration", &dur_s, NULL},
                          {"--lease-id", &lo->lease_id, NULL},
                          {"--break-period", &period_s, NULL},
                          {NULL, NULL, NULL}};
  int r = cli_parse(c, argc, argv, opts, "ACTION TARGET", 2, pos);
  if (r != CLI_CONTINUE) return r;
  lo->target = pos[1];
  lo->duration_s = -1;
  lo->break_period_s = 0;
  if ((r = parse_action(c, pos[0], &lo->action)) != CLI_CONTINUE) return r;
  if (dur_s && (r = check_duration(c, dur_s, &lo->duration_s)) != CLI_CONTINUE) return r;
  if (period_s && (r = cli_value_int(c, "--break-period", period_s, 0, 60, &lo->break_period_s)) !=
                      CLI_CONTINUE)
    return r;
  int needs_id = lo->action == XIO_LEASE_RENEW || lo->action == XIO_LEASE_RELEASE;
  if (needs_id && !lo->lease_id) return cli_usage_error(c, "%s needs --lease-id ID", pos[0]);
  return CLI_CONTINUE;
}

/* ------------------------------------------------------------ command ---- */

static const char *action_done(xio_lease_action a) {
  switch (a) {
  case XIO_LEASE_ACQUIRE: return "acquired";
  case XIO_LEASE_RENEW: return "renewed";
  case XIO_LEASE_RELEASE: return "released";
  default: return "broke";
  }
}

static void lease_report(const cli *c, const lease_opts *lo, const xio_lease_result *res,
                         const char *safe) {
  if (c->json) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "command", "lease");
    cJSON_AddStringToObject(o, "action", action_done(lo->action));
    cJSON_AddStringToObject(o, "target", safe);
    if (lo->action == XIO_LEASE_ACQUIRE) {
      cJSON_AddStringToObject(o, "lease_id", res->id);
      cJSON_AddNumberToObject(o, "duration", lo->duration_s);
    }
    if (lo->action == XIO_LEASE_BREAK) cJSON_AddNumberToObject(o, "remaining", res->remaining_s);
    cli_json_print(o);
  } else if (lo->action == XIO_LEASE_ACQUIRE) {
    printf("%s\n", res->id); /* the result a script needs, even with --quiet */
  } else if (lo->action == XIO_LEASE_BREAK) {
    cli_say(c, "broke the lease on %s (it ends in %d s)", safe, res->remaining_s);
  } else {
    cli_say(c, "%s the lease on %s", action_done(lo->action), safe);
  }
}

static int run_lease(cli *c, int argc, char **argv) {
  lease_opts lo;
  memset(&lo, 0, sizeof lo);
  int r = lease_args(c, argc, argv, &lo);
  if (r != CLI_CONTINUE) return r;
  xio_error e;
  if (!cli_is_url(lo.target))
    return cli_fail(c,
                    xio_error_set(&e, XIO_EUNSUPPORTED,
                                  "leases are held on blobs; a "
                                  "local file is locked only while a command has it open"),
                    &e);
  /* acquire proposes --lease-id, or a fresh id the library makes. */
  xio_lease_request a = {lo.action, lo.lease_id, lo.duration_s, lo.break_period_s};
  xio_lease_result res;
  xio_err rc = lease_call(c, lo.target, &a, &res, &e);
  if (rc != XIO_OK) return cli_fail(c, rc, &e);
  char *safe = xio_target_safe(lo.target);
  lease_report(c, &lo, &res, safe ? safe : "");
  xio_free(safe);
  return CLI_OK;
}

const cli_command cli_cmd_lease = {
    "lease",
    "acquire, renew, release or break a blob's lease",
    "lease acquire TARGET [--duration -1|15..60] [--lease-id ID]\n"
    "lease renew|release TARGET --lease-id ID\n"
    "lease break TARGET [--break-period 0..60]",
    "Manages the lease on a page blob by hand. While a blob is leased, other clients\n"
    "cannot write it or open it exclusively (grow, zero, put --force and rm fail\n"
    "with \"in use\").\n"
    "\n"
    "  acquire   takes a lease and prints its id (infinite unless --duration)\n"
    "  renew     restarts the lease's duration (needs --lease-id)\n"
    "  release   gives the lease up (needs --lease-id)\n"
    "  break     ends whoever's lease, after --break-period seconds (default 0)\n"
    "\n"
    "Options:\n"
    "  --duration S       acquire: -1 (infinite, the default) or 15..60 seconds\n"
    "  --lease-id ID      the lease id (acquire: the id to propose)\n"
    "  --break-period S   break: seconds to let the lease run on, 0..60\n",
    run_lease,
};
