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
 * by their log-safe URL. Messages name the options as the command line spells them
 * (--resume, --snapshot), which is how people meet them.
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
  /** 1: a dry run: plan the run (DIR's chain and pending link read, the blob's
   *  properties and page ranges listed, the pieces and reads counted as a real run
   *  cuts them) and fill the result and its `plan`, taking no snapshot, reading no
   *  data, deleting nothing and making or changing nothing in DIR. 0 (default): a
   *  real run. */
  int dry_run;
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
  /** A dry run's plan: the requests the real run would send, by REST operation
   *  (bytes_read and read_requests above: what it would read). Zero after a real
   *  run. */
  struct {
    uint64_t properties;  /**< Get Blob Properties: the blob and each snapshot opened */
    uint64_t snapshots;   /**< Snapshot Blob: the snapshot taken */
    uint64_t page_ranges; /**< Get Page Ranges (with prevsnapshot for a later link) */
    uint64_t deletes;     /**< snapshots of the links keep drops, deleted */
  } plan;
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

/* --------------------------------------------------------------- restores ---- */

/** A chain as a backup directory's chain.json holds it: its complete links, the
 *  restore points, oldest first (what an unfinished run is making is not among
 *  them). Read once when opened; not changed by the calls below. */
typedef struct xio_backup_chain xio_backup_chain;

/** One restore point (a link of the chain). Its strings are the chain's: valid
 *  until it is closed. */
typedef struct xio_backup_point {
  const char *snapshot;   /**< the snapshot's id */
  const char *time;       /**< when it was backed up, ISO 8601 UTC */
  uint64_t size;          /**< the blob's size at the snapshot */
  int base;               /**< 1: the base, a full copy (the first point) */
  size_t written_ranges;  /**< written since the previous point (base: allocated) */
  uint64_t written_bytes; /**< their bytes, held in the point's data file */
  size_t cleared_ranges;  /**< cleared since the previous point */
  uint64_t cleared_bytes; /**< their bytes */
  size_t pieces;          /**< the pieces of its data, each with a CRC-64 */
} xio_backup_point;

/**
 * Opens the chain in the backup directory `dir` for reading: `*out` gets it (the
 * caller owns it: xio_backup_chain_close). Nothing is locked: a backup may add
 * links meanwhile, which this chain does not see. Errors (operation ReadManifest):
 * XIO_ENOTFOUND ("no backup chain in DIR": no chain.json), XIO_EPARSE (chain.json
 * is damaged or of another version; the message names the file, the link and the
 * field), XIO_EIO, XIO_ENOMEM. A damaged chain.json costs no more memory than its
 * text.
 */
xio_err xio_backup_chain_open(const char *dir, xio_backup_chain **out, xio_error *err);

/** Frees the chain; NULL does nothing. */
void xio_backup_chain_close(xio_backup_chain *ch);

/** The backup directory, as it was given to xio_backup_chain_open. */
const char *xio_backup_chain_dir(const xio_backup_chain *ch);

/** The log-safe URL of the blob the chain is of (no SAS, no key). */
const char *xio_backup_chain_source(const xio_backup_chain *ch);

/** The blob's kind, given to a blob restored from the chain. */
xio_kind xio_backup_chain_kind(const xio_backup_chain *ch);

/** The number of restore points (0 for a chain with no complete link yet). */
size_t xio_backup_chain_count(const xio_backup_chain *ch);

/** Describes point `index` (0: the base, oldest) into `*out`. Returns XIO_OK, or
 *  XIO_ERANGE when there is no such point (`*out` untouched). */
xio_err xio_backup_chain_point(const xio_backup_chain *ch, size_t index, xio_backup_point *out);

/**
 * The index of the point of snapshot `id` (NULL: the newest) into `*index`.
 * Errors (operation Restore): XIO_ENOTFOUND when the chain has no complete point
 * yet, or none of that snapshot (the message names the chain's first and last
 * snapshot).
 */
xio_err xio_backup_chain_find(const xio_backup_chain *ch, const char *id, size_t *index,
                              xio_error *err);

/**
 * Rebuilds the blob as it was at point `index` in `fd`, an empty local file open
 * for reading and writing (the caller's, left open): sized, every point up to
 * `index` applied in turn, base first (resized, cleared ranges punched out, pieces
 * written); all-zero blocks stay holes, so the file is as sparse as the blob was.
 * Every piece is checked against its CRC-64 before any of its bytes is written.
 * `what` names the file in messages; `*bytes` (may be NULL) gets the bytes of
 * pieces read. Errors: XIO_ERANGE (no such point), XIO_ECHECKSUM (ReadBackup: a
 * damaged piece, naming the data file, its position and its blob offset), XIO_EIO
 * (ReadBackup: a data file short or unreadable; RestoreFile: a write to `fd` that
 * failed, naming `what`), XIO_ENOMEM.
 */
xio_err xio_backup_restore_fd(const xio_backup_chain *ch, size_t index, int fd, const char *what,
                              uint64_t *bytes, xio_error *err);

/**
 * As xio_backup_restore_fd, into a scratch file that vanishes with the process (made
 * in the chain's directory, or in TMPDIR or /tmp when that is read-only): `*fd`
 * gets it, open for reading and writing, for the caller to read (to upload it, say)
 * and close. Errors: those of xio_backup_restore_fd (`*fd` is then -1, nothing
 * left), what open reports when no scratch file can be made (operation Restore,
 * naming the directory).
 */
xio_err xio_backup_restore_scratch(const xio_backup_chain *ch, size_t index, int *fd,
                                   uint64_t *bytes, xio_error *err);

/* ------------------------------------------------ restores into a target ---- */

/** Polled by a restore between its steps: non-zero stops it (XIO_ECANCELED). */
typedef int (*xio_backup_stop_fn)(void *ud);

/** How a restore into a target goes (xio_backup_restore_to). */
typedef struct xio_backup_restore_options {
  /** 1: a target that exists is replaced in place (resized, what is left of its old
   *  content cleared, the point written), so its snapshots stay. 0 (default): a
   *  target that exists is refused (XIO_EEXIST). */
  int force;
  /** 1: finish a restore into the target that stopped before it was complete (the
   *  target is marked incomplete; with force, any target): every byte of it is
   *  compared with the point and only the pages that differ are sent. */
  int resume;
  /** Writes in flight at once, 1..64; 0 (default): 6. The upload's memory is
   *  (in_flight + 2) x 4 MiB whatever the size of the point. */
  int in_flight;
  /** Receives how far the upload has come: `done` of its `total` bytes of the
   *  rebuilt point gone through (the bytes that hold data; with resume, every
   *  byte). May be NULL (default). */
  xio_backup_progress_fn progress;
  /** Polled between the pieces of the rebuild and before each 4 MiB of the upload:
   *  non-zero stops the restore with XIO_ECANCELED, the writes on their way
   *  waited for. A caller that stops on a signal also cancels the context
   *  (xio_ctx_cancel), so that no request waits on a silent service. May be NULL
   *  (default): never stopped but by the context. */
  xio_backup_stop_fn stop;
  void *ud; /**< handed to progress and stop */
  /** 1: a dry run: the point rebuilt in the scratch file as for a real restore (the
   *  chain's files read), the target opened read-only and refused as a real restore
   *  refuses it, then the upload planned by the same scan and merge, the requests
   *  the real restore would send to a blob target counted in the result's `plan`
   *  (bytes_sent and writes too); nothing is created, written or marked. With
   *  resume, the target's bytes are read for the comparison, as a real run reads
   *  them. 0 (default): a real restore. */
  int dry_run;
} xio_backup_restore_options;

/** The defaults documented above: no force, no resume, 6 writes in flight, no
 *  callbacks, not a dry run. Cannot fail. */
xio_backup_restore_options xio_backup_restore_options_default(void);

/** What a restore into a target did (plain values: nothing to free), also when it
 *  failed: what became of the target then. */
typedef struct xio_backup_restore_result {
  uint64_t size;          /**< the point's size: the target's */
  uint64_t bytes_read;    /**< of pieces read from the chain to rebuild the point */
  uint64_t bytes_total;   /**< of the rebuilt point to go through (see progress) */
  uint64_t bytes_scanned; /**< of them gone through: sent, all zero, or already there */
  uint64_t bytes_sent;    /**< in writes (with the zeros of small gaps bridged in them) */
  uint64_t writes;        /**< write requests (each at most XIO_WRITE_MAX_SIZE) */
  uint64_t throttled;     /**< tries of the target's requests the service throttled */
  /** 1: a request was made of the target (its create, or the open of the one that
   *  exists); 0: the restore ended before, and the target is as it was. */
  int reached;
  /** 1: the target existed and was opened to be written in place (force, resume):
   *  a failed restore never deletes it. */
  int in_place;
  /** 1: the target is marked incomplete by this restore (created so, or marked
   *  before its first change); a failed restore leaves the mark. */
  int marked;
  /** 1: a request that changes the target's size, kind or bytes was made. */
  int changed;
  /** A dry run's plan: the requests the real restore would send to a blob target,
   *  by REST operation, and their bytes. Zero after a real restore. */
  struct {
    uint64_t put_blobs;         /**< Put Blob: the create (also one refused: it exists) */
    uint64_t create_containers; /**< Create Container: the create met none */
    uint64_t properties;        /**< Get Blob Properties: the target opened */
    uint64_t set_metadata;      /**< Set Blob Metadata: the mark, kind, logical size */
    uint64_t resizes;           /**< Set Blob Properties: the target resized */
    uint64_t clears;            /**< Put Page clear: the old content cleared (force) */
    uint64_t bytes_cleared;     /**< by them */
    uint64_t put_pages;         /**< Put Page */
    uint64_t page_bytes;        /**< in them (whole pages; a partial last sector whole) */
    uint64_t reads;             /**< Get Blob: partial sectors, resume's comparison */
    uint64_t bytes_read;        /**< by them */
  } plan;
} xio_backup_restore_result;

/**
 * Restores point `index` of `ch` into `target`, a page blob's URL (or a local path,
 * through the file layer's local backend, as any target of xio_file_open): the
 * point is rebuilt in a scratch file first (xio_backup_restore_scratch: every piece
 * checked against its CRC-64, so a damaged chain fails before the target is
 * touched), then uploaded through `ctx` (the caller's: its credentials, checksum,
 * trace and pacing serve every request). The target is created at the point's size
 * with the chain's kind, marked incomplete by its create, and only the 512-byte
 * pages that are not all zeros are sent (a new blob reads zeros elsewhere), in
 * writes of up to XIO_WRITE_MAX_SIZE, a gap of zeros bridged inside one only when
 * it is at most 64 KiB and no longer than the data before it in that write; the
 * mark is cleared once every write is acknowledged. `opts` (NULL: the defaults)
 * says what to do with a target that exists. `out` (may be NULL) gets what the
 * restore did, also when it fails.
 *
 * Errors: XIO_EINVAL (no context, chain or target; in_flight out of range),
 * XIO_ERANGE (no such point), those of xio_backup_restore_scratch (the target not
 * touched), XIO_EEXIST (the target exists, without force or resume: "... already
 * exists; --force replaces it"; with resume, it is not marked incomplete: "nothing
 * to resume: ... is complete", nothing written, not even the mark), XIO_ENOTFOUND
 * (resume, and no target: "... does not exist: nothing to resume"), XIO_ECANCELED
 * (the stop callback, operation Restore; or the context canceled), and the file
 * layer's errors for the requests (XIO_EBUSY: leased by another client, the
 * target's content not changed; XIO_ENOMEM ...). Messages name the options as the
 * command line spells them (--force, --resume). When a restore fails, a target it
 * created is deleted, unless it was stopped (XIO_ECANCELED: the target stays,
 * marked incomplete, for resume); a target written in place stays, marked
 * incomplete once `out->marked`.
 */
xio_err xio_backup_restore_to(xio_ctx *ctx, const xio_backup_chain *ch, size_t index,
                              const char *target, const xio_backup_restore_options *opts,
                              xio_backup_restore_result *out, xio_error *err);

#ifdef __cplusplus
}
#endif

#endif /* XIO_BACKUP_H */
