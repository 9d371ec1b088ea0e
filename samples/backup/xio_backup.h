/*
 * xio_backup.h - incremental backups of a page blob into a chain of restore points
 * in a local directory, and restores of any point: the library behind `xio backup`
 * and `xio restore`, for any program on xio (an engine backs up without the
 * command line).
 *
 * A backup run takes a snapshot of the blob (or uses one the engine took at a
 * consistent point) and adds one link to the chain in DIR: the first run a full
 * copy of the snapshot's allocated ranges (the base), each later run only the
 * ranges the service lists as written since the chain's newest snapshot, with those
 * cleared recorded. Every piece of data is kept with its CRC-64; an interrupted run
 * leaves nothing a restore takes for complete, and the next run finishes it.
 * docs/backups.md describes the chain's format and its guarantees.
 *
 * The library prints nothing: what a person should hear comes through the say
 * callback, how far a download has come through the progress callback. Errors are
 * xio_err codes with their detail in an xio_error (<xio/error.h>); the operations
 * the library names in err->operation are ReadManifest, WriteManifest, ReadBackup,
 * WriteBackup, Backup, Restore and KeepBackups, besides the file layer's own for
 * the requests it sends. Nothing it reports carries a SAS or a key: blobs are named
 * by their log-safe URL.
 */
#ifndef XIO_BACKUP_H
#define XIO_BACKUP_H

#include <stddef.h>
#include <stdint.h>

#include <xio/xio.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The longest snapshot id a chain holds, with its NUL. */
#define XIO_BACKUP_ID_MAX 64

/** What the library tells a person without failing. */
typedef enum xio_backup_note {
  /** The existing DIR lets other users in (a group or other mode bit): the line
   *  names DIR, its mode and the chmod that keeps its backups private. */
  XIO_BACKUP_NOTE_DIR_OPEN = 1,
  /** keep: the snapshot of a dropped link could not be deleted on the service: the
   *  line names it, the error's name and its message. */
  XIO_BACKUP_NOTE_SNAPSHOT_LEFT = 2,
} xio_backup_note;

/** Receives a line for a person (no line end, valid only during the call). */
typedef void (*xio_backup_say_fn)(void *ud, xio_backup_note note, const char *line);

/** Receives how far a link's download has come: `done` of its `total` bytes of
 *  data are written (pieces kept from an interrupted run count as done). */
typedef void (*xio_backup_progress_fn)(void *ud, uint64_t done, uint64_t total);

/** How a backup run goes. */
typedef struct xio_backup_options {
  /** Back up this existing snapshot of the blob (its id, as xio_file_snapshot
   *  gives it) instead of taking one; it must be newer than the chain's newest
   *  link. An unfinished link of another snapshot is finished first, then this
   *  one is backed up after it. NULL (default): take a snapshot. */
  const char *snapshot;
  /** Keep the newest `keep` links after the run: older links are folded into the
   *  oldest one kept, which becomes the full base, and their snapshots are deleted
   *  on the service (never the newest link's). 0 (default): keep every link. */
  size_t keep;
  /** 1: only finish an unfinished run (XIO_ENOTFOUND when there is none). */
  int resume;
  xio_backup_say_fn say;           /**< may be NULL (default): nothing is said */
  xio_backup_progress_fn progress; /**< may be NULL (default) */
  void *ud;                        /**< handed to say and progress */
} xio_backup_options;

/** The defaults documented above: take a snapshot, keep every link, no callbacks.
 *  Cannot fail. */
xio_backup_options xio_backup_options_default(void);

/** What a backup run did (plain values: nothing to free). */
typedef struct xio_backup_result {
  char snapshot[XIO_BACKUP_ID_MAX]; /**< the snapshot of the chain's newest link */
  int base;                         /**< 1: that link is the base (a full copy) */
  int resumed;                      /**< 1: it was left unfinished by an earlier run */
  /** The unfinished link of another snapshot that the run finished before the one
   *  named in the options ("" when none), its pieces and those kept. */
  char finished_first[XIO_BACKUP_ID_MAX];
  size_t first_pieces, first_pieces_kept;
  uint64_t size;            /**< the blob's size at the snapshot */
  size_t written_ranges;    /**< written since the previous link (base: allocated) */
  uint64_t written_bytes;   /**< their bytes */
  size_t cleared_ranges;    /**< cleared since the previous link: zeroed on restore */
  uint64_t cleared_bytes;   /**< their bytes */
  size_t pieces;            /**< the link's pieces (of at most 8 MiB, each with a CRC-64) */
  size_t pieces_kept;       /**< of them, written by an interrupted run and kept */
  uint64_t bytes_read;      /**< downloaded by this run */
  uint64_t read_requests;   /**< in this many Get Blob requests */
  size_t links;             /**< the chain's links after the run */
  size_t links_pruned;      /**< folded into the base by keep */
  size_t snapshots_deleted; /**< of the pruned links, deleted on the service */
} xio_backup_result;

/**
 * Backs up the page blob `url` into the chain in the local directory `dir` (made
 * when missing, mode 0700; every file in it 0600): one link added, as `opts` (NULL:
 * the defaults) asks. A run first finishes an unfinished link that an interrupted
 * run left, from the same snapshot. `ctx` is the caller's (its credentials, trace
 * and pacing serve every request); the run opens what it needs in it and closes it
 * again. `out` (may be NULL) gets what the run did. Only one run writes a directory
 * at a time, and a directory holds the chain of one blob.
 *
 * Errors (the detail in `err`, operation Backup unless said otherwise):
 * XIO_EINVAL (no context, URL or directory; a local file, which has no snapshots;
 * a snapshot's URL; a malformed snapshot id; DIR holds another blob's chain or
 * unfinished link; a named snapshot not newer than the chain's newest link, or
 * older than the unfinished link, or named with resume while another is
 * unfinished), XIO_ENOTFOUND (resume with nothing unfinished; the unfinished
 * link's snapshot or the chain's newest snapshot is gone from the service),
 * XIO_ECONFLICT (service code BlobOverwritten: the blob was replaced by a copy onto
 * it, so the chain has ended), XIO_EBUSY (another backup writes DIR), XIO_EPARSE
 * (ReadManifest: chain.json or pending.json is damaged or of another version),
 * XIO_EIO and what the file system reports (ReadManifest, WriteManifest,
 * WriteBackup, KeepBackups: naming the file), XIO_ECHECKSUM (KeepBackups: a piece
 * of the chain is damaged), XIO_ENOMEM, and the file layer's errors for the
 * requests (a snapshot, a read, a listing). A failed run leaves the chain as it
 * was, and its unfinished link for the next run to finish; a DIR it made is
 * removed when it holds nothing.
 */
xio_err xio_backup_run(xio_ctx *ctx, const char *url, const char *dir,
                       const xio_backup_options *opts, xio_backup_result *out, xio_error *err);

#ifdef __cplusplus
}
#endif

#endif /* XIO_BACKUP_H */
