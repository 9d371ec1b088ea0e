/*
 * samples_target.h - what a transfer into a blob does with its target before it
 * sends a byte, shared by `xio put` and the backup library's restore: open options
 * for content of a given kind and size, and a target replaced or resumed in place
 * (so its snapshots stay), marked incomplete until the last write is acknowledged;
 * and, for a dry run of either, the requests the file layer sends for all of it
 * (samples_target_plan), counted from the target as it is, without a change.
 */
#ifndef XIO_SAMPLES_TARGET_H
#define XIO_SAMPLES_TARGET_H

#include <stdint.h>

#include <xio/xio.h>

/** Open options for a target that will hold `size` bytes of `kind` with `flags`:
 *  unaligned writes when the size is not whole pages, nothing initialised (a new
 *  file reads as zeros; only data is sent). */
xio_open_options samples_target_options(xio_kind kind, uint64_t size, unsigned flags);

/** Readies the open target `f` for content written in place: marks it incomplete
 *  (*marked set once it is), records `kind` (*changed set from there: the content
 *  changes) and sets `size` (growth reads as zeros). When `clear_old`, also clears
 *  what is left of the old content, in whole pages, so nothing of it shows through
 *  the new. Leaves `f` open either way. Errors: the file layer's. */
xio_err samples_target_in_place(xio_file *f, xio_kind kind, uint64_t size, int clear_old,
                                int *marked, int *changed, xio_error *err);

/** Refuses to resume onto `*f`, a target no transfer left marked incomplete (it is
 *  whole, and resuming would replace it; only force says to): closes it, sets *f to
 *  NULL, and returns XIO_EEXIST with a message naming it (`what` when it has no
 *  name). */
xio_err samples_target_nothing_to_resume(xio_file **f, const char *what, xio_error *err);

/** Rewrites the message of a failed open for a resume: XIO_ENOTFOUND says that there
 *  is nothing to resume (naming `what` when the error names no target). Any other
 *  error is left as it is. */
void samples_target_resume_missing(xio_err rc, const char *what, xio_error *err);

/** The requests a transfer sends to a blob target, by REST operation, as a dry run
 *  counts them (the samples_target_plan_* functions add to it). Zero-initialise it. */
typedef struct samples_target_plan {
  uint64_t put_blobs;         /**< Put Blob: the create (also one refused: it exists) */
  uint64_t create_containers; /**< Create Container: the create met a missing container */
  uint64_t properties;        /**< Get Blob Properties: the target opened */
  uint64_t set_metadata;      /**< Set Blob Metadata: the mark, the kind, the logical size */
  uint64_t resizes;           /**< Set Blob Properties: the target resized */
  uint64_t clears;            /**< Put Page clear */
  uint64_t bytes_cleared;     /**< by them */
  uint64_t put_pages;         /**< Put Page (update) */
  uint64_t bytes_sent;        /**< in them (whole pages) */
  uint64_t reads;             /**< Get Blob: partial sectors read back, compared bytes */
  uint64_t bytes_read;        /**< by them */
} samples_target_plan;

/** Counts what the create of a target meets, learnt from `rc`, the result of opening
 *  it read-only: XIO_ENOTFOUND, the create made (with `err`'s service code
 *  ContainerNotFound: refused, the container created, the create sent again), and
 *  `err` cleared; returns XIO_OK then. Any other result is returned as it is,
 *  nothing counted. */
xio_err samples_target_plan_create(samples_target_plan *p, xio_err rc, xio_error *err);

/** Counts the requests with which samples_target_in_place readies `f` (open, read
 *  only will do) for `size` bytes of `kind`, from what it is now: the mark, the kind,
 *  the size (the partial last sector of a shrunk target zeroed, the resize, the
 *  logical size in the metadata) and, with `clear_old`, the clear of what is left of
 *  the old content. */
void samples_target_plan_in_place(samples_target_plan *p, const xio_file *f, xio_kind kind,
                                  uint64_t size, int clear_old);

/** Counts a write of [start, end) (`start` on a page) to a target opened without a
 *  lease: its whole pages in one Put Page, and a last sector that the target's size
 *  leaves partial read and written back (If-Match on the ETag). */
void samples_target_plan_write(samples_target_plan *p, uint64_t start, uint64_t end);

#endif
