/*
 * buf.c - a growable text buffer with sticky out-of-memory, used to assemble strings
 * to sign, tokens and redacted text. Storage is wiped when it grows and when freed,
 * because some of what it assembles (a SAS with its sig) is secret.
 * Part of libxio_auth's shared base (auth/base/), used by every xio library.
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "base_int.h"

void xio__auth_buf_init(xio__auth_buf *b) { memset(b, 0, sizeof *b); }

/* Makes room for `extra` more bytes plus the NUL; sets b->oom on failure. */
static int reserve(xio__auth_buf *b, size_t extra) {
  if (b->oom) return -1;
  if (extra > (size_t)-1 / 2 - b->len) return b->oom = 1, -1;
  size_t need = b->len + extra + 1;
  if (need <= b->cap) return 0;
  size_t cap = b->cap ? b->cap : 64;
  while (cap < need)
    cap *= 2;
  char *p = malloc(cap);
  if (!p) return b->oom = 1, -1;
  if (b->data) {
    memcpy(p, b->data, b->len + 1);
    OPENSSL_cleanse(b->data, b->cap);
    free(b->data);
  }
  b->data = p;
  b->cap = cap;
  return 0;
}

void xio__auth_buf_add(xio__auth_buf *b, const char *s, size_t n) {
  if (reserve(b, n) != 0) return;
  if (n) memcpy(b->data + b->len, s, n);
  b->len += n;
  b->data[b->len] = '\0';
}

void xio__auth_buf_puts(xio__auth_buf *b, const char *s) {
  xio__auth_buf_add(b, s ? s : "", s ? strlen(s) : 0);
}

void xio__auth_buf_putc(xio__auth_buf *b, char c) { xio__auth_buf_add(b, &c, 1); }

char *xio__auth_buf_take(xio__auth_buf *b) {
  if (!b->oom && reserve(b, 0) != 0) return NULL;
  if (b->oom) {
    xio__auth_buf_free(b);
    return NULL;
  }
  char *s = b->data;
  xio__auth_buf_init(b);
  return s;
}

void xio__auth_buf_free(xio__auth_buf *b) {
  if (b->data) {
    OPENSSL_cleanse(b->data, b->cap);
    free(b->data);
  }
  xio__auth_buf_init(b);
}
