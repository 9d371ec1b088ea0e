/*
 * base64.c - standard base64 (RFC 4648, '+' '/' and '=' padding) for account keys and
 * signatures, and the wiping free that decoded key material needs. Decoding is strict:
 * padding required, no whitespace, no characters outside the alphabet.
 * Part of libxio_auth's shared base (auth/base/), used by every xio library.
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "base_int.h"

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t xio_auth_base64_encode(const void *data, size_t n, char *out) {
  const unsigned char *in = data;
  size_t o = 0;
  for (size_t i = 0; i < n; i += 3) {
    uint32_t v = (uint32_t)in[i] << 16;
    if (i + 1 < n) v |= (uint32_t)in[i + 1] << 8;
    if (i + 2 < n) v |= in[i + 2];
    out[o++] = alphabet[(v >> 18) & 63];
    out[o++] = alphabet[(v >> 12) & 63];
    out[o++] = i + 1 < n ? alphabet[(v >> 6) & 63] : '=';
    out[o++] = i + 2 < n ? alphabet[v & 63] : '=';
  }
  out[o] = '\0';
  return o;
}

static int sextet(char c) {
  const char *p = c ? strchr(alphabet, c) : NULL;
  return p ? (int)(p - alphabet) : -1;
}

/* Decodes one 4-character group into `out`; returns the bytes written (1..3) or -1.
 * Padding is only allowed when `last` is set. */
static int decode_group(const char *g, int last, unsigned char *out) {
  int pad = (g[3] == '=') + (g[3] == '=' && g[2] == '=');
  if (pad && !last) return -1;
  uint32_t v = 0;
  for (int i = 0; i < 4 - pad; i++) {
    int s = sextet(g[i]);
    if (s < 0) return -1;
    v = (v << 6) | (uint32_t)s;
  }
  v <<= 6 * pad;
  out[0] = (unsigned char)(v >> 16);
  out[1] = (unsigned char)(v >> 8);
  out[2] = (unsigned char)v;
  return 3 - pad;
}

xio_err xio_auth_base64_decode(const char *text, unsigned char **out, size_t *out_len,
                               xio_error *err) {
  size_t n = text ? strlen(text) : 0;
  *out = NULL;
  *out_len = 0;
  if (!text || n % 4 != 0)
    return xio_error_set(err, XIO_EPARSE, "base64 length is not a multiple of 4");
  size_t cap = n / 4 * 3 + 1;
  unsigned char *buf = malloc(cap);
  if (!buf) return xio_error_set(err, XIO_ENOMEM, "out of memory decoding base64");
  size_t len = 0;
  for (size_t i = 0; i < n; i += 4) {
    int got = decode_group(text + i, i + 4 == n, buf + len);
    if (got < 0) {
      xio_auth_secret_free(buf, cap);
      return xio_error_set(err, XIO_EPARSE, "invalid base64 at group %zu", i / 4 + 1);
    }
    len += (size_t)got;
  }
  OPENSSL_cleanse(buf + len, cap - len); /* the caller wipes only out_len bytes */
  *out = buf;
  *out_len = len;
  return XIO_OK;
}

void xio_auth_secret_free(void *p, size_t n) {
  if (!p) return;
  OPENSSL_cleanse(p, n);
  free(p);
}
