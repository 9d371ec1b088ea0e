/*
 * progress.c - the progress bar of long transfers (samples/common/progress.c draws
 * it), shown as the command's options say: on a terminal, or anywhere with
 * --progress (a line a second); never with --quiet or --json.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

void cli_progress_start(cli_progress *p, const cli *c, const char *label, uint64_t total) {
  samples_progress_mode mode = c->quiet || c->json ? SAMPLES_PROGRESS_OFF
                               : c->progress       ? SAMPLES_PROGRESS_ALWAYS
                                                   : SAMPLES_PROGRESS_TTY;
  samples_progress_start(p, label, total, mode);
}

void cli_progress_add(cli_progress *p, uint64_t n) { samples_progress_add(p, n); }

void cli_progress_end(cli_progress *p) { samples_progress_end(p); }
