/*
 * csv.c - a small reader for results.csv (see csv.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "csv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Splits one line (without its newline) into malloc'd fields. */
static void split(const char *line, csv_row *row) {
  row->n = 0;
  const char *p = line;
  for (;;) {
    size_t cap = strlen(p) + 1, len = 0;
    char *f = malloc(cap);
    if (!f) return;
    int quoted = *p == '"';
    if (quoted) p++;
    while (*p && (quoted || *p != ',')) {
      if (quoted && *p == '"' && p[1] == '"')
        f[len++] = '"', p += 2;
      else if (quoted && *p == '"')
        quoted = 0, p++;
      else
        f[len++] = *p++;
    }
    f[len] = '\0';
    if (row->n < CSV_MAX_FIELDS)
      row->field[row->n++] = f;
    else
      free(f);
    if (*p != ',') return;
    p++;
  }
}

int csv_read(const char *path, csv *out) {
  memset(out, 0, sizeof *out);
  FILE *f = fopen(path, "r");
  if (!f) return -1;
  char *line = NULL;
  size_t cap = 0;
  ssize_t n;
  while ((n = getline(&line, &cap, f)) > 0) {
    while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
      line[--n] = '\0';
    csv_row *rows = realloc(out->rows, (size_t)(out->n + 1) * sizeof *rows);
    if (!rows) break;
    out->rows = rows;
    split(line, &out->rows[out->n++]);
  }
  free(line);
  fclose(f);
  return 0;
}

void csv_free(csv *c) {
  for (int r = 0; r < c->n; r++)
    for (int i = 0; i < c->rows[r].n; i++)
      free(c->rows[r].field[i]);
  free(c->rows);
  memset(c, 0, sizeof *c);
}

int csv_col(const csv *c, const char *name) {
  if (c->n == 0) return -1;
  for (int i = 0; i < c->rows[0].n; i++)
    if (strcmp(c->rows[0].field[i], name) == 0) return i;
  return -1;
}

const char *csv_get(const csv *c, int r, const char *name) {
  int i = csv_col(c, name);
  if (r <= 0 || r >= c->n || i < 0 || i >= c->rows[r].n) return "";
  return c->rows[r].field[i];
}
