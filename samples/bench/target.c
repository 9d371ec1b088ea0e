/*
 * target.c - a backend to measure on: a context whose trace callback counts
 * requests, and a place for files (a fresh container on the emulator, or a fresh
 * temporary directory), or a container of any account named by --target. Every
 * measurement names a new file here and deletes it afterwards. A page-blob target
 * on the emulator remakes its context when the emulator restarted (new port, empty
 * store) under it; one on --target signs with the context's usual credential chain,
 * has no emulator budget, and sweeps its prefix clean when closed.
 */
#define _GNU_SOURCE
#include <ftw.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xio/auth.h>

#include "bench.h"

/* Free bytes for unprivileged users on the file system holding `path`, and the
 * margin to keep (`margin` when nonzero, else max(4 GiB, 10% of its size)).
 * Returns 0, or -1 when statvfs fails. Clearing a local range (fallocate
 * FALLOC_FL_ZERO_RANGE) allocates real blocks on ext4 (as unwritten extents), so a
 * 64 GiB clear needs 64 GiB free: measurements that would not fit are skipped. */
static int local_space(const char *path, uint64_t margin, uint64_t *avail, uint64_t *keep) {
  struct statvfs s;
  if (statvfs(path, &s) != 0) return -1;
  *avail = (uint64_t)s.f_bavail * s.f_frsize;
  uint64_t total = (uint64_t)s.f_blocks * s.f_frsize;
  *keep = margin ? margin : total / 10 > 4 * BENCH_GiB ? total / 10 : 4 * BENCH_GiB;
  return 0;
}

const char *bench_fs_type(const char *path) {
  static const struct {
    unsigned long magic;
    const char *name;
  } types[] = {{0xEF53, "ext4"},      {0x01021994, "tmpfs"},     {0x58465342, "xfs"},
               {0x9123683E, "btrfs"}, {0x794C7630, "overlayfs"}, {0x6969, "nfs"},
               {0x2FC12FC1, "zfs"},   {0x65735546, "fuse"}};
  struct statfs s;
  if (statfs(path, &s) != 0) return "unknown";
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
    if ((unsigned long)s.f_type == types[i].magic) return types[i].name;
  return "unknown";
}

static xio_err new_ctx(bench_target *t, const char *connstr, xio_error *err) {
  xio_ctx_options o = xio_ctx_options_default();
  o.use_environment = t->remote; /* --target: the usual credential chain */
  o.max_in_flight = t->max_in_flight;
  o.checksum = t->checksum;
  o.pacing = t->pacing;
  o.max_rate_bps = t->max_rate_bps;
  o.trace = bench_counter_trace;
  o.trace_ud = t->counter;
  o.connection_string = connstr;
  return xio_ctx_new(&o, &t->ctx, err);
}

/* Creates the container (and the first connection) with a tiny blob, then deletes it,
 * so the first measured create does not include making the container. Reads the
 * blob tier the service reports on the way. */
static xio_err warm_up(bench_target *t, xio_error *err) {
  char url[2400];
  bench_target_file(t, "warmup", url, sizeof url);
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_CREATE_ONLY;
  o.size = 512;
  xio_file *f = NULL;
  xio_file_info info;
  xio_err rc = xio_file_open(t->ctx, url, &o, &f, err);
  if (rc == XIO_OK && (rc = xio_file_stat(f, &info, err)) == XIO_OK)
    snprintf(t->tier, sizeof t->tier, "%s", info.tier);
  if (f) {
    xio_err rc2 = xio_file_close(f, rc == XIO_OK ? err : NULL);
    if (rc == XIO_OK) rc = rc2;
  }
  if (rc == XIO_OK) rc = xio_file_delete(t->ctx, url, err);
  return rc;
}

/* (Re)makes the page-blob context and container for the emulator's current endpoint. */
static xio_err pageblob_connect(bench_target *t, xio_error *err) {
  char connstr[1024];
  snprintf(connstr, sizeof connstr,
           "DefaultEndpointsProtocol=http;AccountName=" XIO_AUTH_DEV_ACCOUNT
           ";AccountKey=%s;BlobEndpoint=%s/" XIO_AUTH_DEV_ACCOUNT ";",
           XIO_AUTH_DEV_KEY, t->em->endpoint);
  xio_ctx_free(t->ctx);
  t->ctx = NULL;
  t->generation = t->em->generation;
  snprintf(t->base, sizeof t->base, "%s/" XIO_AUTH_DEV_ACCOUNT "/xio-bench-%ld-%d-%u",
           t->em->endpoint, (long)getpid(), t->generation, t->seq++);
  xio_err rc = new_ctx(t, connstr, err);
  return rc == XIO_OK ? warm_up(t, err) : rc;
}

xio_err bench_target_pageblob(bench_target *t, bench_emulator *em, int max_in_flight,
                              const bench_config *c, xio_error *err) {
  memset(t, 0, sizeof *t);
  t->backend = "pageblob";
  t->em = em;
  t->max_in_flight = max_in_flight;
  t->checksum = c->checksum;
  t->pacing = c->pacing;
  t->max_rate_bps = c->max_rate_bps;
  if (!(t->counter = bench_counter_new())) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  return pageblob_connect(t, err);
}

/* Takes the --target URL apart: account, endpoint, log-safe container URL, query. */
static xio_err remote_parts(bench_target *t, const char *url, xio_error *err) {
  xio_target_parts u;
  xio_err rc = xio_target_parse(url, &u, err);
  if (rc != XIO_OK) return rc;
  const char *q = strchr(url, '?');
  size_t nq = q ? strcspn(q + 1, "#") : 0;
  if (u.kind != XIO_TARGET_BLOB || !u.container || u.blob)
    rc = xio_error_set(err, XIO_EINVAL, "--target must name a container, without a blob");
  else if (strlen(u.endpoint) + strlen(u.container) + 2 > sizeof t->container ||
           nq >= sizeof t->query)
    rc = xio_error_set(err, XIO_EINVAL, "--target URL is too long");
  if (rc == XIO_OK) {
    snprintf(t->account, sizeof t->account, "%s", u.account ? u.account : "");
    snprintf(t->endpoint, sizeof t->endpoint, "%s", u.endpoint);
    snprintf(t->container, sizeof t->container, "%s/%s", u.endpoint, u.container);
    snprintf(t->query, sizeof t->query, "%.*s", (int)nq, q ? q + 1 : "");
  }
  xio_target_parts_clear(&u);
  return rc;
}

xio_err bench_target_remote(bench_target *t, const char *url, int max_in_flight,
                            const bench_config *c, xio_error *err) {
  memset(t, 0, sizeof *t);
  t->backend = "pageblob";
  t->remote = 1;
  t->max_in_flight = max_in_flight;
  t->checksum = c->checksum;
  t->pacing = c->pacing;
  t->max_rate_bps = c->max_rate_bps;
  if (!(t->counter = bench_counter_new())) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  xio_err rc = remote_parts(t, url, err);
  if (rc != XIO_OK) return rc;
  bench_sweep_prefix(t->prefix, sizeof t->prefix);
  snprintf(t->base, sizeof t->base, "%s/%s%u", t->container, t->prefix, t->seq++);
  rc = new_ctx(t, NULL, err);
  return rc == XIO_OK ? warm_up(t, err) : rc;
}

/* The --target container's URL with its query, for listing and deleting. */
static void remote_container_url(const bench_target *t, char *out, size_t n) {
  snprintf(out, n, "%s%s%s", t->container, t->query[0] ? "?" : "", t->query);
}

xio_err bench_target_local(bench_target *t, const char *parent, uint64_t disk_margin,
                           xio_error *err) {
  memset(t, 0, sizeof *t);
  t->backend = "local";
  t->max_in_flight = 32;
  t->disk_margin = disk_margin;
  if (!(t->counter = bench_counter_new())) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  snprintf(t->base, sizeof t->base, "%s/xio-bench-XXXXXX", parent);
  if (!mkdtemp(t->base)) {
    xio_error_set_target(err, parent);
    t->base[0] = '\0';
    return xio_error_set(err, XIO_EIO, "cannot make a temporary directory in %s", parent);
  }
  return new_ctx(t, NULL, err);
}

const char *bench_checksum_name(xio_checksum c) {
  return c == XIO_CHECKSUM_MD5 ? "md5" : c == XIO_CHECKSUM_NONE ? "none" : "crc64";
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)sb, (void)flag, (void)ftw;
  return remove(path);
}

/* Deletes whatever the run left under its prefix (a measurement's failed delete). */
static void remote_sweep(bench_target *t) {
  char url[1600], msg[600];
  xio_error e;
  xio_error_clear(&e);
  remote_container_url(t, url, sizeof url);
  long n = bench_sweep(t->ctx, url, t->prefix, &e);
  if (n < 0)
    fprintf(stderr, "xio-bench: clean-up of %s failed, blobs under %s may be left: %s\n",
            t->container, t->prefix, xio_error_format(&e, msg, sizeof msg));
  else if (n > 0)
    printf("  deleted %ld blob%s left under %s\n", n, n == 1 ? "" : "s", t->prefix);
  memset(url, 0, sizeof url); /* it may hold a SAS */
}

void bench_target_close(bench_target *t) {
  if (t->remote && t->ctx) remote_sweep(t);
  if (t->tally && t->counter) {
    bench_counts k;
    bench_counter_total(t->counter, &k);
    bench_counts_add(t->tally, &k);
  }
  xio_ctx_free(t->ctx);
  t->ctx = NULL;
  if (strcmp(t->backend ? t->backend : "", "local") == 0 && t->base[0])
    nftw(t->base, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
  bench_counter_free(t->counter);
  t->counter = NULL;
}

void bench_target_file(bench_target *t, const char *stem, char *out, size_t n) {
  if (t->remote) bench_sweep_hold();
  snprintf(out, n, "%s/%s-%u.dat%s%s", t->base, stem, t->seq++, t->query[0] ? "?" : "", t->query);
}

static int local_reserve(bench_target *t, uint64_t bytes, char *why, size_t n) {
  uint64_t avail, keep;
  if (bytes == 0) return 1;
  if (local_space(t->base, t->disk_margin, &avail, &keep) != 0) return 1;
  if (avail >= bytes && avail - bytes >= keep) return 1;
  char a[32], b[32], c[32];
  snprintf(why, n, "needs %s free + %s margin on %s; %s free", samples_fmt_size(bytes, a, sizeof a),
           samples_fmt_size(keep, b, sizeof b), bench_fs_type(t->base),
           samples_fmt_size(avail, c, sizeof c));
  return 0;
}

int bench_target_reserve(bench_target *t, uint64_t bytes, char *why, size_t n, xio_error *err) {
  if (strcmp(t->backend, "local") == 0) return local_reserve(t, bytes, why, n);
  if (t->remote) return 1; /* an account has no emulator memory to run out of */
  if (bytes && !bench_emulator_reserve(t->em, bytes, why, n)) return 0;
  if (t->generation != t->em->generation && pageblob_connect(t, err) != XIO_OK) return -1;
  return 1;
}
