/*
 * cmdline.c - a SAS taken off nbdkit's command line. nbdkit hands the plugin its
 * key=value parameters as pointers into its own argv, which every local user can
 * read for the life of the process (ps, /proc/PID/cmdline). Once config.c has
 * copied url=, the secrets in the value (a SAS sig, user:password@) are overwritten
 * with '*' where they lie, as curl does with its -u argument: a running export
 * shows "sig=****".
 *
 * Only bytes inside the process's argument area (the kernel's arg_start..arg_end,
 * from /proc/self/stat) are written: a value nbdkit passed as a copy, or that a
 * filter made, is left alone. The SAS was readable until then; url=@FILE keeps it
 * out of the command line altogether.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xio/auth.h>

#include "nbd_int.h"

#define STAT_MAX 4096 /* /proc/self/stat is one line far shorter than this */
/* Fields 48 and 49 of /proc/PID/stat (proc(5)): where argv lies. Counted here from
 * field 3, the first after the command name in parentheses. */
#define ARG_START_FIELD (48 - 3)

/* The process's argument area [*start, *end) from /proc/self/stat. 0, or -1 when it
 * cannot be read (no /proc, an old kernel). */
static int arg_area(uintptr_t *start, uintptr_t *end) {
  char buf[STAT_MAX];
  FILE *f = fopen("/proc/self/stat", "r");
  if (!f) return -1;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = '\0';
  const char *p = strrchr(buf, ')'); /* the command name may hold anything */
  if (!p) return -1;
  p++;
  for (int field = 0; field < ARG_START_FIELD && p; field++)
    p = strchr(p + 1, ' ');
  if (!p) return -1;
  char *e1 = NULL, *e2 = NULL;
  unsigned long long a = strtoull(p, &e1, 10), b = strtoull(e1, &e2, 10);
  if (e1 == p || e2 == e1 || a == 0 || b <= a) return -1;
  *start = (uintptr_t)a;
  *end = (uintptr_t)b;
  return 0;
}

void xnbd_scrub_arg(const char *value) {
  uintptr_t start, end, v = (uintptr_t)value;
  if (arg_area(&start, &end) != 0) return;
  if (v < start || v + strlen(value) >= end) return; /* its NUL lies inside too */
  xio_auth_scrub((char *)(uintptr_t)value);          /* nbdkit's argv, writable */
}
