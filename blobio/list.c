/*
 * list.c - one page of a blob listing (xio_blob_list): the owner of its entries'
 * names, snapshot ids and metadata, and of its continuation marker. The XML parser (xml.c) fills
 * it.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <xio/blob.h>

#include "xml_int.h"

void xio__blob_item_free(xio_blob_item *item) {
  free(item->name);
  free(item->snapshot);
  free(item->meta);
  item->name = item->snapshot = NULL;
  item->meta = NULL;
  item->nmeta = 0;
}

const char *xio_blob_item_meta(const xio_blob_item *item, const char *name) {
  for (int i = 0; item && name && i < item->nmeta; i++)
    if (strcasecmp(item->meta[i].name, name) == 0) return item->meta[i].value;
  return NULL;
}

void xio_blob_list_clear(xio_blob_list *l) {
  if (!l) return;
  for (size_t i = 0; i < l->n; i++)
    xio__blob_item_free(&l->v[i]);
  free(l->v);
  free(l->next_marker);
  memset(l, 0, sizeof *l);
}
