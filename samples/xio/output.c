/*
 * output.c - what the commands print: human output on stdout (silenced by --quiet
 * and --json), JSON objects (cJSON) for --json, sizes and times for people, and the
 * log-safe form of a target, which is the only form in which a target is ever
 * printed.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "cli.h"

int cli_is_url(const char *target) {
  return strncasecmp(target, "http://", 7) == 0 || strncasecmp(target, "https://", 8) == 0;
}

char *cli_safe_target(const char *target) {
  return cli_is_url(target) ? xio_auth_url_strip_query(target) : strdup(target);
}

const char *cli_human_size(uint64_t n, char buf[32]) {
  static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
  if (n < 1024) {
    snprintf(buf, 32, "%u B", (unsigned)n);
    return buf;
  }
  double v = (double)n / 1024;
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    u++;
  }
  snprintf(buf, 32, v < 10 ? "%.2f %s" : v < 100 ? "%.1f %s" : "%.0f %s", v, units[u]);
  return buf;
}

const char *cli_human_time(double s, char buf[32]) {
  if (s < 0) s = 0;
  if (s < 1e-3)
    snprintf(buf, 32, "%.0f us", s * 1e6);
  else if (s < 1)
    snprintf(buf, 32, "%.1f ms", s * 1e3);
  else if (s < 60)
    snprintf(buf, 32, "%.2f s", s);
  else
    snprintf(buf, 32, "%dm%02ds", (int)(s / 60), (int)s % 60);
  return buf;
}

double cli_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void cli_say(const cli *c, const char *fmt, ...) {
  if (c->quiet || c->json) return;
  va_list ap;
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  putchar('\n');
}

void cli_json_print(cJSON *o) {
  char *text = o ? cJSON_Print(o) : NULL;
  if (text)
    printf("%s\n", text);
  else
    fprintf(stderr, "xio: out of memory formatting JSON\n");
  cJSON_free(text);
  cJSON_Delete(o);
}

void cli_json_u64(cJSON *o, const char *name, uint64_t v) {
  cJSON_AddNumberToObject(o, name, (double)v);
}

const char *cli_kind_name(xio_kind k) { return k == XIO_KIND_LOG ? "log" : "data"; }

const char *cli_plural(uint64_t n) { return n == 1 ? "" : "s"; }
