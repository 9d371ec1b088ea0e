/*
 * xml_page_list.c - fuzz target: Get Page Ranges bodies (xio__blob_xml_page_list),
 * read into lists that already hold a range: separate page and clear lists, or (for
 * inputs of odd length) one list for both. Properties: the lists stay sorted, each
 * range has start <= end, neighbours neither overlap nor touch, the range held
 * before is still covered; a failure leaves both lists exactly as they were and no
 * marker.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "xml_int.h"

#define HELD_START (1ull << 40)
#define HELD_END   ((1ull << 40) + 511)

static void check_sorted(const xio_ranges *r) {
  int held = 0;
  FUZZ_CHECK(r->n <= r->cap);
  for (size_t i = 0; i < r->n; i++) {
    FUZZ_CHECK(r->v[i].start <= r->v[i].end);
    if (i + 1 < r->n)
      FUZZ_CHECK(r->v[i].end < r->v[i + 1].start && r->v[i].end + 1 < r->v[i + 1].start);
    held |= r->v[i].start <= HELD_START && r->v[i].end >= HELD_END;
  }
  FUZZ_CHECK(held);
}

static void check_as_before(const xio_ranges *r) {
  FUZZ_CHECK(r->n == 1 && r->v[0].start == HELD_START && r->v[0].end == HELD_END);
}

static void held(xio_ranges *r) {
  memset(r, 0, sizeof *r);
  if (xio_ranges_add(r, HELD_START, HELD_END) != XIO_OK) abort();
}

static void read_body(const uint8_t *data, size_t size, int one_list) {
  xio_ranges pages, clears;
  char *marker = (char *)"unset";
  xio_error err;
  held(&pages);
  held(&clears);
  xio_err rc = xio__blob_xml_page_list((const char *)data, size, &pages,
                                       one_list ? &pages : &clears, &marker, &err);
  FUZZ_CHECK(rc == XIO_OK || rc == XIO_EPARSE || rc == XIO_ENOMEM);
  if (rc == XIO_OK) {
    check_sorted(&pages);
    check_sorted(&clears);
    FUZZ_CHECK(!marker || marker[0]);
  } else {
    FUZZ_CHECK(marker == NULL && err.code == rc && err.message[0]);
    check_as_before(&pages);
    check_as_before(&clears);
  }
  if (rc == XIO_OK) free(marker);
  xio_ranges_clear(&pages);
  xio_ranges_clear(&clears);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  read_body(data, size, size & 1); /* one parse per input: they are slow */
  return 0;
}
