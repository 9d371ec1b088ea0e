/*
 * samples_target.h - what a transfer into a blob does with its target before it
 * sends a byte, shared by `xio put` and the backup library's restore: open options
 * for content of a given kind and size, and a target replaced or resumed in place
 * (so its snapshots stay), marked incomplete until the last write is acknowledged.
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

#endif
