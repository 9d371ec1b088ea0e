/*
 * progress.c - the progress line of long operations, on stderr (samples_progress.h):
 * a bar, percent done, rate in MiB/s and the time left. On a terminal it redraws one
 * line at most ten times a second; elsewhere it stays silent unless asked for, and
 * then prints a line a second.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "samples_common.h"
#include "samples_progress.h"

#define BAR_WIDTH 24
#define MiB       (1024.0 * 1024.0)

void samples_progress_start(samples_progress *p, const char *label, uint64_t total,
                            samples_progress_mode mode) {
  memset(p, 0, sizeof *p);
  p->tty = isatty(STDERR_FILENO);
  p->on = mode == SAMPLES_PROGRESS_ALWAYS || (mode == SAMPLES_PROGRESS_TTY && p->tty);
  p->label = label;
  p->total = total;
  p->start = p->last = samples_now();
}

static void format_eta(double s, char buf[32]) {
  long t = s < 0 ? 0 : s > 359999 ? 359999 : (long)(s + 0.5);
  if (t >= 3600)
    snprintf(buf, 32, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
  else
    snprintf(buf, 32, "%ld:%02ld", t / 60, t % 60);
}

static void draw(samples_progress *p, double now) {
  double frac = p->total ? (double)p->done / (double)p->total : 1.0;
  if (frac > 1) frac = 1;
  double elapsed = now - p->start > 1e-6 ? now - p->start : 1e-6;
  double rate = (double)p->done / elapsed;
  char eta[32], bar[BAR_WIDTH + 1];
  format_eta(rate > 0 ? (double)(p->total - (p->done < p->total ? p->done : p->total)) / rate : 0,
             eta);
  int fill = (int)(frac * BAR_WIDTH);
  memset(bar, '#', (size_t)fill);
  memset(bar + fill, '.', (size_t)(BAR_WIDTH - fill));
  bar[BAR_WIDTH] = '\0';
  int n = fprintf(stderr, "%s%s [%s] %3d%%  %8.1f MiB/s  ETA %s%s", p->tty ? "\r" : "", p->label,
                  bar, (int)(frac * 100), rate / MiB, eta, p->tty ? "  " : "\n");
  fflush(stderr);
  if (p->tty && n > 1) p->width = n - 1;
  p->last = now;
  p->drawn = 1;
}

void samples_progress_add(samples_progress *p, uint64_t n) {
  p->done += n;
  if (!p->on) return;
  double now = samples_now();
  if (now - p->last >= (p->tty ? 0.1 : 1.0)) draw(p, now);
}

void samples_progress_end(samples_progress *p) {
  if (!p->on) return;
  draw(p, samples_now());
  if (p->tty) fputc('\n', stderr);
}

void samples_progress_erase(samples_progress *p) {
  if (!p->on) return;
  draw(p, samples_now());
  if (p->tty) fprintf(stderr, "\r%*s\r", p->width, "");
  fflush(stderr);
}
