/*
 * transfer.c - copying whole files between a local disk and a target: put (upload
 * a local file) and get (download a target into a local file). Both move only what
 * holds data.
 *
 * put asks the file layer for the local file's data extents and recorded kind
 * (opening it read-only: SEEK_DATA/SEEK_HOLE, so the holes of a sparse file cost
 * nothing), reads each extent in chunks of up to 4 MiB that end on
 * 4 MiB boundaries, splits a chunk into runs of 512-byte pages that are not all
 * zero, and writes each run with an asynchronous request: the all-zero pages are
 * never sent, and a fresh page blob reads them back as zeros anyway. get lists the
 * target's allocated ranges (page ranges, or data extents), sizes a new local file
 * with ftruncate (sparse), reads only those ranges in pieces of up to 4 MiB and
 * writes them where they belong. Both keep up to 16 requests in flight through a
 * window of buffers (window.c), so memory stays bounded whatever the file's size.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <xio/alloc.h>

#include "cli.h"

#define CHUNK     ((size_t)4 << 20)
#define IN_FLIGHT 16
#define PAGE      512u

static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* End of the 4 MiB-aligned chunk holding `off`, capped at `limit`. */
static uint64_t chunk_end(uint64_t off, uint64_t limit) {
  return min_u64(limit, (off / CHUNK + 1) * CHUNK);
}

/* --------------------------------------------------------- signals ---- */

/* SIGINT or SIGTERM received during a transfer (0: none). The transfer stops issuing
 * requests, waits for those in flight, says what is left and exits 128 + the signal. */
static volatile sig_atomic_t stop_signal;

static void on_stop_signal(int sig) { stop_signal = sig; }

static void catch_stop_signals(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
}

/* XIO_ECANCELED when a stop signal arrived. */
static xio_err check_stop(xio_error *err) {
  if (!stop_signal) return XIO_OK;
  return xio_error_set(err, XIO_ECANCELED, "interrupted by %s",
                       stop_signal == SIGINT ? "SIGINT" : "SIGTERM");
}

/* The exit status of a transfer stopped by a signal: 130 (SIGINT) or 143 (SIGTERM). */
static int stop_status(void) { return 128 + stop_signal; }

/* ---------------------------------------------------- local files ---- */

static xio_err pread_all(int fd, const char *path, char *buf, size_t n, uint64_t off,
                         xio_error *err) {
  size_t got = 0;
  while (got < n) {
    ssize_t k = pread(fd, buf + got, n - got, (off_t)(off + got));
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) return xio_error_from_errno(err, errno, "ReadLocalFile", "pread", path);
    if (k == 0) break;
    got += (size_t)k;
  }
  memset(buf + got, 0, n - got); /* the file shrank meanwhile: past its end is zeros */
  return XIO_OK;
}

static xio_err pwrite_all(int fd, const char *path, const char *buf, size_t n, uint64_t off,
                          xio_error *err) {
  size_t put = 0;
  while (put < n) {
    ssize_t k = pwrite(fd, buf + put, n - put, (off_t)(off + put));
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0)
      return xio_error_from_errno(err, k < 0 ? errno : EIO, "WriteLocalFile", "pwrite", path);
    put += (size_t)k;
  }
  return XIO_OK;
}

/* 1 when `a` and `b` name the same local file (both exist). */
static int same_file(const char *a, const char *b) {
  struct stat sa, sb;
  if (cli_is_url(a) || cli_is_url(b) || stat(a, &sa) != 0 || stat(b, &sb) != 0) return 0;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* ------------------------------------------------------------- put ---- */

typedef struct put_job {
  cli *c;
  const char *local;
  int fd;
  uint64_t size;
  xio_kind kind;
  xio_file *f;
  cli_window w;
  char *scan;   /* one chunk of the local file */
  uint64_t pos; /* everything below was sent or skipped */
  uint64_t scanned, sent, pages_sent, writes;
  xio_ranges ext; /* the local file's data extents */
  cli_progress prog;
  int overwrite; /* the target existed and is being overwritten in place */
  int resume;    /* --resume: compare with what the target holds, send what differs */
  char *cmp;     /* --resume: the target's bytes of the chunk */
} put_job;

static int page_is_zero(const char *p, size_t n) {
  return p[0] == 0 && memcmp(p, p + 1, n - 1) == 0;
}

/* Length of the run of pages at `p` (n bytes left) that are all zero (`zero` 1) or
 * all not (`zero` 0). */
static size_t run_length(const char *p, size_t n, int zero) {
  size_t i = 0;
  while (i < n) {
    size_t k = min_u64(PAGE, n - i);
    if (page_is_zero(p + i, k) != zero) break;
    i += k;
  }
  return i;
}

static xio_err send_run(put_job *j, uint64_t off, const char *data, size_t len, xio_error *err) {
  cli_slot *s;
  xio_err rc = cli_window_next(&j->w, &s, err);
  if (rc != XIO_OK) return rc;
  memcpy(s->buf, data, len);
  rc = cli_window_submit(&j->w, s, j->f, XIO_IO_WRITE, off, len, err);
  if (rc != XIO_OK) return rc;
  j->sent += len;
  j->pages_sent += (len + PAGE - 1) / PAGE;
  j->writes++;
  return XIO_OK;
}

/* Sends the non-zero runs of the chunk of `n` bytes at `off` held in j->scan. */
static xio_err send_chunk(put_job *j, uint64_t off, size_t n, xio_error *err) {
  size_t i = 0;
  while (i < n) {
    i += run_length(j->scan + i, n - i, 1);
    size_t len = run_length(j->scan + i, n - i, 0);
    if (len == 0) break;
    xio_err rc = send_run(j, off + i, j->scan + i, len, err);
    if (rc != XIO_OK) return rc;
    i += len;
  }
  return XIO_OK;
}

/* --resume: sends the pages of the chunk of `n` bytes at `off` (in j->scan) that the
 * target does not already hold, after reading the target's bytes there. */
static xio_err send_differences(put_job *j, uint64_t off, size_t n, xio_error *err) {
  xio_err rc = cli_window_drain(&j->w, err); /* the chunk before is written */
  if (rc == XIO_OK) rc = xio_file_read(j->f, off, j->cmp, n, NULL, err);
  for (size_t i = 0; rc == XIO_OK && i < n;) {
    size_t len = 0;
    while (i + len < n) {
      size_t k = min_u64(PAGE, n - i - len);
      if (memcmp(j->scan + i + len, j->cmp + i + len, k) == 0) break;
      len += k;
    }
    if (len) rc = send_run(j, off + i, j->scan + i, len, err);
    i += len ? len : min_u64(PAGE, n - i);
  }
  return rc;
}

/* Uploads the data extent [start, end] widened to whole pages. */
static xio_err send_extent(put_job *j, uint64_t start, uint64_t end, xio_error *err) {
  uint64_t off = start / PAGE * PAGE;
  uint64_t stop = min_u64((end / PAGE + 1) * PAGE, j->size);
  if (off < j->pos) off = j->pos;
  while (off < stop) {
    uint64_t next = chunk_end(off, stop);
    size_t n = (size_t)(next - off);
    xio_err rc = check_stop(err);
    if (rc == XIO_OK) rc = pread_all(j->fd, j->local, j->scan, n, off, err);
    if (rc == XIO_OK && j->resume)
      rc = send_differences(j, off, n, err);
    else if (rc == XIO_OK)
      rc = send_chunk(j, off, n, err);
    if (rc != XIO_OK) return rc;
    j->scanned += n;
    cli_progress_add(&j->prog, n);
    off = j->pos = next;
  }
  return XIO_OK;
}

static xio_err upload(put_job *j, xio_error *err) {
  const xio_ranges *ext = &j->ext;
  xio_err rc = cli_window_init(&j->w, IN_FLIGHT, CHUNK, NULL, NULL, err);
  if (rc == XIO_OK && !(j->scan = xio_malloc(CHUNK)))
    rc = xio_error_set(err, XIO_ENOMEM, "out of memory");
  if (rc == XIO_OK && j->resume && !(j->cmp = xio_malloc(CHUNK)))
    rc = xio_error_set(err, XIO_ENOMEM, "out of memory");
  cli_progress_start(&j->prog, j->c, "put", j->resume ? j->size : xio_ranges_bytes(ext));
  if (j->resume && j->size) /* every byte is compared: the target may hold anything */
    rc = rc == XIO_OK ? send_extent(j, 0, j->size - 1, err) : rc;
  for (size_t i = 0; !j->resume && rc == XIO_OK && i < ext->n; i++)
    rc = send_extent(j, ext->v[i].start, ext->v[i].end, err);
  xio_error de;
  xio_err drc = cli_window_drain(&j->w, &de); /* also when stopped: wait for what is in flight */
  if (rc == XIO_OK && drc != XIO_OK) {
    rc = drc;
    *err = de;
  }
  if (rc == XIO_OK) rc = xio_file_flush(j->f, err);
  if (rc == XIO_OK) rc = xio_file_set_incomplete(j->f, 0, err); /* every write acknowledged */
  cli_progress_end(&j->prog);
  cli_window_free(&j->w);
  xio_free(j->scan);
  xio_free(j->cmp);
  return rc;
}

/* Open flags for the target: unaligned writes when the size is not whole pages. */
static xio_open_options target_options(const put_job *j, unsigned flags) {
  xio_open_options o = xio_open_options_default();
  o.flags = flags | (j->size % PAGE ? XIO_OPEN_UNALIGNED : 0);
  o.kind = j->kind;
  o.size = j->size;
  o.init = XIO_INIT_NONE; /* a new file reads as zeros; only data is sent */
  return o;
}

/* Replaces the content of the existing target in place, so that its snapshots stay:
 * records the new kind, sets the new size (growth reads as zeros) and clears what
 * is left of the old content, before any data is written. */
static xio_err overwrite_target(put_job *j, xio_ctx *ctx, const char *target, xio_error *err) {
  xio_open_options o = target_options(j, XIO_OPEN_INCOMPLETE_OK); /* replaced anyway */
  xio_err rc = xio_file_open(ctx, target, &o, &j->f, err);
  if (rc != XIO_OK) return rc;
  uint64_t old = xio_file_size(j->f);
  rc = xio_file_set_incomplete(j->f, 1, err);
  if (rc == XIO_OK) rc = xio_file_set_kind(j->f, j->kind, err);
  if (rc == XIO_OK) rc = xio_file_set_size(j->f, j->size, XIO_INIT_NONE, err);
  /* whole pages of the old content (the new size may be whole pages when the old is not) */
  uint64_t keep = min_u64((min_u64(old, j->size) + PAGE - 1) / PAGE * PAGE, j->size);
  if (rc == XIO_OK && keep) rc = xio_file_zero(j->f, 0, keep, XIO_INIT_CLEAR, err);
  if (rc != XIO_OK) {
    xio_file_close(j->f, NULL);
    j->f = NULL;
  }
  return rc;
}

/* --resume: opens the target an interrupted put left (marked incomplete, or not),
 * marks it and gives it LOCAL's size and kind; upload then sends what differs. */
static xio_err resume_target(put_job *j, xio_ctx *ctx, const char *target, xio_error *err) {
  xio_open_options o = target_options(j, XIO_OPEN_INCOMPLETE_OK);
  xio_err rc = xio_file_open(ctx, target, &o, &j->f, err);
  if (rc == XIO_ENOTFOUND && err)
    snprintf(err->message, sizeof err->message, "%.400s does not exist: nothing to resume",
             err->target[0] ? err->target : "TARGET");
  if (rc != XIO_OK) return rc;
  j->overwrite = 1; /* never deleted on failure */
  rc = xio_file_set_incomplete(j->f, 1, err);
  if (rc == XIO_OK) rc = xio_file_set_kind(j->f, j->kind, err);
  if (rc == XIO_OK) rc = xio_file_set_size(j->f, j->size, XIO_INIT_NONE, err);
  if (rc != XIO_OK) {
    xio_file_close(j->f, NULL);
    j->f = NULL;
  }
  return rc;
}

/* Creates the target; with --force an existing one is overwritten in place. */
static xio_err create_target(put_job *j, const char *target, int force, xio_error *err) {
  xio_ctx *ctx;
  xio_err rc = cli_context(j->c, &ctx, err);
  if (rc == XIO_OK && j->resume) return resume_target(j, ctx, target, err);
  xio_open_options o = target_options(j, XIO_OPEN_CREATE_ONLY);
  if (rc == XIO_OK) rc = xio_file_open(ctx, target, &o, &j->f, err);
  if (rc == XIO_OK) { /* marked before the first data write */
    rc = xio_file_set_incomplete(j->f, 1, err);
    if (rc != XIO_OK) {
      xio_file_close(j->f, NULL);
      j->f = NULL;
      xio_file_delete(ctx, target, NULL);
    }
    return rc;
  }
  if (rc == XIO_EEXIST && force) {
    xio_error_clear(err);
    j->overwrite = 1;
    return overwrite_target(j, ctx, target, err);
  }
  if (rc == XIO_EEXIST && err) /* say how to replace it, as get does for LOCAL */
    snprintf(err->message, sizeof err->message, "%.400s already exists; --force replaces it",
             err->target[0] ? err->target : "TARGET");
  return rc;
}

static void put_report(const put_job *j, const char *target, double secs) {
  uint64_t pages = (j->size + PAGE - 1) / PAGE;
  double rate = secs > 0 ? (double)j->sent / secs / (1024.0 * 1024.0) : 0;
  char hs[32], hc[32], hn[32], ht[32];
  if (j->c->json) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "command", "put");
    cJSON_AddStringToObject(o, "source", j->local);
    cJSON_AddStringToObject(o, "target", target);
    cJSON_AddStringToObject(o, "kind", cli_kind_name(j->kind));
    cli_json_u64(o, "size", j->size);
    cli_json_u64(o, "extents", j->ext.n);
    cli_json_u64(o, "bytes_scanned", j->scanned);
    cli_json_u64(o, "bytes_sent", j->sent);
    cli_json_u64(o, "writes", j->writes);
    cli_json_u64(o, "pages_sent", j->pages_sent);
    cli_json_u64(o, "pages_skipped", pages - j->pages_sent);
    cJSON_AddNumberToObject(o, "seconds", secs);
    cJSON_AddNumberToObject(o, "mib_per_s", rate);
    cli_json_print(o);
    return;
  }
  cli_say(j->c,
          "put %s -> %s: %s %s file; scanned %s, sent %s in %" PRIu64 " write%s, skipped %" PRIu64
          " zero page%s, in %s (%.1f MiB/s)",
          j->local, target, samples_fmt_size(j->size, hs, sizeof hs), cli_kind_name(j->kind),
          samples_fmt_size(j->scanned, hc, sizeof hc), samples_fmt_size(j->sent, hn, sizeof hn),
          j->writes, cli_plural(j->writes), pages - j->pages_sent,
          cli_plural(pages - j->pages_sent), samples_fmt_secs(secs, ht, sizeof ht), rate);
}

/* Lists LOCAL's data extents and, unless --kind says, its recorded kind, through the
 * file layer (opened read-only: no lock, nothing written). A LOCAL that looks like a
 * URL is handed over as "./LOCAL", so that it stays a path. */
static xio_err inspect_local(put_job *j, const char *kind_s, xio_error *err) {
  const char *dot = xio_target_scheme_length(j->local) ? "./" : "";
  size_t n = strlen(dot) + strlen(j->local) + 1;
  char *path = xio_malloc(n);
  if (!path) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  snprintf(path, n, "%s%s", dot, j->local);
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_READONLY;
  xio_file *f;
  xio_err rc = cli_open(j->c, path, &o, &f, err);
  xio_free(path);
  if (rc != XIO_OK) return rc;
  if (!kind_s) j->kind = xio_file_kind(f);
  rc = xio_file_ranges(f, &j->ext, err);
  xio_err crc = xio_file_close(f, rc == XIO_OK ? err : NULL);
  return rc != XIO_OK ? rc : crc;
}

/* Opens LOCAL for reading and learns its size, kind and data extents. */
static xio_err open_local_source(put_job *j, const char *kind_s, xio_error *err) {
  struct stat st;
  j->fd = open(j->local, O_RDONLY | O_CLOEXEC);
  if (j->fd < 0) return xio_error_from_errno(err, errno, "OpenLocalFile", "open", j->local);
  if (fstat(j->fd, &st) != 0)
    return xio_error_from_errno(err, errno, "OpenLocalFile", "fstat", j->local);
  if (!S_ISREG(st.st_mode))
    return xio_error_set(err, XIO_EINVAL, "%s is not a regular file", j->local);
  j->size = (uint64_t)st.st_size;
  return inspect_local(j, kind_s, err);
}

/* A put stopped by a signal: what was sent and what is left; the target stays
 * marked incomplete. Frees `safe`. */
static int put_interrupted(const put_job *j, char *safe) {
  char hs[32], hl[32];
  uint64_t total = j->resume ? j->size : xio_ranges_bytes(&j->ext);
  fprintf(stderr,
          "xio: put interrupted by %s: %s of %s scanned and sent; %s is marked incomplete; "
          "`xio put --resume %s %s` finishes it\n",
          stop_signal == SIGINT ? "SIGINT" : "SIGTERM", samples_fmt_size(j->scanned, hs, sizeof hs),
          samples_fmt_size(total, hl, sizeof hl), safe ? safe : "the target", j->local,
          safe ? safe : "TARGET");
  xio_free(safe);
  return stop_status();
}

/* A failed overwrite in place: say that the target may hold part of the new content
 * and that its snapshots are kept. */
static int overwrite_failed(const put_job *j, xio_err rc, xio_error *e) {
  size_t n = strlen(e->message);
  snprintf(e->message + n, sizeof e->message - n,
           "; the target may hold part of the new content (its snapshots are kept): "
           "put --force again replaces it");
  return cli_fail(j->c, rc, e);
}

/* Uploads, then closes the target; removes a target it created that is left half
 * written (an overwritten one stays: deleting it would delete its snapshots). */
static int put_run(put_job *j, const char *target, int force) {
  xio_error e, ce;
  double t0 = samples_now();
  xio_err rc = create_target(j, target, force, &e);
  if (rc != XIO_OK) return j->overwrite ? overwrite_failed(j, rc, &e) : cli_fail(j->c, rc, &e);
  char *safe = xio_strdup(xio_file_path(j->f));
  rc = upload(j, &e);
  xio_err crc = xio_file_close(j->f, &ce);
  if (rc == XIO_OK && crc != XIO_OK) {
    rc = crc;
    e = ce;
  }
  if (rc == XIO_OK)
    put_report(j, safe ? safe : "", samples_now() - t0);
  else if (rc == XIO_ECANCELED && stop_signal)
    return put_interrupted(j, safe);
  else if (!j->overwrite)
    xio_file_delete(j->c->ctx, target, NULL);
  xio_free(safe);
  if (rc == XIO_OK) return CLI_OK;
  return j->overwrite ? overwrite_failed(j, rc, &e) : cli_fail(j->c, rc, &e);
}

static int run_put(cli *c, int argc, char **argv) {
  const char *kind_s = NULL, *pos[2];
  int force = 0, resume = 0;
  const cli_opt opts[] = {{"--kind", &kind_s, NULL},
                          {"--force", NULL, &force},
                          {"--resume", NULL, &resume},
                          {NULL, NULL, NULL}};
  int r = cli_parse(c, argc, argv, opts, "LOCAL TARGET", 2, pos);
  if (r != CLI_CONTINUE) return r;
  put_job j;
  memset(&j, 0, sizeof j);
  j.c = c;
  j.local = pos[0];
  j.resume = resume;
  catch_stop_signals();
  if ((r = cli_value_kind(c, kind_s, &j.kind)) != CLI_CONTINUE) return r;
  if (same_file(pos[0], pos[1])) return cli_usage_error(c, "LOCAL and TARGET are the same file");
  xio_error e;
  xio_err rc = open_local_source(&j, kind_s, &e);
  r = rc == XIO_OK ? put_run(&j, pos[1], force) : cli_fail(c, rc, &e);
  if (j.fd >= 0) close(j.fd);
  xio_ranges_clear(&j.ext);
  return r;
}

const cli_command cli_cmd_put = {
    "put",
    "upload a local file, skipping all-zero pages",
    "put LOCAL TARGET [--kind data|log] [--force] [--resume]",
    "Uploads the local file LOCAL to TARGET, a new file of the same size. Only the\n"
    "512-byte pages that hold something other than zeros are sent: holes of a\n"
    "sparse file are never read, and all-zero pages are skipped.\n"
    "\n"
    "Options:\n"
    "  --kind data|log   the kind of the new file (default: LOCAL's recorded kind,\n"
    "                    else data)\n"
    "  --force           replace TARGET's content when it exists: it is overwritten\n"
    "                    in place (resized, cleared, rewritten), so its snapshots\n"
    "                    stay\n"
    "  --resume          finish an interrupted put: compare TARGET with LOCAL and\n"
    "                    send only the pages that differ\n"
    "\n"
    "TARGET is marked incomplete until every write is acknowledged; SIGINT or SIGTERM\n"
    "stops issuing, waits for the writes in flight and exits 130 or 143.\n",
    run_put,
};

/* ------------------------------------------------------------- get ---- */

typedef struct get_job {
  cli *c;
  const char *local;
  char *partial;   /* LOCAL.xio-partial: the download until it is complete */
  int resume;      /* --resume: continue the partial file */
  uint64_t from;   /* everything below was already fetched (resume) */
  uint64_t issued; /* everything below was requested */
  char etag[80];   /* the source's ETag: a resume needs the same source */
  int fd;
  xio_file *f;
  uint64_t size, fetched, reads;
  xio_ranges ranges;
  cli_window w;
  cli_progress prog;
} get_job;

/* A read finished: its bytes go where they belong in the local file. */
static xio_err write_slot(cli_slot *s, void *ud, xio_error *err) {
  get_job *j = ud;
  xio_err rc = pwrite_all(j->fd, j->local, s->buf, s->io.transferred, s->io.offset, err);
  if (rc == XIO_OK) cli_progress_add(&j->prog, s->io.transferred);
  j->fetched += s->io.transferred;
  return rc;
}

static xio_err fetch_range(get_job *j, uint64_t start, uint64_t end, xio_error *err) {
  if (start < j->from) start = j->from;
  for (uint64_t off = start; off <= end;) {
    uint64_t next = chunk_end(off, end + 1);
    cli_slot *s;
    xio_err rc = check_stop(err);
    if (rc == XIO_OK) rc = cli_window_next(&j->w, &s, err);
    if (rc == XIO_OK)
      rc = cli_window_submit(&j->w, s, j->f, XIO_IO_READ, off, (size_t)(next - off), err);
    if (rc != XIO_OK) return rc;
    j->reads++;
    off = j->issued = next;
  }
  return XIO_OK;
}

#define XATTR_DONE "user.xio.get-done" /* on the partial file: "OFFSET ETAG" */

/* An interrupted get: the partial file records how far it got and from which
 * version of the source (its ETag), for --resume. */
static void record_progress(get_job *j) {
  char v[128];
  int n = snprintf(v, sizeof v, "%" PRIu64 " %s", j->issued, j->etag);
  (void)fsetxattr(j->fd, XATTR_DONE, v, (size_t)n, 0);
}

static xio_err download(get_job *j, xio_error *err) {
  xio_err rc = xio_file_ranges(j->f, &j->ranges, err);
  if (rc == XIO_OK && !j->resume && ftruncate(j->fd, (off_t)j->size) != 0)
    rc = xio_error_from_errno(err, errno, "WriteLocalFile", "ftruncate", j->local);
  if (rc == XIO_OK) rc = cli_window_init(&j->w, IN_FLIGHT, CHUNK, write_slot, j, err);
  cli_progress_start(&j->prog, j->c, "get", xio_ranges_bytes(&j->ranges));
  for (size_t i = 0; rc == XIO_OK && i < j->ranges.n; i++)
    rc = fetch_range(j, j->ranges.v[i].start, j->ranges.v[i].end, err);
  xio_error de;
  xio_err drc = cli_window_drain(&j->w, &de); /* also when stopped: wait for what is in flight */
  if (rc == XIO_OK && drc != XIO_OK) {
    rc = drc;
    *err = de;
  }
  if (rc == XIO_ECANCELED && drc == XIO_OK) record_progress(j);
  cli_progress_end(&j->prog);
  cli_window_free(&j->w);
  if (rc == XIO_OK) {
    const char *kind = xio_file_kind(j->f) == XIO_KIND_LOG ? "log" : "data";
    (void)fsetxattr(j->fd, "user.xio.kind", kind, strlen(kind), 0); /* best effort */
  }
  return rc;
}

static void get_report(const get_job *j, double secs) {
  double rate = secs > 0 ? (double)j->fetched / secs / (1024.0 * 1024.0) : 0;
  char hs[32], hf[32], ht[32];
  xio_kind kind = xio_file_kind(j->f);
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
}

/* --resume: opens the partial file and learns where it stopped; refused when the
 * source changed since (another ETag) or the partial file says nothing. */
static xio_err open_partial(get_job *j, xio_error *err) {
  j->fd = open(j->partial, O_WRONLY | O_CLOEXEC);
  if (j->fd < 0) return xio_error_from_errno(err, errno, "CreateLocalFile", "open", j->partial);
  char v[128], etag[96];
  ssize_t n = fgetxattr(j->fd, XATTR_DONE, v, sizeof v - 1);
  unsigned long long from = 0;
  if (n > 0) v[n] = '\0';
  if (n <= 0 || sscanf(v, "%llu %95s", &from, etag) != 2 || from > j->size)
    return xio_error_set(err, XIO_EINVAL,
                         "%s does not say how far the get went: get --force "
                         "starts over",
                         j->partial);
  if (strcmp(etag, j->etag) != 0)
    return xio_error_set(err, XIO_ECONFLICT,
                         "the source changed since %s was written (ETag "
                         "differs): get --force starts over",
                         j->partial);
  j->from = j->issued = from;
  return XIO_OK;
}

/* Creates the partial file beside LOCAL (refusing an existing LOCAL unless --force). */
static xio_err create_local(get_job *j, int force, xio_error *err) {
  if (!force && access(j->local, F_OK) == 0) {
    xio_error_set(err, XIO_EEXIST, "%s already exists; --force overwrites it", j->local);
    xio_error_set_operation(err, "CreateLocalFile");
    return XIO_EEXIST;
  }
  if (j->resume) return open_partial(j, err);
  j->fd = open(j->partial, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (j->fd >= 0) return XIO_OK;
  return xio_error_from_errno(err, errno, "CreateLocalFile", "open", j->partial);
}

/* A get stopped by a signal: what is left, and how to finish it. */
static int get_interrupted(const get_job *j) {
  char hf[32], ht[32];
  fprintf(stderr,
          "xio: get interrupted by %s: %s of %s fetched into %s; %s was not created; "
          "`xio get --resume %s %s` finishes it\n",
          stop_signal == SIGINT ? "SIGINT" : "SIGTERM", samples_fmt_size(j->fetched, hf, sizeof hf),
          samples_fmt_size(xio_ranges_bytes(&j->ranges), ht, sizeof ht), j->partial, j->local,
          xio_file_path(j->f), j->local);
  return stop_status();
}

static int get_run(get_job *j, int force) {
  xio_error e;
  double t0 = samples_now();
  xio_err rc = create_local(j, force, &e);
  if (rc != XIO_OK) return cli_fail(j->c, rc, &e);
  rc = download(j, &e);
  if (rc == XIO_OK) (void)fremovexattr(j->fd, XATTR_DONE);
  if (rc == XIO_OK && fsync(j->fd) != 0)
    rc = xio_error_from_errno(&e, errno, "WriteLocalFile", "fsync", j->partial);
  if (close(j->fd) != 0 && rc == XIO_OK)
    rc = xio_error_from_errno(&e, errno, "WriteLocalFile", "close", j->partial);
  j->fd = -1;
  if (rc == XIO_OK && rename(j->partial, j->local) != 0)
    rc = xio_error_from_errno(&e, errno, "WriteLocalFile", "rename", j->local);
  if (rc == XIO_ECANCELED && stop_signal) return get_interrupted(j);
  if (rc != XIO_OK)
    unlink(j->partial);
  else
    get_report(j, samples_now() - t0);
  return rc == XIO_OK ? CLI_OK : cli_fail(j->c, rc, &e);
}

static int run_get(cli *c, int argc, char **argv) {
  const char *pos[2];
  int force = 0, resume = 0;
  const cli_opt opts[] = {
      {"--force", NULL, &force}, {"--resume", NULL, &resume}, {NULL, NULL, NULL}};
  int r = cli_parse(c, argc, argv, opts, "TARGET LOCAL", 2, pos);
  if (r != CLI_CONTINUE) return r;
  if (same_file(pos[0], pos[1])) return cli_usage_error(c, "TARGET and LOCAL are the same file");
  get_job j;
  memset(&j, 0, sizeof j);
  j.c = c;
  j.local = pos[1];
  j.fd = -1;
  j.resume = resume;
  size_t n = strlen(j.local) + sizeof ".xio-partial";
  if (!(j.partial = xio_malloc(n))) {
    xio_error e;
    xio_error_clear(&e);
    return cli_fail(c, xio_error_set(&e, XIO_ENOMEM, "out of memory"), &e);
  }
  snprintf(j.partial, n, "%s.xio-partial", j.local);
  catch_stop_signals();
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_READONLY;
  xio_error e;
  xio_file_info info;
  xio_err rc = cli_open(c, pos[0], &o, &j.f, &e);
  if (rc == XIO_OK) rc = xio_file_stat(j.f, &info, &e);
  if (rc != XIO_OK) {
    xio_file_close(j.f, NULL);
    xio_free(j.partial);
    return cli_fail(c, rc, &e);
  }
  snprintf(j.etag, sizeof j.etag, "%s", info.etag[0] ? info.etag : "-");
  j.size = xio_file_size(j.f);
  r = get_run(&j, force || resume);
  xio_free(j.partial);
  xio_ranges_clear(&j.ranges);
  xio_file_close(j.f, NULL);
  return r;
}

const cli_command cli_cmd_get = {
    "get",
    "download a file, fetching only allocated ranges",
    "get TARGET LOCAL [--force] [--resume]",
    "Downloads TARGET into the local file LOCAL, which is made sparse: only the\n"
    "allocated ranges (page ranges of a blob) are read; the rest stays a hole that\n"
    "reads as zeros. The file kind is recorded in LOCAL's user.xio.kind attribute.\n"
    "\n"
    "Options:\n"
    "  --force    overwrite LOCAL when it exists\n"
    "  --resume   finish an interrupted get from where LOCAL.xio-partial stopped\n"
    "             (refused when TARGET changed since)\n"
    "\n"
    "The download goes to LOCAL.xio-partial, renamed to LOCAL once complete; SIGINT or\n"
    "SIGTERM stops issuing, waits for the reads in flight and exits 130 or 143.\n",
    run_get,
};
