/*
 * errors.c - how a failed operation is reported: one line naming the command, the
 * storage operation, the message, the HTTP status, the service error code and the
 * request id (what a support case needs), the log-safe target, and a "hint:" line
 * that says what to do about it. The hint is chosen by the error code and the
 * reason the library gives beside it (which TLS check refused the server, why a
 * credential was not used), and by the service's error code or whether a local file
 * failed; never by the message, which is for people to read. With --json the same
 * record also goes to stdout as {"command": ..., "error": {...}}, the reason by its
 * name (null when there is none).
 *
 * Everything printed comes from the library's detail record, which never holds a
 * secret (targets are redacted where they enter the library).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* A failure of the local backend or of a local system call (no HTTP involved). */
static int is_local(const xio_error *e) {
  return e->http_status == 0 && (e->sys_errno != 0 || (e->target[0] && !cli_is_url(e->target)));
}

static const char *hint_not_found(const xio_error *e) {
  /* ResourceNotFound, not BlobNotFound or ContainerNotFound: nothing of the account. */
  if (strcmp(e->service_code, "ResourceNotFound") == 0)
    return "nothing answers to this URL: check the account name in it (ACCOUNT in "
           "http://HOST:PORT/ACCOUNT/... or https://ACCOUNT.blob.core.windows.net/...), then "
           "that a credential applies to it (a private container answers requests without "
           "one as if nothing were there)";
  if (e->reason == XIO_REASON_NO_CREDENTIAL_SENT)
    return "no credential applies to this URL, so the request went without one, and a "
           "private container answers such requests as if nothing were there: set a "
           "credential (see `xio --help`, Credentials) or check the URL";
  if (strcmp(e->service_code, "ContainerNotFound") == 0)
    return "the container does not exist: check its name in the URL, or list the account's "
           "containers with `xio ls ACCOUNT_URL`";
  if (is_local(e)) return "no such file: check the path";
  return "no such blob: check the URL (container and blob names are case-sensitive), "
         "or make it with `xio create TARGET --size SIZE`";
}

static const char *hint_busy(const xio_error *e) {
  if (is_local(e))
    return "the file is in use: another process holds its lock; try again when it is done";
  return "the file is in use: another client holds its lease. If that client is gone, "
         "`xio lease break TARGET` (or --break-lease) takes it over";
}

static const char *hint_auth(const xio_error *e) {
  if (e->reason == XIO_REASON_TOKEN_SOURCES_FAILED)
    return "no Entra ID token (each source and why is listed above): sign in with `az login`, "
           "run where a managed identity is (IDENTITY_ENDPOINT), or use a key or SAS instead";
  if (strcmp(e->service_code, "NoAuthenticationInformation") == 0)
    return "no credential was sent: put a SAS in the URL, or set "
           "AZURE_STORAGE_CONNECTION_STRING (or AZURE_STORAGE_ACCOUNT and AZURE_STORAGE_KEY, "
           "or --credentials FILE)";
  return "authentication failed: check the account key (connection string or "
         "AZURE_STORAGE_KEY) or the SAS signature, and that this machine's clock is right";
}

/* No credential: the ways to give one, Entra ID only where a token may go (https). */
static const char *hint_no_credential(const xio_error *e) {
  if (strncmp(e->target, "https://", 8) == 0)
    return "set AZURE_STORAGE_CONNECTION_STRING, or AZURE_STORAGE_ACCOUNT and "
           "AZURE_STORAGE_KEY, or put a SAS in the URL, or use --credentials FILE; or sign in "
           "with `az login` (or run where a managed identity is) for an Entra ID token";
  return "set AZURE_STORAGE_CONNECTION_STRING, or AZURE_STORAGE_ACCOUNT and "
         "AZURE_STORAGE_KEY, or put a SAS in the URL, or use --credentials FILE (Entra ID "
         "tokens go only over https)";
}

static const char *hint_changed(const xio_error *e) {
  if (is_local(e))
    return "the local file was written while this command read it: run the command again "
           "once nothing writes it";
  return "another client wrote the blob while this command read it, so nothing half-read "
         "was kept: run the command again, or, for get (and cp to a local file), add "
         "--snapshot to copy a snapshot taken for it, which writers cannot change";
}

static const char *hint_perm(const xio_error *e) {
  if (e->reason == XIO_REASON_CRED_FILE_EXPOSED)
    return "a credential file must be its owner's alone, as ssh wants its key files: run the "
           "chmod above; to load it as it is anyway, pass --allow-exposed-credentials (or set "
           "XIO_ALLOW_EXPOSED_CREDENTIALS=1)";
  if (is_local(e)) return "permission denied on the local file: check its owner and mode";
  return "the SAS lacks a permission this operation needs (the message names it): get one "
         "with the right letters, e.g. `xio sas TARGET --permissions rcwd --expiry 1h`";
}

/* The target with its scheme changed to `scheme` ("http" or "https"), in a hint:
 * "this endpoint speaks http, not https: use http://HOST/..." (the target is the
 * log-safe URL). The buffer is static: the command line reports on one thread. */
static const char *hint_other_scheme(const xio_error *e, const char *scheme) {
  static char buf[sizeof e->target + 200];
  const char *rest = strstr(e->target, "://");
  snprintf(buf, sizeof buf, "this endpoint speaks %s, not %s: use %s://%s", scheme,
           strcmp(scheme, "http") == 0 ? "https" : "http", scheme, rest ? rest + 3 : "HOST/...");
  return buf;
}

/* A transport failure; the reason tells a server certificate this machine does not
 * trust, or one issued for another name, or a server that speaks the other
 * protocol, from the rest. Certificates are always verified: no hint ever offers a
 * way around that. */
static const char *hint_transport(const xio_error *e) {
  switch (e->reason) {
  case XIO_REASON_SPEAKS_HTTP: return hint_other_scheme(e, "http");
  case XIO_REASON_SPEAKS_HTTPS: return hint_other_scheme(e, "https");
  case XIO_REASON_TLS_HOSTNAME:
    return "the server's certificate is not for this host name: use the name it was "
           "issued for (the message quotes the name in the URL); a CA file does not "
           "change this";
  case XIO_REASON_TLS_UNTRUSTED:
    return "the server's certificate is not trusted here: if a private CA signed it (an "
           "Azurite started with --cert/--key, a company proxy), pass --cacert FILE or set "
           "XIO_CA_BUNDLE=FILE with that CA's certificate (PEM); otherwise check that "
           "the URL names the server you meant";
  case XIO_REASON_TLS_EXPIRED:
    return "the server's certificate has expired or is not valid yet: check that this "
           "machine's clock is right; otherwise the server's certificate must be renewed";
  case XIO_REASON_RESOLVE:
    return "the host name does not resolve: check the account name in the URL (ACCOUNT in "
           "https://ACCOUNT.blob.core.windows.net/...), then this machine's DNS";
  default:
    return "could not talk to the service: check the host and port, the network, and "
           "--cacert FILE (or XIO_CA_BUNDLE) when the server uses a private CA";
  }
}

/* Plain http refused: for a remote host, --allow-insecure-http is the way around;
 * for a bearer token there is none. */
static const char *hint_insecure(const xio_error *e) {
  if (e->reason == XIO_REASON_TOKEN_OVER_HTTP)
    return "Entra ID tokens go only over https, to any host: use the https:// URL (an "
           "Azurite that takes tokens runs with --cert/--key and --oauth basic), or a key or "
           "SAS, which plain http may carry";
  return "use https://, or pass --allow-insecure-http to send over plain http anyway "
         "(only on a network you trust)";
}

/* Hints for codes that need no look at the record beyond the code. */
static const char *hint_by_code(xio_err code) {
  switch (code) {
  case XIO_EEXPIRED:
    return "the SAS token has expired (at the time above): get a new one, e.g. "
           "`xio sas TARGET --permissions rcw --expiry 1h` signs one with the account key, "
           "or ask whoever issued it";
  case XIO_ENOTYET:
    return "the SAS token is not valid yet (from the time above): wait, or get one whose "
           "start lies in the past";
  case XIO_ELEASELOST:
    return "another client broke or took over the lease while this command ran, so nothing "
           "more was written; find out who uses the file before trying again";
  case XIO_EEXIST:
    return "the target already exists: remove it first (`xio rm TARGET`), pick another "
           "name, or use --force where the command takes it (put, get, cp)";
  case XIO_EALIGN:
    return "page blobs take offsets and lengths in multiples of 512 bytes: round them to 512";
  case XIO_EPARSE:
    return "check the syntax of the URL, connection string, credential file or CA file "
           "(the message names the part that is wrong)";
  case XIO_ERANGE: return "the range lies outside the file: `xio stat TARGET` shows its size";
  case XIO_ELIMIT: return "a page blob holds at most 8 TiB";
  case XIO_ETIMEDOUT:
  case XIO_ETHROTTLED: return "the service is busy or slow: try again later";
  case XIO_ECHECKSUM: return "the data arrived corrupted on every try: check the network path";
  default: return NULL;
  }
}

/* The operations of backup and restore on the chain's directory (the backup library,
 * samples/backup). */
static int is_backup(const xio_error *e) {
  static const char *const ops[] = {"ReadManifest", "WriteManifest", "ReadBackup", "WriteBackup",
                                    "Backup",       "Restore",       "KeepBackups"};
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
    if (strcmp(e->operation, ops[i]) == 0) return 1;
  return 0;
}

static const char *hint_backup(const xio_error *e) {
  switch (e->code) {
  case XIO_ENOTFOUND:
    return strcmp(e->operation, "Restore") == 0
               ? "name a snapshot of the chain (DIR/chain.json lists its links), or leave @ID "
                 "out for the newest"
               : "check DIR: `xio backup URL DIR` makes a chain there";
  case XIO_ECHECKSUM:
  case XIO_EIO:
    return "the backup in DIR is damaged: restore from another copy of DIR, or start a new "
           "chain with `xio backup URL NEWDIR`";
  case XIO_EPARSE:
    return "the manifest named above (DIR/chain.json or DIR/pending.json) is not one this "
           "xio reads: it was changed or damaged";
  case XIO_EEXIST: return "--force replaces TARGET (a blob in place, keeping its snapshots)";
  case XIO_EBUSY: return "wait for the other backup of DIR to finish";
  case XIO_ECONFLICT:
    return strcmp(e->service_code, "BlobOverwritten") == 0
               ? "the links in DIR still restore; back up into a new directory to start a new "
                 "chain. To put a blob back as it was without ending its chain, use `xio "
                 "restore --force DIR@ID URL`: it writes in place, so the chain goes on"
               : NULL;
  default: return NULL;
  }
}

/* The emulator (Azurite in memory) refused a write: its store is full of blobs that
 * exist, even after its sweep freed what deleted ones held. */
static const char *hint_emulator_full(void) {
  return "the emulator's memory for blob data is full of blobs that exist: delete those no "
         "longer needed (`xio rm URL`; the emulator takes their memory back when a write next "
         "finds it full), or give it more (`xio emulator stop`, then `xio emulator start "
         "--memory SIZE`; stopping it loses its blobs)";
}

const char *cli_hint(const xio_error *e) {
  if (strcmp(e->service_code, "MemoryExtentStoreAtSizeLimit") == 0) return hint_emulator_full();
  if (is_backup(e)) return hint_backup(e);
  switch (e->code) {
  case XIO_ENOTFOUND: return hint_not_found(e);
  case XIO_EBUSY: return hint_busy(e);
  case XIO_EAUTH: return hint_auth(e);
  case XIO_ENOCRED: return hint_no_credential(e);
  case XIO_EPERM: return hint_perm(e);
  case XIO_ECHANGED: return hint_changed(e);
  case XIO_ETRANSPORT: return hint_transport(e);
  case XIO_EINSECURE: return hint_insecure(e);
  default: return hint_by_code(e->code);
  }
}

/* --------------------------------------------- hints that know the command ---- */

/* A container that does not exist: its name to check, and the account's containers
 * to list, by the account's URL when the target gives it. */
static const char *hint_no_container(const xio_error *e, char *buf, size_t size) {
  xio_target_parts p;
  if (xio_target_parse(e->target, &p, NULL) != XIO_OK) return NULL;
  if (p.endpoint)
    snprintf(buf, size,
             "the container does not exist: check its name in the URL (names are "
             "case-sensitive), or list the account's containers with `xio ls %.300s`",
             p.endpoint);
  xio_target_parts_clear(&p);
  return buf[0] ? buf : NULL;
}

/* An existing target: where the command takes --force, that, or another name. */
static const char *hint_exists(const cli *c, const xio_error *e) {
  if (!c->cmd || !strstr(c->cmd->synopsis, "[--force]"))
    return "the target already exists: pick another name, or remove it first "
           "(`xio rm TARGET`)";
  if (is_local(e)) return "add --force to overwrite the local file, or give another name";
  return "add --force to replace it in place (its snapshots stay), or give another name";
}

/* The hint for `e` in command c->cmd: those that depend on the command or on the
 * target, else cli_hint's. `buf` holds a hint made for this error. */
static const char *hint_for(const cli *c, const xio_error *e, char *buf, size_t size) {
  const char *h = NULL;
  buf[0] = '\0';
  if (e->code == XIO_EPARSE && e->reason == XIO_REASON_CONTAINER_NAME)
    return "container names are 3-63 lowercase letters, digits and hyphens, starting and "
           "ending with a letter or digit, never two hyphens in a row (e.g. mssql-prod); "
           "blob names may hold uppercase";
  if (e->code == XIO_ENOTFOUND && e->reason != XIO_REASON_NO_CREDENTIAL_SENT &&
      strcmp(e->service_code, "ContainerNotFound") == 0)
    h = hint_no_container(e, buf, size);
  if (e->code == XIO_EEXIST && !is_backup(e)) h = hint_exists(c, e);
  return h ? h : cli_hint(e);
}

/* The message to print: the record's, unless it only repeats the status and code
 * that the parenthesis gives anyway (the library says which). */
static const char *message_of(const xio_error *e) {
  if (!e->message[0] || xio_error_message_is_status(e)) return xio_strerror(e->code);
  return e->message;
}

/* " (HTTP 404 BlobNotFound, request id ...)", or "" when there is nothing to say. */
static void format_service(const xio_error *e, char *buf, size_t size) {
  char status[24] = "";
  buf[0] = '\0';
  if (!e->http_status && !e->service_code[0] && !e->request_id[0]) return;
  if (e->http_status) snprintf(status, sizeof status, "HTTP %d", e->http_status);
  int before_id = e->http_status || e->service_code[0];
  snprintf(buf, size, " (%s%s%s%s%s%s)", status, e->http_status && e->service_code[0] ? " " : "",
           e->service_code, before_id && e->request_id[0] ? ", " : "",
           e->request_id[0] ? "request id " : "", e->request_id);
}

static void print_human(const cli *c, const xio_error *e) {
  char service[256];
  const char *msg = message_of(e);
  format_service(e, service, sizeof service);
  fprintf(stderr, "xio: %s failed: %s%s%s%s\n", c->cmd ? c->cmd->name : "command", e->operation,
          e->operation[0] ? ": " : "", msg, service);
  if (e->target[0] && !strstr(msg, e->target)) fprintf(stderr, "  target: %s\n", e->target);
  char buf[512];
  const char *hint = hint_for(c, e, buf, sizeof buf);
  if (hint) fprintf(stderr, "hint: %s\n", hint);
}

static void add_string(cJSON *o, const char *name, const char *v) {
  if (v && *v)
    cJSON_AddStringToObject(o, name, v);
  else
    cJSON_AddNullToObject(o, name);
}

static void print_json(const cli *c, const xio_error *e) {
  cJSON *o = cJSON_CreateObject(), *r = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "command", c->cmd ? c->cmd->name : "");
  cJSON_AddItemToObject(o, "error", r);
  cJSON_AddStringToObject(r, "code", xio_err_name(e->code));
  cJSON_AddStringToObject(r, "text", xio_strerror(e->code));
  add_string(r, "reason", e->reason ? xio_reason_name(e->reason) : NULL);
  add_string(r, "operation", e->operation);
  add_string(r, "message", e->message);
  cJSON_AddNumberToObject(r, "http_status", e->http_status);
  add_string(r, "service_code", e->service_code);
  add_string(r, "request_id", e->request_id);
  add_string(r, "client_request_id", e->client_request_id);
  add_string(r, "target", e->target);
  char buf[512];
  add_string(r, "hint", hint_for(c, e, buf, sizeof buf));
  cli_json_print(o);
}

/* Replaces the control characters of `s` by '?': the record may quote what a
 * service or a proxy sent, and escape sequences must not reach the terminal. */
static void printable(char *s) {
  for (; *s; s++)
    if ((unsigned char)*s < 0x20 || *s == 0x7f) *s = '?';
}

int cli_fail(const cli *c, xio_err rc, const xio_error *e) {
  xio_error copy;
  if (e)
    copy = *e;
  else
    xio_error_clear(&copy);
  copy.code = rc;
  char *texts[] = {copy.operation, copy.service_code,      copy.request_id,
                   copy.target,    copy.client_request_id, copy.message};
  for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
    printable(texts[i]);
  print_human(c, &copy);
  if (c->json) print_json(c, &copy);
  /* A target that is not a valid URL is bad usage, as a bad option is: nothing was tried. */
  return rc == XIO_EPARSE && strcmp(copy.operation, "ParseUrl") == 0 ? CLI_USAGE : CLI_FAILED;
}
