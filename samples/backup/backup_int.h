/*
 * backup_int.h - the backup library's internals (xio_backup.h is its public face):
 * the chain of a blob's backups in a local directory, shared by the files that
 * read and write it, back it up, rebuild its points and prune it.
 *
 * A chain is a list of links, oldest first. Each link stands for one snapshot of
 * the blob: its id, when it was backed up, the blob's size then, the ranges written
 * and cleared since the previous link's snapshot (the first link, the base, holds
 * every allocated range and clears nothing), and a data file holding the bytes of
 * the written ranges one after the other, cut into pieces of at most BK_PIECE
 * bytes, each with its CRC-64. The state of the blob at link k is: an empty file of
 * the base's size, then for each link up to k in turn, resized to the link's size,
 * its cleared ranges zeroed and its pieces written.
 *
 * In DIR: chain.json (the manifest: only complete links), pending.json (the link
 * being backed up, with the pieces already written and checked, and the blob it
 * is of; absent when none is), link-SEQ.data (a link's data) and
 * link-SEQ.data.partial (the pending link's data until it is complete). chain.json
 * and pending.json are replaced atomically (written to a temporary name, fsynced,
 * renamed, the directory fsynced), and a link reaches chain.json only after its
 * data file is complete and fsynced, so an interrupted run leaves nothing that a
 * restore takes for complete. DIR is made 0700 and every file in it 0600
 * (bk_open_private): backups are their owner's.
 */
#ifndef XIO_BACKUP_INT_H
#define XIO_BACKUP_INT_H

#include <stddef.h>
#include <stdint.h>

#include <xio/xio.h>

#include "xio_backup.h"

struct cJSON;

#define BK_PIECE           ((uint64_t)8 << 20) /* the largest piece: one read request */
#define BK_BATCH           (4 * BK_PIECE)      /* the most one read fetches: four pieces */
#define BK_FORMAT          "xio-backup-chain"
#define BK_VERSION         1
#define BK_MANIFEST        "chain.json"
#define BK_PENDING         "pending.json"
#define BK_PENDING_FORMAT  "xio-backup-pending"
#define BK_PENDING_VERSION 1
#define BK_ID_MAX          XIO_BACKUP_ID_MAX
#define BK_NAME_MAX        64

/** One piece of a link's data: blob bytes [off, off + len), at `pos` in the data file. */
typedef struct bk_piece {
  uint64_t off, len, pos;
  uint64_t crc; /* CRC-64/NVME of the bytes */
} bk_piece;

/** One link of the chain. */
typedef struct bk_link {
  char snapshot[BK_ID_MAX]; /* the snapshot's id */
  char time[32];            /* when it was backed up, ISO 8601 UTC */
  char data[BK_NAME_MAX];   /* the data file's name in DIR */
  uint64_t seq;             /* the number in the data file's name */
  uint64_t size;            /* the blob's size at the snapshot */
  int base;                 /* 1: the first link, a full copy */
  xio_ranges written;       /* written since the previous link (base: allocated) */
  xio_ranges cleared;       /* cleared since the previous link (base: none) */
  bk_piece *pieces;         /* the written ranges cut into pieces, in order */
  size_t npieces, cap;
  size_t verified; /* pending link: pieces[0..verified) are written and checked */
} bk_link;

/** A chain: its source and links, oldest first (the public xio_backup_chain). */
typedef struct xio_backup_chain {
  char *dir;      /* DIR (owned) */
  char *source;   /* the blob's log-safe URL (owned) */
  xio_kind kind;  /* the blob's kind, given to a restored blob */
  uint64_t next;  /* the seq of the next data file */
  bk_link *links; /* owned */
  size_t n;
} bk_chain;

/** One backup run (run.c), shared with the steps it takes: its link's snapshot
 *  (snapshot.c), the download of its data (download.c) and its hold on DIR
 *  (lock.c). */
typedef struct bk_job {
  xio_ctx *ctx;                /* the caller's */
  const xio_backup_options *o; /* the caller's */
  const char *url;             /* the blob */
  char *safe;                  /* its log-safe form (owned) */
  bk_chain ch;                 /* DIR's chain */
  bk_link link;                /* the link being made */
  int resumed;                 /* the link was pending from an earlier run */
  size_t kept;                 /* pieces of the pending link found written and checked */
  xio_file *snap;              /* the link's snapshot, pinned */
  int dfd;                     /* the partial data file */
  char partial[4096];
  char *buf; /* BK_BATCH bytes */
  uint64_t fetched, reads;
  size_t pruned, deleted;

  char *pending_source;  /* the blob pending.json says it is of (owned; NULL: unknown) */
  char first[BK_ID_MAX]; /* the unfinished link finished before the named snapshot's */
  size_t first_pieces, first_kept;
} bk_job;

/* ------------------------------------------------------------ link.c ---- */

/** Frees what `l` owns and zeroes it; safe to repeat. */
void bk_link_free(bk_link *l);

/** Cuts l->written into pieces of at most BK_PIECE bytes (pos counted from 0),
 *  crc 0; l->verified 0. Errors: XIO_ENOMEM. */
xio_err bk_link_cut(bk_link *l, xio_error *err);

/** The number of pieces bk_link_cut makes of `written`, counted without making them
 *  (at most 2^20 + written->n for ranges inside the largest page blob). */
uint64_t bk_count_pieces(const xio_ranges *written);

/** The end of the pieces from `i` that one read fetches: those that follow each
 *  other in the blob, up to BK_BATCH bytes. */
size_t bk_batch_end(const bk_link *l, size_t i);

/** Total bytes of l's pieces. */
uint64_t bk_link_bytes(const bk_link *l);

/** Adds a number that fits a double exactly (sizes up to 8 TiB do) to `o`. */
void bk_json_u64(struct cJSON *o, const char *name, uint64_t v);

/** 1 and the member `name` of `o` in `*out` when it is a whole number in
 *  [0, 2^53]; 0 otherwise. */
int bk_json_get_u64(const struct cJSON *o, const char *name, uint64_t *out);

/** The JSON form of `l` with its first `npieces` pieces (the caller deletes it); NULL
 *  when out of memory. */
struct cJSON *bk_link_json(const bk_link *l, size_t npieces);

/**
 * Reads the link `o` of the manifest `file` (its path, for messages) into `l`
 * (zeroed by the caller); `pending` allows fewer pieces than the cut of its ranges
 * (those verified: l->verified gets their number). Errors: XIO_EPARSE naming the
 * file, the link and the field (a size past the largest page blob, ranges past the
 * size or not sorted and apart, pieces that are not the cut of the ranges, a data
 * file outside the chain), XIO_ENOMEM. The numbers are checked before anything is
 * allocated from them.
 */
xio_err bk_link_parse(const struct cJSON *o, bk_link *l, int pending, const char *file,
                      xio_error *err);

/* ----------------------------------------------------------- chain.c ---- */

/** Frees what `ch` owns and zeroes it; safe to repeat. */
void bk_chain_free(bk_chain *ch);

/** The index of the link of snapshot `id` in `ch`, or -1. */
long bk_chain_find(const bk_chain *ch, const char *id);

/**
 * Loads DIR's chain.json into `ch` (dir set, no links when the file is missing and
 * `missing_ok`). Errors: XIO_ENOTFOUND (no chain.json and not `missing_ok`: "no
 * backup chain in DIR"), XIO_EPARSE (not a chain, another version, a malformed
 * link: a size past the largest page blob, ranges past the size, pieces that are
 * not the cut of the ranges; the message names the file, the link and the field),
 * XIO_EIO, XIO_ENOMEM. A link's numbers are checked before anything is allocated
 * from them, so a damaged manifest costs no more memory than its text.
 */
xio_err bk_chain_load(bk_chain *ch, const char *dir, int missing_ok, xio_error *err);

/** Writes `ch` as DIR/chain.json atomically. Errors: XIO_EIO (naming the file),
 *  XIO_ENOMEM. */
xio_err bk_chain_save(const bk_chain *ch, xio_error *err);

/* --------------------------------------------------------- pending.c ---- */

/**
 * Loads DIR/pending.json into `l`; `*source` gets the log-safe URL of the blob it is
 * of (malloc'd, xio_free), or NULL when the file is of the unversioned layout older
 * xio wrote, which records none. Returns XIO_ENOTFOUND when there is none;
 * XIO_EPARSE (also another format or version), XIO_EIO, XIO_ENOMEM as
 * bk_chain_load.
 */
xio_err bk_pending_load(const char *dir, bk_link *l, char **source, xio_error *err);

/** Writes `l` (with its first l->verified pieces) as DIR/pending.json atomically,
 *  versioned, recording `source` (the blob's log-safe URL) as the blob it is of. */
xio_err bk_pending_save(const char *dir, const bk_link *l, const char *source, xio_error *err);

/** Removes DIR/pending.json and fsyncs DIR. Errors: XIO_EIO. */
xio_err bk_pending_remove(const char *dir, xio_error *err);

/* ----------------------------------------------------------- files.c ---- */

/** `out` = DIR/NAME; XIO_EINVAL when it does not fit. */
xio_err bk_path(const char *dir, const char *name, char *out, size_t size, xio_error *err);

/** Opens `path` with `flags` (O_RDWR, O_TRUNC...), made when missing, never through a
 *  symbolic link, mode 0600 whatever the umask (a file that exists is made 0600
 *  too): a backup's files are only their owner's. -1 with errno set (ELOOP for a
 *  symbolic link). */
int bk_open_private(const char *path, int flags);

/** A scratch file in `dir` that vanishes with the process (O_TMPFILE, else a
 *  temporary name unlinked at once), open for reading and writing; -1 with errno
 *  set when none can be made. */
int bk_scratch(const char *dir);

/** fsyncs the directory `dir`. Errors: XIO_EIO. */
xio_err bk_sync_dir(const char *dir, xio_error *err);

/** Writes `o` (deleted here, whatever happens) as DIR/NAME atomically: through
 *  DIR/NAME.tmp, private, fsynced, renamed over, DIR fsynced. Errors: what the
 *  steps report (operation WriteManifest, naming the file), XIO_ENOMEM. */
xio_err bk_write_json(const char *dir, const char *name, struct cJSON *o, xio_error *err);

/** The whole of DIR/NAME, NUL-terminated (malloc'd, xio_free), or NULL with the error
 *  set: XIO_ENOTFOUND when it does not exist, XIO_EIO, XIO_ENOMEM (operation
 *  ReadManifest). */
char *bk_read_text(const char *dir, const char *name, xio_error *err);

/** Removes the files link-*.data and link-*.data.partial of DIR that neither the
 *  chain nor the pending link `pending` (may be NULL) names. */
void bk_sweep(const bk_chain *ch, const bk_link *pending);

/* --------------------------------------------------------- rebuild.c ---- */

/**
 * Rebuilds in `fd` (an empty file open for reading and writing) the blob as it was
 * at link `upto` of `ch`: sized, its cleared ranges holes, its pieces written where
 * they hold something else than zeros (all-zero blocks stay holes). Every piece is
 * checked against its CRC-64 as it is read. `*bytes` (may be NULL) gets the bytes of
 * pieces read. `stop` (may be NULL) is polled before each piece. Errors:
 * XIO_ECHECKSUM (a piece does not match: the message names the data file, the
 * piece's position and its blob offset), XIO_EIO (a data file short or unreadable, a
 * write that failed), XIO_ECANCELED (stop), XIO_ENOMEM.
 */
xio_err bk_rebuild(const bk_chain *ch, size_t upto, int fd, const char *what, uint64_t *bytes,
                   xio_backup_stop_fn stop, void *ud, xio_error *err);

/* --------------------------------------------------------- restore.c ---- */

/** xio_backup_restore_scratch with `stop` (may be NULL) polled before each piece:
 *  XIO_ECANCELED when it says to stop (`*fd` then -1, nothing left). */
xio_err bk_restore_scratch(const bk_chain *ch, size_t index, int *fd, uint64_t *bytes,
                           xio_backup_stop_fn stop, void *ud, xio_error *err);

/* ------------------------------------------------------------ keep.c ---- */

/**
 * keep N: keeps the newest `keep` links of `ch` (keep >= 1). When older links go,
 * the state at the oldest link kept is rebuilt locally and written as the new base
 * (a full copy), chain.json is replaced, the dropped data files are removed, and
 * the dropped links' snapshots are deleted on the service (blob `url`, through
 * `ctx`). The newest link's snapshot, the base of the next incremental backup, is
 * never deleted. `*pruned` gets the number of links dropped, `*deleted` the
 * snapshots deleted. A snapshot that cannot be deleted is told through `o`'s say
 * callback (XIO_BACKUP_NOTE_SNAPSHOT_LEFT), not an error.
 * Errors: as bk_rebuild and bk_chain_save.
 */
xio_err bk_keep(xio_ctx *ctx, const xio_backup_options *o, bk_chain *ch, const char *url,
                size_t keep, size_t *pruned, size_t *deleted, xio_error *err);

/* ------------------------------------------------------------- run.c ---- */

/** Loads DIR's chain (none when DIR is missing) and pending link into the job, and
 *  checks that both are of the job's blob; with resume, that a link is pending.
 *  Errors: as xio_backup_run's for them. */
xio_err bk_load(bk_job *j, const char *dir, xio_error *err);

/** --snapshot ID where an unfinished link of another snapshot P waits: XIO_OK when
 *  the run finishes P first, then backs up ID; XIO_EINVAL when ID cannot follow P
 *  (older), or resume asked to finish P only. */
xio_err bk_check_named(const bk_job *j, const char *given, xio_error *err);

/** Fills the link fields of `out` (snapshot, base, size, written and cleared ranges
 *  and bytes, pieces) from link `l`: what a run says of the newest link it made, or
 *  a dry run of the link it would make. */
void bk_describe(const bk_link *l, xio_backup_result *out);

/* ------------------------------------------------------------ plan.c ---- */

/** A dry run (xio_backup_options.dry_run) of the job: loads DIR's chain and pending
 *  link as a run does (bk_load), plans each link the run would make, and fills
 *  `out` (may be NULL) with what it would do and send. Reads the blob's
 *  properties and page ranges; takes, reads, deletes and writes nothing. Errors:
 *  those a real run would meet before it sends a change (bk_load, a named
 *  snapshot not newer, a missing blob or snapshot), and the listings'. */
xio_err bk_plan(bk_job *j, const char *dir, xio_backup_result *out, xio_error *err);

/* -------------------------------------------------------- snapshot.c ---- */

/** The ranges written and cleared on `f` (the link's snapshot, or for a dry run
 *  the blob) since snapshot `since`, into l->written and l->cleared; the messages
 *  say when `since` is gone or the blob was replaced (the chain has ended).
 *  Errors: as xio_file_ranges_diff. */
xio_err bk_diff_ranges(bk_job *j, xio_file *f, bk_link *l, const char *since, xio_error *err);

/** Opens snapshot `id` of the job's blob read-only and pinned. Errors: as
 *  xio_file_open (XIO_ENOTFOUND: the blob has no such snapshot). */
xio_err bk_open_snapshot(bk_job *j, const char *id, xio_file **out, xio_error *err);

/** The snapshot of this run into `id` (`size` bytes): `given` (the snapshot
 *  option), which must be newer than the chain's newest link (XIO_EINVAL), or,
 *  when NULL, a new one taken of the blob (errors: as xio_file_open and
 *  xio_file_snapshot). */
xio_err bk_pick_snapshot(bk_job *j, const char *given, char *id, size_t size, xio_error *err);

/** Describes a new link of snapshot `id` (opened as j->snap: its size, and its
 *  allocated ranges for a base, else its diff against the chain's newest snapshot)
 *  and records it in pending.json. Errors: as xio_file_ranges and
 *  xio_file_ranges_diff (XIO_ENOTFOUND: the chain's newest snapshot is gone;
 *  XIO_ECONFLICT BlobOverwritten: the chain has ended), bk_link_cut,
 *  bk_pending_save. */
xio_err bk_new_link(bk_job *j, const char *id, xio_error *err);

/** Closes j->snap and deletes snapshot `id`, which this run took and nothing refers
 *  to (its link could not be described); a failure to delete is ignored. */
void bk_drop_snapshot(bk_job *j, const char *id);

/* -------------------------------------------------------- download.c ---- */

/** A resumed link: keeps the pieces pending.json lists that the partial file holds
 *  intact (j->kept of them) and cuts the file after them. Errors: what pread and
 *  ftruncate report (operation WriteBackup, naming the partial file). */
xio_err bk_check_partial(bk_job *j, xio_error *err);

/** Downloads the link's pieces from its first unverified one into the partial file,
 *  each checked by the service's checksum and recorded with its CRC-64; every
 *  64 MiB the file is fsynced and pending.json brought up to date. Errors: those of
 *  the reads (the file layer's), of the writes (WriteBackup), of bk_pending_save. */
xio_err bk_download(bk_job *j, xio_error *err);

/** Makes the downloaded link part of the chain: the partial file fsynced and renamed
 *  into place, the link added to chain.json (replaced atomically) and pending.json
 *  removed. Errors: WriteBackup (fsync, rename), those of bk_chain_save and
 *  bk_pending_remove, XIO_ENOMEM. */
xio_err bk_commit_link(bk_job *j, xio_error *err);

/* ------------------------------------------------------------ lock.c ---- */

/** Opens DIR for a run: made when missing (0700 whatever the umask: *made is then
 *  1), said about through `o` when it exists and lets other users in; then takes
 *  its lock, *lock getting the descriptor that holds it. Errors (operation Backup):
 *  what mkdir, chmod and open report, XIO_EBUSY (another backup holds it). */
xio_err bk_lock_dir(const xio_backup_options *o, const char *dir, int *lock, int *made,
                    xio_error *err);

/** Removes DIR, which a failed run made, when nothing but its lock is in it. */
void bk_unmake_dir(const char *dir);

/* --------------------------------------------------------- options.c ---- */

/** Formats a line and hands it to `o`'s say callback as `note`; nothing when it has
 *  none (or `o` is NULL). */
void bk_say(const xio_backup_options *o, xio_backup_note note, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/** XIO_ECANCELED (operation Restore) when `stop` (may be NULL) says to stop, else
 *  XIO_OK. */
xio_err bk_check_stop(xio_backup_stop_fn stop, void *ud, xio_error *err);

#endif /* XIO_BACKUP_INT_H */
