/*
 * plot.c - runs gnuplot on plot.gp to draw results.csv as PNG and SVG into the
 * output directory. gnuplot is optional: without it the report says how to get it
 * (make bench installs gnuplot-nox). gnuplot's own messages go to plot.log.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

extern char **environ;

/* Appends `s` to `out` as a gnuplot single-quoted string ('' for a quote). */
static void gp_quote(char *out, size_t n, const char *s) {
  size_t used = strlen(out);
  if (used + 1 < n) out[used++] = '\'';
  for (; *s && used + 3 < n; s++) {
    if (*s == '\'') out[used++] = '\'';
    out[used++] = *s;
  }
  if (used + 1 < n) out[used++] = '\'';
  out[used] = '\0';
}

static int has_kind(const bench_results *r, const char *kind) {
  for (size_t i = 0; i < r->n; i++)
    if (strcmp(r->rows[i].kind, kind) == 0 && r->rows[i].runs > 0) return 1;
  return 0;
}

/* Runs gnuplot with `vars` (a -e argument) on the script. Returns its exit status,
 * 127 when gnuplot is not installed, or -1. */
static int run_gnuplot(const char *vars, const char *script, const char *log) {
  char *argv[] = {"gnuplot", "-e", (char *)vars, (char *)script, NULL};
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0666);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  pid_t pid;
  int rc = posix_spawnp(&pid, "gnuplot", &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return rc == ENOENT ? 127 : -1;
  int st;
  while (waitpid(pid, &st, 0) < 0)
    ;
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Lists the plot files that exist in the output directory. */
static void collect(bench_report *rep) {
  static const char *names[] = {"growth-create.png", "growth-grow.png",   "growth-zero.png",
                                "bulk.png",          "growth-create.svg", "growth-grow.svg",
                                "growth-zero.svg",   "bulk.svg"};
  char path[1200];
  struct stat st;
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    snprintf(path, sizeof path, "%s/%s", rep->cfg->out_dir, names[i]);
    if (stat(path, &st) == 0 && st.st_size > 0) rep->plots[rep->nplots++] = names[i];
  }
}

int bench_plot(bench_report *rep, const char *csv_path) {
  const bench_config *c = rep->cfg;
  int growth = has_kind(rep->res, "growth"), bulk = has_kind(rep->res, "bulk");
  if (!growth && !bulk) {
    snprintf(rep->plot_note, sizeof rep->plot_note, "nothing to plot");
    return 0;
  }
  char vars[3000] = "csv=", log[1200];
  gp_quote(vars, sizeof vars, csv_path);
  strncat(vars, "; outdir=", sizeof vars - strlen(vars) - 1);
  gp_quote(vars, sizeof vars, c->out_dir);
  size_t used = strlen(vars);
  snprintf(vars + used, sizeof vars - used, "; cap=%llu; have_growth=%d; have_bulk=%d",
           (unsigned long long)c->zero_cap, growth, bulk);
  snprintf(log, sizeof log, "%s/plot.log", c->out_dir);
  int rc = run_gnuplot(vars, c->plot_script, log);
  if (rc == 127)
    snprintf(rep->plot_note, sizeof rep->plot_note,
             "plots not drawn: gnuplot is not installed (scripts/install-deps.sh gnuplot-nox)");
  else if (rc != 0)
    snprintf(rep->plot_note, sizeof rep->plot_note, "gnuplot failed (exit %d); see plot.log", rc);
  collect(rep);
  if (rep->plot_note[0]) fprintf(stderr, "xio-bench: %s\n", rep->plot_note);
  return rc == 0 ? 0 : -1;
}
