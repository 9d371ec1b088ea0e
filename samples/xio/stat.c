/*
 * stat.c - the commands that look at a file without changing it: stat (size,
 * allocated bytes, lease, kind, backend, and for blobs the ETag and last-modified
 * time) and ranges (where the file holds data: a blob's page ranges, a local file's
 * data extents).
 *
 * Both open the target read-only through the file layer, which knows its kind and
 * logical size, lists its ranges and asks the storage for the rest (xio_file_stat:
 * a blob's lease, ETag and physical size from one more traced request, a local
 * file's blocks and time from fstat(2)).
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xio/alloc.h>

#include "cli.h"

/* What stat shows. Blob-only fields are empty for local files. */
typedef struct info {
  char target[2048];
  uint64_t allocated; /* bytes holding data */
  int has_ranges;     /* ranges below were listed */
  xio_ranges ranges;
  xio_file_info props;
} info;

/* Fills `in` for `target` through the file layer (read-only): size, kind and
 * ranges, then the storage's properties. The caller clears in->ranges. */
static xio_err gather(cli *c, const char *target, info *in, xio_error *e) {
  memset(in, 0, sizeof *in);
  char *safe = xio_target_safe(target);
  if (!safe) return xio_error_set(e, XIO_ENOMEM, "out of memory");
  snprintf(in->target, sizeof in->target, "%s", safe);
  xio_free(safe);
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_READONLY | XIO_OPEN_INCOMPLETE_OK; /* stat says it is incomplete */
  xio_file *f = NULL;
  xio_err rc = cli_open(c, target, &o, &f, e);
  if (rc == XIO_OK) {
    rc = xio_file_ranges(f, &in->ranges, e);
    in->has_ranges = rc == XIO_OK;
  }
  if (rc == XIO_OK) rc = xio_file_stat(f, &in->props, e);
  /* A blob reports no allocated bytes: they are its ranges. */
  if (rc == XIO_OK)
    in->allocated = in->props.allocated != XIO_UNKNOWN_SIZE ? in->props.allocated
                                                            : xio_ranges_bytes(&in->ranges);
  xio_file_close(f, NULL);
  return rc;
}

/* Runs a command of one TARGET: gathers it and shows it with `json` (--json) or
 * `human`. */
static int run_shown(cli *c, int argc, char **argv, void (*json)(const info *in),
                     void (*human)(const cli *c, const info *in)) {
  const char *pos[1];
  int r = cli_parse(c, argc, argv, NULL, "TARGET", 1, pos);
  if (r != CLI_CONTINUE) return r;
  info in;
  xio_error e;
  xio_err rc = gather(c, pos[0], &in, &e);
  if (rc == XIO_OK && c->json)
    json(&in);
  else if (rc == XIO_OK)
    human(c, &in);
  xio_ranges_clear(&in.ranges);
  return rc == XIO_OK ? CLI_OK : cli_fail(c, rc, &e);
}

/* -------------------------------------------------------------- stat ---- */

static cJSON *lease_json(const info *in) {
  if (!in->props.lease_state[0]) return cJSON_CreateNull();
  cJSON *l = cJSON_CreateObject();
  cJSON_AddStringToObject(l, "state", in->props.lease_state);
  cJSON_AddStringToObject(l, "status", in->props.lease_status);
  cJSON_AddStringToObject(l, "duration", in->props.lease_duration);
  return l;
}

static void stat_json(const info *in) {
  cJSON *j = cJSON_CreateObject();
  int blob = strcmp(in->props.backend, "pageblob") == 0;
  cJSON_AddStringToObject(j, "target", in->target);
  cJSON_AddStringToObject(j, "backend", in->props.backend);
  cJSON_AddStringToObject(j, "kind", cli_kind_name(in->props.kind));
  cli_json_u64(j, "size", in->props.size);
  cJSON_AddBoolToObject(j, "incomplete", in->props.incomplete);
  if (blob) cli_json_u64(j, "blob_size", in->props.stored_size);
  cli_json_u64(j, "allocated", in->allocated);
  if (in->has_ranges) cli_json_u64(j, "ranges", in->ranges.n);
  cJSON_AddItemToObject(j, "lease", lease_json(in));
  if (blob) {
    cJSON_AddStringToObject(j, "blob_type", in->props.blob_type);
    cJSON_AddStringToObject(j, "etag", in->props.etag);
    cJSON_AddNumberToObject(j, "sequence_number", (double)in->props.sequence_number);
  }
  cJSON_AddStringToObject(j, "modified", in->props.last_modified);
  cli_json_print(j);
}

static void print_lease(const info *in) {
  if (!in->props.lease_state[0]) {
    printf("%-11s %s\n", "lease", "none (local files are locked only while open)");
    return;
  }
  printf("%-11s %s (%s%s%s)\n", "lease", in->props.lease_state, in->props.lease_status,
         in->props.lease_duration[0] ? ", " : "", in->props.lease_duration);
}

static void stat_human(const cli *c, const info *in) {
  (void)c;
  char h[32];
  int blob = strcmp(in->props.backend, "pageblob") == 0;
  printf("%-11s %s\n", "target", in->target);
  printf("%-11s %s\n", "backend", in->props.backend);
  printf("%-11s %s\n", "kind", cli_kind_name(in->props.kind));
  printf("%-11s %" PRIu64 " bytes (%s)\n", "size", in->props.size,
         samples_fmt_size(in->props.size, h, sizeof h));
  if (in->props.incomplete)
    printf("%-11s %s\n", "state",
           "INCOMPLETE: a transfer into it was interrupted (put --resume finishes it)");
  if (blob)
    printf("%-11s %" PRIu64 " bytes, %s\n", "blob size", in->props.stored_size,
           in->props.blob_type);
  double pct = in->props.size ? 100.0 * (double)in->allocated / (double)in->props.size : 0;
  printf("%-11s %" PRIu64 " bytes (%s, %.1f%%)", "allocated", in->allocated,
         samples_fmt_size(in->allocated, h, sizeof h), pct);
  if (in->has_ranges) printf(" in %zu range%s", in->ranges.n, cli_plural(in->ranges.n));
  printf("\n");
  print_lease(in);
  if (blob) printf("%-11s %s\n", "etag", in->props.etag);
  printf("%-11s %s\n", "modified", in->props.last_modified);
}

static int run_stat(cli *c, int argc, char **argv) {
  return run_shown(c, argc, argv, stat_json, stat_human);
}

const cli_command cli_cmd_stat = {
    "stat",
    "show size, allocated bytes, lease state and kind",
    "stat TARGET",
    "Shows a file's size, the bytes that hold data (page ranges of a blob, blocks of\n"
    "a local file), its lease state, its kind (data or log) and its backend; for a\n"
    "blob also its physical size, ETag and last-modified time.\n",
    run_stat,
};

/* ------------------------------------------------------------ ranges ---- */

static void ranges_json(const info *in) {
  cJSON *a = cJSON_CreateArray();
  for (size_t i = 0; i < in->ranges.n; i++) {
    cJSON *r = cJSON_CreateObject();
    cli_json_u64(r, "start", in->ranges.v[i].start);
    cli_json_u64(r, "end", in->ranges.v[i].end);
    cli_json_u64(r, "length", in->ranges.v[i].end - in->ranges.v[i].start + 1);
    cJSON_AddItemToArray(a, r);
  }
  cli_json_print(a);
}

static void ranges_human(const cli *c, const info *in) {
  char h[32];
  if (!c->quiet) printf("%-15s %-15s %s\n", "start", "end", "length");
  for (size_t i = 0; i < in->ranges.n; i++)
    printf("%-15" PRIu64 " %-15" PRIu64 " %" PRIu64 "\n", in->ranges.v[i].start,
           in->ranges.v[i].end, in->ranges.v[i].end - in->ranges.v[i].start + 1);
  uint64_t total = xio_ranges_bytes(&in->ranges);
  if (!c->quiet)
    printf("%zu range%s, %" PRIu64 " bytes (%s) of %" PRIu64 "\n", in->ranges.n,
           cli_plural(in->ranges.n), total, samples_fmt_size(total, h, sizeof h), in->props.size);
}

static int run_ranges(cli *c, int argc, char **argv) {
  return run_shown(c, argc, argv, ranges_json, ranges_human);
}

const cli_command cli_cmd_ranges = {
    "ranges",
    "list the allocated page ranges (or data extents)",
    "ranges TARGET",
    "Lists where a file holds data, one range a line: start, end (inclusive) and\n"
    "length in bytes. For a blob these are its page ranges (pages ever written and\n"
    "not cleared); for a local file its data extents (SEEK_DATA/SEEK_HOLE).\n",
    run_ranges,
};
