/*
 * samples_progress.h - the progress line of a long operation, on stderr: a bar, the
 * percent done, the rate in MiB/s and the time left (progress.c). On a terminal it
 * redraws one line at most ten times a second; elsewhere, when asked for, it prints a
 * line a second. The xio command's put, get and cp draw it, and the demo's classic
 * zero-writes.
 */
#ifndef XIO_SAMPLES_PROGRESS_H
#define XIO_SAMPLES_PROGRESS_H

#include <stdint.h>

/** When a progress line shows. */
typedef enum samples_progress_mode {
  SAMPLES_PROGRESS_OFF,   /* never (--quiet, --json) */
  SAMPLES_PROGRESS_TTY,   /* only when stderr is a terminal */
  SAMPLES_PROGRESS_ALWAYS /* on a terminal, or a line a second elsewhere (--progress) */
} samples_progress_mode;

/** One operation's progress. Not thread-safe: a caller whose counts come from
 *  several threads serializes its calls. */
typedef struct samples_progress {
  int on;            /* drawn at all */
  int tty;           /* stderr is a terminal: redrawn in place */
  const char *label; /* borrowed; must outlive the operation */
  uint64_t total;    /* bytes the operation will move (0: unknown, shown as done) */
  uint64_t done;     /* bytes moved so far */
  double start;      /* samples_now() at the start */
  double last;       /* when last drawn */
  int width;         /* characters of the line last drawn on a terminal */
  int drawn;         /* drawn at least once */
} samples_progress;

/** Starts `p` for an operation of `total` bytes named `label` (borrowed); draws
 *  nothing yet. Cannot fail. */
void samples_progress_start(samples_progress *p, const char *label, uint64_t total,
                            samples_progress_mode mode);

/** Counts `n` more bytes done; redraws when the last drawing is old enough. */
void samples_progress_add(samples_progress *p, uint64_t n);

/** Ends the operation: draws the final state and, on a terminal, ends its line, so
 *  what is printed next starts on a line of its own. */
void samples_progress_end(samples_progress *p);

/** Ends the operation without keeping its line: on a terminal the line is erased and
 *  the cursor left at its start (for a caller that prints the outcome there); elsewhere
 *  the final state is printed as by samples_progress_end. */
void samples_progress_erase(samples_progress *p);

#endif /* XIO_SAMPLES_PROGRESS_H */
