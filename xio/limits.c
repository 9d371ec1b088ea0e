/*
 * limits.c - the service's limits and checksum in the words of xio.h, for programs
 * and engines that must not reach into the page-blob client: each is the client's
 * own, checked here at compile time so the two can never disagree.
 */
#include <xio/blob_call.h>
#include <xio/blob_crc.h>
#include <xio/xio.h>

_Static_assert(XIO_PAGE_SIZE == XIO_BLOB_PAGE_SIZE, "a page is the page blob's page");
_Static_assert(XIO_WRITE_MAX_SIZE == XIO_BLOB_MAX_PUT_PAGE, "the largest write is Put Page's");
_Static_assert(XIO_FILE_MAX_SIZE == XIO_BLOB_MAX_SIZE, "the largest file is the largest blob");

uint64_t xio_crc64(uint64_t crc, const void *data, size_t n) {
  return xio_blob_crc64(crc, data, n);
}
