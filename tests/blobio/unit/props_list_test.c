/*
 * props_list_test.c - metadata lookup in blob properties, and freeing a blob
 * listing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xio/blob.h>

#include "test.h"

static xio_blob_props props_with(int nmeta) {
  xio_blob_props p;
  memset(&p, 0, sizeof p);
  p.nmeta = nmeta;
  for (int i = 0; i < XIO_BLOB_MAX_META; i++) {
    snprintf(p.meta[i].name, sizeof p.meta[i].name, "Key%d", i);
    snprintf(p.meta[i].value, sizeof p.meta[i].value, "value %d", i);
  }
  return p;
}

TEST(props_meta_case_insensitive) {
  xio_blob_props p = props_with(3);
  ASSERT_STR_EQ(xio_blob_props_meta(&p, "Key0"), "value 0");
  ASSERT_STR_EQ(xio_blob_props_meta(&p, "key1"), "value 1");
  ASSERT_STR_EQ(xio_blob_props_meta(&p, "KEY2"), "value 2");
  ASSERT(xio_blob_props_meta(&p, "key") == NULL);   /* a prefix is not a match */
  ASSERT(xio_blob_props_meta(&p, "key10") == NULL); /* nor a longer name */
  ASSERT(xio_blob_props_meta(&p, "") == NULL);
}

TEST(props_meta_bounds) {
  xio_blob_props p = props_with(2);
  ASSERT(xio_blob_props_meta(&p, "key2") == NULL); /* present in the array, past nmeta */
  ASSERT(xio_blob_props_meta(NULL, "key0") == NULL);
  ASSERT(xio_blob_props_meta(&p, NULL) == NULL);
  p.nmeta = -1;
  ASSERT(xio_blob_props_meta(&p, "key0") == NULL);
  p.nmeta = 1000; /* corrupt count: stays inside the array */
  ASSERT_STR_EQ(xio_blob_props_meta(&p, "key15"), "value 15");
  /* A name that fills its field without a NUL still compares correctly. */
  memset(p.meta[0].name, 'a', sizeof p.meta[0].name);
  char longname[sizeof p.meta[0].name + 2];
  memset(longname, 'A', sizeof p.meta[0].name);
  longname[sizeof p.meta[0].name] = '\0';
  ASSERT_STR_EQ(xio_blob_props_meta(&p, longname), "value 0");
  longname[sizeof p.meta[0].name] = 'A';
  longname[sizeof p.meta[0].name + 1] = '\0';
  ASSERT(xio_blob_props_meta(&p, longname) == NULL);
}

TEST(list_clear) {
  xio_blob_list_clear(NULL);
  xio_blob_list l = {0};
  xio_blob_list_clear(&l); /* empty: nothing to free */
  l.n = 2;
  l.v = calloc(2, sizeof *l.v);
  ASSERT(l.v != NULL);
  l.v[0].name = malloc(4);
  l.v[1].name = malloc(4);
  l.next_marker = malloc(4);
  xio_blob_list_clear(&l); /* the sanitizer build reports anything left behind */
  ASSERT(l.v == NULL);
  ASSERT(l.next_marker == NULL);
  ASSERT_EQ(l.n, 0);
}
