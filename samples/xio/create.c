/*
 * create.c - the commands that make a file or change its extent: create (a new
 * file of a given size and kind), grow (a larger size, never smaller), zero (make a
 * range read as zeros). Each says how the new or zeroed bytes were initialized
 * (instantly, by metadata clearing, or by writing zeros) and how long it took.
 *
 * grow and zero open the file exclusively (a blob lease, a local flock), so they
 * fail with "in use" while another client holds the file; --break-lease takes a
 * blob's lease over.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* What a command did, captured before the file is closed. */
typedef struct outcome {
  char path[2048];
  char backend[16];
  xio_kind kind;
  uint64_t size;
  xio_file_stats st;
} outcome;

static void capture(outcome *o, xio_file *f) {
  memset(o, 0, sizeof *o);
  snprintf(o->path, sizeof o->path, "%s", xio_file_path(f));
  snprintf(o->backend, sizeof o->backend, "%s", xio_file_backend(f));
  o->kind = xio_file_kind(f);
  o->size = xio_file_size(f);
  xio_file_get_stats(f, &o->st);
}

/* Captures the outcome, closes the file and reports the first failure, naming the
 * operation `op` and the file where the library's record does not. Returns CLI_OK
 * when both the operation (`rc`) and the close succeeded. */
static int finish(const cli *c, xio_file *f, const char *op, xio_err rc, xio_error *e, outcome *o) {
  xio_error ce;
  capture(o, f);
  xio_err crc = xio_file_close(f, &ce);
  if (rc != XIO_OK && !e->operation[0]) xio_error_set_operation(e, op);
  if (rc != XIO_OK && !e->target[0]) xio_error_set_target(e, o->path);
  if (rc != XIO_OK) return cli_fail(c, rc, e);
  if (crc != XIO_OK) return cli_fail(c, crc, &ce);
  return CLI_OK;
}

static xio_init resolve_init(xio_kind kind, xio_init init) {
  if (init != XIO_INIT_DEFAULT) return init;
  return kind == XIO_KIND_LOG ? XIO_INIT_CLEAR : XIO_INIT_NONE;
}

/* "1.00 GiB cleared" / "64.0 KiB of zeros written" / "instant (nothing written)". */
static void describe_init(const outcome *o, char *buf, size_t size) {
  char h[SAMPLES_FMT_LEN], z[SAMPLES_FMT_LEN];
  if (o->st.bytes_cleared && o->st.bytes_zero_written)
    snprintf(buf, size, "%s cleared by metadata, %s of zeros written",
             samples_fmt_size(o->st.bytes_cleared, h, sizeof h),
             samples_fmt_size(o->st.bytes_zero_written, z, sizeof z));
  else if (o->st.bytes_cleared)
    snprintf(buf, size, "%s cleared by metadata",
             samples_fmt_size(o->st.bytes_cleared, h, sizeof h));
  else if (o->st.bytes_zero_written)
    snprintf(buf, size, "%s of zeros written",
             samples_fmt_size(o->st.bytes_zero_written, h, sizeof h));
  else
    snprintf(buf, size, "nothing written");
}

static cJSON *outcome_json(const cli *c, const outcome *o, xio_init init, double secs) {
  cJSON *j = cJSON_CreateObject();
  cJSON_AddStringToObject(j, "command", c->cmd->name);
  cJSON_AddStringToObject(j, "target", o->path);
  cJSON_AddStringToObject(j, "backend", o->backend);
  cJSON_AddStringToObject(j, "kind", cli_kind_name(o->kind));
  cli_json_u64(j, "size", o->size);
  cJSON_AddStringToObject(j, "init", xio_init_name(init));
  cli_json_u64(j, "bytes_cleared", o->st.bytes_cleared);
  cli_json_u64(j, "bytes_zero_written", o->st.bytes_zero_written);
  cJSON_AddNumberToObject(j, "seconds", secs);
  return j;
}

static void report(const cli *c, const char *verb, const outcome *o, xio_init init, double secs) {
  char hs[32], ht[32], how[160];
  if (c->json) {
    cli_json_print(outcome_json(c, o, init, secs));
    return;
  }
  describe_init(o, how, sizeof how);
  cli_say(c, "%s %s: %s file of %s (%" PRIu64 " bytes), init %s: %s, in %s", verb, o->path,
          cli_kind_name(o->kind), samples_fmt_size(o->size, hs, sizeof hs), o->size,
          xio_init_name(init), how, samples_fmt_secs(secs, ht, sizeof ht));
}

/* ------------------------------------------------------------- create ---- */

static int run_create(cli *c, int argc, char **argv) {
  const char *size_s = NULL, *kind_s = NULL, *init_s = NULL, *pos[1];
  const cli_opt opts[] = {{"--size", &size_s, NULL},
                          {"--kind", &kind_s, NULL},
                          {"--init", &init_s, NULL},
                          {NULL, NULL, NULL}};
  int r = cli_parse(c, argc, argv, opts, "TARGET", 1, pos);
  if (r != CLI_CONTINUE) return r;
  if (!size_s) return cli_usage_error(c, "missing --size SIZE");
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_CREATE_ONLY;
  if ((r = cli_value_size(c, "--size", size_s, &o.size)) != CLI_CONTINUE ||
      (r = cli_value_kind(c, kind_s, &o.kind)) != CLI_CONTINUE ||
      (r = cli_value_init(c, init_s, &o.init)) != CLI_CONTINUE)
    return r;
  double t0 = samples_now();
  xio_file *f;
  xio_error e;
  xio_err rc = cli_open(c, pos[0], &o, &f, &e);
  if (rc != XIO_OK) return cli_fail(c, rc, &e);
  outcome out;
  if ((r = finish(c, f, "CreateFile", XIO_OK, &e, &out)) != CLI_OK) return r;
  report(c, "created", &out, resolve_init(o.kind, o.init), samples_now() - t0);
  return CLI_OK;
}

const cli_command cli_cmd_create = {
    "create",
    "create a data or log file of a given size",
    "create TARGET --size SIZE [--kind data|log] [--init none|zero|clear]",
    "Creates a file of SIZE bytes; it must not exist yet. A blob's container is\n"
    "created when missing.\n"
    "\n"
    "Options:\n"
    "  --size SIZE              the size (required): bytes, or with K, M, G, T\n"
    "  --kind data|log          a data file (default) or a transaction log\n"
    "  --init none|zero|clear   how the SIZE bytes are initialized; the default\n"
    "                           follows the kind: data none (instant), log clear\n"
    "                           (one metadata request zeroes it all)\n",
    run_create,
};

/* --------------------------------------------------------------- grow ---- */

static xio_open_options exclusive_open(int break_lease) {
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_LEASE | (break_lease ? XIO_OPEN_BREAK_LEASE : 0);
  return o;
}

static int run_grow(cli *c, int argc, char **argv) {
  const char *size_s = NULL, *init_s = NULL, *pos[1];
  int brk = 0;
  const cli_opt opts[] = {{"--size", &size_s, NULL},
                          {"--init", &init_s, NULL},
                          {"--break-lease", NULL, &brk},
                          {NULL, NULL, NULL}};
  int r = cli_parse(c, argc, argv, opts, "TARGET", 1, pos);
  if (r != CLI_CONTINUE) return r;
  if (!size_s) return cli_usage_error(c, "missing --size SIZE");
  uint64_t size;
  xio_init init = XIO_INIT_DEFAULT;
  if ((r = cli_value_size(c, "--size", size_s, &size)) != CLI_CONTINUE ||
      (r = cli_value_init(c, init_s, &init)) != CLI_CONTINUE)
    return r;
  double t0 = samples_now();
  xio_open_options o = exclusive_open(brk);
  xio_file *f;
  xio_error e;
  xio_err rc = cli_open(c, pos[0], &o, &f, &e);
  if (rc != XIO_OK) return cli_fail(c, rc, &e);
  uint64_t old = xio_file_size(f);
  if (size > old) rc = xio_file_set_size(f, size, init, &e);
  outcome out;
  if ((r = finish(c, f, "SetFileSize", rc, &e, &out)) != CLI_OK) return r;
  if (size < old)
    return cli_usage_error(c,
                           "--size %s (%" PRIu64 " bytes) is smaller than the current "
                           "size, %" PRIu64 " bytes: grow never shrinks",
                           size_s, size, old);
  if (size == old) {
    cli_say(c, "nothing to do: %s is already %" PRIu64 " bytes", out.path, old);
    if (c->json) report(c, "grew", &out, resolve_init(out.kind, init), samples_now() - t0);
    return CLI_OK;
  }
  report(c, "grew", &out, resolve_init(out.kind, init), samples_now() - t0);
  return CLI_OK;
}

const cli_command cli_cmd_grow = {
    "grow",
    "grow a file to a larger size",
    "grow TARGET --size SIZE [--init none|zero|clear] [--break-lease]",
    "Grows a file to SIZE bytes (never shrinks it; the same size does nothing).\n"
    "A log file's new bytes are cleared by one metadata request by default.\n"
    "\n"
    "Options:\n"
    "  --size SIZE              the new size (required): bytes, or with K, M, G, T\n"
    "  --init none|zero|clear   how the new bytes are initialized (default by kind:\n"
    "                           data none, log clear)\n"
    "  --break-lease            take over a blob leased by another client\n",
    run_grow,
};

/* --------------------------------------------------------------- zero ---- */

static int zero_args(cli *c, int argc, char **argv, const char **target, uint64_t *off,
                     uint64_t *len, xio_init *how, int *brk) {
  const char *off_s = NULL, *len_s = NULL, *init_s = NULL;
  const cli_opt opts[] = {{"--offset", &off_s, NULL},
                          {"--length", &len_s, NULL},
                          {"--init", &init_s, NULL},
                          {"--break-lease", NULL, brk},
                          {NULL, NULL, NULL}};
  int r = cli_parse(c, argc, argv, opts, "TARGET", 1, target);
  if (r != CLI_CONTINUE) return r;
  if (!off_s) return cli_usage_error(c, "missing --offset OFF");
  if (!len_s) return cli_usage_error(c, "missing --length LEN");
  *how = XIO_INIT_CLEAR;
  if ((r = cli_value_size(c, "--offset", off_s, off)) != CLI_CONTINUE ||
      (r = cli_value_size(c, "--length", len_s, len)) != CLI_CONTINUE ||
      (r = cli_value_init(c, init_s, how)) != CLI_CONTINUE)
    return r;
  if (*how == XIO_INIT_NONE) return cli_usage_error(c, "zero takes --init zero or clear");
  return CLI_CONTINUE;
}

static int run_zero(cli *c, int argc, char **argv) {
  const char *pos[1];
  uint64_t off = 0, len = 0;
  xio_init how = XIO_INIT_CLEAR;
  int brk = 0;
  int r = zero_args(c, argc, argv, pos, &off, &len, &how, &brk);
  if (r != CLI_CONTINUE) return r;
  double t0 = samples_now();
  xio_open_options o = exclusive_open(brk);
  xio_file *f;
  xio_error e;
  xio_err rc = cli_open(c, pos[0], &o, &f, &e);
  if (rc != XIO_OK) return cli_fail(c, rc, &e);
  rc = xio_file_zero(f, off, len, how, &e);
  outcome out;
  if ((r = finish(c, f, "ZeroFile", rc, &e, &out)) != CLI_OK) return r;
  if (c->json) {
    cJSON *j = outcome_json(c, &out, how, samples_now() - t0);
    cli_json_u64(j, "offset", off);
    cli_json_u64(j, "length", len);
    cli_json_print(j);
    return CLI_OK;
  }
  char hl[32], ht[32], desc[160];
  describe_init(&out, desc, sizeof desc);
  cli_say(c, "zeroed %s: %s at offset %" PRIu64 " (%" PRIu64 " bytes) by %s: %s, in %s", out.path,
          samples_fmt_size(len, hl, sizeof hl), off, len, xio_init_name(how), desc,
          samples_fmt_secs(samples_now() - t0, ht, sizeof ht));
  return CLI_OK;
}

const cli_command cli_cmd_zero = {
    "zero",
    "make a range of a file read as zeros",
    "zero TARGET --offset OFF --length LEN [--init zero|clear] [--break-lease]",
    "Makes LEN bytes at OFF read as zeros. On a page blob OFF and LEN must be\n"
    "multiples of 512.\n"
    "\n"
    "Options:\n"
    "  --offset OFF         where the range starts (required; K, M, G, T suffixes)\n"
    "  --length LEN         how long it is (required)\n"
    "  --init zero|clear    clear: one metadata request (default); zero: write zeros\n"
    "  --break-lease        take over a blob leased by another client\n",
    run_zero,
};
