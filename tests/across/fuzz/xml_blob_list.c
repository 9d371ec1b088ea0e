/*
 * xml_blob_list.c - fuzz target: List Blobs bodies (xio__blob_xml_blob_list), read
 * into a listing that already holds one blob and a marker. Properties: on success
 * the earlier blob is untouched and every new one has a non-empty name,
 * terminated strings, a non-empty snapshot id or none, and at most
 * XIO_BLOB_MAX_META metadata entries whose names are identifiers, and the marker is NULL or
 * non-empty; a failure leaves the listing exactly as it was.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "xml_int.h"

static char *dup_or_die(const char *s) {
  char *d = strdup(s);
  if (!d) abort();
  return d;
}

static void check_item(const xio_blob_item *it) {
  FUZZ_CHECK(it->name && it->name[0]);
  FUZZ_CHECK(memchr(it->blob_type, 0, sizeof it->blob_type));
  FUZZ_CHECK(memchr(it->lease_state, 0, sizeof it->lease_state));
  FUZZ_CHECK(memchr(it->lease_status, 0, sizeof it->lease_status));
  FUZZ_CHECK(memchr(it->lease_duration, 0, sizeof it->lease_duration));
  FUZZ_CHECK(memchr(it->last_modified, 0, sizeof it->last_modified));
  FUZZ_CHECK(!it->snapshot || it->snapshot[0]);
  FUZZ_CHECK(it->nmeta >= 0 && it->nmeta <= XIO_BLOB_MAX_META && (it->nmeta == 0 || it->meta));
  for (int i = 0; i < it->nmeta; i++) {
    const char *n = it->meta[i].name;
    FUZZ_CHECK(n[0] &&
               strspn(n, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") ==
                   strlen(n));
    FUZZ_CHECK(!(n[0] >= '0' && n[0] <= '9'));
    FUZZ_CHECK(memchr(it->meta[i].value, 0, sizeof it->meta[i].value));
    FUZZ_CHECK(xio_blob_item_meta(it, n) != NULL);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  xio_blob_list l;
  xio_error err;
  memset(&l, 0, sizeof l);
  l.v = calloc(1, sizeof *l.v);
  if (!l.v) abort();
  l.v[0].name = dup_or_die("earlier");
  l.v[0].size = 42;
  l.n = 1;
  l.next_marker = dup_or_die("m0");
  xio_err rc = xio__blob_xml_blob_list((const char *)data, size, &l, &err);
  FUZZ_CHECK(rc == XIO_OK || rc == XIO_EPARSE || rc == XIO_ENOMEM);
  FUZZ_CHECK(l.n >= 1 && strcmp(l.v[0].name, "earlier") == 0 && l.v[0].size == 42);
  if (rc == XIO_OK) {
    for (size_t i = 1; i < l.n; i++)
      check_item(&l.v[i]);
    FUZZ_CHECK(!l.next_marker || l.next_marker[0]);
  } else {
    FUZZ_CHECK(err.code == rc && err.message[0]);
    FUZZ_CHECK(l.n == 1 && l.next_marker && strcmp(l.next_marker, "m0") == 0);
  }
  xio_blob_list_clear(&l);
  return 0;
}
