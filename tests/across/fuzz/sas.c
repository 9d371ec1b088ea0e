/*
 * sas.c - fuzz target: SAS tokens (xio_auth_sas_parse, then xio_auth_sas_check).
 * Properties: a parsed token has a sig and an sv, an account SAS has ss and srt, the
 * permission bits are letters only and every field is a terminated string; a failed
 * parse leaves the struct zeroed. Checking at the expiry answers XIO_EEXPIRED and
 * before the start (past the grace) XIO_ENOTYET. No sig value shows in any message.
 */
#include <stdlib.h>
#include <string.h>

#include <xio/auth.h>

#include "fuzz.h"

static const char *const secrets[] = {"sig", NULL};

/* The token's parameters start at its beginning (after a '?') and after each '&'
 * only: a "?sig=" inside another value is part of that value. */
#define PARAMS(text) ((text) + ((text)[0] == '?'))

static void check_fields(const xio_auth_sas *s) {
  FUZZ_CHECK(s->has_sig && s->sv[0]);
  FUZZ_CHECK(!s->is_account || (s->ss[0] && s->srt[0]));
  FUZZ_CHECK((s->perms >> 26) == 0);
  FUZZ_CHECK(memchr(s->sv, 0, sizeof s->sv) && memchr(s->sr, 0, sizeof s->sr));
  FUZZ_CHECK(memchr(s->ss, 0, sizeof s->ss) && memchr(s->srt, 0, sizeof s->srt));
  FUZZ_CHECK(memchr(s->sp, 0, sizeof s->sp) && memchr(s->spr, 0, sizeof s->spr));
  FUZZ_CHECK(memchr(s->sip, 0, sizeof s->sip));
  for (const char *p = s->sp; *p; p++)
    FUZZ_CHECK(*p >= 'a' && *p <= 'z' && (s->perms & XIO_AUTH_PERM(*p)));
}

/* `msg` with every time it prints ("2030-01-01T00:00:00Z") blanked out: the check
 * writes the token's st and se back, and a sig may look like a time. */
static void blank_times(char *msg) {
  for (char *p = msg; strlen(p) >= 20; p++)
    if (p[4] == '-' && p[7] == '-' && p[10] == 'T' && p[13] == ':' && p[16] == ':' && p[19] == 'Z')
      memset(p, '#', 20);
}

/* Checks the token at `now` for read and write; returns the code. */
static xio_err check_at(const char *text, const xio_auth_sas *s, time_t now) {
  xio_error err;
  xio_error_clear(&err);
  xio_err rc = xio_auth_sas_check(s, XIO_AUTH_PERM('r') | XIO_AUTH_PERM('w'), now, &err);
  FUZZ_CHECK(rc == XIO_OK || err.message[0]);
  blank_times(err.message);
  xio__fuzz_no_secret(PARAMS(text), secrets, "&", err.message, NULL);
  return rc;
}

static void check_times(const char *text, const xio_auth_sas *s) {
  if (s->expiry) FUZZ_CHECK(check_at(text, s, s->expiry) == XIO_EEXPIRED);
  if (s->start && (!s->expiry || s->start - 301 < s->expiry))
    FUZZ_CHECK(check_at(text, s, s->start - 301) == XIO_ENOTYET);
  xio_err rc = check_at(text, s, s->start);
  if (!s->expiry || s->start < s->expiry) FUZZ_CHECK(rc == XIO_OK || rc == XIO_EPERM);
  if (rc == XIO_OK) FUZZ_CHECK((s->perms & XIO_AUTH_PERM('r')) && (s->perms & XIO_AUTH_PERM('w')));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = xio__fuzz_text(data, size);
  xio_auth_sas s;
  xio_error err;
  xio_error_clear(&err);
  xio_err rc = xio_auth_sas_parse(text, &s, &err);
  if (rc == XIO_OK) {
    check_fields(&s);
    check_times(text, &s);
  } else {
    static const xio_auth_sas zero;
    FUZZ_CHECK(rc == XIO_EPARSE || rc == XIO_ENOMEM);
    FUZZ_CHECK(err.code == rc && err.message[0]);
    FUZZ_CHECK(memcmp(&s, &zero, sizeof s) == 0);
    xio__fuzz_no_secret(PARAMS(text), secrets, "&", err.message, NULL);
  }
  free(text);
  return 0;
}
