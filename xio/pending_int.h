/*
 * pending_int.h - what the files of a file's pending writes share, each calling only
 * those below it: a flush of held runs (flush.c), queued writes (queue.c), the
 * combining window (window.c), runs on their way to storage (runs.c), what the
 * handle knows of its sectors (known.c), and the map of pending runs (pending.c).
 */
#ifndef XIO_PENDING_INT_H
#define XIO_PENDING_INT_H

#include "ctx_int.h"

/** A run of pending bytes. Its policy says when it goes: a held run (byte-exact) at
 *  a flush; a queued run (aligned for the backend) once due: its window passed, a
 *  write closed it, or someone waits. */
struct xio__run {
  xio_file *file;
  uint64_t start, end; /* held: the bytes; queued: aligned */
  char *buf;           /* end - start bytes */
  size_t cap;          /* allocated bytes of buf; 0: borrowed from its only member */
  int held;            /* policy: kept until a flush */
  int due, sent;
  xio__io_state *members, **members_tail; /* queued: the writes it carries */
  xio_io io;                              /* the internal request that sends it */
  xio__run *next;                         /* in the send list */
};

static inline uint64_t xio__rdown(uint64_t v, uint64_t a) { return a > 1 ? v / a * a : v; }
static inline uint64_t xio__rup(uint64_t v, uint64_t a) { return a > 1 ? (v + a - 1) / a * a : v; }

/** A piece of held bytes to send: `len` bytes at `off` from `buf` (borrowed). */
typedef struct xio__piece {
  uint64_t off;
  size_t len;
  char *buf;
} xio__piece;

/* ------------------------------------------------------------ pending.c ---- */

/** Puts `r` into the map at its offset: 0, or -1 on OOM (lock held). */
int xio__map_insert(xio__pending *p, xio__run *r);

/** Takes `r` out of the map (lock held). */
void xio__map_remove(xio__pending *p, const xio__run *r);

/** Closes the open run (lock held): due now, in the send list; nothing joins it. */
void xio__pending_close_open(xio__pending *p);

/** The held runs as pieces, each marked in `last` when it goes with the commit range
 *  (lock held; `out` and `last` have room for p->n). The count. */
size_t xio__pending_held_pieces(const xio_file *f, xio__piece *out, unsigned char *last);

/** Keeps only the held bytes in [from, to) (lock held). */
void xio__pending_keep_held(xio__pending *p, uint64_t from, uint64_t to);

/* -------------------------------------------------------------- known.c ---- */

/** A planned write of a whole aligned span, for a flush's joining of held runs with
 *  small gaps: which of its sectors the handle knew nothing of, and when. */
typedef struct xio__span {
  uint64_t start, end;
  uint64_t gen;           /* the map's generation at the plan */
  unsigned char *unknown; /* one bit per sector */
  int need_read;          /* some sector is unknown: read the span first */
} xio__span;

/* All with the lock held. */

/** The content the sector at `sec` will have once every queued write is done, into
 *  `out` (one sector): from the newest queued run holding it, the cache, or zeros
 *  when `need_from` (the first byte of it that is needed) is at or past zero_from.
 *  0 when unknown. */
int xio__known_sector(xio_file *f, uint64_t sec, uint64_t need_from, char *out);

/** Remembers `data` as the sector at `sec`: 1, or 0 when no memory was left. */
int xio__known_put(xio_file *f, uint64_t sec, const char *data);

/** Copies the content run `r` will write into every cached sector it covers. */
void xio__known_refresh(xio_file *f, const xio__run *r);

/** Forgets the cached sectors in [from, to): a run there failed. */
void xio__known_drop(xio__pending *p, uint64_t from, uint64_t to);

/** Marks in `bits` (one per sector of `sp`) the sectors known no way; 1 when any. */
int xio__known_unknown(xio_file *f, const xio__span *sp, unsigned char *bits);

/** The bytes of the span into `out`: what is known of each sector, `readbuf` for those
 *  the plan found unknown. 0 when a sector is known no way (the plan went stale). */
int xio__known_fill(xio_file *f, const xio__span *sp, const char *readbuf, char *out);

/* -------------------------------------------------------------- queue.c ---- */

/** Plans a write of the aligned span [start, end). Release with xio__span_clear.
 *  Errors: XIO_ENOMEM. */
xio_err xio__span_plan(xio_file *f, uint64_t start, uint64_t end, xio__span *sp, xio_error *err);
void xio__span_clear(xio__span *sp);

/** Queues the span as one due run carrying `st`: its bytes what the handle knows of
 *  each sector, `readbuf` for the sectors the plan found unknown, the pieces `over`
 *  written over them. When a write was queued since the plan, nothing is queued and
 *  *stale is set. Errors: XIO_ENOMEM (nothing queued). */
xio_err xio__span_submit(xio_file *f, xio__io_state *st, const xio__span *sp, const char *readbuf,
                         const xio__piece *over, size_t nover, int *stale, xio_error *err);

/* --------------------------------------------------------------- runs.c ---- */

/** Marks the open run due (when `all` and no flush is handing held runs over) and
 *  sends the due runs whose earlier overlapping runs are done. Any thread; never
 *  waits for storage. */
void xio__pending_pump(xio_file *f, int all);

/* ------------------------------------------------------------- window.c ---- */

/** Arms the window's timer for the file unless it is armed already. */
void xio__window_arm(xio_file *f);

/** Begins (`begin` 1) or ends (0) a flush's hand-over of held runs: no window sends
 *  a run meanwhile; the end kicks. */
void xio__pending_batch(xio_file *f, int begin);

#endif
