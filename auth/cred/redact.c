/*
 * redact.c - the log-safe form of URLs, query strings and connection strings. Secret
 * values (sig, AccountKey, the signature of a SharedKey Authorization value) become
 * REDACTED wherever they appear as a parameter, a SharedAccessSignature is searched
 * for its sig, and user:password@ after "://" is dropped.
 * Part of libxio_auth's credentials and signing (auth/cred/).
 */
#include <stdlib.h>
#include <string.h>

#include "cred_int.h"

#define REDACTED "REDACTED"

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

/* At a parameter boundary: if `p` starts a secret "name=value", writes the redacted
 * form and returns the input length consumed; 0 when it is not a secret. Sets *nested
 * when the value is a SAS whose own parameters must be scanned. */
static size_t redact_param(const char *p, xio__auth_buf *b, int *nested) {
  size_t n = strcspn(p, "=&;?#\"' \t\r\n");
  if (p[n] != '=') return 0;
  if (xio__auth_word_eq(p, n, "sharedaccesssignature")) {
    xio__auth_buf_add(b, p, n + 1);
    *nested = 1;
    return n + 1;
  }
  if (!xio__auth_word_eq(p, n, "sig") && !xio__auth_word_eq(p, n, "accountkey")) return 0;
  xio__auth_buf_add(b, p, n + 1);
  xio__auth_buf_puts(b, REDACTED);
  return n + 1 + value_len(p + n + 1);
}

/* "SharedKey ACCOUNT:SIGNATURE" (an Authorization value): keeps the account. */
static size_t redact_sharedkey(const char *p, xio__auth_buf *b) {
  size_t n = xio__auth_ncasecmp(p, "SharedKey ", 10) == 0       ? 10
             : xio__auth_ncasecmp(p, "SharedKeyLite ", 14) == 0 ? 14
                                                                : 0;
  if (!n) return 0;
  /* An account name is letters and digits: anything else is not a SharedKey value
   * (and is scanned on for secrets rather than copied as an "account"). */
  size_t acct = strspn(p + n, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789");
  if (p[n + acct] != ':') return 0;
  size_t head = n + acct + 1;
  xio__auth_buf_add(b, p, head);
  xio__auth_buf_puts(b, REDACTED);
  return head + value_len(p + head);
}

char *xio_auth_redact(const char *text) {
  if (!text) return NULL;
  xio__auth_buf b;
  xio__auth_buf_init(&b);
  xio__auth_buf_puts(&b, "");
  int boundary = 1;
  for (const char *p = text; *p;) {
    size_t used = 0;
    int nested = 0;
    if (strncmp(p, "://", 3) == 0) {
      xio__auth_buf_puts(&b, "://");
      p += 3 + xio__auth_userinfo_len(p + 3);
      boundary = 0;
      continue;
    }
    if (boundary) used = redact_param(p, &b, &nested);
    if (boundary && !used) used = redact_sharedkey(p, &b);
    if (used) {
      p += used;
      boundary = nested;
      continue;
    }
    boundary = boundary_char(*p);
    xio__auth_buf_putc(&b, *p++);
  }
  return xio__auth_buf_take(&b);
}
