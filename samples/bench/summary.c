/*
 * summary.c - what xio-bench prints at the end: the machine context, the growth
 * tables (medians), the headlines, and the bulk and random I/O tables.
 */
#include "bench.h"

void bench_print_summary(const bench_report *rep, FILE *out) {
  const bench_context *x = rep->ctx;
  const char *backends[2] = {"pageblob", "local"};
  fprintf(out, "== results (%ld CPUs; %s) ==\n", x->nproc, bench_context_caveat());
  fprintf(out, "   times are medians of %d runs (init zero: %d); * = extrapolated, not run\n",
          rep->cfg->runs, rep->cfg->zero_runs);
  for (int b = 0; b < 2; b++)
    for (int o = 0; o < 3; o++)
      bench_growth_table(rep, backends[b], bench_growth_ops[o], 0, out);
  bench_bulk_table(rep, 0, out);
  bench_random_table(rep, 0, out);
  fprintf(out, "\nheadlines:\n");
  bench_headlines(rep, 0, out);
  if (x->emulator_resets)
    fprintf(out, "\nthe emulator was restarted %d time%s to free memory (not timed)\n",
            x->emulator_resets, x->emulator_resets > 1 ? "s" : "");
  fprintf(out, "load average: %.2f at the start, %.2f at the end (%ld CPUs)\n", x->load_start,
          x->load_end, x->nproc);
  fprintf(out, "total benchmark time: %.0f s\n", x->total_seconds);
}
