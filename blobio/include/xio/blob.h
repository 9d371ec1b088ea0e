/*
 * xio/blob.h - the page-blob REST client (libxio_blob), in one include. Its parts:
 *  - <xio/blob_crc.h>    the transactional checksums (CRC-64, MD5);
 *  - <xio/blob_engine.h> the engine: connection pool, I/O thread, retries;
 *  - <xio/blob_target.h> targets: an addressed container or blob with its credential;
 *  - <xio/blob_call.h>   calls: one builder per REST operation, sending, results;
 *  - <xio/blob_sync.h>   synchronous operations programs use.
 * It stands on the shared base and credentials of libxio_auth (<xio/auth.h>).
 */
#ifndef XIO_BLOB_H
#define XIO_BLOB_H

#include <xio/auth.h>
#include <xio/blob_call.h>
#include <xio/blob_crc.h>
#include <xio/blob_engine.h>
#include <xio/blob_sync.h>
#include <xio/blob_target.h>
#include <xio/error.h>

#endif /* XIO_BLOB_H */
