/*
 * redact.c - the log-safe form of URLs, query strings and connection strings. Secret
 * values (sig, AccountKey, the signature of a SharedKey Authorization value) are found
 * wherever they appear as a parameter, a SharedAccessSignature is searched for its
 * sig, and user:password@ after "://" counts as a secret too.
 *
 * One scanner finds the secrets; xio_auth_redact writes a copy with each secret value
 * replaced by REDACTED (and user:password@ dropped), xio_auth_scrub overwrites them in
 * place, for a program that wipes them from its own command line.
 * Part of libxio_auth's credentials and signing (auth/cred/).
 */
#include <stdlib.h>
#include <string.h>

#include "cred_int.h"

#define REDACTED "REDACTED"

/* What the scanner reports: `n` plain bytes at `p`, a secret value, or userinfo. */
typedef enum piece_kind { PIECE_PLAIN, PIECE_SECRET, PIECE_USERINFO } piece_kind;
typedef void (*piece_fn)(const char *p, size_t n, piece_kind kind, void *ud);

/* Characters after which a new parameter name may begin. */
static int boundary_char(char c) {
  return c == '?' || c == '&' || c == ';' || c == '"' || c == '\'' || xio__auth_is_space(c);
}

/* Length of the value at `s`: up to a separator, a fragment, a quote or space. */
static size_t value_len(const char *s) {
  size_t n = 0;
  while (s[n] && !strchr("&;#\"'<>", s[n]) && !xio__auth_is_space(s[n]))
    n++;
  return n;
}

/* At a parameter boundary: if `p` starts a secret "name=value", reports it and
 * returns the input length consumed; 0 when it is not a secret. Sets *nested when
 * the value is a SAS whose own parameters must be scanned. */
static size_t scan_param(const char *p, piece_fn emit, void *ud, int *nested) {
  size_t n = strcspn(p, "=&;?#\"' \t\r\n");
  if (p[n] != '=') return 0;
  if (xio__auth_word_eq(p, n, "sharedaccesssignature")) {
    emit(p, n + 1, PIECE_PLAIN, ud);
    *nested = 1;
    return n + 1;
  }
  if (!xio__auth_word_eq(p, n, "sig") && !xio__auth_word_eq(p, n, "accountkey")) return 0;
  size_t v = value_len(p + n + 1);
  emit(p, n + 1, PIECE_PLAIN, ud);
  emit(p + n + 1, v, PIECE_SECRET, ud);
  return n + 1 + v;
}

/* "SharedKey ACCOUNT:SIGNATURE" (an Authorization value): keeps the account. */
static size_t scan_sharedkey(const char *p, piece_fn emit, void *ud) {
  size_t n = xio__auth_ncasecmp(p, "SharedKey ", 10) == 0       ? 10
             : xio__auth_ncasecmp(p, "SharedKeyLite ", 14) == 0 ? 14
                                                                : 0;
  if (!n) return 0;
  /* An account name is letters and digits: anything else is not a SharedKey value
   * (and is scanned on for secrets rather than copied as an "account"). */
  size_t acct = strspn(p + n, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789");
  if (p[n + acct] != ':') return 0;
  size_t head = n + acct + 1, v = value_len(p + head);
  emit(p, head, PIECE_PLAIN, ud);
  emit(p + head, v, PIECE_SECRET, ud);
  return head + v;
}

/* Reports all of `text` to `emit`, in order, as plain bytes and secrets. */
static void scan(const char *text, piece_fn emit, void *ud) {
  int boundary = 1;
  for (const char *p = text; *p;) {
    size_t used = 0;
    int nested = 0;
    if (strncmp(p, "://", 3) == 0) {
      size_t info = xio__auth_userinfo_len(p + 3);
      emit(p, 3, PIECE_PLAIN, ud);
      if (info) emit(p + 3, info, PIECE_USERINFO, ud);
      p += 3 + info;
      boundary = 0;
      continue;
    }
    if (boundary) used = scan_param(p, emit, ud, &nested);
    if (boundary && !used) used = scan_sharedkey(p, emit, ud);
    if (used) {
      p += used;
      boundary = nested;
      continue;
    }
    boundary = boundary_char(*p);
    emit(p++, 1, PIECE_PLAIN, ud);
  }
}

static void redact_piece(const char *p, size_t n, piece_kind kind, void *ud) {
  xio__auth_buf *b = ud;
  if (kind == PIECE_PLAIN) xio__auth_buf_add(b, p, n);
  if (kind == PIECE_SECRET) xio__auth_buf_puts(b, REDACTED);
}

char *xio_auth_redact(const char *text) {
  if (!text) return NULL;
  xio__auth_buf b;
  xio__auth_buf_init(&b);
  xio__auth_buf_puts(&b, "");
  scan(text, redact_piece, &b);
  return xio__auth_buf_take(&b);
}

/* Overwrites a secret with '*' in the text being scrubbed (the scanner reads it
 * through const pointers; the bytes are the caller's own, writable text). Userinfo
 * keeps its '@'. */
static void scrub_piece(const char *p, size_t n, piece_kind kind, void *ud) {
  size_t *count = ud;
  if (kind == PIECE_PLAIN) return;
  if (kind == PIECE_USERINFO) n--;
  memset((char *)p, '*', n);
  *count += n;
}

size_t xio_auth_scrub(char *text) {
  size_t count = 0;
  if (text) scan(text, scrub_piece, &count);
  return count;
}
