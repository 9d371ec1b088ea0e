/*
 * readcheck_int.h - reads verified end to end (readcheck.c): a Get Blob of at most
 * XIO_BLOB_MAX_CHECKED_READ bytes asks the service for the range's transactional
 * checksum and checks the body it received against it. Internal to libxio_blob.
 */
#ifndef XIO_BLOB_READCHECK_INT_H
#define XIO_BLOB_READCHECK_INT_H

#include "engine_int.h"

/* What a read asked the service for (xio_blob_call.read_check). */
#define XIO__READ_CHECK_NONE  0
#define XIO__READ_CHECK_CRC64 1 /* x-ms-range-get-content-crc64 -> x-ms-content-crc64 */
#define XIO__READ_CHECK_MD5   2 /* x-ms-range-get-content-md5 -> Content-MD5 */

/**
 * Before a call is submitted: when `c` is a Get Blob into a buffer of 1 to
 * XIO_BLOB_MAX_CHECKED_READ bytes and `kind` is not XIO_BLOB_CHECKSUM_NONE, adds the
 * request header that asks for the range's checksum of that kind and notes it in
 * c->read_check; any other call is left alone. Calling it again (a call sent once
 * more) changes nothing. `md5_only` asks for MD5 where `kind` says CRC-64 (the
 * service refused a CRC-64 read before: xio__blob_read_check_fallback).
 * Errors: XIO_ENOMEM.
 */
xio_err xio__blob_read_check_ask(xio_blob_call *c, xio_blob_checksum kind, int md5_only);

/**
 * After a 2xx try of `c` delivered its whole range: checks the body against the
 * checksum the answer carries. 1 when it does not match, with `v` set to
 * XIO_ECHECKSUM, retryable (a body corrupted on its way, sent again like a torn
 * one), and c->err naming the range, both values and the request id; else 0. An
 * answer without the checksum asked for is not taken either (1, the same verdict,
 * c->err saying the bytes are not vouched for).
 */
int xio__blob_read_check_verify(xio_blob_call *c, xio__blob_verdict *v);

/**
 * After a failed try of `c`: 1 when the service refused the CRC-64 it was asked for
 * (Azurite: 500 FeatureNotSupported naming x-ms-range-get-content-crc64) or answered
 * without it, in which case `c` now asks for MD5 instead and may be sent again at
 * once (nothing usable was read); else 0. Errors: none (out of memory while switching: 0, the
 * failure stands).
 */
int xio__blob_read_check_fallback(xio_blob_call *c);

#endif
