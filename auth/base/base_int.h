/*
 * base_int.h - helpers shared by the base files of libxio_auth but not public
 * (a growable text buffer, ASCII string helpers, host kinds, URL path normalizing and
 * query-string splitting). Never installed.
 * Part of libxio_auth's shared base (auth/base/), used by every xio library.
 */
#ifndef XIO_BASE_INT_H
#define XIO_BASE_INT_H

#include <stddef.h>
#include <stdint.h>

#include <xio/base.h>
#include <xio/url_int.h>

/* ------------------------------------------------------------- buffer ---- */

/* A growable NUL-terminated text buffer. Out-of-memory is sticky: appends after a
 * failed one do nothing, and xio__auth_buf_take reports it once at the end. The
 * buffer may hold secrets (a SAS with its sig), so old storage is wiped when it grows
 * and when it is freed. */
typedef struct xio__auth_buf {
  char *data;
  size_t len;
  size_t cap;
  int oom;
} xio__auth_buf;

void xio__auth_buf_init(xio__auth_buf *b);
void xio__auth_buf_add(xio__auth_buf *b, const char *s, size_t n);
void xio__auth_buf_puts(xio__auth_buf *b, const char *s);
void xio__auth_buf_putc(xio__auth_buf *b, char c);
/* Returns the text (caller frees) and resets `b`, or NULL after an out-of-memory. */
char *xio__auth_buf_take(xio__auth_buf *b);
/* Wipes and frees the buffer's storage. */
void xio__auth_buf_free(xio__auth_buf *b);

/* ------------------------------------------------------------ strings ---- */

char *xio__auth_strdup(const char *s);
char *xio__auth_strndup(const char *s, size_t n);
/* Wipes a NUL-terminated string and frees it; NULL is fine. */
void xio__auth_str_free(char *s);
char xio__auth_lower(char c);
char xio__auth_upper(char c);
/* ASCII case-insensitive comparisons (no locale). */
int xio__auth_casecmp(const char *a, const char *b);
int xio__auth_ncasecmp(const char *a, const char *b, size_t n);
/* 1 when the `n` bytes at `s` equal the NUL-terminated `word`, ignoring ASCII case. */
int xio__auth_word_eq(const char *s, size_t n, const char *word);
/* Lowercases `s` in place and returns it. */
char *xio__auth_lower_str(char *s);
int xio__auth_is_space(char c);
/* Sets e->operation when it is still empty, so the caller's operation wins. */
void xio__auth_operation(xio_error *e, const char *operation);

/* --------------------------------------------------------------- hosts ---- */

/* 1 for a dotted-quad IPv4 literal. */
int xio__auth_host_is_ipv4(const char *host);
/* 1 for an IPv6 literal, with or without brackets. */
int xio__auth_host_is_ipv6(const char *host);
/* The length of the "user:password@" at the start of an authority `s`, or 0. */
size_t xio__auth_userinfo_len(const char *s);

/* ------------------------------------------------- percent-encoding ---- */

/* 1 for the RFC 3986 unreserved characters: A-Z a-z 0-9 - . _ ~
 * (The codec itself is public: xio_auth_pct_encode / xio_auth_pct_decode.) */
int xio__auth_is_unreserved(char c);

/* The URL path of the `n` bytes at `s` as sent on the wire: starts with '/', keeps
 * '/' and valid escapes (hex uppercased), encodes characters a path may not carry.
 * Sets *out (malloc'd). Errors: XIO_EPARSE (a malformed escape), XIO_ENOMEM. */
xio_err xio__auth_path_normalize(const char *s, size_t n, char **out, xio_error *err);

/* Refuses an encoded URL path with a "." or ".." segment, in any spelling (%2E, behind
 * an encoded '/', or between backslashes): it would be resolved away before it reaches
 * the service. A malformed escape is left for the caller to report. Errors:
 * XIO_EPARSE (says why), XIO_ENOMEM. */
xio_err xio__auth_check_dot_segments(const char *path, xio_error *err);

/* ------------------------------------------------------- query strings ---- */

/* One decoded query parameter. */
typedef struct xio__auth_param {
  char *name;
  char *value;
} xio__auth_param;

typedef struct xio__auth_params {
  xio__auth_param *v;
  size_t n;
} xio__auth_params;

/* Splits a raw query ("a=1&b=%2F", no '?') into decoded parameters in order. Empty
 * segments are skipped; a segment without '=' has an empty value. Names are
 * lowercased when `lower_names` is set. Errors: XIO_EINVAL or XIO_EPARSE (as
 * `bad_code` says) on a malformed escape, naming the parameter; XIO_ENOMEM. */
xio_err xio__auth_query_parse(const char *query, int lower_names, xio_err bad_code,
                              xio__auth_params *out, xio_error *err);
/* Frees the parameters, wiping values (one may be a sig). */
void xio__auth_params_free(xio__auth_params *p);

/* Refuses a raw target query (may be NULL) with a parameter that is neither a SAS's
 * (xio_auth_sas_param) nor snapshot, naming it when the name is short and plain
 * (never a value) and saying that a '?' in a blob name is written %3F. Errors:
 * XIO_EPARSE, XIO_ENOMEM. */
xio_err xio__auth_check_query(const char *query, xio_error *err);

#endif /* XIO_BASE_INT_H */
