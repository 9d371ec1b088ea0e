/*
 * target.c - a transfer's target before any byte is sent (samples_target.h): its
 * open options, a target replaced or resumed in place, and what a dry run counts of
 * both and of the writes.
 */
#include <stdio.h>
#include <string.h>

#include <xio/alloc.h>

#include "samples_target.h"

static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

xio_open_options samples_target_options(xio_kind kind, uint64_t size, unsigned flags) {
  xio_open_options o = xio_open_options_default();
  o.flags = flags | (size % XIO_PAGE_SIZE ? XIO_OPEN_UNALIGNED : 0);
  o.kind = kind;
  o.size = size;
  o.init = XIO_INIT_NONE;
  return o;
}

xio_err samples_target_in_place(xio_file *f, xio_kind kind, uint64_t size, int clear_old,
                                int *marked, int *changed, xio_error *err) {
  uint64_t old = xio_file_size(f);
  xio_err rc = xio_file_set_incomplete(f, 1, err);
  *marked = rc == XIO_OK;
  if (rc == XIO_OK) rc = xio_file_set_kind(f, kind, err);
  *changed = rc == XIO_OK; /* the content changes from here on */
  if (rc == XIO_OK) rc = xio_file_set_size(f, size, XIO_INIT_NONE, err);
  /* whole pages of the old content (the new size may be whole pages when the old is not) */
  uint64_t page = XIO_PAGE_SIZE;
  uint64_t keep = min_u64((min_u64(old, size) + page - 1) / page * page, size);
  if (rc == XIO_OK && clear_old && keep) rc = xio_file_zero(f, 0, keep, XIO_INIT_CLEAR, err);
  return rc;
}

xio_err samples_target_nothing_to_resume(xio_file **f, const char *what, xio_error *err) {
  char *safe = xio_strdup(xio_file_path(*f));
  xio_file_close(*f, NULL);
  *f = NULL;
  xio_error_set(err, XIO_EEXIST,
                "nothing to resume: %.400s is complete (no interrupted transfer left it marked "
                "incomplete); --force with --resume replaces it, sending only what differs",
                safe ? safe : what);
  xio_error_set_operation(err, "OpenFile");
  xio_free(safe);
  return XIO_EEXIST;
}

void samples_target_resume_missing(xio_err rc, const char *what, xio_error *err) {
  if (rc == XIO_ENOTFOUND && err)
    snprintf(err->message, sizeof err->message, "%.400s does not exist: nothing to resume",
             err->target[0] ? err->target : what);
}

/* ---------------------------------------------------------- dry runs ---- */

static uint64_t whole_pages(uint64_t n) {
  return (n + XIO_PAGE_SIZE - 1) / XIO_PAGE_SIZE * XIO_PAGE_SIZE;
}

/* A partial sector written: read and written back. */
static void plan_edge(samples_target_plan *p) {
  p->reads++;
  p->bytes_read += XIO_PAGE_SIZE;
  p->put_pages++;
  p->bytes_sent += XIO_PAGE_SIZE;
}

xio_err samples_target_plan_create(samples_target_plan *p, xio_err rc, xio_error *err) {
  if (rc != XIO_ENOTFOUND) return rc;
  int no_container = err && strcmp(err->service_code, "ContainerNotFound") == 0;
  xio_error_clear(err);
  p->put_blobs += no_container ? 2 : 1;
  p->create_containers += no_container ? 1 : 0;
  return XIO_OK;
}

void samples_target_plan_in_place(samples_target_plan *p, const xio_file *f, xio_kind kind,
                                  uint64_t size, int clear_old) {
  uint64_t old = xio_file_size(f), page = XIO_PAGE_SIZE;
  if (!xio_file_incomplete(f)) p->set_metadata++;
  if (xio_file_kind(f) != kind) p->set_metadata++;
  if (size != old) {
    if (size < old && size % page) plan_edge(p);
    if (whole_pages(size) != whole_pages(old)) p->resizes++;
    if (size % page || old % page) p->set_metadata++;
  }
  uint64_t keep = min_u64(whole_pages(min_u64(old, size)), size);
  if (!clear_old || !keep) return;
  if (keep >= page) {
    p->clears++;
    p->bytes_cleared += keep / page * page;
  }
  if (keep % page) plan_edge(p);
}

void samples_target_plan_write(samples_target_plan *p, uint64_t start, uint64_t end) {
  uint64_t whole = end / XIO_PAGE_SIZE * XIO_PAGE_SIZE;
  if (whole > start) {
    p->put_pages++;
    p->bytes_sent += whole - start;
  }
  if (whole != end) plan_edge(p);
}
