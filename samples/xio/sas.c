/*
 * sas.c - the sas command: sign a service SAS for a blob (sr=b) or, when the URL
 * names no blob, for its container (sr=c), with the account key, and print the
 * full URL with the token on stdout. That URL is a secret and the purpose of the
 * command: it goes to stdout only, never to stderr, a trace or an error message.
 *
 * The key is the account's own, found by xio_service_sas: the credential file
 * (--credentials or XIO_CREDENTIALS), AZURE_STORAGE_CONNECTION_STRING, or
 * AZURE_STORAGE_ACCOUNT and AZURE_STORAGE_KEY, whichever serves the URL first.
 * Nothing is sent.
 *
 * With --as-user no account key is involved: the SAS is a user delegation SAS,
 * signed with a key the service hands to the Entra ID identity the context finds
 * (Get User Delegation Key, the one request this command then sends).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <xio/alloc.h>
#include <xio/auth.h>
#include <xio/credentials.h>

#include "cli.h"

/* ------------------------------------------------------------ options ---- */

typedef struct sas_opts {
  const char *url;
  const char *perms;
  time_t start;
  time_t expiry;
  int https_only;
  int as_user;
} sas_opts;

static int sas_args(cli *c, int argc, char **argv, sas_opts *so) {
  const char *expiry = NULL, *start = NULL, *pos[1];
  const cli_opt opts[] = {
      {"--permissions", &so->perms, NULL}, {"--expiry", &expiry, NULL},
      {"--start", &start, NULL},           {"--https-only", NULL, &so->https_only},
      {"--as-user", NULL, &so->as_user},   {NULL, NULL, NULL}};
  int r = cli_parse(c, argc, argv, opts, "TARGET", 1, pos);
  if (r != CLI_CONTINUE) return r;
  so->url = pos[0];
  if (!cli_is_url(so->url)) return cli_usage_error(c, "sas needs a blob or container URL");
  if (!so->perms) return cli_usage_error(c, "missing --permissions LETTERS");
  if (!expiry) return cli_usage_error(c, "missing --expiry DURATION|TIME");
  time_t now = time(NULL);
  if ((r = cli_value_time(c, "--expiry", expiry, now, &so->expiry)) != CLI_CONTINUE) return r;
  if (start && (r = cli_value_time(c, "--start", start, now, &so->start)) != CLI_CONTINUE) return r;
  if (so->expiry <= now) return cli_usage_error(c, "bad --expiry '%s': already past", expiry);
  if (start && so->start >= so->expiry)
    return cli_usage_error(c, "--start '%s' is not before --expiry '%s'", start, expiry);
  return CLI_CONTINUE;
}

/* ------------------------------------------------------------ command ---- */

static void print_url(const cli *c, const char *base, const char *tok, const sas_opts *so,
                      const xio_target_parts *u) {
  if (!c->json) {
    printf("%s?%s\n", base, tok);
    return;
  }
  size_t n = strlen(base) + strlen(tok) + 2;
  char *full = xio_malloc(n), when[21];
  if (full) snprintf(full, n, "%s?%s", base, tok);
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "command", "sas");
  cJSON_AddStringToObject(o, "url", full ? full : "");
  cJSON_AddStringToObject(o, "resource", u->blob ? "b" : "c");
  cJSON_AddStringToObject(o, "permissions", so->perms);
  if (so->start) cJSON_AddStringToObject(o, "start", xio_auth_format_iso8601(so->start, when));
  cJSON_AddStringToObject(o, "expiry", xio_auth_format_iso8601(so->expiry, when));
  cli_json_print(o);
  if (full) xio_auth_secret_free(full, n);
}

/* A user delegation SAS: Entra ID token, user delegation key, signature. */
static xio_err sign_as_user(cli *c, const sas_opts *so, const xio_auth_sas_options *o, char **tok,
                            xio_error *e) {
  xio_ctx *ctx;
  xio_err rc = cli_context(c, &ctx, e);
  return rc == XIO_OK ? xio_ctx_user_delegation_sas(ctx, so->url, o, tok, e) : rc;
}

static xio_err sign(cli *c, const sas_opts *so, char **tok, xio_error *e) {
  xio_auth_sas_options o = xio_auth_sas_options_default();
  o.permissions = so->perms;
  o.start = so->start;
  o.expiry = so->expiry;
  o.protocol = so->https_only ? "https" : NULL;
  if (so->as_user) return sign_as_user(c, so, &o, tok, e);
  const char *file = c->credentials ? c->credentials : getenv("XIO_CREDENTIALS");
  unsigned flags = XIO_CRED_FILE_ENVIRONMENT | (c->allow_exposed ? XIO_CRED_FILE_ALLOW_EXPOSED : 0);
  return xio_service_sas(so->url, file, flags, &o, tok, e);
}

static int run_sas(cli *c, int argc, char **argv) {
  sas_opts so;
  memset(&so, 0, sizeof so);
  int r = sas_args(c, argc, argv, &so);
  if (r != CLI_CONTINUE) return r;
  xio_target_parts u;
  xio_error e;
  xio_err rc = xio_target_parse(so.url, &u, &e);
  if (rc != XIO_OK) return cli_fail(c, rc, &e);
  char *tok = NULL;
  if (!u.container) rc = xio_error_set(&e, XIO_EINVAL, "the URL names no container");
  if (rc == XIO_OK) rc = sign(c, &so, &tok, &e);
  if (rc == XIO_OK && tok)
    print_url(c, u.base, tok, &so, &u);
  else if (rc == XIO_EINVAL)
    r = cli_usage_error(c, "%s", e.message);
  else
    r = cli_fail(c, rc, &e);
  if (tok) xio_auth_secret_free(tok, strlen(tok));
  xio_target_parts_clear(&u);
  return rc == XIO_OK ? CLI_OK : r;
}

const cli_command cli_cmd_sas = {
    "sas",
    "sign a SAS URL for a blob or container (account key, or --as-user)",
    "sas TARGET --permissions LETTERS --expiry WHEN [--start WHEN] [--https-only]\n"
    "sas TARGET --as-user --permissions LETTERS --expiry WHEN [--start WHEN]",
    "Signs a service SAS for the blob TARGET (or, for a URL without a blob, its\n"
    "container) with the account key and prints the URL with the token on stdout.\n"
    "The key comes from the credential file, AZURE_STORAGE_CONNECTION_STRING or\n"
    "AZURE_STORAGE_ACCOUNT + AZURE_STORAGE_KEY. Nothing is sent to the service.\n"
    "With --as-user it signs a user delegation SAS instead, without any account\n"
    "key: it gets an Entra ID token (managed identity, Azure CLI, ...), asks the\n"
    "service for a user delegation key valid until the expiry (at most 7 days on\n"
    "Azure) and signs with that. This is the SAS Azure recommends.\n"
    "\n"
    "Options:\n"
    "  --permissions LETTERS   r read, a add, c create, w write, d delete, ...\n"
    "                          (e.g. rcw; written in the canonical order)\n"
    "  --expiry WHEN           when it expires: a duration from now (30m, 1h, 7d)\n"
    "                          or an ISO 8601 UTC time (2030-01-31T00:00:00Z)\n"
    "  --start WHEN            when it becomes valid (default: at once)\n"
    "  --https-only            only valid over https\n"
    "  --as-user               a user delegation SAS, signed by Entra ID, no key\n",
    run_sas,
};
