/*
 * append.c - the append section of xio-bench: how a log writer's appends cost, in
 * requests and time, on page blobs (the emulator) and local files. Records of 100 B,
 * 4 KiB and 60 KiB are appended to a log opened XIO_OPEN_LEASE |
 * XIO_OPEN_UNALIGNED and grown ahead with clear, with a flush every 1, 10 or 100
 * records, three ways:
 *   naive         one asynchronous xio_file_submit per record at its offset, as an
 *                 engine writes without thinking of sectors (the file layer combines
 *                 them and fills their edge sectors from memory);
 *   held          one xio_file_hold per record (a copy, no request) and the flush
 *                 sends them: write-back, with no combining window to outrun;
 *   hand-aligned  the records gathered in memory and written at each flush as one
 *                 512-aligned write, the partial last sector kept for the next one
 *                 (what an engine that knows page blobs does by itself).
 * Reported per case: storage requests per flush (writes and reads, from
 * xio_file_stats), records per second, and the 50th/99th percentile of the flush
 * latency; printed, and written to append.md and append.csv in --out.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bench.h"

#define SECTOR 512

static const size_t record_sizes[] = {100, 4096, 60 * 1024};
static const int flush_every[] = {1, 10, 100};

typedef struct append_case {
  const char *backend, *mode;
  size_t record;
  int every, records, flushes;
  uint64_t writes, reads;
  double seconds, p50_ms, p99_ms;
  const char *status;
} append_case;

/* Records of one case: the count (capped at 16 MiB of them), and their bytes. */
static int case_records(const bench_config *c, size_t record) {
  uint64_t cap = 16 * BENCH_MiB / record;
  return (int)((uint64_t)c->append_records < cap ? (uint64_t)c->append_records : cap);
}

/* Naive: each record its own asynchronous write; `ios` holds one per record. */
static xio_err run_naive(xio_file *f, const char *data, append_case *k, xio_io *ios, double *lat,
                         xio_error *e) {
  for (int i = 0; i < k->records; i++) {
    xio_io *io = &ios[i];
    memset(io, 0, sizeof *io);
    io->op = XIO_IO_WRITE;
    io->offset = (uint64_t)i * k->record;
    io->length = k->record;
    io->buf = (void *)(data + (size_t)i * k->record);
    xio_err rc = xio_file_submit(f, io, e);
    if (rc != XIO_OK) return xio_file_flush(f, NULL), rc;
    if ((i + 1) % k->every && i + 1 != k->records) continue;
    double t0 = samples_now();
    if ((rc = xio_file_flush(f, e)) != XIO_OK) return rc;
    lat[k->flushes++] = samples_now() - t0;
  }
  return XIO_OK;
}

/* Held: each record held by the file layer, sent by the flush. */
static xio_err run_held(xio_file *f, const char *data, append_case *k, double *lat, xio_error *e) {
  for (int i = 0; i < k->records; i++) {
    xio_err rc =
        xio_file_hold(f, (uint64_t)i * k->record, data + (size_t)i * k->record, k->record, e);
    if (rc != XIO_OK) return rc;
    if ((i + 1) % k->every && i + 1 != k->records) continue;
    double t0 = samples_now();
    if ((rc = xio_file_flush(f, e)) != XIO_OK) return rc;
    lat[k->flushes++] = samples_now() - t0;
  }
  return XIO_OK;
}

/* Hand-aligned: at each flush, the sectors from the one holding the first unwritten
 * byte to the end of the last record, written at once (zeros past the end). */
static xio_err run_aligned(xio_file *f, const char *data, append_case *k, char *block, double *lat,
                           xio_error *e) {
  uint64_t done = 0; /* bytes written so far */
  for (int i = 0; i < k->records; i++) {
    if ((i + 1) % k->every && i + 1 != k->records) continue;
    double t0 = samples_now();
    uint64_t end = (uint64_t)(i + 1) * k->record, start = done / SECTOR * SECTOR;
    size_t len = (size_t)((end + SECTOR - 1) / SECTOR * SECTOR - start);
    memset(block + (end - start), 0, len - (size_t)(end - start));
    memcpy(block, data + start, (size_t)(end - start));
    xio_err rc = xio_file_write(f, start, block, len, e);
    if (rc == XIO_OK) rc = xio_file_flush(f, e);
    if (rc != XIO_OK) return rc;
    lat[k->flushes++] = samples_now() - t0;
    done = end;
  }
  return XIO_OK;
}

static void run_case(bench_target *t, const char *data, append_case *k, xio_io *ios, char *block,
                     double *lat) {
  char target[1200];
  bench_target_file(t, "append", target, sizeof target);
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_CREATE | XIO_OPEN_LEASE | XIO_OPEN_UNALIGNED;
  o.kind = XIO_KIND_LOG;
  o.size = (uint64_t)k->records * k->record + BENCH_MiB;
  xio_file *f = NULL;
  xio_error e;
  k->status = "failed";
  if (xio_file_open(t->ctx, target, &o, &f, &e) != XIO_OK) return;
  xio_file_stats s0, s1;
  xio_file_get_stats(f, &s0);
  double t0 = samples_now();
  xio_err rc = strcmp(k->mode, "naive") == 0  ? run_naive(f, data, k, ios, lat, &e)
               : strcmp(k->mode, "held") == 0 ? run_held(f, data, k, lat, &e)
                                              : run_aligned(f, data, k, block, lat, &e);
  k->seconds = samples_now() - t0;
  xio_file_get_stats(f, &s1);
  xio_file_close(f, NULL);
  xio_file_delete(t->ctx, target, NULL);
  if (rc != XIO_OK) return;
  k->writes = s1.write_requests - s0.write_requests;
  k->reads = s1.read_requests - s0.read_requests;
  bench_sort(lat, (size_t)k->flushes);
  k->p50_ms = 1000 * bench_quantile(lat, (size_t)k->flushes, 0.5);
  k->p99_ms = 1000 * bench_quantile(lat, (size_t)k->flushes, 0.99);
  k->status = "ok";
}

static void print_case(FILE *out, const append_case *k, int md) {
  double per = k->flushes ? (double)(k->writes + k->reads) / k->flushes : 0;
  double rps = k->seconds > 0 ? k->records / k->seconds : 0;
  if (md)
    fprintf(out, "| %s | %zu B | %d | %s | %.2f | %.2f | %.0f | %.2f | %.2f | %.3f | %s |\n",
            k->backend, k->record, k->every, k->mode, per,
            k->flushes ? (double)k->reads / k->flushes : 0, rps, k->p50_ms, k->p99_ms, k->seconds,
            k->status);
  else
    fprintf(out, "%s,%zu,%d,%s,%d,%d,%llu,%llu,%.4f,%.1f,%.4f,%.4f,%.4f,%s\n", k->backend,
            k->record, k->every, k->mode, k->records, k->flushes, (unsigned long long)k->writes,
            (unsigned long long)k->reads, per, rps, k->p50_ms, k->p99_ms, k->seconds, k->status);
}

static const char md_head[] =
    "| backend | record | flush every | mode | requests/flush | reads/flush | records/s | "
    "p50 flush ms | p99 flush ms | wall s | status |\n"
    "|---|---|---|---|---|---|---|---|---|---|---|\n";

static void write_reports(const bench_config *c, const append_case *k, int n) {
  char path[1200];
  mkdir(c->out_dir, 0777); /* the other reports make it later; it may exist */
  snprintf(path, sizeof path, "%s/append.csv", c->out_dir);
  FILE *csv = fopen(path, "w");
  snprintf(path, sizeof path, "%s/append.md", c->out_dir);
  FILE *md = fopen(path, "w");
  if (csv) {
    fputs("backend,record,flush_every,mode,records,flushes,write_requests,read_requests,"
          "requests_per_flush,records_per_s,p50_ms,p99_ms,seconds,status\n",
          csv);
    for (int i = 0; i < n; i++)
      print_case(csv, &k[i], 0);
    fclose(csv);
  }
  if (md) {
    fputs("# Appends: naive and held against hand-aligned\n\n", md);
    fputs(md_head, md);
    for (int i = 0; i < n; i++)
      print_case(md, &k[i], 1);
    fclose(md);
  }
}

/* The cases of one backend into `k`; returns how many. */
static int run_backend(const bench_config *c, bench_target *t, append_case *k) {
  size_t maxrec = 0;
  int n = 0, maxn = 0;
  for (size_t r = 0; r < 3; r++) {
    int recs = case_records(c, record_sizes[r]);
    if ((size_t)recs * record_sizes[r] > maxrec) maxrec = (size_t)recs * record_sizes[r];
    if (recs > maxn) maxn = recs;
  }
  if (maxn < 1) maxn = 1; /* a case always has records; never ask for 0 bytes */
  if (maxrec < 1) maxrec = 1;
  char *data = malloc(maxrec), *block = malloc(maxrec + 2 * SECTOR);
  xio_io *ios = calloc((size_t)maxn, sizeof *ios);
  double *lat = calloc((size_t)maxn, sizeof *lat);
  if (!data || !block || !ios || !lat) {
    fprintf(stderr, "xio-bench: out of memory for the append section\n");
  } else {
    uint64_t rng = c->seed;
    for (size_t i = 0; i < maxrec; i++)
      data[i] = (char)('a' + bench_rand(&rng) % 26);
    for (size_t r = 0; r < 3; r++)
      for (size_t fe = 0; fe < 3; fe++)
        for (int m = 0; m < 3; m++) {
          append_case *x = &k[n++];
          memset(x, 0, sizeof *x);
          x->backend = t->backend;
          x->mode = m == 0 ? "naive" : m == 1 ? "held" : "hand-aligned";
          x->record = record_sizes[r];
          x->every = flush_every[fe];
          x->records = case_records(c, x->record);
          run_case(t, data, x, ios, block, lat);
          print_case(stdout, x, 1);
          fflush(stdout);
        }
  }
  free(data);
  free(block);
  free(ios);
  free(lat);
  return n;
}

int bench_append(const bench_config *c, bench_emulator *em, int have_em, bench_counts *tally) {
  append_case k[2 * 27];
  int n = 0, failed = 0;
  printf("%s", md_head);
  for (int b = 0; b < 2; b++) {
    int local = b == 1;
    if (local ? !c->do_local : !(c->do_pageblob && have_em)) continue;
    bench_target t;
    xio_error e;
    xio_err rc = local ? bench_target_local(&t, c->local_dir, c->disk_margin, &e)
                       : bench_target_pageblob(&t, em, 32, c, &e);
    if (!local) t.tally = tally;
    if (rc == XIO_OK) n += run_backend(c, &t, k + n);
    bench_target_close(&t);
    if (rc != XIO_OK) failed = 1;
  }
  for (int i = 0; i < n; i++)
    failed |= strcmp(k[i].status, "ok") != 0;
  if (c->out_dir) write_reports(c, k, n);
  return failed;
}
