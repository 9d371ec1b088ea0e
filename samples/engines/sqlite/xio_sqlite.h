/*
 * xio_sqlite.h - SQLite on Azure page blobs: the xio VFS, for programs that link
 * SQLite (the loadable extension, xio_sqlite.so, does the same from `.load`).
 *
 * After xio_sqlite_register(1), a database name that is a blob URL
 *   http://127.0.0.1:PORT/devstoreaccount1/CONTAINER/db.sqlite
 *   https://ACCOUNT.blob.core.windows.net/CONTAINER/db.sqlite?SAS
 * opens on page blobs (the database, URL-journal and URL-wal), with the credentials
 * xio finds for it (the SAS in the URL, AZURE_STORAGE_CONNECTION_STRING, ...; see
 * README.md). Every other name goes to the VFS that was the default before, unchanged.
 *
 * One process holds a database at a time (a blob lease, renewed while it is open);
 * another process is refused with SQLITE_BUSY. A process whose lease was taken over
 * (or ran out while it was paused) gets SQLITE_IOERR for every read and write from
 * the moment it knows, and xio_sqlite_last_error() names the lease. A child made by
 * fork() is another process: it opens databases afresh (its own xio context), and a
 * connection it inherited fails with SQLITE_IOERR naming fork, leaving the parent's
 * alone.
 * Takeover after the holder died: wait until its lease runs out (60 s, or
 * XIO_SQLITE_LEASE_S=15..60 as the holder had it), or open with the URL query
 * parameter xio_takeover=1 (or the environment variable XIO_SQLITE_TAKEOVER=1), which
 * breaks it.
 * Read cache: 32 MiB per database by default; xio_cache_mb=N in the URL or
 * XIO_SQLITE_CACHE_MB=N changes it.
 * These parameters (and snapshot=ID) may also come as a URI filename's, opened with
 * SQLITE_OPEN_URI: "file:https://ACCOUNT.blob.core.windows.net/C/db.sqlite?vfs=xio&
 * xio_takeover=1" (SQLite keeps the query; the VFS reads it with sqlite3_uri_*). A SAS
 * does not travel that way: put it in a plain URL or give it as a credential.
 * Retries (read when the first database opens): XIO_SQLITE_RETRIES=N retries per
 * request (default 3), XIO_SQLITE_RETRY_DELAY_MS the first delay (default 800, then
 * doubling), XIO_SQLITE_TRY_TIMEOUT_MS the time one try may take (default 120000).
 */
#ifndef XIO_SQLITE_H
#define XIO_SQLITE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct sqlite3;

/**
 * Registers the VFS named "xio" (once per process; later calls only change whether it
 * is the default). make_default: make it the process's default VFS, so plain
 * sqlite3_open() of a URL uses it. Also registers the SQL functions xio_snapshot()
 * and xio_last_error() on every connection opened afterwards. Returns an SQLite code.
 */
int xio_sqlite_register(int make_default);

/** The text of the last failure the VFS saw on this thread ("" when none): what was
 *  wrong, the HTTP status and service code, and what to do. Never holds a secret.
 *  The same text goes to sqlite3_log. */
const char *xio_sqlite_last_error(void);

/**
 * Takes a consistent point-in-time snapshot of database `schema` ("main" when NULL)
 * of `db`, a handful of requests whatever its size: in WAL mode a checkpoint first
 * (TRUNCATE), then a blob snapshot while writers are held off. Writes into `url`
 * (`size` bytes; 600 is enough) the snapshot's URL, without any credential:
 * DBURL?snapshot=ID, which opens read-only (append a SAS with '&' if you use one).
 * Call outside a transaction. Returns SQLITE_OK, SQLITE_BUSY (a writer or checkpoint
 * was active: retry), SQLITE_NOTFOUND (not a database on a page blob), or an I/O
 * error with xio_sqlite_last_error() saying why.
 */
int xio_sqlite_snapshot(struct sqlite3 *db, const char *schema, char *url, size_t size);

#ifdef __cplusplus
}
#endif
#endif /* XIO_SQLITE_H */
