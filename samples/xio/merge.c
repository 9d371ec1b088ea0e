/*
 * merge.c - which spans of a bulk transfer share one request. put and get feed the
 * spans that hold data (non-zero runs of pages, allocated ranges), in ascending
 * order, and get back requests: a request covers one span or several whose gaps are
 * at most `gap` bytes, is never longer than `max` bytes, and a span longer than
 * that is cut into pieces that are. A fragmented file (20,000 isolated pages) then
 * costs a handful of requests instead of one per page; spans far apart still get a
 * request each, so a mostly empty file moves only what it holds.
 *
 * Bridging a gap trades a request for the gap's bytes, and the two directions weigh
 * that differently (put.c and get.c pick the gaps, and say why there): a merge may
 * also bridge a gap only when it is no longer than the data already in the
 * request, so that bridged bytes never outnumber the data they travel with.
 */
#define _POSIX_C_SOURCE 200809L
#include <string.h>

#include "cli.h"

void cli_merge_init(cli_merge *m, uint64_t gap, int gap_within_data, uint64_t max,
                    cli_merge_fn emit, void *ud) {
  memset(m, 0, sizeof *m);
  m->gap = gap;
  m->gap_within_data = gap_within_data;
  m->max = max;
  m->emit = emit;
  m->ud = ud;
}

/* Issues the pending request, if any. */
xio_err cli_merge_flush(cli_merge *m, xio_error *err) {
  if (m->end == m->start) return XIO_OK;
  uint64_t start = m->start, end = m->end;
  m->start = m->end = m->data = 0;
  m->requests++;
  return m->emit(start, end, m->ud, err);
}

/* 1 when a span starting at `s` may join the pending request. */
static int joins(const cli_merge *m, uint64_t s) {
  if (m->end == m->start || s < m->end || s >= m->start + m->max) return 0;
  uint64_t gap = s - m->end;
  return gap <= m->gap && (!m->gap_within_data || gap <= m->data);
}

xio_err cli_merge_span(cli_merge *m, uint64_t s, uint64_t e, xio_error *err) {
  while (s < e) {
    if (m->end > m->start && !joins(m, s)) {
      xio_err rc = cli_merge_flush(m, err);
      if (rc != XIO_OK) return rc;
    }
    if (m->end == m->start) m->start = m->end = s;
    uint64_t take = e - m->start <= m->max ? e : m->start + m->max;
    m->bridged += s - m->end;
    m->data += take - s;
    m->end = take;
    s = take;
    if (m->end - m->start == m->max) {
      xio_err rc = cli_merge_flush(m, err);
      if (rc != XIO_OK) return rc;
    }
  }
  return XIO_OK;
}
