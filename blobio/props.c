/*
 * props.c - lookups in blob properties (xio_blob_props). Metadata names are
 * case-insensitive on the service (they travel as x-ms-meta-NAME headers), so they
 * are compared here without regard to ASCII case, independent of the locale.
 */
#include <stddef.h>

#include <xio/blob.h>

static int ascii_lower(int c) { return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c; }

/* 1 when `a` (a field of `size` bytes, NUL-terminated within it unless full) and
 * `b` are equal ignoring ASCII case. */
static int name_equal(const char *a, size_t size, const char *b) {
  for (size_t i = 0; i < size; i++) {
    int ca = ascii_lower((unsigned char)a[i]), cb = ascii_lower((unsigned char)b[i]);
    if (ca != cb) return 0;
    if (ca == '\0') return 1;
  }
  return b[size] == '\0';
}

const char *xio_blob_props_meta(const xio_blob_props *p, const char *name) {
  if (!p || !name) return NULL;
  int n = p->nmeta < 0 ? 0 : p->nmeta > XIO_BLOB_MAX_META ? XIO_BLOB_MAX_META : p->nmeta;
  for (int i = 0; i < n; i++)
    if (name_equal(p->meta[i].name, sizeof p->meta[i].name, name)) return p->meta[i].value;
  return NULL;
}
