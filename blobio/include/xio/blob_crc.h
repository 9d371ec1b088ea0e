/*
 * xio/blob_crc.h - the transactional checksums of the page-blob client (libxio_blob):
 * CRC-64/NVME as Azure's x-ms-content-crc64 uses it, and Content-MD5. Pure functions,
 * callable from any thread.
 */
#ifndef XIO_BLOB_CRC_H
#define XIO_BLOB_CRC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** CRC-64/NVME (reflected poly 0x9A6C9329AC4BC9B5, init and xorout all ones) of `n`
 *  bytes, continuing from `crc` (start with 0). */
uint64_t xio_blob_crc64(uint64_t crc, const void *data, size_t n);

/** x-ms-content-crc64 header value of a body: base64 of the little-endian CRC. `out`
 *  holds 13 bytes. Returns `out`. */
char *xio_blob_crc64_base64(const void *data, size_t n, char out[13]);

/** Content-MD5 header value of a body: base64 of its MD5. `out` holds 25 bytes. */
char *xio_blob_md5_base64(const void *data, size_t n, char out[25]);

#ifdef __cplusplus
}
#endif
#endif /* XIO_BLOB_CRC_H */
