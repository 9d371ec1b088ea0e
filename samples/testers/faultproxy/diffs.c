/*
 * diffs.c - the fidelity front's memory of what changed after each snapshot, so that
 * it can answer Get Page Ranges with `prevsnapshot` (a diff) as Azure does where
 * Azurite answers 501.
 *
 * Per blob the front keeps its size and ETag as the answers confirm them, and, for
 * each snapshot it saw created (PUT comp=snapshot, the x-ms-snapshot answer header),
 * a segment: the pages changed after that snapshot and before the next one, as
 * sorted, non-overlapping ranges marked written (Put Page update) or cleared (Put
 * Page clear, and the pages a shrink cut off). A later change of a page replaces an
 * earlier one. The diff from snapshot S to the blob (or to a later snapshot T) is the
 * overlay of the segments from S's up to the newest (or up to T's), cut to the
 * target's size: what must be written and what must be zeroed to turn S into the
 * target. Memory is in ranges, never per page; a blob with no snapshot keeps no
 * segment. Put Blob or Copy Blob onto a blob marks its snapshots overwritten (a
 * diff against one answers 409 BlobOverwritten, as Azure does); deleting a snapshot
 * folds its segment into the one before; deleting the blob drops it all.
 * Everything here runs under the proxy's mu.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "faultproxy_int.h"

#define MAX_TRACKED 4096 /* blobs; past it the least recently used is forgotten */

/* Sorted, non-overlapping ranges, neighbours of one kind merged. */
typedef struct dmap {
  prange *v;
  size_t n, cap;
} dmap;

typedef struct dsnap {
  char id[64];
  char etag[64];
  int64_t size;    /* the blob's size when it was taken, -1 unknown */
  int overwritten; /* the blob was replaced (Put Blob, Copy Blob) since */
  dmap seg;        /* pages changed after it, before the next snapshot */
} dsnap;

typedef struct dblob {
  char path[512];
  int64_t size; /* -1: unknown */
  char etag[64];
  dsnap *snaps; /* oldest first */
  size_t nsnaps, cap;
  int64_t used_us;
} dblob;

struct diffs {
  time_t started; /* wall clock: snapshots named before it were made without the front */
  dblob **blobs;
  size_t n, cap;
};

/* ------------------------------------------------------------ range maps ---- */

static int dmap_reserve(dmap *m, size_t extra) {
  if (m->n + extra <= m->cap) return 0;
  size_t cap = m->cap ? m->cap * 2 : 16;
  while (cap < m->n + extra)
    cap *= 2;
  prange *v = realloc(m->v, cap * sizeof *v);
  if (!v) return -1;
  m->v = v;
  m->cap = cap;
  return 0;
}

/* Marks [s, e] written (clear 0) or cleared (clear 1), replacing what was there.
 * 0, or -1 out of memory (the map unchanged). */
static int dmap_set(dmap *m, uint64_t s, uint64_t e, int clear) {
  if (dmap_reserve(m, 3) != 0) return -1;
  size_t lo = 0, hi = m->n;
  while (lo < hi) { /* the first range that ends at or after s - 1 */
    size_t mid = (lo + hi) / 2;
    if (m->v[mid].end + 1 < s)
      lo = mid + 1;
    else
      hi = mid;
  }
  size_t i = lo, j = lo;
  prange piece[3];
  int np = 0, has_left = 0, has_right = 0;
  prange left = {0, 0, 0}, right = {0, 0, 0};
  for (; j < m->n && m->v[j].start <= e + 1; j++) {
    prange r = m->v[j];
    if (r.clear == clear) {
      if (r.start < s) s = r.start;
      if (r.end > e) e = r.end;
      continue;
    }
    if (r.start < s) {
      left = (prange){r.start, (r.end < s - 1 ? r.end : s - 1), r.clear};
      has_left = 1;
    }
    if (r.end > e) {
      right = (prange){(r.start > e + 1 ? r.start : e + 1), r.end, r.clear};
      has_right = 1;
    }
  }
  if (has_left) piece[np++] = left;
  piece[np++] = (prange){s, e, clear};
  if (has_right) piece[np++] = right;
  memmove(m->v + i + np, m->v + j, (m->n - j) * sizeof *m->v);
  memcpy(m->v + i, piece, (size_t)np * sizeof *piece);
  m->n = m->n - (j - i) + (size_t)np;
  return 0;
}

/* Lays every range of `top` over `m`. 0, or -1 out of memory. */
static int dmap_overlay(dmap *m, const dmap *top) {
  for (size_t i = 0; i < top->n; i++)
    if (dmap_set(m, top->v[i].start, top->v[i].end, top->v[i].clear) != 0) return -1;
  return 0;
}

/* ------------------------------------------------------------ blobs ---- */

static void dblob_free(dblob *b) {
  for (size_t i = 0; b && i < b->nsnaps; i++)
    free(b->snaps[i].seg.v);
  if (b) free(b->snaps);
  free(b);
}

void faultproxy__diffs_free(diffs *d) {
  for (size_t i = 0; d && i < d->n; i++)
    dblob_free(d->blobs[i]);
  if (d) free(d->blobs);
  free(d);
}

diffs *faultproxy__diffs_new(void) {
  diffs *d = calloc(1, sizeof *d);
  if (d) d->started = time(NULL);
  return d;
}

static dblob *find(diffs *d, const char *path, size_t *at) {
  for (size_t i = 0; i < d->n; i++)
    if (strcmp(d->blobs[i]->path, path) == 0) {
      if (at) *at = i;
      d->blobs[i]->used_us = faultproxy__now_us();
      return d->blobs[i];
    }
  return NULL;
}

static void forget(diffs *d, size_t i) {
  dblob_free(d->blobs[i]);
  d->blobs[i] = d->blobs[--d->n];
}

/* The entry of `path`, made when new (the least recently used forgotten past
 * MAX_TRACKED). NULL out of memory. */
static dblob *get(diffs *d, const char *path) {
  dblob *b = find(d, path, NULL);
  if (b) return b;
  if (d->n == MAX_TRACKED) {
    size_t old = 0;
    for (size_t i = 1; i < d->n; i++)
      if (d->blobs[i]->used_us < d->blobs[old]->used_us) old = i;
    forget(d, old);
  }
  if (d->n == d->cap) {
    size_t cap = d->cap ? d->cap * 2 : 16;
    dblob **g = realloc(d->blobs, cap * sizeof(dblob *));
    if (!g) return NULL;
    d->blobs = g;
    d->cap = cap;
  }
  if (!(b = calloc(1, sizeof *b))) return NULL;
  snprintf(b->path, sizeof b->path, "%s", path);
  b->size = -1;
  b->used_us = faultproxy__now_us();
  d->blobs[d->n++] = b;
  return b;
}

/* The segment new changes go to: the newest snapshot's, NULL when there is none. */
static dmap *current(dblob *b) { return b->nsnaps ? &b->snaps[b->nsnaps - 1].seg : NULL; }

/* A change that could not be recorded (out of memory): the snapshots before it can no
 * longer be diffed truthfully, so they are treated as overwritten. */
static void lose(dblob *b) {
  for (size_t i = 0; i < b->nsnaps; i++)
    b->snaps[i].overwritten = 1;
}

static void add_snapshot(dblob *b, const char *id, const char *etag) {
  if (b->nsnaps == b->cap) {
    size_t cap = b->cap ? b->cap * 2 : 4;
    dsnap *g = realloc(b->snaps, cap * sizeof *g);
    if (!g) return; /* untracked: a diff against it answers as for one made unseen */
    b->snaps = g;
    b->cap = cap;
  }
  dsnap *s = &b->snaps[b->nsnaps++];
  memset(s, 0, sizeof *s);
  snprintf(s->id, sizeof s->id, "%s", id);
  snprintf(s->etag, sizeof s->etag, "%s", etag[0] ? etag : b->etag);
  s->size = b->size;
}

static void drop_snapshot(dblob *b, const char *id) {
  for (size_t i = 0; i < b->nsnaps; i++) {
    if (strcmp(b->snaps[i].id, id) != 0) continue;
    if (i > 0 && dmap_overlay(&b->snaps[i - 1].seg, &b->snaps[i].seg) != 0)
      b->snaps[i - 1].overwritten = 1;
    free(b->snaps[i].seg.v);
    memmove(b->snaps + i, b->snaps + i + 1, (b->nsnaps - i - 1) * sizeof *b->snaps);
    b->nsnaps--;
    return;
  }
}

static void drop_snapshots(dblob *b) {
  for (size_t i = 0; i < b->nsnaps; i++)
    free(b->snaps[i].seg.v);
  b->nsnaps = 0;
}

/* ------------------------------------------------------------ noting ---- */

/* What one request and its answer say, read once. */
typedef struct seen {
  const char *method;
  char path[1024], comp[32], snapshot[64], page_write[16], range[64], type[32], size[32];
  char copy[8], delete_snaps[16], etag[64], new_snapshot[64], resp_type[32], resp_len[32];
  int status;
} seen;

static void read_seen(const buf *in, const request *r, const char *target, const buf *up,
                      const msg *m, seen *s) {
  size_t hl = r->m.head_len;
  memset(s, 0, sizeof *s);
  s->method = r->method;
  s->status = m->status;
  snprintf(s->path, sizeof s->path, "%.*s", (int)strcspn(target, "?"), target);
  faultproxy__query(target, "comp", s->comp, sizeof s->comp);
  faultproxy__query(target, "snapshot", s->snapshot, sizeof s->snapshot);
  faultproxy__header(in->d, hl, "x-ms-page-write", s->page_write, sizeof s->page_write);
  if (!faultproxy__header(in->d, hl, "x-ms-range", s->range, sizeof s->range))
    faultproxy__header(in->d, hl, "Range", s->range, sizeof s->range);
  faultproxy__header(in->d, hl, "x-ms-blob-type", s->type, sizeof s->type);
  faultproxy__header(in->d, hl, "x-ms-blob-content-length", s->size, sizeof s->size);
  faultproxy__header(in->d, hl, "x-ms-copy-source", s->copy, sizeof s->copy);
  faultproxy__header(in->d, hl, "x-ms-delete-snapshots", s->delete_snaps, sizeof s->delete_snaps);
  faultproxy__header(up->d, m->head_len, "ETag", s->etag, sizeof s->etag);
  faultproxy__header(up->d, m->head_len, "x-ms-snapshot", s->new_snapshot, sizeof s->new_snapshot);
  faultproxy__header(up->d, m->head_len, "x-ms-blob-type", s->resp_type, sizeof s->resp_type);
  faultproxy__header(up->d, m->head_len, "Content-Length", s->resp_len, sizeof s->resp_len);
}

static void note_put_page(dblob *b, const seen *s) {
  unsigned long long a, e;
  if (sscanf(s->range, "bytes=%llu-%llu", &a, &e) != 2 || e < a) return;
  dmap *seg = current(b);
  if (seg && dmap_set(seg, a, e, strcasecmp(s->page_write, "clear") == 0) != 0) lose(b);
}

static void note_resize(dblob *b, int64_t to) {
  dmap *seg = current(b);
  if (seg && b->size > to && dmap_set(seg, (uint64_t)to, (uint64_t)b->size - 1, 1) != 0) lose(b);
  if (seg && b->size < 0) lose(b); /* what a shrink cut off is unknown */
  b->size = to;
}

static void note_put(diffs *d, const seen *s) {
  int page_blob = strcasecmp(s->type, "PageBlob") == 0;
  if (!s->copy[0] && !page_blob) return;
  dblob *b = get(d, s->path);
  if (!b) return;
  lose(b); /* replaced: the snapshots stay, a diff against them is refused */
  for (size_t i = 0; i < b->nsnaps; i++) {
    free(b->snaps[i].seg.v);
    memset(&b->snaps[i].seg, 0, sizeof b->snaps[i].seg);
  }
  b->size = page_blob && s->size[0] ? (int64_t)strtoull(s->size, NULL, 10) : -1;
}

static void note_delete(diffs *d, const seen *s) {
  size_t at;
  dblob *b = find(d, s->path, &at);
  if (!b) return;
  if (s->snapshot[0])
    drop_snapshot(b, s->snapshot);
  else if (strcasecmp(s->delete_snaps, "only") == 0)
    drop_snapshots(b);
  else
    forget(d, at);
}

void faultproxy__diffs_note(diffs *d, const buf *in, const request *r, const char *target,
                            const buf *up, const msg *m) {
  seen s;
  if (m->status < 200 || m->status > 299) return;
  read_seen(in, r, target, up, m, &s);
  int put = strcmp(s.method, "PUT") == 0;
  if (strcmp(s.method, "DELETE") == 0) {
    note_delete(d, &s);
    return;
  }
  if (s.snapshot[0]) return; /* reading a snapshot changes nothing */
  if (put && !s.comp[0]) {
    note_put(d, &s);
  } else if (strcmp(s.method, "HEAD") == 0 && !s.comp[0] &&
             strcasecmp(s.resp_type, "PageBlob") == 0) {
    dblob *b = get(d, s.path);
    if (b && b->size < 0 && s.resp_len[0]) b->size = (int64_t)strtoull(s.resp_len, NULL, 10);
  } else if (put) {
    dblob *b = find(d, s.path, NULL);
    if (!b && strcmp(s.comp, "snapshot") == 0) b = get(d, s.path);
    if (!b) return;
    if (strcmp(s.comp, "page") == 0) note_put_page(b, &s);
    if (strcmp(s.comp, "properties") == 0 && s.size[0])
      note_resize(b, (int64_t)strtoull(s.size, NULL, 10));
    if (strcmp(s.comp, "snapshot") == 0 && s.new_snapshot[0])
      add_snapshot(b, s.new_snapshot, s.etag);
  }
  dblob *b = find(d, s.path, NULL);
  if (b && s.etag[0] && (put || strcmp(s.method, "HEAD") == 0))
    snprintf(b->etag, sizeof b->etag, "%s", s.etag);
}

size_t faultproxy__diffs_count(diffs *d, const char *path) {
  dblob *b = find(d, path, NULL);
  return b ? b->nsnaps : 0;
}

/* ------------------------------------------------------------ answering ---- */

/* A snapshot id ("2026-12-03T21:46:50.1234567Z") as seconds since the epoch, or -1
 * when it is not one. */
static time_t snapshot_time(const char *id) {
  struct tm tm;
  memset(&tm, 0, sizeof tm);
  const char *rest = strptime(id, "%Y-%m-%dT%H:%M:%S", &tm);
  if (!rest || (*rest != '.' && *rest != 'Z')) return -1;
  if (*rest == '.') rest += 1 + strspn(rest + 1, "0123456789");
  if (strcmp(rest, "Z") != 0) return -1;
  return timegm(&tm);
}

static int untracked(refusal *no, const char *id) {
  faultproxy__refuse(no, 501, "APINotImplemented", "");
  snprintf(no->message, sizeof no->message,
           "The emulator did not see snapshot %.40s created, so it cannot answer a diff "
           "against it.",
           id);
  return 1;
}

static int find_snap(const dblob *b, const char *id) {
  for (size_t i = 0; i < b->nsnaps; i++)
    if (strcmp(b->snaps[i].id, id) == 0) return (int)i;
  return -1;
}

/* Checks the snapshots named: 0 with their indexes (*to: nsnaps for the blob), or 1
 * with the refusal Azure (or, where the front cannot know, the front) gives. */
static int check(diffs *d, const dblob *b, const char *prev, const char *snap, int *from, int *to,
                 refusal *no) {
  time_t pt = snapshot_time(prev);
  if (pt < 0 || (snap[0] && snapshot_time(snap) < 0))
    return faultproxy__refuse(
        no, 400, "InvalidQueryParameterValue",
        "Value for one of the query parameters specified in the request URI is "
        "invalid.");
  if (!b)
    return pt < d->started
               ? untracked(no, prev)
               : faultproxy__refuse(no, 404, "BlobNotFound", "The specified blob does not exist.");
  *to = snap[0] ? find_snap(b, snap) : (int)b->nsnaps;
  if (*to < 0)
    return faultproxy__refuse(no, 404, "BlobNotFound", "The specified blob does not exist.");
  *from = find_snap(b, prev);
  if (*from < 0 && pt < d->started) return untracked(no, prev);
  if (*from < 0)
    return faultproxy__refuse(no, 409, "PreviousSnapshotNotFound",
                              "The previous snapshot is not found.");
  if (b->snaps[*from].overwritten)
    return faultproxy__refuse(no, 409, "BlobOverwritten",
                              "The blob has been recreated since the previous snapshot was taken.");
  if (*from > *to)
    return faultproxy__refuse(
        no, 400, "PreviousSnapshotCannotBeNewer",
        "The prevsnapshot query parameter value cannot be newer than snapshot query "
        "parameter value.");
  return 0;
}

int faultproxy__diffs_answer(diffs *d, const char *target, int64_t seen_size, const char *seen_etag,
                             diff_answer *out, refusal *no) {
  char path[1024], prev[64], snap[64];
  int from = 0, to = 0;
  memset(out, 0, sizeof *out);
  snprintf(path, sizeof path, "%.*s", (int)strcspn(target, "?"), target);
  faultproxy__query(target, "prevsnapshot", prev, sizeof prev);
  faultproxy__query(target, "snapshot", snap, sizeof snap);
  dblob *b = find(d, path, NULL);
  if (check(d, b, prev, snap, &from, &to, no)) return 1;
  int at_blob = to == (int)b->nsnaps;
  out->size = seen_size >= 0 ? seen_size : at_blob ? b->size : b->snaps[to].size;
  if (out->size < 0) return untracked(no, snap[0] ? snap : prev);
  snprintf(out->etag, sizeof out->etag, "%s",
           seen_etag[0] ? seen_etag
           : at_blob    ? b->etag
                        : b->snaps[to].etag);
  dmap all = {NULL, 0, 0};
  for (int i = from; i < to; i++)
    if (dmap_overlay(&all, &b->snaps[i].seg) != 0) {
      free(all.v);
      return faultproxy__refuse(no, 500, "InternalError",
                                "The server encountered an internal error.");
    }
  out->ranges = all.v;
  out->n = all.n;
  return 0;
}
