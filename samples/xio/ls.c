/*
 * ls.c - the ls command: what a container holds. One line per blob (name, logical
 * size, kind, allocated bytes, lease, and INCOMPLETE after a blob that an
 * interrupted transfer left marked) and, with --snapshots, one per snapshot under
 * its blob (Azure lists snapshots before their blob, Azurite around it: lines that
 * come first are held until the blob's); --json prints the same as an array for
 * scripts. The listing is paged through the file layer (xio_list follows the
 * service's continuation markers), so a container of any size streams out as it is
 * read. Given an account URL, ls lists the account's containers (xio_container_list).
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xio/alloc.h>
#include <xio/auth.h>

#include "cli.h"

/* What the listing callback keeps between entries. */
typedef struct ls_state {
  cli *c;
  cJSON *array;         /* --json: the entries */
  cJSON *last;          /* --json: the last blob's object (snapshots are added to it) */
  cJSON *pending_snaps; /* --json: snapshots listed before their blob */
  uint64_t blobs, snapshots, bytes, allocated, incomplete;
  int header_done;
  /* table: snapshot lines come before their blob in a listing; they are held and
   * printed under it */
  char **held;
  size_t nheld, capheld;
  char *held_name; /* the blob they belong to */
  char *last_blob; /* the last blob printed: its later snapshots go straight under it */
} ls_state;

static const char *kind_of(const xio_list_entry *e) {
  if (strcmp(e->blob_type, "PageBlob") != 0)
    return strcmp(e->blob_type, "BlockBlob") == 0 ? "block" : e->blob_type[0] ? e->blob_type : "?";
  return cli_kind_name(e->kind);
}

static const char *lease_of(const xio_list_entry *e) {
  if (e->snapshot) return "-";
  if (strcmp(e->lease_state, "leased") == 0 && strcmp(e->lease_duration, "infinite") == 0)
    return "leased (infinite)";
  return e->lease_state[0] ? e->lease_state : "-";
}

static cJSON *entry_json(const xio_list_entry *e) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "name", e->name);
  if (e->snapshot) cJSON_AddStringToObject(o, "snapshot", e->snapshot);
  cJSON_AddStringToObject(o, "blob_type", e->blob_type);
  cJSON_AddStringToObject(o, "kind", kind_of(e));
  cli_json_u64(o, "size", e->size);
  cli_json_u64(o, "stored_size", e->stored_size);
  if (e->allocated != XIO_UNKNOWN_SIZE)
    cli_json_u64(o, "allocated", e->allocated);
  else
    cJSON_AddNullToObject(o, "allocated");
  if (!e->snapshot) {
    cJSON *l = cJSON_AddObjectToObject(o, "lease");
    cJSON_AddStringToObject(l, "state", e->lease_state);
    cJSON_AddStringToObject(l, "status", e->lease_status);
    cJSON_AddStringToObject(l, "duration", e->lease_duration);
  }
  cJSON_AddStringToObject(o, "last_modified", e->last_modified);
  cJSON_AddBoolToObject(o, "incomplete", e->incomplete);
  return o;
}

/* --json: a blob carries its snapshots (listed just before or after it) in
 * "snapshots". */
static void add_json(ls_state *s, const xio_list_entry *e) {
  cJSON *o = entry_json(e);
  if (e->snapshot && s->last &&
      strcmp(cJSON_GetStringValue(cJSON_GetObjectItem(s->last, "name")), e->name) == 0) {
    cJSON_AddItemToArray(cJSON_GetObjectItem(s->last, "snapshots"), o);
    return;
  }
  if (e->snapshot) {
    if (!s->pending_snaps) s->pending_snaps = cJSON_CreateArray();
    cJSON_AddItemToArray(s->pending_snaps, o);
    return;
  }
  cJSON_AddItemToObject(o, "snapshots", s->pending_snaps ? s->pending_snaps : cJSON_CreateArray());
  s->pending_snaps = NULL;
  cJSON_AddItemToArray(s->array, o);
  s->last = o;
}

static void header(ls_state *s) {
  if (s->header_done || s->c->quiet) return;
  printf("%-40s %10s %-6s %10s  %s\n", "NAME", "SIZE", "KIND", "ALLOCATED", "LEASE");
  s->header_done = 1;
}

/* Prints the held snapshot lines (under their blob, or alone when it is gone). */
static void flush_held(ls_state *s, int orphans) {
  for (size_t i = 0; i < s->nheld; i++) {
    if (orphans) printf("%s (snapshot of a deleted blob)\n", s->held_name);
    fputs(s->held[i], stdout);
    xio_free(s->held[i]);
  }
  s->nheld = 0;
  xio_free(s->held_name);
  s->held_name = NULL;
}

/* Keeps a snapshot's line until its blob's. Returns 0, or -1 on out-of-memory. */
static int hold(ls_state *s, const xio_list_entry *e, const char *line) {
  if (s->held_name && strcmp(s->held_name, e->name) != 0) flush_held(s, 1);
  if (!s->held_name && !(s->held_name = xio_strdup(e->name))) return -1;
  if (s->nheld == s->capheld) {
    size_t cap = s->capheld ? 2 * s->capheld : 8;
    char **v = xio_realloc(s->held, cap * sizeof *v);
    if (!v) return -1;
    s->held = v, s->capheld = cap;
  }
  return (s->held[s->nheld] = xio_strdup(line)) ? (s->nheld++, 0) : -1;
}

static int print_row(ls_state *s, const xio_list_entry *e) {
  char size[32], alloc[32], line[512];
  header(s);
  samples_fmt_size(e->size, size, sizeof size);
  if (e->allocated != XIO_UNKNOWN_SIZE)
    samples_fmt_size(e->allocated, alloc, sizeof alloc);
  else
    snprintf(alloc, sizeof alloc, "-");
  if (e->snapshot) {
    snprintf(line, sizeof line, "  @%-37s %10s %-6s %10s  %s%s\n", e->snapshot, size, kind_of(e),
             alloc, lease_of(e), e->incomplete ? "  INCOMPLETE" : "");
    if (s->last_blob && strcmp(s->last_blob, e->name) == 0) return fputs(line, stdout), 0;
    return hold(s, e, line);
  }
  if (s->held_name && strcmp(s->held_name, e->name) != 0) flush_held(s, 1);
  printf("%-40s %10s %-6s %10s  %s%s\n", e->name, size, kind_of(e), alloc, lease_of(e),
         e->incomplete ? "  INCOMPLETE" : "");
  flush_held(s, 0);
  xio_free(s->last_blob);
  return (s->last_blob = xio_strdup(e->name)) ? 0 : -1;
}

static int on_entry(const xio_list_entry *e, void *ud) {
  ls_state *s = ud;
  if (e->snapshot)
    s->snapshots++;
  else {
    s->blobs++;
    s->bytes += e->size;
    s->incomplete += e->incomplete != 0;
  }
  if (e->allocated != XIO_UNKNOWN_SIZE) s->allocated += e->allocated;
  if (s->c->json) {
    add_json(s, e);
    return 0;
  }
  return print_row(s, e);
}

static void summary(ls_state *s, const char *target) {
  char *safe = xio_target_safe(target);
  if (s->c->json) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "command", "ls");
    cJSON_AddStringToObject(o, "container", safe ? safe : "");
    cli_json_u64(o, "blobs", s->blobs);
    cli_json_u64(o, "snapshots", s->snapshots);
    cli_json_u64(o, "incomplete", s->incomplete);
    cJSON_AddItemToObject(o, "entries", s->array);
    s->array = NULL;
    cli_json_print(o);
  } else {
    char b[32], a[32], sn[48] = "";
    if (s->snapshots)
      snprintf(sn, sizeof sn, ", %" PRIu64 " snapshot%s", s->snapshots, cli_plural(s->snapshots));
    cli_say(s->c, "%" PRIu64 " blob%s%s, %s, %s allocated", s->blobs, cli_plural(s->blobs), sn,
            samples_fmt_size(s->bytes, b, sizeof b), samples_fmt_size(s->allocated, a, sizeof a));
    if (s->incomplete)
      cli_say(s->c,
              "%" PRIu64 " blob%s INCOMPLETE: a transfer into it was interrupted (`xio put "
              "--resume LOCAL TARGET` finishes it; opening it is refused until then)",
              s->incomplete, cli_plural(s->incomplete));
  }
  xio_free(safe);
}

/* ------------------------------------------------------ containers ---- */

/* What the container listing keeps: the JSON array, or the count for people. */
typedef struct containers_state {
  cli *c;
  cJSON *array;
  uint64_t n;
} containers_state;

static int on_container(const xio_container_entry *e, void *ud) {
  containers_state *s = ud;
  s->n++;
  if (s->array) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "name", e->name);
    cJSON_AddStringToObject(o, "last_modified", e->last_modified);
    cJSON_AddItemToArray(s->array, o);
    return 0;
  }
  if (s->n == 1) cli_say(s->c, "%-40s %s", "CONTAINER", "LAST MODIFIED");
  cli_say(s->c, "%-40s %s", e->name, e->last_modified);
  return 0;
}

/* ls ACCOUNT_URL: the account's containers (a URL that names no container). */
static int list_containers(cli *c, const char *url, const char *prefix) {
  containers_state s = {c, c->json ? cJSON_CreateArray() : NULL, 0};
  xio_ctx *ctx = NULL;
  xio_error e;
  xio_err rc = cli_context(c, &ctx, &e);
  if (rc == XIO_OK) rc = xio_container_list(ctx, url, prefix, on_container, &s, &e);
  if (rc != XIO_OK) {
    cJSON_Delete(s.array);
    return cli_fail(c, rc, &e);
  }
  if (s.array) {
    cJSON *o = cJSON_CreateObject();
    char *safe = xio_target_safe(url);
    cJSON_AddStringToObject(o, "command", "ls");
    cJSON_AddStringToObject(o, "account", safe ? safe : "");
    cli_json_u64(o, "containers", s.n);
    cJSON_AddItemToObject(o, "entries", s.array);
    xio_free(safe);
    cli_json_print(o);
  } else {
    cli_say(c, "%" PRIu64 " container%s", s.n, cli_plural(s.n));
  }
  return CLI_OK;
}

/* 1 when `url` parses and names an account but no container. */
static int names_no_container(const char *url) {
  xio_target_parts p;
  xio_error ignored;
  int account_only =
      xio_target_parse(url, &p, &ignored) == XIO_OK && p.kind == XIO_TARGET_BLOB && !p.container;
  xio_target_parts_clear(&p);
  return account_only;
}

static int run_ls(cli *c, int argc, char **argv) {
  const char *pos[1], *prefix = NULL, *page = NULL;
  int snaps = 0;
  const cli_opt opts[] = {{"--prefix", &prefix, NULL},
                          {"--snapshots", NULL, &snaps},
                          {"--page-size", &page, NULL},
                          {NULL, NULL, NULL}};
  int r = cli_parse(c, argc, argv, opts, "CONTAINER_URL", 1, pos);
  if (r != CLI_CONTINUE) return r;
  xio_list_options o = xio_list_options_default();
  if (page && (r = cli_value_int(c, "--page-size", page, 1, 5000, &o.page_size)) != CLI_CONTINUE)
    return r;
  if (!cli_is_url(pos[0]))
    return cli_usage_error(c, "CONTAINER_URL must be a container or account URL (http:// or "
                              "https://)");
  if (names_no_container(pos[0])) {
    if (snaps || page)
      return cli_usage_error(c, "--snapshots and --page-size list blobs: give a "
                                "container URL");
    return list_containers(c, pos[0], prefix);
  }
  o.prefix = prefix;
  o.flags = XIO_LIST_ALLOCATED | (snaps ? XIO_LIST_SNAPSHOTS : 0u);
  ls_state s;
  memset(&s, 0, sizeof s);
  s.c = c;
  if (c->json) s.array = cJSON_CreateArray();
  xio_ctx *ctx = NULL;
  xio_error e;
  xio_err rc = cli_context(c, &ctx, &e);
  if (rc == XIO_OK) rc = xio_list(ctx, pos[0], &o, on_entry, &s, &e);
  cJSON_Delete(s.pending_snaps);
  s.pending_snaps = NULL;
  flush_held(&s, 1);
  xio_free(s.held);
  xio_free(s.last_blob);
  if (rc != XIO_OK) {
    cJSON_Delete(s.array);
    return cli_fail(c, rc, &e);
  }
  summary(&s, pos[0]);
  return CLI_OK;
}

const cli_command cli_cmd_ls = {
    "ls",
    "list the blobs of a container (size, kind, allocated bytes, lease, incomplete), or an "
    "account's containers",
    "ls CONTAINER_URL [--prefix P] [--snapshots] [--page-size N]\n"
    "ls ACCOUNT_URL [--prefix P]",
    "Lists the blobs of a container, one line each: name, logical size, kind (data\n"
    "or log for xio's page blobs, the blob type for others), allocated bytes (the\n"
    "page ranges, one request per page blob) and lease state; INCOMPLETE ends the\n"
    "line of a blob that an interrupted put left marked (put --resume finishes it).\n"
    "With --json, an array of objects for scripts (\"incomplete\": true for those).\n"
    "The listing is paged: it follows the service's continuation markers, so\n"
    "containers of any size are listed completely.\n"
    "A SAS as the credential must grant list (l) on the container.\n"
    "Given an account URL (https://ACCOUNT.blob.core.windows.net, or\n"
    "http://127.0.0.1:PORT/ACCOUNT on the emulator), lists the account's containers\n"
    "with their last-modified dates (a SAS must be an account SAS granting list).\n"
    "\n"
    "  --prefix P        only blobs whose names start with P\n"
    "  --snapshots       also each blob's snapshots (lines starting with @ID)\n"
    "  --page-size N     blobs per List Blobs request, 1..5000 (default: the\n"
    "                    service's, 5000)\n",
    run_ls,
};
