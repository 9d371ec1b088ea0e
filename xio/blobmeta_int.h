/*
 * blobmeta_int.h - what the file layer records with a page blob in its metadata
 * (blobmeta.c): the file kind, the logical size when it is not a whole number of
 * pages, and the mark of an unfinished transfer. Internal.
 */
#ifndef XIO_BLOBMETA_INT_H
#define XIO_BLOBMETA_INT_H

#include <stdint.h>

#include <xio/blob.h>
#include <xio/xio.h>

/** Metadata entries xio__blobmeta_make writes at most. */
#define XIO__BLOBMETA_MAX 3

/** What the file layer recorded with a page blob, as read back. */
typedef struct xio__blobmeta {
  xio_kind kind;  /* data unless the blob says log */
  uint64_t size;  /* the logical size: the recorded one when it fits the blob, else the
                     blob's size */
  int has_size;   /* the blob carries a logical size that fits it */
  int incomplete; /* marked as holding an unfinished transfer */
} xio__blobmeta;

/** Fills `meta` with the entries that record `kind`, the logical size `size` (only
 *  when it is not a multiple of the page size) and, when `incomplete`, the mark;
 *  returns how many (1..XIO__BLOBMETA_MAX). Cannot fail. */
int xio__blobmeta_make(xio_kind kind, uint64_t size, int incomplete,
                       xio_blob_meta meta[XIO__BLOBMETA_MAX]);

/** Reads what was recorded from a blob's properties (`p->size` is the blob's size).
 *  Cannot fail: a blob without xio's metadata is a complete data file of its size. */
void xio__blobmeta_from_props(const xio_blob_props *p, xio__blobmeta *out);

/** The same from one blob of a listing. */
void xio__blobmeta_from_item(const xio_blob_item *item, xio__blobmeta *out);

#endif
