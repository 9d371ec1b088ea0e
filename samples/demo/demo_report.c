/*
 * demo_report.c - the demo's results for people (a table like the instant file
 * initialization articles': operation, size, classic time, instant time, speed-up,
 * requests; then the trace of the instant growth and the read-back check) or for
 * programs (one JSON object, used by the tests).
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "demo_int.h"

static void print_row(FILE *out, const demo_row *row) {
  char size[32], classic[32], instant[32], ratio[40], reqs[48];
  samples_fmt_size(row->shown_size, size, sizeof size);
  samples_fmt_secs(row->classic_s, classic, sizeof classic);
  samples_fmt_secs(row->instant_s, instant, sizeof instant);
  samples_fmt_ratio(row->instant_s > 0 ? row->classic_s / row->instant_s : 0, ratio, sizeof ratio);
  snprintf(reqs, sizeof reqs, "%d%s / %d", row->classic_requests, row->classic_estimated ? "*" : "",
           row->instant_requests);
  char c[48], i[48];
  snprintf(c, sizeof c, "%s%s (%s)", classic, row->classic_estimated ? "*" : "", row->classic_init);
  snprintf(i, sizeof i, "%s (%s)", instant, row->instant_init);
  fprintf(out, "  %-17s %-12s %-9s %-18s %-17s %-12s %s\n", row->operation, row->file, size, c, i,
          ratio, reqs);
}

static void report_text(FILE *out, const demo_result *r) {
  char from[32], to[32], rate[32];
  fprintf(out, "\nCreate-database experiment on %s\n  at %s\n\n", r->backend, r->where);
  fprintf(out, "  %-17s %-12s %-9s %-18s %-17s %-12s %s\n", "operation", "file", "size",
          "classic (init)", "instant (init)", "speed-up", "requests classic / instant");
  for (int i = 0; i < r->nrows; i++)
    print_row(out, &r->rows[i]);
  samples_fmt_size((uint64_t)r->zero_rate, rate, sizeof rate);
  fprintf(out, "\n  * not run: estimated from the zero-write rate measured above (%s/s).\n", rate);
  samples_fmt_size(r->grow_from, from, sizeof from);
  samples_fmt_size(r->grow_to, to, sizeof to);
  fprintf(out,
          "\nThe instant log growth, %s -> %s: %d requests (%d XIOTypeSetFileSize, %d "
          "XIOTypeZeroFile), as traced:\n%s",
          from, to, r->growth_events, r->growth_set_size, r->growth_zero,
          r->growth_trace ? r->growth_trace : "");
  fprintf(out,
          "\nRead back: %d of %d samples of the grown region (4 KiB each, first and last "
          "included) read as zeros.\n",
          r->samples_zero, r->samples);
}

static cJSON *row_json(const demo_row *row) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddStringToObject(o, "operation", row->operation);
  cJSON_AddStringToObject(o, "file", row->file);
  cJSON_AddNumberToObject(o, "size", (double)row->size);
  cJSON_AddNumberToObject(o, "final_size", (double)row->shown_size);
  cJSON_AddStringToObject(o, "classic_init", row->classic_init);
  cJSON_AddStringToObject(o, "instant_init", row->instant_init);
  cJSON_AddNumberToObject(o, "classic_seconds", row->classic_s);
  cJSON_AddNumberToObject(o, "instant_seconds", row->instant_s);
  cJSON_AddNumberToObject(o, "classic_requests", row->classic_requests);
  cJSON_AddNumberToObject(o, "instant_requests", row->instant_requests);
  cJSON_AddBoolToObject(o, "classic_estimated", row->classic_estimated);
  return o;
}

static void report_json(FILE *out, const demo_result *r) {
  cJSON *o = cJSON_CreateObject(), *rows = cJSON_AddArrayToObject(o, "rows");
  cJSON_AddStringToObject(o, "backend", r->backend);
  for (int i = 0; i < r->nrows; i++)
    cJSON_AddItemToArray(rows, row_json(&r->rows[i]));
  cJSON_AddNumberToObject(o, "zero_write_bytes_per_second", r->zero_rate);
  cJSON_AddNumberToObject(o, "grow_from", (double)r->grow_from);
  cJSON_AddNumberToObject(o, "grow_to", (double)r->grow_to);
  cJSON_AddNumberToObject(o, "growth_requests", r->growth_events);
  cJSON_AddNumberToObject(o, "growth_set_file_size", r->growth_set_size);
  cJSON_AddNumberToObject(o, "growth_zero_file", r->growth_zero);
  cJSON_AddNumberToObject(o, "samples", r->samples);
  cJSON_AddNumberToObject(o, "samples_zero", r->samples_zero);
  char *s = cJSON_PrintUnformatted(o);
  if (s) fprintf(out, "%s\n", s);
  cJSON_free(s);
  cJSON_Delete(o);
}

void demo_report(FILE *out, const demo_result *r, int json) {
  if (json)
    report_json(out, r);
  else
    report_text(out, r);
  fflush(out);
}
