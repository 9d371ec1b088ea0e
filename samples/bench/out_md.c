/*
 * out_md.c - the reports for people. results.md: the machine and its caveats first,
 * then the headlines, the growth tables per backend (median with min – max, "*"
 * for extrapolated entries), bulk and random I/O, the plots, and how it was
 * measured. The terminal summary at the end of a run: the same tables (medians)
 * and headlines as aligned text.
 */
#include <string.h>

#include "bench.h"

static void context(const bench_report *rep, FILE *f) {
  const bench_context *x = rep->ctx;
  const bench_config *c = rep->cfg;
  char mem[32], cap[32], up[32], s[32];
  fprintf(f, "# xio-bench results\n\n");
  fprintf(f, "Measured %s on %ld CPUs (%s), %s RAM, %s.\n\n", x->date, x->nproc, x->cpu,
          samples_fmt_size(x->mem_bytes, mem, sizeof mem), x->kernel);
  if (x->target[0])
    fprintf(f, "**Page-blob growth: %s.** Requests cross the network from this machine.\n\n",
            x->target);
  else
    fprintf(f,
            "**Page blobs: Azurite, an in-memory emulator on loopback (%s), not Azure.** Client "
            "and emulator share this machine's CPUs; on Azure, requests cross a network and the "
            "service's limits apply (about 60 MiB/s and 500 requests/s per standard page "
            "blob).\n\n",
            x->endpoint[0] ? x->endpoint : "not measured");
  fprintf(f,
          "Load average %.2f at the start, %.2f at the end: other work on this machine "
          "(%ld CPUs) shows up as noise.\n\n",
          x->load_start, x->load_end, x->nproc);
  fprintf(f, "Local files: `%s` (%s).%s\n\n", x->local_dir, x->local_fs ? x->local_fs : "?",
          x->sanitized ? " **Built with AddressSanitizer: times are not representative.**" : "");
  fprintf(f, "Settings: sizes");
  for (int i = 0; i < c->nsizes; i++)
    fprintf(f, "%s %s", i ? "," : "", samples_fmt_size(c->sizes[i], s, sizeof s));
  fprintf(f,
          "; %d runs each, init zero %d (median, min – max); init zero above %s "
          "extrapolated (\\*); page-blob writes carry a %s checksum; total time %.0f s.\n",
          c->runs, c->zero_runs, samples_fmt_size(c->zero_cap, cap, sizeof cap),
          bench_checksum_name(c->checksum), x->total_seconds);
  if (x->emulator_resets)
    fprintf(f,
            "\nThe emulator was restarted %d time%s (not timed) to free the memory of deleted "
            "blobs (%s uploaded in all; Azurite frees deleted blobs only in a garbage collection "
            "every 10 minutes).\n",
            x->emulator_resets, x->emulator_resets > 1 ? "s" : "",
            samples_fmt_size(x->emulator_uploaded, up, sizeof up));
}

static void method(FILE *f) {
  fprintf(f,
          "\n## How it was measured\n\n"
          "- **create**: `xio_file_open(CREATE_ONLY, size, init)`; **grow**: an 8 MiB file grown "
          "to 8 MiB + SIZE with `xio_file_set_size(init)`; **zero**: `xio_file_zero(0, SIZE, "
          "init)` on an existing file of SIZE.\n"
          "- Each timed run is the operation plus `xio_file_flush` (local files: fdatasync, so "
          "written zeros count once on disk). Setup, close and delete are not timed; every file "
          "is deleted after its run.\n"
          "- init **none**: no zeroing (instant file initialization); **zero**: writing zeros in "
          "4 MiB requests; **clear**: metadata zeroing (Put Page `x-ms-page-write: clear`; "
          "locally `fallocate(FALLOC_FL_ZERO_RANGE)`).\n"
          "- Requests are the storage requests of one run, counted from the trace callback "
          "(`xio_ctx_options.trace`, one `xio_send_complete` event per request).\n"
          "- Local clear allocates real blocks on ext4 (unwritten extents): sizes that would not "
          "fit with a safety margin are skipped.\n"
          "- Bulk: 4 MiB requests kept in flight with `xio_file_submit` (context `max_in_flight` "
          "equal to the depth); CPU is this process's user + system time (getrusage), the "
          "emulator's excluded.\n"
          "- Random: latency from just before `xio_file_submit` to the completion callback; the "
          "file is written in full first.\n");
}

static void plots(const bench_report *rep, FILE *f) {
  fprintf(f, "\n## Plots\n\n");
  if (rep->plot_note[0]) fprintf(f, "%s\n", rep->plot_note);
  for (int i = 0; i < rep->nplots; i++)
    if (strstr(rep->plots[i], ".png")) fprintf(f, "![%s](%s)\n\n", rep->plots[i], rep->plots[i]);
  for (int i = 0; i < rep->nplots; i++)
    if (strstr(rep->plots[i], ".svg")) fprintf(f, "- [%s](%s)\n", rep->plots[i], rep->plots[i]);
}

int bench_write_md(const bench_report *rep, const char *path) {
  FILE *f = fopen(path, "w");
  if (!f) {
    perror(path);
    return 1;
  }
  const char *backends[2] = {"pageblob", "local"};
  context(rep, f);
  fprintf(f, "\n## Headlines\n\n");
  bench_headlines(rep, 1, f);
  for (int b = 0; b < 2; b++) {
    char t[64];
    fprintf(f, "\n## Growth: %s\n", bench_backend_title(rep, backends[b], t, sizeof t));
    for (int o = 0; o < 3; o++)
      bench_growth_table(rep, backends[b], bench_growth_ops[o], 1, f);
  }
  fprintf(f, "\n## I/O through xio\n");
  bench_bulk_table(rep, 1, f);
  bench_random_table(rep, 1, f);
  bench_throttling_table(rep, 1, f);
  plots(rep, f);
  method(f);
  return fclose(f) == 0 ? 0 : 1;
}

void bench_print_summary(const bench_report *rep, FILE *out) {
  const bench_context *x = rep->ctx;
  const char *backends[2] = {"pageblob", "local"};
  fprintf(out, "== results (%ld CPUs; %s) ==\n", x->nproc, bench_context_caveat(x));
  fprintf(out, "   times are medians of %d runs (init zero: %d); * = extrapolated, not run\n",
          rep->cfg->runs, rep->cfg->zero_runs);
  for (int b = 0; b < 2; b++)
    for (int o = 0; o < 3; o++)
      bench_growth_table(rep, backends[b], bench_growth_ops[o], 0, out);
  bench_bulk_table(rep, 0, out);
  bench_random_table(rep, 0, out);
  bench_throttling_table(rep, 0, out);
  fprintf(out, "\nheadlines:\n");
  bench_headlines(rep, 0, out);
  if (x->emulator_resets)
    fprintf(out, "\nthe emulator was restarted %d time%s to free memory (not timed)\n",
            x->emulator_resets, x->emulator_resets > 1 ? "s" : "");
  fprintf(out, "load average: %.2f at the start, %.2f at the end (%ld CPUs)\n", x->load_start,
          x->load_end, x->nproc);
  fprintf(out, "total benchmark time: %.0f s\n", x->total_seconds);
}
