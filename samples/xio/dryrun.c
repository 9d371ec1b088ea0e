/*
 * dryrun.c - what a command run with --dry-run says it would do: a plan of the
 * storage requests a real run would send, counted by REST operation (and the bytes
 * of the Put Page, clear and Get Blob requests), and the bytes it would write to
 * local files. The commands fill the plan from the same planning as their real run
 * (put's zero-run scan and merge, get's merge of the page ranges, the backup
 * library's pieces), sending only the reads that planning needs; this file only
 * counts and prints.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "samples_target.h"

/* The REST operations' names, as docs/api.md's trace table names them. */
static const char *const op_names[CLI_NOPS] = {
    [CLI_OP_PUT_PAGE] = "Put Page",
    [CLI_OP_CLEAR] = "Put Page clear",
    [CLI_OP_GET_BLOB] = "Get Blob",
    [CLI_OP_PUT_BLOB] = "Put Blob",
    [CLI_OP_CREATE_CONTAINER] = "Create Container",
    [CLI_OP_PROPERTIES] = "Get Blob Properties",
    [CLI_OP_SET_METADATA] = "Set Blob Metadata",
    [CLI_OP_RESIZE] = "Set Blob Properties",
    [CLI_OP_PAGE_RANGES] = "Get Page Ranges",
    [CLI_OP_DELETE] = "Delete Blob",
    [CLI_OP_LEASE] = "Lease Blob",
    [CLI_OP_SNAPSHOT] = "Snapshot Blob",
    [CLI_OP_LIST] = "List Blobs",
    [CLI_OP_COPY] = "Copy Blob",
};

void cli_plan_add(cli_plan *p, cli_op op, uint64_t n, uint64_t bytes) {
  p->n[op] += n;
  p->bytes[op] += bytes;
}

void cli_plan_add_target(cli_plan *p, const samples_target_plan *t) {
  cli_plan_add(p, CLI_OP_PUT_BLOB, t->put_blobs, 0);
  cli_plan_add(p, CLI_OP_CREATE_CONTAINER, t->create_containers, 0);
  cli_plan_add(p, CLI_OP_PROPERTIES, t->properties, 0);
  cli_plan_add(p, CLI_OP_SET_METADATA, t->set_metadata, 0);
  cli_plan_add(p, CLI_OP_RESIZE, t->resizes, 0);
  cli_plan_add(p, CLI_OP_CLEAR, t->clears, t->bytes_cleared);
  cli_plan_add(p, CLI_OP_PUT_PAGE, t->put_pages, t->bytes_sent);
  cli_plan_add(p, CLI_OP_GET_BLOB, t->reads, t->bytes_read);
}

uint64_t cli_plan_requests(const cli_plan *p) {
  uint64_t n = 0;
  for (int k = 0; k < CLI_NOPS; k++)
    n += p->n[k];
  return n;
}

/* "2 Put Page (3.00 MiB), 1 Set Blob Metadata" into `out`. */
static void list_ops(const cli_plan *p, char *out, size_t size) {
  size_t used = 0;
  out[0] = '\0';
  for (int k = 0; k < CLI_NOPS && used < size; k++) {
    if (!p->n[k]) continue;
    char hb[32] = "";
    if (k == CLI_OP_PUT_PAGE || k == CLI_OP_CLEAR || k == CLI_OP_GET_BLOB)
      snprintf(hb, sizeof hb, " (%s)", samples_fmt_size(p->bytes[k], (char[32]){0}, 32));
    int n = snprintf(out + used, size - used, "%s%" PRIu64 " %s%s", used ? ", " : "", p->n[k],
                     op_names[k], hb);
    if (n < 0) break;
    used += (size_t)n;
  }
}

static void print_json(const char *cmd, const char *source, const char *target, const cli_plan *p) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "command", cmd);
  cJSON_AddBoolToObject(o, "dry_run", 1);
  if (source) cJSON_AddStringToObject(o, "source", source);
  cJSON_AddStringToObject(o, "target", target);
  cli_json_u64(o, "requests", cli_plan_requests(p));
  cJSON *ops = cJSON_AddObjectToObject(o, "operations");
  for (int k = 0; k < CLI_NOPS; k++)
    if (p->n[k]) cli_json_u64(ops, op_names[k], p->n[k]);
  cli_json_u64(o, "bytes_sent", p->bytes[CLI_OP_PUT_PAGE]);
  cli_json_u64(o, "bytes_cleared", p->bytes[CLI_OP_CLEAR]);
  cli_json_u64(o, "bytes_read", p->bytes[CLI_OP_GET_BLOB]);
  cli_json_u64(o, "local_bytes", p->local_bytes);
  cli_json_print(o);
}

void cli_plan_print(const cli *c, const char *source, const char *target, const cli_plan *p) {
  const char *cmd = c->cmd ? c->cmd->name : "xio";
  if (c->json) {
    print_json(cmd, source, target, p);
    return;
  }
  char ops[1024], hr[32], hl[32];
  uint64_t n = cli_plan_requests(p);
  list_ops(p, ops, sizeof ops);
  printf("dry run: %s %s%s%s (nothing was sent or written)\n", cmd, source ? source : "",
         source ? " -> " : "", target);
  printf("would send %" PRIu64 " request%s%s%s; would read %s\n", n, cli_plural(n), n ? ": " : "",
         ops, samples_fmt_size(p->bytes[CLI_OP_GET_BLOB], hr, sizeof hr));
  if (p->local)
    printf("would write %s to %s\n", samples_fmt_size(p->local_bytes, hl, sizeof hl), p->local);
}
