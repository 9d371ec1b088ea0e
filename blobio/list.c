/*
 * list.c - one page of a blob listing (xio_blob_list) or of a container listing
 * (xio_blob_container_list): the owner of its entries' names, snapshot ids and
 * metadata, and of its continuation marker. The XML parser (xml.c) fills them.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <xio/alloc.h>
#include <xio/blob.h>

#include "xml_int.h"

void xio__blob_item_free(xio_blob_item *item) {
  xio_free(item->name);
  xio_free(item->snapshot);
  xio_free(item->meta);
  item->name = item->snapshot = NULL;
  item->meta = NULL;
  item->nmeta = 0;
}

const char *xio_blob_item_meta(const xio_blob_item *item, const char *name) {
  for (int i = 0; item && name && i < item->nmeta; i++)
    if (strcasecmp(item->meta[i].name, name) == 0) return item->meta[i].value;
  return NULL;
}

void xio_blob_container_list_clear(xio_blob_container_list *l) {
  if (!l) return;
  for (size_t i = 0; i < l->n; i++)
    xio_free(l->v[i].name);
  xio_free(l->v);
  xio_free(l->next_marker);
  memset(l, 0, sizeof *l);
}

void xio_blob_list_clear(xio_blob_list *l) {
  if (!l) return;
  for (size_t i = 0; i < l->n; i++)
    xio__blob_item_free(&l->v[i]);
  xio_free(l->v);
  xio_free(l->next_marker);
  memset(l, 0, sizeof *l);
}
