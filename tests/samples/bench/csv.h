/*
 * csv.h - reading results.csv in the bench tests: rows of fields, quoted fields
 * ("a,b" and "" for a quote) handled, columns found by header name.
 */
#ifndef XIO_TEST_BENCH_CSV_H
#define XIO_TEST_BENCH_CSV_H

#include <stddef.h>

#define CSV_MAX_FIELDS 32

typedef struct csv_row {
  char *field[CSV_MAX_FIELDS];
  int n;
} csv_row;

typedef struct csv {
  csv_row *rows; /* rows[0] is the header */
  int n;
} csv;

/** Reads `path`. Returns 0, or -1 when it cannot be read. */
int csv_read(const char *path, csv *out);

void csv_free(csv *c);

/** The column index of header `name`, or -1. */
int csv_col(const csv *c, const char *name);

/** Field `name` of row `r` ("" when missing). */
const char *csv_get(const csv *c, int r, const char *name);

#endif
