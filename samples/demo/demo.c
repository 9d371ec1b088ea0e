/*
 * demo.c - the create-database experiment behind `xio demo` and `make demo`.
 *
 * A database is a data file and a log file. The classic way initializes every new
 * byte by writing zeros; the instant way skips that for the data file (instant file
 * initialization) and zeroes the log by metadata (one Put Page clear, or
 * FALLOC_FL_ZERO_RANGE on a local disk). Both ways run here on the same storage,
 * timed, with their storage requests counted from the trace; then the instant log is
 * grown from 8 MiB to 1 TiB and read back to show the new region is zero. Growing by
 * a terabyte the classic way is not run: it is estimated from the zero-write rate
 * measured above, and marked as such. The classic zero-writes, the long part, show a
 * progress line (samples_progress.h) counted from the bytes of the trace's requests.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include <xio/auth.h>

#include "demo_int.h"
#include "samples_progress.h"

#define MiB (1024ull * 1024)
#define GiB (1024ull * MiB)
#define TiB (1024ull * GiB)

xio_demo_options xio_demo_options_default(void) {
  xio_demo_options o = {NULL, NULL, 2 * GiB, 512 * MiB, 8 * MiB, TiB, 0, NULL, 0};
  return o;
}

/* ------------------------------------------------------------ tracing ---- */

typedef struct recorder {
  pthread_mutex_t mu;
  int requests, set_size, zero;
  char *lines;
  size_t len;
  int keep_lines;
  samples_progress *progress; /* counts the bytes written, or NULL */
} recorder;

static void on_event(const xio_trace_event *ev, void *ud) {
  recorder *r = ud;
  if (strcmp(ev->event, "xio_send_complete") != 0) return; /* a refused try, not a request */
  char *line = r->keep_lines ? xio_trace_event_json(ev) : NULL;
  pthread_mutex_lock(&r->mu);
  r->requests++;
  r->set_size += ev->request_type == XIO_REQ_SET_SIZE;
  r->zero += ev->request_type == XIO_REQ_ZERO;
  /* The zeros written (typed as zeroing, XIO_REQ_ZERO, as a clear is) and any data. */
  if (r->progress && (ev->request_type == XIO_REQ_ZERO || ev->request_type == XIO_REQ_WRITE))
    samples_progress_add(r->progress, ev->length);
  if (line) {
    size_t n = strlen(line);
    char *grown = realloc(r->lines, r->len + n + 2);
    if (grown) {
      memcpy(grown + r->len, line, n + 1);
      grown[r->len + n] = '\n';
      grown[r->len + n + 1] = '\0';
      r->lines = grown;
      r->len += n + 1;
    }
  }
  pthread_mutex_unlock(&r->mu);
  free(line);
}

static void recorder_reset(recorder *r, int keep_lines, samples_progress *progress) {
  pthread_mutex_lock(&r->mu);
  r->requests = r->set_size = r->zero = 0;
  free(r->lines);
  r->lines = NULL;
  r->len = 0;
  r->keep_lines = keep_lines;
  r->progress = progress;
  pthread_mutex_unlock(&r->mu);
}

/* Ends the progress line the recorder counted into, if any: erased on a terminal,
 * where the step's line takes its place. */
static void recorder_end_progress(recorder *r) {
  pthread_mutex_lock(&r->mu);
  if (r->progress) samples_progress_erase(r->progress);
  r->progress = NULL;
  pthread_mutex_unlock(&r->mu);
}

typedef struct demo {
  const xio_demo_options *o;
  xio_ctx *ctx;
  recorder rec;
  char base[512]; /* container URL or directory, without a trailing '/' */
  char conn[1024];
} demo;

static void target(const demo *d, const char *name, char *out, size_t size) {
  snprintf(out, size, "%s/%s", d->base, name);
}

/* Tells a person at a terminal what is going on while it runs (not in JSON mode). */
static void step(const demo *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void step(const demo *d, const char *fmt, ...) {
  if (d->o->json) return;
  FILE *out = d->o->out ? d->o->out : stdout;
  va_list ap;
  va_start(ap, fmt);
  vfprintf(out, fmt, ap);
  va_end(ap);
  fflush(out);
}

/* When the classic zero-writes show a progress line: as the CLI's put and get do it. */
static samples_progress_mode progress_mode(const xio_demo_options *o) {
  if (o->json) return SAMPLES_PROGRESS_OFF;
  return o->progress ? SAMPLES_PROGRESS_ALWAYS : SAMPLES_PROGRESS_TTY;
}

/* Creates `name` with `size` bytes initialized per `init`; returns seconds taken and
 * the requests made. The file is left closed (it is deleted later). */
static xio_err timed_create(demo *d, const char *name, xio_kind kind, uint64_t size, xio_init init,
                            double *secs, int *requests, xio_error *err) {
  char url[1024];
  target(d, name, url, sizeof url);
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_CREATE_ONLY;
  o.kind = kind;
  o.size = size;
  o.init = init;
  xio_file *f = NULL;
  char human[32];
  samples_fmt_size(size, human, sizeof human);
  /* Writing zeros takes long: a progress line shows, and the step's line is printed
   * whole when done (on a terminal it replaces the progress line). */
  samples_progress prog;
  samples_progress_start(&prog, name, size,
                         init == XIO_INIT_ZERO ? progress_mode(d->o) : SAMPLES_PROGRESS_OFF);
  char intro[256];
  snprintf(intro, sizeof intro, "creating %s (%s, init %s) ...", name, human, xio_init_name(init));
  if (!prog.on) step(d, "%s", intro);
  recorder_reset(&d->rec, 0, prog.on ? &prog : NULL);
  double t = samples_now();
  xio_err rc = xio_file_open(d->ctx, url, &o, &f, err);
  *secs = samples_now() - t;
  recorder_end_progress(&d->rec);
  *requests = d->rec.requests;
  if (rc == XIO_OK) rc = xio_file_close(f, err);
  samples_fmt_secs(*secs, human, sizeof human);
  step(d, "%s %s\n", prog.on ? intro : "", human);
  return rc;
}

/* ------------------------------------------------------------- phases ---- */

static xio_err create_rows(demo *d, demo_result *r, xio_error *err) {
  demo_row *data = &r->rows[0], *log = &r->rows[1];
  *data = (demo_row){"create data file",
                     "data.mdf",
                     d->o->data_size,
                     d->o->data_size,
                     "zero",
                     "none",
                     0,
                     0,
                     0,
                     0,
                     0};
  *log = (demo_row){
      "create log file", "log.ldf", d->o->log_size, d->o->log_size, "zero", "clear", 0, 0, 0, 0, 0};
  xio_err rc = timed_create(d, "classic_data.mdf", XIO_KIND_DATA, data->size, XIO_INIT_ZERO,
                            &data->classic_s, &data->classic_requests, err);
  if (rc == XIO_OK)
    rc = timed_create(d, "instant_data.mdf", XIO_KIND_DATA, data->size, XIO_INIT_NONE,
                      &data->instant_s, &data->instant_requests, err);
  if (rc == XIO_OK)
    rc = timed_create(d, "classic_log.ldf", XIO_KIND_LOG, log->size, XIO_INIT_ZERO, &log->classic_s,
                      &log->classic_requests, err);
  if (rc == XIO_OK)
    rc = timed_create(d, "instant_log.ldf", XIO_KIND_LOG, log->size, XIO_INIT_CLEAR,
                      &log->instant_s, &log->instant_requests, err);
  r->nrows = 2;
  double zeroed = (double)(data->size + log->size), t = data->classic_s + log->classic_s;
  r->zero_rate = t > 0 ? zeroed / t : 0;
  return rc;
}

/* Reads 4 KiB at the start, the end and 16 spots between of [from, to). */
static xio_err verify_zero(xio_file *f, demo_result *r, xio_error *err) {
  char buf[4096];
  uint64_t from = r->grow_from, span = r->grow_to - from - sizeof buf;
  for (int i = 0; i < 18; i++) {
    uint64_t off = i == 0    ? from
                   : i == 17 ? r->grow_to - sizeof buf
                             : from + span / 17 * (uint64_t)i;
    off -= off % XIO_PAGE_SIZE;
    size_t got = 0;
    memset(buf, 0x5a, sizeof buf);
    xio_err rc = xio_file_read(f, off, buf, sizeof buf, &got, err);
    if (rc != XIO_OK) return rc;
    int zero = got == sizeof buf;
    for (size_t k = 0; zero && k < got; k++)
      zero = buf[k] == 0;
    r->samples++;
    r->samples_zero += zero;
  }
  return XIO_OK;
}

static void estimate_classic_growth(demo_row *row, const demo_result *r) {
  uint64_t pieces = (row->size + 4 * MiB - 1) / (4 * MiB);
  row->classic_estimated = 1;
  row->classic_s = r->zero_rate > 0 ? (double)row->size / r->zero_rate : 0;
  row->classic_requests = (int)(pieces > INT32_MAX ? INT32_MAX : pieces) + 1;
}

static xio_err grow_row(demo *d, demo_result *r, xio_error *err) {
  demo_row *row = &r->rows[2];
  char url[1024];
  *row = (demo_row){"grow log file to",
                    "growing.ldf",
                    r->grow_to - r->grow_from,
                    r->grow_to,
                    "zero",
                    "clear",
                    0,
                    0,
                    0,
                    0,
                    0};
  target(d, row->file, url, sizeof url);
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_CREATE_ONLY;
  o.kind = XIO_KIND_LOG;
  o.size = r->grow_from;
  xio_file *f = NULL;
  xio_err rc = xio_file_open(d->ctx, url, &o, &f, err);
  if (rc != XIO_OK) return rc;
  char from[32], to[32];
  samples_fmt_size(r->grow_from, from, sizeof from);
  samples_fmt_size(r->grow_to, to, sizeof to);
  step(d, "growing %s from %s to %s (init clear) ...", row->file, from, to);
  recorder_reset(&d->rec, 1, NULL);
  double t = samples_now();
  rc = xio_file_set_size(f, r->grow_to, XIO_INIT_CLEAR, err);
  row->instant_s = samples_now() - t;
  samples_fmt_secs(row->instant_s, to, sizeof to);
  step(d, " %s\n", to);
  pthread_mutex_lock(&d->rec.mu);
  row->instant_requests = d->rec.requests;
  r->growth_events = d->rec.requests;
  r->growth_set_size = d->rec.set_size;
  r->growth_zero = d->rec.zero;
  r->growth_trace = d->rec.lines;
  d->rec.lines = NULL;
  d->rec.keep_lines = 0;
  pthread_mutex_unlock(&d->rec.mu);
  if (rc == XIO_OK) rc = verify_zero(f, r, err);
  xio_err rc2 = xio_file_close(f, rc == XIO_OK ? err : NULL);
  estimate_classic_growth(row, r);
  r->nrows = 3;
  return rc != XIO_OK ? rc : rc2;
}

/* ------------------------------------------------------ setup, cleanup ---- */

/* Creates the demo's container up front, so that no timed operation pays for it:
 * creating a file creates its container; the empty file is deleted again. */
static xio_err create_container(demo *d, xio_error *err) {
  char url[1024];
  target(d, "warm-up.mdf", url, sizeof url);
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_CREATE_ONLY;
  xio_file *f = NULL;
  xio_err rc = xio_file_open(d->ctx, url, &o, &f, err);
  if (rc == XIO_OK) rc = xio_file_close(f, err);
  if (rc == XIO_OK) rc = xio_file_delete(d->ctx, url, err);
  return rc;
}

/* On a local disk ZERO_RANGE reserves real blocks: grow only as far as fits. */
static uint64_t local_growth_limit(const char *dir, uint64_t want) {
  struct statvfs s;
  if (statvfs(dir, &s) != 0) return want;
  uint64_t free_bytes = (uint64_t)s.f_bavail * s.f_frsize, cap = free_bytes / 4;
  uint64_t g = want;
  while (g > 64 * MiB && g > cap)
    g /= 2;
  return g;
}

static xio_err setup(demo *d, demo_result *r, xio_error *err) {
  const xio_demo_options *o = d->o;
  xio_ctx_options co = xio_ctx_options_default();
  co.use_environment = 0;
  co.trace = on_event;
  co.trace_ud = &d->rec;
  r->grow_from = o->grow_from;
  r->grow_to = o->grow_to;
  if (o->endpoint) {
    snprintf(d->conn, sizeof d->conn,
             "DefaultEndpointsProtocol=http;AccountName=%s;AccountKey=%s;BlobEndpoint=%s/%s;",
             XIO_AUTH_DEV_ACCOUNT, XIO_AUTH_DEV_KEY, o->endpoint, XIO_AUTH_DEV_ACCOUNT);
    co.connection_string = d->conn;
    /* One container for every run (its blobs are deleted at the end, so nothing
     * piles up in an emulator that outlives the demo), each run's blobs under a
     * prefix of its own. */
    snprintf(d->base, sizeof d->base, "%s/%s/xio-demo/run-%ld-%ld", o->endpoint,
             XIO_AUTH_DEV_ACCOUNT, (long)time(NULL), (long)getpid());
    r->backend = "page blobs (Azurite, in memory, on loopback)";
    r->where = o->endpoint;
  } else {
    snprintf(d->base, sizeof d->base, "%s", o->local_dir);
    r->backend = "local files";
    r->where = o->local_dir;
    r->grow_to = r->grow_from + local_growth_limit(o->local_dir, o->grow_to - o->grow_from);
  }
  xio_err rc = xio_ctx_new(&co, &d->ctx, err);
  if (rc == XIO_OK && o->endpoint) rc = create_container(d, err);
  return rc;
}

static void cleanup(demo *d) {
  static const char *const names[] = {"classic_data.mdf", "instant_data.mdf", "classic_log.ldf",
                                      "instant_log.ldf", "growing.ldf"};
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    char url[1024];
    target(d, names[i], url, sizeof url);
    xio_file_delete(d->ctx, url, NULL);
  }
  xio_ctx_free(d->ctx);
}

static xio_err check(const xio_demo_options *o, xio_error *err) {
  if (!o->endpoint == !o->local_dir)
    return xio_error_set(err, XIO_EINVAL, "give either an emulator endpoint or a local directory");
  if (o->grow_to <= o->grow_from || o->grow_from == 0 || o->data_size == 0 || o->log_size == 0)
    return xio_error_set(err, XIO_EINVAL, "sizes must be positive and the growth must grow");
  return XIO_OK;
}

xio_err xio_demo_run(const xio_demo_options *opts, xio_error *err) {
  xio_err rc = check(opts, err);
  if (rc != XIO_OK) return rc;
  demo d;
  demo_result r;
  memset(&d, 0, sizeof d);
  memset(&r, 0, sizeof r);
  d.o = opts;
  pthread_mutex_init(&d.rec.mu, NULL);
  rc = setup(&d, &r, err);
  if (rc == XIO_OK)
    step(&d, "A database the classic way (zeros written) and the instant way, on %s:\n", r.backend);
  if (rc == XIO_OK) rc = create_rows(&d, &r, err);
  if (rc == XIO_OK) rc = grow_row(&d, &r, err);
  if (rc == XIO_OK) demo_report(opts->out ? opts->out : stdout, &r, opts->json);
  if (d.ctx) cleanup(&d);
  free(r.growth_trace);
  free(d.rec.lines);
  pthread_mutex_destroy(&d.rec.mu);
  return rc;
}
