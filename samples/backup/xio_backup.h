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

#ifdef __cplusplus
}
#endif

#endif /* XIO_BACKUP_H */
