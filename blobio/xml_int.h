/*
 * xml_int.h - parsing the XML bodies the blob service returns (libxml2): error
 * bodies, page lists and blob listings. Internal to libxio_blob.
 *
 * Every parser takes the raw body (not NUL-terminated; a UTF-8 BOM is accepted),
 * never fetches anything over the network, expands no external entities, and
 * answers XIO_EPARSE for malformed XML or a missing required element.
 */
#ifndef XIO_BLOB_XML_INT_H
#define XIO_BLOB_XML_INT_H

#include <stddef.h>

#include <xio/blob.h>
#include <xio/entra.h>

/**
 * Reads <Error><Code>..</Code><Message>..</Message></Error>. `code` and `message`
 * receive the texts (truncated to their sizes, "" when absent; the message's first
 * line only). Errors: XIO_EPARSE (not XML, or the root is not <Error>).
 */
xio_err xio__blob_xml_error(const char *body, size_t len, char *code, size_t code_size,
                            char *message, size_t message_size);

/**
 * Reads <PageList> with <PageRange>/<ClearRange> elements of <Start>/<End> and an
 * optional <NextMarker>. Page ranges are added to `ranges` (merged, see
 * xio_ranges_add in <xio/base.h>); clear ranges to `cleared` when it is not NULL. `*next_marker`
 * gets a malloc'd marker or NULL (when empty or absent). Errors: XIO_EPARSE (including
 * Start > End, or numbers that do not parse), XIO_ENOMEM.
 */
xio_err xio__blob_xml_page_list(const char *body, size_t len, xio_ranges *ranges,
                                xio_ranges *cleared, char **next_marker, xio_error *err);

/**
 * Reads <EnumerationResults><Blobs><Blob><Name/><Properties>...</Properties></Blob>
 * ... </Blobs><NextMarker/></EnumerationResults>: for each blob its name,
 * Content-Length, BlobType, LeaseState, LeaseStatus, LeaseDuration and
 * Last-Modified, its <Snapshot> when it is one, and the first XIO_BLOB_MAX_META
 * entries of its <Metadata> when present (names that are not identifiers are
 * skipped, values truncated to fit). Appends to `out` (which
 * starts zeroed or holds earlier entries); sets out->next_marker (NULL when empty).
 * Errors: XIO_EPARSE, XIO_ENOMEM.
 */
xio_err xio__blob_xml_blob_list(const char *body, size_t len, xio_blob_list *out, xio_error *err);

/**
 * Reads <EnumerationResults><Containers><Container><Name/><Properties>
 * <Last-Modified/>...</Properties></Container>...</Containers><NextMarker/>: each
 * container's name (required) and last-modified date. Appends to `out`; sets
 * out->next_marker (NULL when empty). Errors: XIO_EPARSE, XIO_ENOMEM.
 */
xio_err xio__blob_xml_container_list(const char *body, size_t len, xio_blob_container_list *out,
                                     xio_error *err);

/** Frees what a listed blob owns (name, snapshot, metadata) and clears those
 *  fields (list.c). */
void xio__blob_item_free(xio_blob_item *item);

/**
 * Reads <UserDelegationKey> with SignedOid, SignedTid, SignedStart, SignedExpiry,
 * SignedService, SignedVersion and Value (all required) into `out` (cleared on
 * failure; Value is a secret). Errors: XIO_EPARSE, XIO_ENOMEM.
 */
xio_err xio__blob_xml_udk(const char *body, size_t len, xio_auth_udk *out, xio_error *err);

#endif
