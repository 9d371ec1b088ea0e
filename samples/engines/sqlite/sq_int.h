/*
 * sq_int.h - internals of the xio SQLite VFS (samples/engines/sqlite), shared by its files.
 *
 * The VFS puts a SQLite database whose name is a blob URL on page blobs through
 * xio/xio.h: the database is a data-kind file, its rollback journal and WAL are
 * log-kind files. Everything the process knows about one database lives in a node
 * (node.c): the three stores (store.c: an xio file with its logical size, the writes
 * not yet sent and the read cache), the in-memory lock levels of the connections
 * (lock.c) and the WAL index (shm.c). Nodes are kept in a per-process table keyed by
 * the URL without its query, so every connection of the process shares them; the
 * lease on the database excludes every other process.
 *
 * Built twice from the same sources: into a static library for programs that link
 * SQLite (xio_sqlite_register), and into a loadable extension (XIO_SQLITE_EXTENSION),
 * where SQLite's functions are reached through the extension API table.
 */
#ifndef XIO_SQLITE_SQ_INT_H
#define XIO_SQLITE_SQ_INT_H

#ifdef XIO_SQLITE_EXTENSION
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3
#else
#include <sqlite3.h>
#endif

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <xio/xio.h>

#define XSQ_SECTOR   XIO_PAGE_SIZE
#define XSQ_NAME_MAX 2048
#define XSQ_KEY_MAX  (XSQ_NAME_MAX + 96)

/* ----------------------------------------------------------- names.c ---- */

typedef enum xsq_role { XSQ_DB = 0, XSQ_JOURNAL = 1, XSQ_WAL = 2 } xsq_role;

/** A blob URL as SQLite names it, taken apart. */
typedef struct xsq_name {
  xsq_role role;
  char key[XSQ_NAME_MAX];    /* database URL without query: the node's key */
  char target[XSQ_NAME_MAX]; /* what xio opens: this file's URL with the query
                                    minus the VFS's own parameters */
  char safe[XSQ_NAME_MAX];   /* this file's URL without query (log-safe) */
  char snapshot[80];         /* snapshot=ID, or "" */
  int takeover;              /* xio_takeover=1 or XIO_SQLITE_TAKEOVER=1 */
  long cache_mb;             /* xio_cache_mb=N, XIO_SQLITE_CACHE_MB, or -1 */
} xsq_name;

/** 1 when `name` is a blob URL (http:// or https://). */
int xsq_is_url(const char *name);

/** Takes `name` apart (moving a -journal/-wal suffix that SQLite appended after the
 *  query onto the path). `role`: what SQLite opens (an xsq_role), or -1 to tell
 *  by the suffix. Returns 0, or -1 when it does not fit or is malformed. */
int xsq_name_parse(const char *name, int role, xsq_name *out);

/** The VFS's parameters of a URI filename (xio_takeover, xio_cache_mb, snapshot), read
 *  with sqlite3_uri_* from `name`, the database's name as xOpen received it with
 *  SQLITE_OPEN_URI, into `out` (parsed from that name first), over what the name and
 *  the environment said. A value that is not one (xio_cache_mb=-1) is ignored. */
void xsq_name_uri(const char *name, xsq_name *out);

/* ----------------------------------------------------------- cache.c ---- */

#define XSQ_LINE (64u * 1024u)
/** The database's commit range: its first 64 KiB, page 1 of any page size, sent at a
 *  sync only after every other write is acknowledged (store.c, journal.c). */
#define XSQ_PAGE1_HELD 65536u

typedef struct xsq_line {
  uint64_t idx; /* line number: offset / XSQ_LINE */
  uint64_t tick;
  struct xsq_line *next; /* hash chain */
  unsigned char data[];
} xsq_line;

/** A bounded read cache of one file, in lines of 64 KiB, with read-ahead that doubles
 *  on sequential misses (up to 4 MiB) and falls back to one line on a random one. */
typedef struct xsq_cache {
  xsq_line **buckets;
  size_t nbuckets, nlines, maxlines;
  uint64_t tick, last_miss_end; /* line after the last sequential miss's window */
  uint64_t next_line;           /* line after the last one the previous read needed */
  unsigned ahead;               /* lines to read on the next sequential miss */
  uint64_t hits, misses;
} xsq_cache;

/** Sets up an empty cache of at most `bytes` (at least one line). 0, or -1 on OOM. */
int xsq_cache_init(xsq_cache *c, uint64_t bytes);
/** Frees every line. */
void xsq_cache_free(xsq_cache *c);
/** Reads [off, off+len) of `f` (stored size `fsize`) through the cache; bytes past
 *  fsize read as zero. A miss reads through the file layer, so a new line includes
 *  the bytes `f` holds (up to fsize). Returns the xio result. */
xio_err xsq_cache_read(xsq_cache *c, xio_file *f, uint64_t fsize, uint64_t off, void *buf,
                       size_t len, xio_error *err);
/** Copies a write just held (not yet on storage) into the lines already cached that
 *  it touches, so they stay what SQLite reads; makes no line. */
void xsq_cache_patch(xsq_cache *c, uint64_t off, const void *buf, size_t len);
/** Copies bytes just written to storage into the lines that hold them, and keeps
 *  lines the write covers whole, or from a line's start to `fsize` or past it (the
 *  rest of that line zeros): the stored size after the write, or for a journal or
 *  WAL its high-water mark, past which bytes are void. */
void xsq_cache_update(xsq_cache *c, uint64_t off, const void *buf, size_t len, uint64_t fsize);
/** Forgets every line at or past `size` (and the line holding it). */
void xsq_cache_truncate(xsq_cache *c, uint64_t size);

/* ----------------------------------------------------------- store.c ---- */

/** One file of a database on storage: the xio file (which holds SQLite's writes until
 *  a sync), what SQLite sees, and what is cached. */
typedef struct xsq_store {
  xsq_role role;
  xio_file *xf;   /* NULL until opened (or when the file does not exist) */
  int known;      /* existence was checked in this process */
  int exists;     /* SQLite sees the file */
  uint64_t size;  /* the size SQLite sees */
  uint64_t hwm;   /* log files: bytes at or past this hold nothing SQLite relies on */
  int on_storage; /* journal: it holds content written since it was last emptied */
  int absent;     /* the blob is known not to exist (create it without asking) */
  uint64_t cut;   /* database: shortest size truncated to since the last sync
                     (UINT64_MAX: none); storage past it reads as zeros for SQLite */
  xsq_cache cache;
  xio_err sticky; /* a failed flush that could not be reported at once */
  xio_error sticky_detail;
} xsq_store;

/* ------------------------------------------------------------ node.c ---- */

#define XSQ_SHM_NLOCK 8

/** Everything this process knows about one database (shared by its connections). */
typedef struct xsq_node {
  char key[XSQ_KEY_MAX]; /* URL without query (and ?snapshot=ID for a snapshot) */
  pid_t pid;             /* the process that made it (see node.c on fork) */
  int refs;
  pthread_mutex_t mu; /* guards the whole node; taken by every VFS method */
  xio_ctx *ctx;       /* the process's context (xsq_ctx) its files are opened in */
  xsq_store st[3];
  char targets[3][XSQ_NAME_MAX]; /* what xio opens for each role */
  int readonly;                  /* a snapshot, or opened read-only */
  int takeover;
  uint64_t cache_bytes;
  /* lock.c */
  int lock;    /* the strongest lock any connection holds */
  int nshared; /* connections holding SHARED or more */
  /* shm.c */
  void **regions;
  int nregions, region_size;
  int shm_refs;
  int shm_shared[XSQ_SHM_NLOCK]; /* readers per slot */
  int shm_excl[XSQ_SHM_NLOCK];   /* 1 when a connection holds it exclusively */
  struct xsq_node *next;
} xsq_node;

/** The process's xio context, made on first use from the environment (NULL and a
 *  message in `err` when it cannot be made); a forked child makes its own. */
xio_ctx *xsq_ctx(xio_error *err);

/** Finds or makes the node for `n` and opens its database file (taking the lease);
 *  returns it with a reference held. SQLite code, with the reason logged. */
int xsq_node_acquire(const xsq_name *n, int readonly, int create, xsq_node **out);
/** Drops a reference; the last one flushes, closes every file and frees the node. */
void xsq_node_release(xsq_node *node);
/** 1 when `node` was made by the parent of this process, before a fork(): it is the
 *  parent's, and nothing in this process may use, flush or release it. */
int xsq_node_inherited(const xsq_node *node);
/** The node of an open database `key` made by this process, or NULL (no reference
 *  taken). Call with the table lock held (xsq_table_lock). */
xsq_node *xsq_node_find(const char *key);
void xsq_table_lock(void);
void xsq_table_unlock(void);

/* ----------------------------------------------------------- store.c ---- */

/** Makes sure the store of `role` is open (journal and WAL: opened or created on
 *  first need). `create`: create when missing. SQLite code. */
int xsq_store_open(xsq_node *node, xsq_role role, int create);
/** Learns whether the journal or WAL exists (one request, the first time). */
int xsq_store_check(xsq_node *node, xsq_role role, int *exists);
/** SQLITE_OK while the node's files hold their leases; once one is known lost
 *  (xio_file_lease_lost: taken over, or paused past it), `code` with a message
 *  naming the lease, since what the process cached may be stale from then on. */
int xsq_store_lease_check(xsq_node *node, int code);
/** SQLite's xRead: the cache, whose lines include the held writes (the file layer's
 *  reads overlay them); held bytes alone for a read they cover whole and past the
 *  stored size; past the size SQLite sees, zeros and SQLITE_IOERR_SHORT_READ. Fails
 *  once the lease is lost. */
int xsq_store_read(xsq_node *node, xsq_role role, void *buf, int amt, uint64_t off);
/** SQLite's xWrite: held in memory until a sync (sent early past 64 MiB). */
int xsq_store_write(xsq_node *node, xsq_role role, const void *buf, int amt, uint64_t off);
/** SQLite's xTruncate: the database shrinks at the next sync; a journal is emptied in
 *  memory; an emptied WAL has its header cleared at once (one request). */
int xsq_store_truncate(xsq_node *node, xsq_role role, uint64_t size);
/** Sends what is pending (journal before database; page 1 of the database last) and
 *  waits for the acknowledgements. SQLite code. */
int xsq_store_sync(xsq_node *node, xsq_role role);
/** SQLite's xDelete of the journal or WAL. */
int xsq_store_delete(xsq_node *node, xsq_role role);
/** Flushes every store of the node (the database last). */
int xsq_node_flush(xsq_node *node);
void xsq_store_init(xsq_store *s, xsq_role role, uint64_t cache_bytes);
/** Closes the store's file (deleting a journal that holds nothing). */
void xsq_store_close(xsq_node *node, xsq_role role);

/* --------------------------------------------------------- journal.c ---- */

/** What the journal check reads: `read` is xsq_store_read on a node (`ud`) for the
 *  journal (XSQ_JOURNAL) or the database (XSQ_DB), and `size` the journal's size as
 *  SQLite sees it. */
typedef struct xsq_journal_src {
  int (*read)(void *ud, xsq_role role, void *buf, int amt, uint64_t off);
  void *ud;
  uint64_t size;
} xsq_journal_src;

/** Decides whether the journal found on storage at the first check must be rolled
 *  back (*hot = 1) or was left by a transaction that committed (*hot = 0), reading
 *  it and page 1 of the database through `src`. SQLite code of a failed read. */
int xsq_journal_is_hot(const xsq_journal_src *src, int *hot);

/* ------------------------------------------------------------ lock.c ---- */

/** Raises the connection's lock `*held` to `level`: SQLITE_OK or SQLITE_BUSY. */
int xsq_lock(xsq_node *node, int *held, int level);
/** Lowers the connection's lock `*held` to `level` (SHARED or NONE). */
int xsq_unlock(xsq_node *node, int *held, int level);
/** 1 when some connection holds RESERVED or more. */
int xsq_reserved(xsq_node *node);

/* ------------------------------------------------------------- shm.c ---- */

typedef struct xsq_shm_conn {
  uint16_t shared_mask, excl_mask;
  int mapped;
} xsq_shm_conn;

/** SQLite's xShmMap: region `region` of `size` bytes (made when `extend`), or NULL. */
int xsq_shm_map(xsq_node *node, xsq_shm_conn *c, int region, int size, int extend,
                void volatile **pp);
/** SQLite's xShmLock on slots [ofst, ofst+cnt): SQLITE_OK or SQLITE_BUSY. */
int xsq_shm_lock(xsq_node *node, xsq_shm_conn *c, int ofst, int cnt, int flags);
/** Drops the connection's locks and mapping; the last one frees the index. */
void xsq_shm_unmap(xsq_node *node, xsq_shm_conn *c);
/** 1 when every frame in the WAL index has been copied into the database. */
int xsq_shm_all_checkpointed(xsq_node *node);

/* ---------------------------------------------------------- errors.c ---- */

/** Records a failure for xGetLastError and xio_sqlite_last_error, logs it with
 *  sqlite3_log, and returns `code`. The text never holds a secret. */
int xsq_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** Logs a message with sqlite3_log in pieces SQLite does not cut, without making it
 *  the last failure; callable on any thread. */
void xsq_log(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** The SQLite code and message for a failed xio call during `what`. */
int xsq_fail_xio(int code, const char *what, const xio_error *e);
/** The last failure's text ("" when none). Thread-local. */
const char *xsq_last_error(void);

/* ------------------------------------------------------------- vfs.c ---- */

/** The VFS that was the default before ours (every non-URL name goes there). */
sqlite3_vfs *xsq_base(void);
/** Registers the VFS named "xio" (once), as the default when make_default. */
int xsq_register(int make_default);
/** The io methods of blob files. */
extern const sqlite3_io_methods xsq_methods;
extern const sqlite3_io_methods xsq_methods_immutable;

/** A file SQLite opened through the VFS: a blob file, or a file of the base VFS
 *  (then `base` follows this struct in the same allocation). */
typedef struct xsq_file {
  sqlite3_file base; /* first: SQLite sees a sqlite3_file */
  xsq_node *node;
  xsq_role role;
  int lock;  /* this connection's lock level (database) */
  int flags; /* SQLITE_OPEN_* */
  int immutable;
  xsq_shm_conn shm;
  sqlite3_file *real; /* base VFS file, for local names */
} xsq_file;

/* -------------------------------------------------------- snapshot.c ---- */

#define XSQ_FCNTL_SNAPSHOT 0x78696f01 /* "xio"1: take a snapshot, see xio_sqlite.h */
/** The snapshot file control (arg: {char *url; size_t size}); node mutex held. */
int xsq_snapshot_fcntl(xsq_file *f, void *arg);
/** Registers the SQL functions (xio_snapshot, xio_last_error) on `db`. */
int xsq_functions(sqlite3 *db);

#endif /* XIO_SQLITE_SQ_INT_H */
