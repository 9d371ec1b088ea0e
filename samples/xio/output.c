/*
 * output.c - what the commands print: human output on stdout (silenced by --quiet
 * and --json) and JSON objects (cJSON) for --json. A target is only ever printed in
 * its log-safe form (xio_target_safe: no query but its snapshot=). Sizes and times for people come
 * from samples/common (samples_fmt_size, samples_fmt_secs); in JSON, fractions are rounded to a
 * millionth.
 */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xio/alloc.h>

#include "cli.h"

void cli_say(const cli *c, const char *fmt, ...) {
  if (c->quiet || c->json) return;
  va_list ap;
  va_start(ap, fmt);
  vprintf(fmt, ap);
  va_end(ap);
  putchar('\n');
}

/* Rounds every fractional number in `o` to a millionth, so that a time or a rate
 * prints as 0.02129, not as the 17 digits of the binary double (0.021290000000021791)
 * that cJSON writes when fewer would not read back as the same double. */
static void round_fractions(cJSON *o) {
  for (cJSON *i = o ? o->child : NULL; i; i = i->next) {
    if (cJSON_IsNumber(i) && i->valuedouble != floor(i->valuedouble) && fabs(i->valuedouble) < 1e9)
      cJSON_SetNumberValue(i, round(i->valuedouble * 1e6) / 1e6);
    round_fractions(i);
  }
}

void cli_json_print(cJSON *o) {
  round_fractions(o);
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

int cli_target_snapshot(const char *target, char *id, size_t size) {
  xio_target_parts p;
  int named =
      xio_target_parse(target, &p, NULL) == XIO_OK && p.snapshot && strlen(p.snapshot) < size;
  if (named) memcpy(id, p.snapshot, strlen(p.snapshot) + 1);
  xio_target_parts_clear(&p);
  return named;
}
