/*
 * origins.c - the origins (scheme://host[:port]) an engine has had an HTTP answer
 * from, the last few of them. A failure on the way to an origin that has answered
 * before (a name that did not resolve, a connection closed without a word) is one
 * of the moment, worth retrying; the same failure on the way to one that never
 * answered is most likely a wrong URL, final at once (classify.c). Fixed slots, no
 * allocation; I/O thread only.
 */
#include <stdio.h>
#include <string.h>

#include "engine_int.h"

int xio__blob_origins_has(const xio__blob_origins *o, const char *origin) {
  for (int i = 0; i < XIO__BLOB_ORIGINS_MAX; i++)
    if (o->v[i][0] && strcmp(o->v[i], origin) == 0) return 1;
  return 0;
}

void xio__blob_origins_add(xio__blob_origins *o, const char *origin) {
  if (strlen(origin) >= sizeof o->v[0] || xio__blob_origins_has(o, origin)) return;
  snprintf(o->v[o->next], sizeof o->v[0], "%s", origin);
  o->next = (o->next + 1) % XIO__BLOB_ORIGINS_MAX;
}
