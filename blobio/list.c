/*
 * list.c - one page of a blob listing (xio_blob_list): the owner of its entries'
 * names and of its continuation marker. The XML parser (xml.c) fills it.
 */
#include <stdlib.h>
#include <string.h>

#include <xio/alloc.h>
#include <xio/blob.h>

void xio_blob_list_clear(xio_blob_list *l) {
  if (!l) return;
  for (size_t i = 0; i < l->n; i++)
    xio_free(l->v[i].name);
  xio_free(l->v);
  xio_free(l->next_marker);
  memset(l, 0, sizeof *l);
}
