/*
 * out_json.c - results.json: the machine context, the settings, and every row with
 * its individual run times and its requests by type, for tools to read.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "bench.h"

static cJSON *context_json(const bench_report *rep) {
  const bench_context *x = rep->ctx;
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "date", x->date);
  cJSON_AddNumberToObject(o, "nproc", (double)x->nproc);
  cJSON_AddStringToObject(o, "cpu", x->cpu);
  cJSON_AddNumberToObject(o, "memory_bytes", (double)x->mem_bytes);
  cJSON_AddStringToObject(o, "kernel", x->kernel);
  cJSON_AddStringToObject(o, "emulator_endpoint", x->endpoint);
  cJSON_AddStringToObject(o, "target", x->target);
  cJSON_AddStringToObject(o, "caveat", bench_context_caveat(x));
  cJSON_AddNumberToObject(o, "emulator_restarts", x->emulator_resets);
  cJSON_AddNumberToObject(o, "emulator_uploaded_bytes", (double)x->emulator_uploaded);
  cJSON_AddStringToObject(o, "local_dir", x->local_dir);
  cJSON_AddStringToObject(o, "local_fs", x->local_fs ? x->local_fs : "unknown");
  cJSON_AddBoolToObject(o, "sanitized_build", x->sanitized);
  cJSON_AddNumberToObject(o, "total_seconds", x->total_seconds);
  cJSON_AddNumberToObject(o, "load_average_start", x->load_start);
  cJSON_AddNumberToObject(o, "load_average_end", x->load_end);
  return o;
}

static cJSON *settings_json(const bench_config *c) {
  cJSON *o = cJSON_CreateObject();
  cJSON *sizes = cJSON_AddArrayToObject(o, "sizes_bytes");
  for (int i = 0; i < c->nsizes; i++)
    cJSON_AddItemToArray(sizes, cJSON_CreateNumber((double)c->sizes[i]));
  cJSON_AddNumberToObject(o, "runs", c->runs);
  cJSON_AddNumberToObject(o, "zero_runs", c->zero_runs);
  cJSON_AddStringToObject(o, "checksum", bench_checksum_name(c->checksum));
  cJSON_AddStringToObject(o, "pacing", bench_pacing_name(c->pacing));
  cJSON_AddNumberToObject(o, "max_rate_bps", c->max_rate_bps);
  cJSON_AddNumberToObject(o, "zero_cap_bytes", (double)c->zero_cap);
  cJSON_AddNumberToObject(o, "grow_base_bytes", (double)BENCH_GROW_BASE);
  cJSON_AddNumberToObject(o, "bulk_bytes", (double)c->bulk_size);
  cJSON_AddNumberToObject(o, "bulk_request_bytes", (double)c->bulk_request);
  cJSON_AddNumberToObject(o, "bulk_runs", c->bulk_runs);
  cJSON_AddNumberToObject(o, "random_file_bytes", (double)c->random_file);
  cJSON_AddNumberToObject(o, "random_io_bytes", (double)c->random_io);
  cJSON_AddNumberToObject(o, "random_seconds", c->random_seconds);
  cJSON_AddNumberToObject(o, "emulator_budget_bytes", (double)c->emulator_budget);
  return o;
}

static cJSON *requests_json(const bench_counts *k) {
  cJSON *o = cJSON_CreateObject();
  for (int i = 0; i < BENCH_NTYPES; i++)
    if (k->by_type[i]) cJSON_AddNumberToObject(o, bench_type_name(i), (double)k->by_type[i]);
  return o;
}

static void add_rates(cJSON *o, const bench_row *w) {
  if (strcmp(w->kind, "bulk") == 0) {
    cJSON_AddNumberToObject(o, "io_bytes", (double)w->io_size);
    cJSON_AddNumberToObject(o, "depth", w->depth);
    cJSON_AddNumberToObject(o, "mib_s", w->mib_s);
    cJSON_AddNumberToObject(o, "cpu_s_per_gib", w->cpu_s_per_gib);
  } else if (strcmp(w->kind, "random") == 0) {
    cJSON_AddNumberToObject(o, "io_bytes", (double)w->io_size);
    cJSON_AddNumberToObject(o, "depth", w->depth);
    cJSON_AddNumberToObject(o, "ops", (double)w->ops);
    cJSON_AddNumberToObject(o, "iops", w->iops);
    cJSON_AddNumberToObject(o, "p50_us", w->p50_us);
    cJSON_AddNumberToObject(o, "p99_us", w->p99_us);
  }
}

/* Per section that ran on page blobs: requests, throttled tries, other failed
 * tries, retries; and the pacing used. */
static cJSON *throttling_json(const bench_report *rep) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "pacing", bench_pacing_name(rep->cfg->pacing));
  cJSON_AddNumberToObject(o, "max_rate_bps", rep->cfg->max_rate_bps);
  for (int i = 0; i < BENCH_SECTIONS; i++) {
    if (!rep->res->measured[i]) continue;
    const bench_counts *k = &rep->res->sections[i];
    cJSON *s = cJSON_AddObjectToObject(o, bench_section_names[i]);
    cJSON_AddNumberToObject(s, "requests", (double)k->total);
    cJSON_AddNumberToObject(s, "throttled", (double)k->throttled);
    cJSON_AddNumberToObject(s, "failed_tries", (double)k->failed);
    cJSON_AddNumberToObject(s, "retries", (double)k->retries);
  }
  return o;
}

static cJSON *row_json(const bench_row *w) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "kind", w->kind);
  cJSON_AddStringToObject(o, "backend", w->backend);
  cJSON_AddStringToObject(o, "op", w->op);
  if (w->policy[0]) cJSON_AddStringToObject(o, "policy", w->policy);
  cJSON_AddNumberToObject(o, "size_bytes", (double)w->size);
  cJSON_AddStringToObject(o, "status", w->status);
  cJSON_AddBoolToObject(o, "extrapolated", w->extrapolated);
  if (w->runs) {
    cJSON *t = cJSON_AddArrayToObject(o, "times_s");
    for (int i = 0; i < w->runs; i++)
      cJSON_AddItemToArray(t, cJSON_CreateNumber(w->times[i]));
    cJSON_AddNumberToObject(o, "min_s", w->t_min);
    cJSON_AddNumberToObject(o, "median_s", w->t_med);
    cJSON_AddNumberToObject(o, "max_s", w->t_max);
    cJSON_AddNumberToObject(o, "requests", (double)w->req.total);
    cJSON_AddNumberToObject(o, "throttled", (double)w->req.throttled);
    cJSON_AddNumberToObject(o, "failed_tries", (double)w->req.failed);
    cJSON_AddNumberToObject(o, "retries", (double)w->req.retries);
    cJSON_AddItemToObject(o, "request_types", requests_json(&w->req));
    add_rates(o, w);
  }
  if (w->note[0]) cJSON_AddStringToObject(o, "note", w->note);
  return o;
}

int bench_write_json(const bench_report *rep, const char *path) {
  cJSON *root = cJSON_CreateObject();
  cJSON_AddItemToObject(root, "context", context_json(rep));
  cJSON_AddItemToObject(root, "settings", settings_json(rep->cfg));
  const char *kinds[3] = {"growth", "bulk", "random"};
  for (int k = 0; k < 3; k++) {
    cJSON *arr = cJSON_AddArrayToObject(root, kinds[k]);
    for (size_t i = 0; i < rep->res->n; i++)
      if (strcmp(rep->res->rows[i].kind, kinds[k]) == 0)
        cJSON_AddItemToArray(arr, row_json(&rep->res->rows[i]));
  }
  cJSON_AddItemToObject(root, "throttling", throttling_json(rep));
  cJSON *plots = cJSON_AddArrayToObject(root, "plots");
  for (int i = 0; i < rep->nplots; i++)
    cJSON_AddItemToArray(plots, cJSON_CreateString(rep->plots[i]));
  char *text = cJSON_Print(root);
  cJSON_Delete(root);
  FILE *f = text ? fopen(path, "w") : NULL;
  int bad = !f || fputs(text, f) < 0 || fputc('\n', f) < 0;
  if (f && fclose(f) != 0) bad = 1;
  if (bad) perror(path);
  free(text);
  return bad;
}
