/*
 * get.c - the get command: downloads a target into a local file, moving only what
 * holds data, in as few requests as that takes.
 *
 * get lists the target's allocated ranges (page ranges, or data extents), sizes a
 * new local file with ftruncate (sparse), merges the ranges into reads of up to
 * 4 MiB (bridging gaps of up to GET_GAP) and writes only the listed ranges of each
 * read where they belong (and the zeros between two of them that no hole could
 * hold), so the local file is as sparse as the source and nothing is read twice.
 *
 * get writes with O_DIRECT where the local file system takes it: the download
 * must be durable before it is renamed into place (fsync), and a buffered write
 * would make that fsync copy every byte through the page cache and write it back,
 * which costs several times the transfer itself. The whole DIRECT_ALIGN blocks of
 * each write go straight from the (aligned) read buffers to the disk; the edges of
 * a range that does not start or end on one, such as a size that is not a whole
 * block, are written through a second, buffered descriptor of the same file. A
 * file system that refuses O_DIRECT (tmpfs), or refuses one write, gets buffered
 * writes from there on; --json says which ("direct").
 *
 * get reads up to GET_CHUNK (4 MiB) per request: the longest range the service
 * answers a transactional checksum for, which the file layer checks every body
 * against, so a byte damaged on its way is read again, never written to LOCAL
 * (docs/benchmarks/readcheck.md measures what that costs against unchecked 8 MiB
 * reads).
 *
 * Memory is bounded by design, whatever the file's size. With N reads in flight
 * (--in-flight, default GET_IN_FLIGHT = 4): peak RSS <= N x 4 MiB of read buffers
 * + a fixed part (program, libraries, connections, the library's own buffers;
 * measured: docs/benchmarks/design.md#transfer-memory). The command
 * allocates nothing per byte of file: its only buffers are the N reads'. Four
 * reads are as many bytes as a standard blob moves in a quarter of a second, and
 * few enough that a paced get through a throttle it was not told settles near its
 * limit (docs/benchmarks/throttling.md).
 * What put and get share (--in-flight, stop signals) is in transfer.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <xio/alloc.h>

#include "cli.h"

#define GET_CHUNK     ((size_t)XIO_WRITE_MAX_SIZE) /* the largest read: one checked Get Blob */
#define GET_IN_FLIGHT 4                            /* reads in flight by default */
#define PAGE          512u
#define DIRECT_ALIGN  ((uint64_t)4096) /* offsets, lengths, addresses of O_DIRECT writes */

/*
 * The gap a read bridges. A request costs a round trip and the service's work per
 * request: on a loopback emulator about a millisecond, on Azure several, the time
 * it takes to move a few hundred KiB. Reading zeros costs only that bandwidth (get
 * writes only the listed ranges locally, so the local file stays sparse), hence
 * GET_GAP: gaps of up to 256 KiB are read through.
 */
#define GET_GAP ((uint64_t)256 << 10)

static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* ---------------------------------------------------- local files ---- */

/* pwrite of all `n` bytes at `off`: 0, or the errno of the write that failed. */
static int pwrite_errno(int fd, const char *buf, size_t n, uint64_t off) {
  for (size_t put = 0; put < n;) {
    ssize_t k = pwrite(fd, buf + put, n - put, (off_t)(off + put));
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return k < 0 ? errno : EIO;
    put += (size_t)k;
  }
  return 0;
}

static xio_err pwrite_all(int fd, const char *path, const char *buf, size_t n, uint64_t off,
                          xio_error *err) {
  int e = pwrite_errno(fd, buf, n, off);
  return e ? xio_error_from_errno(err, e, "WriteLocalFile", "pwrite", path) : XIO_OK;
}

/* ------------------------------------------------------------- get ---- */

typedef struct get_job {
  cli *c;
  char *local;           /* LOCAL, or DIR/NAME for a directory (owned) */
  cli_partial part;      /* LOCAL.xio-partial: the download until it is complete */
  int resume;            /* --resume: continue the partial file */
  int buffered;          /* --buffered: write through the page cache, not O_DIRECT */
  uint64_t from;         /* everything below was already fetched (resume) */
  uint64_t written;      /* everything below was read and written to the partial file */
  int sized;             /* the partial file has the source's size: progress can be kept */
  char etag[80];         /* the source's ETag: a resume needs the same source */
  char snapshot[64];     /* --snapshot: the snapshot taken for the get and read, or "" */
  char *snapshot_url;    /* TARGET?snapshot=ID (with TARGET's SAS, if any), or NULL */
  int fd;                /* part.fd, the partial file, buffered: edges, size, attributes */
  int dfd;               /* the same file opened with O_DIRECT, or -1 */
  int direct;            /* 1 while O_DIRECT writes are in use (none refused) */
  uint64_t block;        /* the local file system's block: the smallest hole */
  uint64_t direct_bytes; /* written with O_DIRECT */
  xio_file *f;
  uint64_t size, fetched, reads;
  xio_ranges ranges;
  size_t unwritten; /* the first range not yet written in full */
  cli_merge m;      /* ranges into reads */
  cli_window w;
  cli_progress prog;
  int dry;       /* --dry-run: count the reads into `plan`, write nothing */
  cli_plan plan; /* --dry-run: what the real run would send and write */
} get_job;

/* Writes the `n` bytes at `p` to the partial file at `off`: the whole DIRECT_ALIGN
 * blocks through the O_DIRECT descriptor when the buffer allows, the rest buffered.
 * A write O_DIRECT refuses (EINVAL) is done buffered, and so is every later one. */
static xio_err write_local(get_job *j, const char *p, size_t n, uint64_t off, xio_error *err) {
  uint64_t head = (off + DIRECT_ALIGN - 1) / DIRECT_ALIGN * DIRECT_ALIGN;
  uint64_t tail = (off + n) / DIRECT_ALIGN * DIRECT_ALIGN;
  if (j->dfd < 0 || tail <= head || (uintptr_t)(p + (head - off)) % DIRECT_ALIGN)
    return pwrite_all(j->fd, j->local, p, n, off, err);
  xio_err rc = pwrite_all(j->fd, j->local, p, (size_t)(head - off), off, err);
  if (rc != XIO_OK) return rc;
  int e = pwrite_errno(j->dfd, p + (head - off), (size_t)(tail - head), head);
  if (e == EINVAL) { /* this file or disk wants another alignment: buffered from here */
    close(j->dfd);
    j->dfd = -1;
    j->direct = 0;
    rc = pwrite_all(j->fd, j->local, p + (head - off), (size_t)(tail - head), head, err);
  } else if (e) {
    rc = xio_error_from_errno(err, e, "WriteLocalFile", "pwrite", j->local);
  } else {
    j->direct_bytes += tail - head;
  }
  if (rc != XIO_OK) return rc;
  return pwrite_all(j->fd, j->local, p + (tail - off), (size_t)(off + n - tail), tail, err);
}

/* Opens the O_DIRECT descriptor of the partial file beside the buffered one, only
 * if the path still names the file this run owns; a file system that refuses it
 * (EINVAL: tmpfs) leaves dfd -1 and writes buffered, as --buffered does. */
static void open_direct(get_job *j) {
  struct stat st;
  j->dfd = j->buffered ? -1 : open(j->part.path, O_WRONLY | O_CLOEXEC | O_DIRECT | O_NOFOLLOW);
  if (j->dfd >= 0 &&
      (fstat(j->dfd, &st) != 0 || st.st_dev != j->part.dev || st.st_ino != j->part.ino)) {
    close(j->dfd);
    j->dfd = -1;
  }
  j->direct = j->dfd >= 0;
}

/* 1 when [from, to) holds a whole block of the local file system, which could stay
 * a hole. */
static int holds_a_block(const get_job *j, uint64_t from, uint64_t to) {
  uint64_t first = (from + j->block - 1) / j->block * j->block;
  return first + j->block <= to;
}

/* A read of [a, b) finished: the parts of it that lie in listed ranges go where
 * they belong in the local file. A gap the merge bridged is not written, so it
 * stays a hole, unless it holds no whole block of the file system: such a gap can
 * never be a hole, and its zeros (unlisted pages read as zeros) are written with
 * the ranges around it, in one write that O_DIRECT can take instead of a small
 * buffered write per page. Reads complete in order, so the ranges are walked once. */
static xio_err write_slot(cli_slot *s, void *ud, xio_error *err) {
  get_job *j = ud;
  uint64_t a = s->io.offset, b = a + s->io.transferred, px = 0, py = 0;
  const char *buf = s->io.buf;
  j->fetched += s->io.transferred;
  xio_err rc = XIO_OK;
  while (rc == XIO_OK && j->unwritten < j->ranges.n) {
    const xio_range *r = &j->ranges.v[j->unwritten];
    if (r->start >= b) break;
    uint64_t x = r->start > a ? r->start : a, y = min_u64(r->end + 1, b);
    if (x < y) {
      if (py > px && !holds_a_block(j, py, x)) { /* no hole fits between: write on */
        py = y;
      } else {
        if (py > px) rc = write_local(j, buf + (px - a), (size_t)(py - px), px, err);
        px = x, py = y;
      }
      cli_progress_add(&j->prog, y - x);
    }
    if (r->end + 1 > b) break;
    j->unwritten++;
  }
  if (rc == XIO_OK && py > px) rc = write_local(j, buf + (px - a), (size_t)(py - px), px, err);
  if (rc == XIO_OK) j->written = b;
  return rc;
}

/* The merge's request: a read of [start, end) into the next slot's buffer, at
 * start % DIRECT_ALIGN into it, so that each byte's address in the buffer is as
 * far into a DIRECT_ALIGN block as its offset in the file: the whole blocks of a
 * read that starts off a block boundary can still be written with O_DIRECT. */
static xio_err fetch_request(uint64_t start, uint64_t end, void *ud, xio_error *err) {
  get_job *j = ud;
  cli_slot *s;
  if (j->dry) {
    cli_plan_add(&j->plan, CLI_OP_GET_BLOB, 1, end - start);
    j->reads++;
    return XIO_OK;
  }
  xio_err rc = cli_check_stop(err);
  if (rc == XIO_OK) rc = cli_window_next(&j->w, &s, err);
  if (rc == XIO_OK)
    rc = cli_window_submit(&j->w, s, j->f, XIO_IO_READ, start, (size_t)(end - start),
                           s->buf + start % DIRECT_ALIGN, err);
  if (rc != XIO_OK) return rc;
  j->reads++;
  return XIO_OK;
}

static xio_err fetch_range(get_job *j, uint64_t start, uint64_t end, xio_error *err) {
  if (start < j->from) start = j->from;
  if (start > end) return XIO_OK;
  j->plan.local_bytes += end + 1 - start;
  return cli_merge_span(&j->m, start, end + 1, err);
}

#define XATTR_DONE "user.xio.get-done" /* on the partial file: "OFFSET ETAG" */

/* An interrupted get: the partial file records how far it got (the reads written,
 * in order: those after the first that failed or was cut are not) and from which
 * version of the source (its ETag), for --resume. */
static void record_progress(get_job *j) {
  char v[128];
  int n = snprintf(v, sizeof v, "%" PRIu64 " %s", j->written, j->etag);
  (void)fsetxattr(j->fd, XATTR_DONE, v, (size_t)n, 0);
}

static xio_err download(get_job *j, xio_error *err) {
  xio_file_stats before, after;
  xio_file_get_stats(j->f, &before);
  xio_err rc = xio_file_ranges(j->f, &j->ranges, err);
  xio_file_get_stats(j->f, &after);
  cli_plan_add(&j->plan, CLI_OP_PAGE_RANGES, after.requests - before.requests, 0);
  if (rc == XIO_OK && !j->resume && !j->dry && ftruncate(j->fd, (off_t)j->size) != 0)
    rc = xio_error_from_errno(err, errno, "WriteLocalFile", "ftruncate", j->local);
  if (rc == XIO_OK) j->sized = 1;
  if (rc == XIO_OK) /* a read lands at its offset's place in a block: see fetch_request */
    rc = cli_window_init(&j->w, j->c->in_flight, GET_CHUNK + DIRECT_ALIGN, write_slot, j, err);
  cli_merge_init(&j->m, GET_GAP, 0, GET_CHUNK, fetch_request, j);
  cli_progress_start(&j->prog, j->c, "get", xio_ranges_bytes(&j->ranges));
  for (size_t i = 0; rc == XIO_OK && i < j->ranges.n; i++)
    rc = fetch_range(j, j->ranges.v[i].start, j->ranges.v[i].end, err);
  if (rc == XIO_OK) rc = cli_merge_flush(&j->m, err);
  xio_error de;
  xio_err drc = cli_window_drain(&j->w, &de); /* also when stopped: wait for what is in flight */
  if (rc == XIO_OK && drc != XIO_OK) {
    rc = drc;
    *err = de;
  }
  if (rc == XIO_ECANCELED && j->sized) record_progress(j); /* reads cut or not */
  cli_progress_end(&j->prog);
  cli_window_free(&j->w);
  if (rc == XIO_OK && !j->dry) {
    const char *kind = xio_file_kind(j->f) == XIO_KIND_LOG ? "log" : "data";
    (void)fsetxattr(j->fd, "user.xio.kind", kind, strlen(kind), 0); /* best effort */
  }
  return rc;
}

static void get_report(const get_job *j, double secs) {
  double rate = secs > 0 ? (double)j->fetched / secs / (1024.0 * 1024.0) : 0;
  char hs[32], hf[32], ht[32];
  xio_kind kind = xio_file_kind(j->f);
  xio_file_stats st;
  xio_file_get_stats(j->f, &st);
  if (j->c->json) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "command", "get");
    cJSON_AddStringToObject(o, "source", xio_file_path(j->f));
    cJSON_AddStringToObject(o, "target", j->local);
    cJSON_AddStringToObject(o, "kind", cli_kind_name(kind));
    cli_json_u64(o, "size", j->size);
    cli_json_u64(o, "ranges", j->ranges.n);
    cli_json_u64(o, "bytes_fetched", j->fetched);
    cli_json_u64(o, "reads", j->reads);
    cli_json_u64(o, "bytes_bridged", j->m.bridged);   /* gaps read through, not written */
    cJSON_AddBoolToObject(o, "direct", j->direct);    /* LOCAL's file system took O_DIRECT */
    cli_json_u64(o, "bytes_direct", j->direct_bytes); /* written with it, the rest buffered */
    cli_json_u64(o, "throttled", st.throttled);       /* tries answered 503/500 throttling */
    if (j->snapshot[0]) cJSON_AddStringToObject(o, "snapshot", j->snapshot);
    cJSON_AddNumberToObject(o, "seconds", secs);
    cJSON_AddNumberToObject(o, "mib_per_s", rate);
    cli_json_print(o);
    return;
  }
  cli_say(j->c,
          "got %s -> %s: %s %s file; fetched %s of data in %zu range%s (%" PRIu64
          " read%s), in %s (%.1f MiB/s)",
          xio_file_path(j->f), j->local, samples_fmt_size(j->size, hs, sizeof hs),
          cli_kind_name(kind), samples_fmt_size(j->fetched, hf, sizeof hf), j->ranges.n,
          cli_plural(j->ranges.n), j->reads, cli_plural(j->reads),
          samples_fmt_secs(secs, ht, sizeof ht), rate);
  cli_say_throttled(j->c, "get", st.throttled);
  if (j->snapshot[0])
    cli_say(j->c, "read from snapshot %s, taken for this copy and deleted after it", j->snapshot);
}

/* The partial file's mark `v` (`n` bytes read of its attribute, or -1): how far
 * the get went, into `from`; refused when the mark says nothing or the source
 * changed since (another ETag). */
static xio_err done_mark(const get_job *j, char *v, ssize_t n, unsigned long long *from,
                         xio_error *err) {
  char etag[96];
  if (n > 0) v[n] = '\0';
  if (n <= 0 || sscanf(v, "%llu %95s", from, etag) != 2 || *from > j->size)
    return xio_error_set(err, XIO_EINVAL,
                         "%s does not say how far the get went: get --force "
                         "starts over",
                         j->part.path);
  if (strcmp(etag, j->etag) != 0)
    return xio_error_set(err, XIO_ECONFLICT,
                         "the source changed since %s was written (ETag "
                         "differs): get --force starts over",
                         j->part.path);
  return XIO_OK;
}

/* --resume: opens the partial file (for this run alone) and learns where it
 * stopped; refused when the source changed since (another ETag) or the partial
 * file says nothing. */
static xio_err open_partial(get_job *j, xio_error *err) {
  xio_err rc = cli_partial_open(&j->part, 1, err);
  if (rc != XIO_OK) return rc;
  j->fd = j->part.fd;
  char v[128];
  unsigned long long from = 0;
  rc = done_mark(j, v, fgetxattr(j->fd, XATTR_DONE, v, sizeof v - 1), &from, err);
  if (rc != XIO_OK) return rc;
  j->from = j->written = from;
  j->sized = 1; /* by the get that left it */
  return XIO_OK;
}

/* Refuses an existing LOCAL unless --force (XIO_EEXIST, the error naming LOCAL as its
 * target, so the hint is a local file's). */
static xio_err refuse_existing(const get_job *j, int force, xio_error *err) {
  if (force || access(j->local, F_OK) != 0) return XIO_OK;
  xio_error_set(err, XIO_EEXIST, "%s already exists; --force overwrites it", j->local);
  xio_error_set_operation(err, "CreateLocalFile");
  xio_error_set_target(err, j->local);
  return XIO_EEXIST;
}

/* Creates the partial file beside LOCAL (refusing an existing LOCAL unless --force). */
static xio_err create_local(get_job *j, int force, xio_error *err) {
  if (refuse_existing(j, force, err) != XIO_OK) return XIO_EEXIST;
  xio_err rc = j->resume ? open_partial(j, err) : cli_partial_open(&j->part, 0, err);
  j->fd = j->part.fd;
  if (rc == XIO_OK) open_direct(j);
  struct statvfs fs; /* the file system's block, the unit of its holes */
  int known = rc == XIO_OK && fstatvfs(j->fd, &fs) == 0 && fs.f_frsize >= PAGE &&
              fs.f_frsize <= 65536 && !(fs.f_frsize & (fs.f_frsize - 1));
  j->block = known ? (uint64_t)fs.f_frsize : DIRECT_ALIGN;
  return rc;
}

/* Where the download goes: LOCAL, or DIR/NAME when LOCAL is a directory (refusing
 * at once a path it cannot be renamed to), and the partial file beside it. */
static xio_err local_paths(get_job *j, const char *target, const char *local, xio_error *err) {
  xio_err rc = cli_local_dest(local, target, &j->local, err);
  if (rc == XIO_OK && (rc = cli_partial_init(&j->part, j->local, err)) != XIO_OK) {
    xio_free(j->local);
    j->local = NULL;
  }
  return rc;
}

static void free_local_paths(get_job *j) {
  cli_partial_free(&j->part);
  xio_free(j->local);
}

/* A get stopped by a signal: what is left, and how to finish it. */
static int get_interrupted(const get_job *j) {
  char hf[32], ht[32];
  fprintf(stderr,
          "xio: get interrupted by %s: %s of %s fetched into %s; %s was not created; "
          "`xio get --resume %s %s` finishes it\n",
          cli_stop_name(), samples_fmt_size(j->fetched, hf, sizeof hf),
          samples_fmt_size(xio_ranges_bytes(&j->ranges), ht, sizeof ht), j->part.path, j->local,
          xio_file_path(j->f), j->local);
  return cli_stop_status();
}

static int get_run(get_job *j, int force) {
  xio_error e;
  double t0 = samples_now();
  xio_err rc = create_local(j, force, &e);
  if (rc != XIO_OK) {
    cli_partial_close(&j->part); /* a partial file --resume could not take: kept */
    return cli_fail(j->c, rc, &e);
  }
  rc = download(j, &e);
  if (rc == XIO_OK) (void)fremovexattr(j->fd, XATTR_DONE);
  if (j->dfd >= 0 && close(j->dfd) != 0 && rc == XIO_OK)
    rc = xio_error_from_errno(&e, errno, "WriteLocalFile", "close", j->part.path);
  j->dfd = -1;
  if (rc == XIO_OK) rc = cli_partial_commit(&j->part, 0666, force, &e);
  j->fd = -1;
  if (rc == XIO_ECANCELED && cli_stop_signal() && !j->sized) { /* stopped as it listed */
    cli_partial_discard(&j->part);
    return cli_stopped_before("get", "it read anything; %s was not created", j->local);
  }
  if (rc == XIO_ECANCELED && cli_stop_signal()) {
    cli_partial_close(&j->part);
    return get_interrupted(j);
  }
  if (rc != XIO_OK)
    cli_partial_discard(&j->part);
  else
    get_report(j, samples_now() - t0);
  if (rc == XIO_OK && cli_stop_signal()) return cli_stopped_after("get", j->local);
  return rc == XIO_OK ? CLI_OK : cli_fail(j->c, rc, &e);
}

/* --snapshot: takes a snapshot of TARGET for the get to read, and makes the URL that
 * opens it (TARGET's SAS, if any, kept in front of snapshot=ID). */
static xio_err take_snapshot(get_job *j, const char *target, xio_error *err) {
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_READONLY;
  xio_file *f = NULL;
  xio_err rc = cli_open(j->c, target, &o, &f, err);
  if (rc == XIO_OK) rc = xio_file_snapshot(f, j->snapshot, sizeof j->snapshot, err);
  xio_file_close(f, NULL);
  if (rc != XIO_OK) return rc;
  return xio_target_snapshot_url(target, j->snapshot, &j->snapshot_url, err);
}

/* ---------------------------------------------------------- dry run ---- */

/* --dry-run --resume: where the partial file says the get stopped, read from its
 * attribute without opening it for writing; refused as open_partial refuses. */
static xio_err plan_resume(get_job *j, xio_error *err) {
  char v[128];
  ssize_t n = getxattr(j->part.path, XATTR_DONE, v, sizeof v - 1);
  unsigned long long from = 0;
  if (n < 0 && errno == ENOENT)
    return xio_error_from_errno(err, errno, "CreateLocalFile", "open", j->part.path);
  xio_err rc = done_mark(j, v, n, &from, err);
  if (rc == XIO_OK) j->from = from;
  return rc;
}

/* --dry-run: plans the get with its real listing and merge, and prints what it
 * would send and write; LOCAL and its partial file are not created or opened. */
static int get_dry_run(get_job *j, const char *target, int force, int snapshot) {
  xio_error e;
  xio_err rc = XIO_OK;
  char named[sizeof j->snapshot];
  if (snapshot && !cli_target_snapshot(target, named, sizeof named)) {
    cli_plan_add(&j->plan, CLI_OP_PROPERTIES, 2, 0); /* the blob, then its snapshot */
    cli_plan_add(&j->plan, CLI_OP_SNAPSHOT, 1, 0);
    cli_plan_add(&j->plan, CLI_OP_DELETE, 1, 0); /* the snapshot, after the copy */
  } else {
    cli_plan_add(&j->plan, CLI_OP_PROPERTIES, 1, 0);
  }
  cli_plan_add(&j->plan, CLI_OP_PROPERTIES, 1, 0); /* its ETag (xio_file_stat) */
  if (rc == XIO_OK) rc = refuse_existing(j, force, &e);
  if (rc == XIO_OK && j->resume) rc = plan_resume(j, &e);
  if (rc == XIO_OK) rc = download(j, &e);
  if (rc == XIO_ECANCELED && cli_stop_signal())
    return cli_stopped_before("get", "it planned the download; %s was not created", j->local);
  if (rc != XIO_OK) return cli_fail(j->c, rc, &e);
  j->plan.local = j->local;
  cli_plan_print(j->c, xio_file_path(j->f), j->local, &j->plan);
  return CLI_OK;
}

/* Deletes the snapshot --snapshot took, however the get ended. A failure is only
 * reported: the copy does not depend on it, but the snapshot costs storage. */
static void drop_snapshot(get_job *j, const char *target) {
  xio_error e;
  if (!j->snapshot[0] || xio_snapshot_delete(j->c->ctx, target, j->snapshot, &e) == XIO_OK) return;
  char msg[1024], *safe = xio_target_safe(target);
  fprintf(stderr,
          "xio: get: warning: the snapshot %s taken for the copy was not deleted (%s); "
          "`xio snapshot delete %s --id %s` deletes it\n",
          j->snapshot, xio_error_format(&e, msg, sizeof msg), safe ? safe : "TARGET", j->snapshot);
  xio_free(safe);
}

/* Opens the source of the get read-only, pinned to the version it has now: a
 * source written meanwhile fails the get (XIO_ECHANGED) rather than leaving a copy
 * of two versions. With --snapshot the get reads a snapshot taken for it instead,
 * which no writer can change. Learns its ETag (for --resume) and size. */
static xio_err open_source(get_job *j, const char *target, int snapshot, xio_error *err) {
  xio_err rc = XIO_OK;
  char named[sizeof j->snapshot];
  if (snapshot && !j->dry && !cli_target_snapshot(target, named, sizeof named))
    rc = take_snapshot(j, target, err);
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_READONLY | XIO_OPEN_PINNED;
  xio_file_info info;
  if (rc == XIO_OK) rc = cli_open(j->c, j->snapshot_url ? j->snapshot_url : target, &o, &j->f, err);
  if (rc == XIO_OK) rc = xio_file_stat(j->f, &info, err);
  if (rc != XIO_OK) return rc;
  snprintf(j->etag, sizeof j->etag, "%s", info.etag[0] ? info.etag : "-");
  j->size = xio_file_size(j->f);
  return XIO_OK;
}

static int run_get(cli *c, int argc, char **argv) {
  const char *pos[2], *flight_s = NULL;
  int force = 0, resume = 0, buffered = 0, snapshot = 0, dry = 0;
  const cli_opt opts[] = {{"--force", NULL, &force},
                          {"--resume", NULL, &resume},
                          {"--dry-run", NULL, &dry},
                          {"--in-flight", &flight_s, NULL},
                          {"--buffered", NULL, &buffered},
                          {"--snapshot", NULL, &snapshot},
                          {NULL, NULL, NULL}};
  int r = cli_parse(c, argc, argv, opts, "TARGET LOCAL", 2, pos);
  if (r != CLI_CONTINUE) return r;
  if ((r = cli_take_in_flight(c, flight_s, GET_IN_FLIGHT)) != CLI_CONTINUE) return r;
  get_job j;
  memset(&j, 0, sizeof j);
  j.c = c;
  j.fd = j.dfd = j.part.fd = -1;
  j.resume = resume;
  j.buffered = buffered;
  j.dry = dry;
  xio_error e;
  xio_err rc = local_paths(&j, pos[0], pos[1], &e);
  if (rc != XIO_OK) return cli_fail(c, rc, &e);
  if (cli_same_file(pos[0], j.local)) {
    free_local_paths(&j);
    return cli_usage_error(c, "TARGET and LOCAL are the same file");
  }
  if ((r = cli_catch_stop_signals(c)) != CLI_CONTINUE) {
    free_local_paths(&j);
    return r;
  }
  rc = open_source(&j, pos[0], snapshot, &e);
  if (rc != XIO_OK && !(rc == XIO_ECANCELED && cli_stop_signal()))
    r = cli_fail(c, rc, &e);
  else if (cli_stop_signal())
    r = cli_stopped_before("get", "it created %s", j.local);
  else if (dry)
    r = get_dry_run(&j, pos[0], force || resume, snapshot);
  else
    r = get_run(&j, force || resume);
  free_local_paths(&j);
  xio_ranges_clear(&j.ranges);
  xio_file_close(j.f, NULL);
  drop_snapshot(&j, pos[0]);
  xio_free(j.snapshot_url);
  return r;
}

const cli_command cli_cmd_get = {
    "get",
    "download a file, fetching only allocated ranges",
    "get TARGET LOCAL [--force] [--resume] [--snapshot] [--in-flight N] [--buffered] "
    "[--dry-run]",
    "Downloads TARGET into the local file LOCAL, which is made sparse: only the\n"
    "allocated ranges (page ranges of a blob) are written; the rest stays a hole that\n"
    "reads as zeros. Ranges less than 256 KiB apart are read in one request of up\n"
    "to 4 MiB (the gap between them is read, not written), so a fragmented file\n"
    "costs a few requests, not one per range. Every read is checked against the\n"
    "checksum the service answers for it, and read again when it does not match.\n"
    "The file kind is recorded in LOCAL's user.xio.kind attribute. A directory as\n"
    "LOCAL (or LOCAL ending in '/') takes the file under the last segment of the\n"
    "blob's name, as cp(1) does; a path that cannot be written (a directory there) is\n"
    "refused before anything is read.\n"
    "\n"
    "LOCAL is one version of TARGET: every read is of the version TARGET had when\n"
    "the get began (If-Match on its ETag). If another client writes TARGET during\n"
    "the get, the get fails and keeps nothing; run it again, or use --snapshot.\n"
    "\n"
    "Options:\n"
    "  --force         overwrite LOCAL when it exists\n"
    "  --resume        finish an interrupted get from where LOCAL.xio-partial\n"
    "                  stopped (refused when TARGET changed since)\n"
    "  --snapshot      copy a snapshot of TARGET taken for the get (and deleted\n"
    "                  after it): a file that is being written all the time, such\n"
    "                  as a database in use, comes down as it was at that moment\n"
    "                  (needs a credential that may take and delete snapshots)\n"
    "  --in-flight N   reads in flight at once, 1..64 (default 4); memory stays\n"
    "                  under N x 4 MiB of buffers, plus about 18 MiB\n"
    "  --buffered      write LOCAL through the page cache; by default whole 4 KiB\n"
    "                  blocks are written with O_DIRECT where the file system\n"
    "                  allows, which spares the final fsync a copy of every byte\n"
    "  --dry-run       say what the get would send and write (requests, bytes) and\n"
    "                  change nothing: TARGET's ranges are listed as a get lists\n"
    "                  them, no snapshot is taken, LOCAL is not created\n"
    "\n"
    "The download goes to LOCAL.xio-partial, renamed to LOCAL once complete. SIGINT or\n"
    "SIGTERM stops issuing, gives the reads on their way 2 s to end before it cuts\n"
    "them (XIO_STOP_GRACE_SECONDS; a second signal cuts them at once), keeps the\n"
    "partial file for --resume and exits 130 or 143, in whatever phase it comes. The\n"
    "partial file is this run's alone: another run into LOCAL meanwhile is refused,\n"
    "and a link at its path is never followed. A new LOCAL gets the mode the umask\n"
    "gives; one replaced with --force keeps its mode.\n",
    run_get,
};
