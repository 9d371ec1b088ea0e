/*
 * snapdiff.c - `xio snapshot diff TARGET --since ID [--to ID]`: what changed in a page
 * blob since one of its snapshots (xio_file_ranges_diff): the ranges written and the
 * ranges cleared, in offset order, with their totals, to the blob as it is now or to
 * a later snapshot (--to, or TARGET?snapshot=ID). --json prints one object. URLs
 * printed are the log-safe ones.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <xio/alloc.h>

#include "cli.h"

/* What was found: the two lists and what they were of. */
typedef struct diff_result {
  const char *since, *to; /* to: NULL for the blob as it is */
  char named[64];         /* the snapshot TARGET?snapshot=ID names, or "" */
  char *safe;             /* log-safe target */
  uint64_t size;          /* of the newer side */
  xio_ranges written, cleared;
} diff_result;

/* The URL of snapshot `id` of `target`: malloc'd, NULL when it cannot be made. */
static char *at_snapshot(const char *target, const char *id) {
  char *s = NULL;
  return xio_target_snapshot_url(target, id, &s, NULL) == XIO_OK ? s : NULL;
}

static cJSON *ranges_json(const xio_ranges *r) {
  cJSON *a = cJSON_CreateArray();
  for (size_t i = 0; i < r->n; i++) {
    cJSON *o = cJSON_CreateObject();
    cli_json_u64(o, "start", r->v[i].start);
    cli_json_u64(o, "end", r->v[i].end);
    cli_json_u64(o, "length", r->v[i].end - r->v[i].start + 1);
    cJSON_AddItemToArray(a, o);
  }
  return a;
}

static void print_json(const diff_result *d) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "command", "snapshot diff");
  cJSON_AddStringToObject(o, "target", d->safe ? d->safe : "");
  cJSON_AddStringToObject(o, "since", d->since);
  if (d->to || d->named[0])
    cJSON_AddStringToObject(o, "to", d->to ? d->to : d->named);
  else
    cJSON_AddNullToObject(o, "to");
  cli_json_u64(o, "size", d->size);
  cli_json_u64(o, "written_bytes", xio_ranges_bytes(&d->written));
  cli_json_u64(o, "written_ranges", d->written.n);
  cli_json_u64(o, "cleared_bytes", xio_ranges_bytes(&d->cleared));
  cli_json_u64(o, "cleared_ranges", d->cleared.n);
  cJSON_AddItemToObject(o, "written", ranges_json(&d->written));
  cJSON_AddItemToObject(o, "cleared", ranges_json(&d->cleared));
  cli_json_print(o);
}

/* One line a range, written and cleared interleaved in offset order. */
static void print_human(const cli *c, const diff_result *d) {
  char hw[32], hc[32];
  if (!c->quiet) printf("%-8s %-15s %-15s %s\n", "change", "start", "end", "length");
  for (size_t i = 0, j = 0; i < d->written.n || j < d->cleared.n;) {
    int w =
        j == d->cleared.n || (i < d->written.n && d->written.v[i].start < d->cleared.v[j].start);
    const xio_range *r = w ? &d->written.v[i++] : &d->cleared.v[j++];
    printf("%-8s %-15" PRIu64 " %-15" PRIu64 " %" PRIu64 "\n", w ? "written" : "cleared", r->start,
           r->end, r->end - r->start + 1);
  }
  uint64_t wb = xio_ranges_bytes(&d->written), cb = xio_ranges_bytes(&d->cleared);
  cli_say(c,
          "since %s, to %s%s of %s (%" PRIu64 " bytes): written %" PRIu64
          " bytes (%s) in %zu range%s, cleared %" PRIu64 " bytes (%s) in %zu range%s",
          d->since, d->to || d->named[0] ? "snapshot " : "the blob as it is",
          d->to ? d->to : d->named, d->safe ? d->safe : "", d->size, wb,
          samples_fmt_size(wb, hw, sizeof hw), d->written.n, cli_plural(d->written.n), cb,
          samples_fmt_size(cb, hc, sizeof hc), d->cleared.n, cli_plural(d->cleared.n));
}

/* Opens the newer side read-only and lists the diff into `d`. */
static xio_err find_diff(cli *c, const char *target, diff_result *d, xio_error *e) {
  char *url = d->to ? at_snapshot(target, d->to) : NULL;
  if (d->to && !url) return xio_error_set(e, XIO_ENOMEM, "out of memory");
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_READONLY;
  xio_file *f = NULL;
  xio_err rc = cli_open(c, url ? url : target, &o, &f, e);
  if (rc == XIO_OK) {
    d->size = xio_file_size(f);
    rc = xio_file_ranges_diff(f, d->since, &d->written, &d->cleared, e);
  }
  if (f) xio_file_close(f, NULL);
  xio_free(url);
  return rc;
}

int cli_snapshot_diff(cli *c, int argc, char **argv) {
  const char *pos[1], *since = NULL, *to = NULL;
  const cli_opt opts[] = {{"--since", &since, NULL}, {"--to", &to, NULL}, {NULL, NULL, NULL}};
  int r = cli_parse(c, argc, argv, opts, "TARGET", 1, pos);
  if (r != CLI_CONTINUE) return r;
  if (!since || !since[0])
    return cli_usage_error(c, "name the snapshot to diff against: --since ID "
                              "(xio snapshot list TARGET shows the ids)");
  if (to && !to[0]) return cli_usage_error(c, "--to needs a snapshot id");
  char named[sizeof((diff_result *)0)->named];
  int names = cli_target_snapshot(pos[0], named, sizeof named);
  if (to && names)
    return cli_usage_error(c, "name the newer snapshot once: TARGET?snapshot=ID or --to ID");
  diff_result d = {since, to, "", xio_target_safe(pos[0]), 0, {NULL, 0, 0}, {NULL, 0, 0}};
  if (names) snprintf(d.named, sizeof d.named, "%s", named);
  xio_error e;
  xio_err rc = find_diff(c, pos[0], &d, &e);
  if (rc == XIO_OK && c->json) print_json(&d);
  if (rc == XIO_OK && !c->json) print_human(c, &d);
  xio_ranges_clear(&d.written);
  xio_ranges_clear(&d.cleared);
  xio_free(d.safe);
  return rc == XIO_OK ? CLI_OK : cli_fail(c, rc, &e);
}
