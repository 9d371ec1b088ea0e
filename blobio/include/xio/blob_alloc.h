/*
 * xio/blob_alloc.h - handing xio's allocator (<xio/alloc.h>) to the libraries the
 * page-blob client is built on: libcurl, libxml2 and cJSON (part of libxio_blob).
 *
 * Each of those libraries keeps one allocator for the whole process, and the program
 * owns that choice, not xio: xio never sets them on its own, so a host program that
 * installed its own allocators keeps them. A program (or a test that fails
 * allocations in turn) asks for the sharing with xio_blob_share_allocator.
 */
#ifndef XIO_BLOB_ALLOC_H
#define XIO_BLOB_ALLOC_H

#include <xio/error.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Makes libcurl (curl_global_init_mem), libxml2 (xmlMemSetup, xmlGcMemSetup) and
 * cJSON (cJSON_InitHooks) allocate through xio_malloc and friends, so that they use
 * whatever allocator xio_alloc_set installs, now or later. Process-wide and not
 * thread-safe: call it once, early, before any thread uses libcurl, libxml2 or
 * cJSON. libcurl takes its allocator only at its first global init: if the process
 * already initialized libcurl, its allocator stays as it was (and the call still
 * succeeds). The libcurl global init it does is kept for the life of the process,
 * so later engines never tear libcurl down and set it up again. OpenSSL is left
 * alone: its allocator can only be set before its first allocation, and a failed
 * OpenSSL initialization cannot be retried in the same process.
 * Errors: XIO_ETRANSPORT (libcurl or libxml2 could not be initialized).
 */
xio_err xio_blob_share_allocator(xio_error *err);

#ifdef __cplusplus
}
#endif
#endif /* XIO_BLOB_ALLOC_H */
