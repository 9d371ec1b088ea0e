/*
 * cp.c - the cp command: copy a page blob onto another with the service's
 * server-side copy (xio_copy: Copy Blob, waited for, the copy as sparse as its
 * source), or restore a blob from one of its snapshots (SRC is URL?snapshot=ID).
 * A local file at either end is a transfer instead: cp hands it to put (local to
 * blob) or get (blob to local), which skip and fetch only allocated pages.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xio/alloc.h>

#include "cli.h"

static void on_progress(uint64_t copied, uint64_t total, void *ud) {
  cli_progress *p = ud;
  p->total = total;
  if (copied > p->done) cli_progress_add(p, copied - p->done);
}

static int report(cli *c, const char *src, const char *dst, const xio_copy_result *r, double secs) {
  char *s = xio_target_safe(src), *d = xio_target_safe(dst);
  if (c->json) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "command", "cp");
    cJSON_AddStringToObject(o, "source", s ? s : "");
    cJSON_AddStringToObject(o, "destination", d ? d : "");
    cJSON_AddStringToObject(o, "copy_id", r->copy_id);
    cJSON_AddBoolToObject(o, "restored", r->restored);
    cli_json_u64(o, "size", r->size);
    cli_json_u64(o, "source_allocated", r->src_allocated);
    cli_json_u64(o, "allocated", r->dst_allocated);
    cJSON_AddBoolToObject(o, "sparse", r->dst_allocated <= r->src_allocated);
    cJSON_AddNumberToObject(o, "polls", r->polls);
    cJSON_AddNumberToObject(o, "seconds", secs);
    cli_json_print(o);
  } else {
    char sz[32], al[32], t[32];
    cli_say(c, "%s %s -> %s: %s, %s allocated, in %s", r->restored ? "restored" : "copied",
            s ? s : "", d ? d : "", samples_fmt_size(r->size, sz, sizeof sz),
            samples_fmt_size(r->dst_allocated, al, sizeof al), samples_fmt_secs(secs, t, sizeof t));
    if (r->dst_allocated > r->src_allocated)
      cli_say(c, "note: the copy holds more allocated bytes than its source");
  }
  xio_free(s);
  xio_free(d);
  return CLI_OK;
}

/* A local end: run put or get with the same arguments. */
static int transfer(cli *c, const char *src, const char *dst, int force, int snapshot, int dry) {
  const cli_command *cmd = cli_is_url(src) ? &cli_cmd_get : &cli_cmd_put;
  char *args[6] = {(char *)src, (char *)dst, NULL, NULL, NULL, NULL};
  int n = 2;
  if (force) args[n++] = "--force";
  if (snapshot) args[n++] = "--snapshot";
  if (dry) args[n++] = "--dry-run";
  const cli_command *was = c->cmd;
  c->cmd = cmd;
  int r = cmd->run(c, n, args);
  c->cmd = was;
  return r;
}

/* --dry-run of a copy between blobs: reads both ends' properties, refuses what
 * the copy would refuse (a missing SRC, an existing DST without --force unless
 * SRC is its own snapshot, a leased DST), and prints what the copy would send. */
static int cp_dry_run(cli *c, xio_ctx *ctx, const char *src, const char *dst, int force) {
  xio_file_info si, di;
  xio_error e;
  char *s = xio_target_safe(src), *d = xio_target_safe(dst), id[64];
  xio_err rc = xio_stat(ctx, src, &si, &e);
  xio_err drc = rc == XIO_OK ? xio_stat(ctx, dst, &di, &e) : rc;
  int own = cli_target_snapshot(src, id, sizeof id) && s && d && strncmp(s, d, strlen(d)) == 0;
  if (drc == XIO_OK && strcmp(di.lease_state, "leased") == 0) {
    xio_error_set(&e, XIO_EBUSY, "%.300s is leased: the copy would replace a file someone holds",
                  d ? d : "DST");
    rc = XIO_EBUSY;
  } else if (drc == XIO_OK && !force && !own) {
    xio_error_set(&e, XIO_EEXIST, "%.400s already exists; --force replaces it", d ? d : "DST");
    rc = XIO_EEXIST;
  } else if (drc == XIO_ENOTFOUND && rc == XIO_OK) {
    xio_error_clear(&e);
  } else {
    rc = drc;
  }
  if (rc != XIO_OK) xio_error_set_operation(&e, "CopyBlob");
  int status = rc == XIO_OK ? CLI_OK : cli_fail(c, rc, &e);
  if (rc == XIO_OK) {
    cli_plan p;
    memset(&p, 0, sizeof p);
    cli_plan_add(&p, CLI_OP_PROPERTIES, 2, 0); /* the ends */
    cli_plan_add(&p, CLI_OP_COPY, 1, 0);
    cli_plan_print(c, s ? s : "SRC", d ? d : "DST", &p);
    char hs[32];
    cli_say(c,
            "the service would copy %s server-side; waiting for it costs one Get Blob "
            "Properties per poll",
            samples_fmt_size(si.size, hs, sizeof hs));
  }
  xio_free(s);
  xio_free(d);
  return status;
}

static int run_cp(cli *c, int argc, char **argv) {
  const char *pos[2];
  int force = 0, snapshot = 0, dry = 0;
  const cli_opt opts[] = {{"--force", NULL, &force},
                          {"--snapshot", NULL, &snapshot},
                          {"--dry-run", NULL, &dry},
                          {NULL, NULL, NULL}};
  int r = cli_parse(c, argc, argv, opts, "SRC DST", 2, pos);
  if (r != CLI_CONTINUE) return r;
  if (!cli_is_url(pos[0]) && !cli_is_url(pos[1]))
    return cli_usage_error(c, "SRC or DST must be a blob URL (copy local files with cp(1))");
  if (snapshot && (!cli_is_url(pos[0]) || cli_is_url(pos[1])))
    return cli_usage_error(c, "--snapshot copies a blob to a local file (as get --snapshot)");
  if (!cli_is_url(pos[0]) || !cli_is_url(pos[1]))
    return transfer(c, pos[0], pos[1], force, snapshot, dry);
  xio_ctx *ctx = NULL;
  xio_error e;
  xio_err rc = cli_context(c, &ctx, &e);
  if (rc != XIO_OK) return cli_fail(c, rc, &e);
  if (dry) return cp_dry_run(c, ctx, pos[0], pos[1], force);
  cli_progress prog;
  cli_progress_start(&prog, c, "cp", 0);
  xio_copy_options o = xio_copy_options_default();
  o.flags = force ? XIO_COPY_FORCE : 0u;
  o.progress = on_progress;
  o.progress_ud = &prog;
  xio_copy_result res;
  double t0 = samples_now();
  rc = xio_copy(ctx, pos[0], pos[1], &o, &res, &e);
  cli_progress_end(&prog);
  if (rc != XIO_OK) return cli_fail(c, rc, &e);
  return report(c, pos[0], pos[1], &res, samples_now() - t0);
}

const cli_command cli_cmd_cp = {
    "cp",
    "copy a page blob server-side, or restore it from a snapshot",
    "cp SRC DST [--force] [--snapshot] [--dry-run]",
    "Copies the page blob SRC onto DST with the service's server-side copy (Copy\n"
    "Blob) and waits until the service has finished, with a progress bar on a\n"
    "terminal. The copy keeps the source's page ranges, so it is as sparse as the\n"
    "source, and its kind and logical size. SRC may be a snapshot,\n"
    "URL?snapshot=ID: copied onto its own blob it restores the blob to that\n"
    "snapshot (no --force needed for that). A source in another account needs a\n"
    "SAS with read (r) in its URL; in the same account DST's credential covers it.\n"
    "A DST that exists needs --force; a leased DST is refused, since the copy would\n"
    "replace a file someone holds. When SRC or DST is a local path, cp is put\n"
    "(local to blob) or get (blob to local): a copy to a local file is one version\n"
    "of SRC, or fails if SRC is written meanwhile.\n"
    "\n"
    "  --force           replace DST when it exists\n"
    "  --snapshot        (to a local file) copy a snapshot of SRC taken for the copy,\n"
    "                    as get --snapshot does\n"
    "  --dry-run         say what the copy would send and change nothing (both\n"
    "                    ends' properties are read; with a local end, as put or\n"
    "                    get --dry-run)\n",
    run_cp,
};
