/*
 * download.c - a backup link's data (backup_int.h): the bytes of its written ranges,
 * read from its snapshot and written to its data file piece by piece (at most
 * 8 MiB; up to four pieces that follow each other in the blob are read at once, in
 * parallel, in requests of at most 4 MiB that the service checksums and the client
 * checks), each piece's CRC-64 recorded: a body damaged on its way is read again,
 * never recorded.
 *
 * Nothing an interrupted run leaves looks complete: the data goes to
 * link-SEQ.data.partial, and every few pieces the partial file is fsynced and
 * pending.json replaced with the pieces now written and checked. Only when every
 * piece is written and fsynced is the data file renamed and the link added to
 * chain.json (replaced atomically, last). A resumed link keeps the pieces
 * pending.json lists that still match their CRC-64 and downloads the rest.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <xio/alloc.h>

#include "backup_int.h"

/* pending.json is brought up to date after this many bytes of pieces. */
#define CHECKPOINT ((uint64_t)64 << 20)

static xio_err pread_full(int fd, const char *path, char *buf, uint64_t len, uint64_t pos,
                          int *short_read, xio_error *err) {
  *short_read = 0;
  for (uint64_t got = 0; got < len;) {
    ssize_t k = pread(fd, buf + got, (size_t)(len - got), (off_t)(pos + got));
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) return xio_error_from_errno(err, errno, "ReadBackup", "pread", path);
    if (k == 0) {
      *short_read = 1;
      return XIO_OK;
    }
    got += (uint64_t)k;
  }
  return XIO_OK;
}

xio_err bk_check_partial(bk_job *j, xio_error *err) {
  bk_link *l = &j->link;
  size_t ok = 0;
  for (; ok < l->verified; ok++) {
    int short_read = 0;
    const bk_piece *p = &l->pieces[ok];
    xio_err rc = pread_full(j->dfd, j->partial, j->buf, p->len, p->pos, &short_read, err);
    if (rc != XIO_OK) return rc;
    if (short_read || xio_crc64(0, j->buf, (size_t)p->len) != p->crc) break;
  }
  l->verified = ok;
  j->kept = ok;
  uint64_t keep = ok ? l->pieces[ok - 1].pos + l->pieces[ok - 1].len : 0;
  if (ftruncate(j->dfd, (off_t)keep) != 0)
    return xio_error_from_errno(err, errno, "WriteBackup", "ftruncate", j->partial);
  return XIO_OK;
}

static xio_err write_piece(bk_job *j, const bk_piece *p, const char *buf, xio_error *err) {
  for (uint64_t put = 0; put < p->len;) {
    ssize_t k = pwrite(j->dfd, buf + put, (size_t)(p->len - put), (off_t)(p->pos + put));
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0)
      return xio_error_from_errno(err, k < 0 ? errno : EIO, "WriteBackup", "pwrite", j->partial);
    put += (uint64_t)k;
  }
  return XIO_OK;
}

/* fsyncs the partial file and records the pieces up to `upto` as written. */
static xio_err checkpoint(bk_job *j, size_t upto, xio_error *err) {
  if (fdatasync(j->dfd) != 0)
    return xio_error_from_errno(err, errno, "WriteBackup", "fdatasync", j->partial);
  j->link.verified = upto;
  return bk_pending_save(j->ch.dir, &j->link, j->safe, err);
}

size_t bk_batch_end(const bk_link *l, size_t i) {
  uint64_t bytes = l->pieces[i].len;
  size_t e = i + 1;
  while (e < l->npieces && l->pieces[e].off == l->pieces[e - 1].off + l->pieces[e - 1].len &&
         bytes + l->pieces[e].len <= BK_BATCH)
    bytes += l->pieces[e++].len;
  return e;
}

/* Reads pieces [i, e) with one call, which the file layer sends as requests of at
 * most 4 MiB, each checked against the checksum the service answers for it, in
 * parallel: no byte is recorded that the service did not vouch for. */
static xio_err read_batch(bk_job *j, size_t i, size_t e, xio_error *err) {
  const bk_link *l = &j->link;
  uint64_t off = l->pieces[i].off, len = l->pieces[e - 1].off + l->pieces[e - 1].len - off;
  size_t got = 0;
  xio_file_stats before, after;
  xio_file_get_stats(j->snap, &before);
  xio_err rc = xio_file_read(j->snap, off, j->buf, (size_t)len, &got, err);
  xio_file_get_stats(j->snap, &after);
  j->reads += after.read_requests - before.read_requests;
  if (rc == XIO_OK && got != len)
    rc = xio_error_set(err, XIO_EIO, "snapshot %.64s ended at %" PRIu64 " inside its ranges",
                       l->snapshot, off + got);
  if (rc != XIO_OK) return rc;
  j->fetched += len;
  return XIO_OK;
}

/* Tells the caller that pieces [0, done) of the link are written. */
static void progress(const bk_job *j, size_t done) {
  const bk_link *l = &j->link;
  if (j->o->progress && done > 0)
    j->o->progress(j->o->ud, l->pieces[done - 1].pos + l->pieces[done - 1].len, bk_link_bytes(l));
}

xio_err bk_download(bk_job *j, xio_error *err) {
  bk_link *l = &j->link;
  uint64_t since = 0;
  for (size_t i = l->verified; i < l->npieces;) {
    size_t e = bk_batch_end(l, i);
    xio_err rc = read_batch(j, i, e, err);
    for (const char *b = j->buf; rc == XIO_OK && i < e; b += l->pieces[i++].len) {
      l->pieces[i].crc = xio_crc64(0, b, (size_t)l->pieces[i].len);
      rc = write_piece(j, &l->pieces[i], b, err);
      since += l->pieces[i].len;
    }
    if (rc != XIO_OK) return rc;
    progress(j, i);
    if (since >= CHECKPOINT && i < l->npieces) {
      if ((rc = checkpoint(j, i, err)) != XIO_OK) return rc;
      since = 0;
    }
  }
  return XIO_OK;
}

xio_err bk_commit_link(bk_job *j, xio_error *err) {
  char data[4096];
  xio_err rc = bk_path(j->ch.dir, j->link.data, data, sizeof data, err);
  if (rc != XIO_OK) return rc;
  if (fsync(j->dfd) != 0)
    return xio_error_from_errno(err, errno, "WriteBackup", "fsync", j->partial);
  if (rename(j->partial, data) != 0)
    return xio_error_from_errno(err, errno, "WriteBackup", "rename", data);
  j->link.verified = j->link.npieces;
  bk_link *links = xio_realloc(j->ch.links, (j->ch.n + 1) * sizeof *links);
  if (!links) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  j->ch.links = links;
  links[j->ch.n++] = j->link;
  memset(&j->link, 0, sizeof j->link);
  j->ch.next = links[j->ch.n - 1].seq + 1;
  if (!j->ch.source) {
    j->ch.source = xio_strdup(j->safe);
    j->ch.kind = xio_file_kind(j->snap);
  }
  if (!j->ch.source) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  if ((rc = bk_chain_save(&j->ch, err)) != XIO_OK) return rc;
  return bk_pending_remove(j->ch.dir, err);
}
