/*
 * blobmeta.c - what the file layer records with a page blob, in the blob's
 * metadata: xiokind ("data" or "log"), xiosize (the logical size, only when it is not
 * a whole number of pages: the blob's own size always is) and xioincomplete ("1"
 * while a transfer into the blob runs). The one place that writes these names and
 * reads them back, for an open blob's properties and for a listing alike.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "blobmeta_int.h"

#define META_KIND       "xiokind"
#define META_SIZE       "xiosize"
#define META_INCOMPLETE "xioincomplete"

static void put(xio_blob_meta *m, const char *name, const char *value) {
  snprintf(m->name, sizeof m->name, "%s", name);
  snprintf(m->value, sizeof m->value, "%s", value);
}

int xio__blobmeta_make(xio_kind kind, uint64_t size, int incomplete,
                       xio_blob_meta meta[XIO__BLOBMETA_MAX]) {
  int n = 0;
  memset(meta, 0, XIO__BLOBMETA_MAX * sizeof *meta);
  put(&meta[n++], META_KIND, kind == XIO_KIND_LOG ? "log" : "data");
  if (size % XIO_BLOB_PAGE_SIZE) {
    char v[24];
    snprintf(v, sizeof v, "%" PRIu64, size);
    put(&meta[n++], META_SIZE, v);
  }
  if (incomplete) put(&meta[n++], META_INCOMPLETE, "1");
  return n;
}

/* Reads the recorded values (NULL where absent) of a blob of `stored` bytes. A
 * recorded size counts only when it is a plain number inside the blob's last page. */
static void parse(const char *kind, const char *size, const char *incomplete, uint64_t stored,
                  xio__blobmeta *out) {
  out->kind = kind && strcmp(kind, "log") == 0 ? XIO_KIND_LOG : XIO_KIND_DATA;
  out->incomplete = incomplete && strcmp(incomplete, "1") == 0;
  out->size = stored;
  out->has_size = 0;
  if (!size) return;
  char *end;
  unsigned long long v = strtoull(size, &end, 10);
  if (*end == '\0' && v <= stored && stored - v < XIO_BLOB_PAGE_SIZE) {
    out->size = v;
    out->has_size = 1;
  }
}

void xio__blobmeta_from_props(const xio_blob_props *p, xio__blobmeta *out) {
  parse(xio_blob_props_meta(p, META_KIND), xio_blob_props_meta(p, META_SIZE),
        xio_blob_props_meta(p, META_INCOMPLETE), p->size, out);
}

void xio__blobmeta_from_item(const xio_blob_item *item, xio__blobmeta *out) {
  parse(xio_blob_item_meta(item, META_KIND), xio_blob_item_meta(item, META_SIZE),
        xio_blob_item_meta(item, META_INCOMPLETE), item->size, out);
}
