/*
 * journal.c - telling a journal left by a committed transaction from a hot one.
 *
 * The VFS empties the rollback journal lazily: when SQLite deletes (or truncates)
 * it at the end of a transaction, nothing is sent, and the old records stay on
 * storage until the next transaction overwrites them or the database is closed. A
 * process that finds such a journal after a crash must not roll back a transaction
 * that committed. store.c sends page 1 of the database last, after all its other
 * pages are acknowledged, and SQLite changes page 1 in every write transaction (its
 * change counter) and journals it before that. So: a journal whose valid records
 * hold page 1, with a content different from page 1 on storage, belongs to a
 * transaction whose pages are all on storage: it committed, and the journal is void.
 * A transaction that began on an empty database journals no page at all (SQLite
 * journals only pages that existed); it committed when page 1 is on storage. In
 * every other case the journal is hot and SQLite rolls it back as usual (a
 * rollback writes back the original pages, so doing it twice is harmless). A journal
 * that names a super-journal (a transaction over several databases) is always left
 * to SQLite.
 *
 * The records are read as SQLite reads them: header at offset 0 (magic, record count,
 * checksum nonce, sector size, page size), records from the next sector on, each a
 * page number, the page and a checksum; the first record that is zero or fails its
 * checksum ends the journal. They come through the reader store.c hands in
 * (xsq_journal_src), so this file knows no node and calls nothing of store.c.
 */
#include <stdlib.h>
#include <string.h>

#include "sq_int.h"

static const unsigned char magic[8] = {0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7};

static uint32_t be32(const unsigned char *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* SQLite's journal record checksum: the nonce plus every 200th byte from the end. */
static uint32_t checksum(uint32_t nonce, const unsigned char *page, uint32_t pgsz) {
  uint32_t c = nonce;
  for (int i = (int)pgsz - 200; i > 0; i -= 200)
    c += page[i];
  return c;
}

typedef struct jhdr {
  uint32_t nrec, nonce, orig_pages, sector, pgsz;
} jhdr;

/* Reads the header; 0 when it is a journal header, -1 when not, else SQLite code. */
static int read_header(const xsq_journal_src *j, jhdr *h) {
  unsigned char b[28];
  int rc = j->read(j->ud, XSQ_JOURNAL, b, sizeof b, 0);
  if (rc == SQLITE_IOERR_SHORT_READ) return -1;
  if (rc != SQLITE_OK) return rc;
  if (memcmp(b, magic, 8) != 0) return -1;
  h->nrec = be32(b + 8);
  h->nonce = be32(b + 12);
  h->orig_pages = be32(b + 16);
  h->sector = be32(b + 20);
  h->pgsz = be32(b + 24);
  if (h->sector < 32 || h->sector > 65536 || (h->sector & (h->sector - 1))) return -1;
  if (h->pgsz < 512 || h->pgsz > 65536 || (h->pgsz & (h->pgsz - 1))) return -1;
  return 0;
}

/* Compares page 1 on storage with `orig` (the journal's page-1 record, or NULL for
 * a database that was empty): *hot = unchanged. */
static int page1_unchanged(const xsq_journal_src *j, const unsigned char *orig, uint32_t pgsz,
                           int *hot) {
  unsigned char *now = malloc(pgsz), *zero = calloc(1, pgsz);
  int rc = now && zero ? j->read(j->ud, XSQ_DB, now, (int)pgsz, 0) : SQLITE_NOMEM;
  if (rc == SQLITE_IOERR_SHORT_READ) rc = SQLITE_OK; /* page 1 never written: zeros */
  if (rc == SQLITE_OK) *hot = memcmp(now, orig ? orig : zero, pgsz) == 0;
  free(now);
  free(zero);
  return rc;
}

/* Walks the valid records looking for page 1. */
static int scan(const xsq_journal_src *j, const jhdr *h, unsigned char *rec, int *hot) {
  uint64_t size = j->size, recsz = 8 + (uint64_t)h->pgsz;
  uint32_t sj_pgno = 0x40000000u / h->pgsz + 1; /* SQLite's PAGER_SJ_PGNO */
  uint64_t off = h->sector;
  for (uint64_t i = 0; off + recsz <= size; i++, off += recsz) {
    if (h->nrec != 0 && h->nrec != 0xffffffffu && i >= h->nrec) break;
    int rc = j->read(j->ud, XSQ_JOURNAL, rec, (int)recsz, off);
    if (rc != SQLITE_OK) return rc;
    uint32_t pgno = be32(rec);
    if (pgno == 0) break;
    if (pgno == sj_pgno) return SQLITE_OK; /* a super-journal: SQLite decides */
    if (checksum(h->nonce, rec + 4, h->pgsz) != be32(rec + 4 + h->pgsz)) break;
    if (pgno == 1) return page1_unchanged(j, rec + 4, h->pgsz, hot);
  }
  return SQLITE_OK;
}

int xsq_journal_is_hot(const xsq_journal_src *j, int *hot) {
  unsigned char first = 0;
  *hot = 1;
  int rc = j->read(j->ud, XSQ_JOURNAL, &first, 1, 0);
  if (rc == SQLITE_IOERR_SHORT_READ || (rc == SQLITE_OK && first == 0)) {
    *hot = 0; /* empty, or zeroed: SQLite would ignore it too */
    return SQLITE_OK;
  }
  if (rc != SQLITE_OK) return rc;
  jhdr h;
  rc = read_header(j, &h);
  if (rc < 0) return SQLITE_OK; /* not a header SQLite can read: let it decide */
  if (rc != SQLITE_OK) return rc;
  if (h.orig_pages == 0) return page1_unchanged(j, NULL, h.pgsz, hot);
  unsigned char *rec = malloc(8 + (size_t)h.pgsz);
  if (!rec) return SQLITE_NOMEM;
  rc = scan(j, &h, rec, hot);
  free(rec);
  return rc;
}
