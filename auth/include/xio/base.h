/*
 * xio/base.h - the shared base of every xio library (part of libxio_auth, the ground
 * floor): the injectable clock and the time formats Azure uses, base64, blob service
 * URLs (parsing, container names, loopback hosts) and percent-encoding. The error
 * list lives beside it in <xio/error.h>. Credentials and signing are in <xio/auth.h>.
 *
 * Pure: nothing here sends, reads files or keeps global state.
 *
 * Ownership: every `char *` or struct member returned is heap memory owned by the
 * caller, released with the matching *_clear function (which accepts NULL) or with
 * free() where stated (xio_free, which is free() unless the program installed its
 * own allocator: see <xio/alloc.h>). All allocation goes through <xio/alloc.h>.
 */
#ifndef XIO_BASE_H
#define XIO_BASE_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <xio/error.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- clock ---- */

/** A source of the current time (seconds since the epoch, UTC). */
typedef struct xio_auth_clock {
  time_t (*now)(void *ud); /* NULL means the system clock */
  void *ud;
} xio_auth_clock;

/** Returns the clock's time; `clock` may be NULL (system clock). */
time_t xio_auth_clock_now(const xio_auth_clock *clock);

/** Microseconds of the system's monotonic clock (CLOCK_MONOTONIC): for measuring
 *  durations and timeouts, never for wall time. Cannot fail. */
int64_t xio_auth_monotonic_us(void);

/** Formats `t` as an RFC 1123 date ("Mon, 01 Jan 2024 00:00:00 GMT"), locale-free.
 *  `buf` must hold 30 bytes. Returns `buf`. */
char *xio_auth_format_rfc1123(time_t t, char buf[30]);

/** Formats `t` as ISO 8601 UTC ("2024-01-01T00:00:00Z"). `buf` holds 21 bytes. */
char *xio_auth_format_iso8601(time_t t, char buf[21]);

/** Parses an ISO 8601 UTC time as SAS tokens use it ("2024-01-01T00:00:00Z",
 *  also "2024-01-01", fractional seconds and +hh:mm offsets). Errors: XIO_EPARSE
 *  (also for a time before 1970 or after 9999 UTC). */
xio_err xio_auth_parse_iso8601(const char *text, time_t *out, xio_error *err);

/* --------------------------------------------------------------- base64 ---- */

/** Base64-encodes `n` bytes into `out` (size at least 4*((n+2)/3)+1), NUL-terminated.
 *  Returns the length written, excluding the NUL. */
size_t xio_auth_base64_encode(const void *data, size_t n, char *out);

/** Decodes standard base64 (padding required, no whitespace). `*out` is malloc'd,
 *  wiped and freed by the caller (xio_auth_secret_free). Errors: XIO_EPARSE, XIO_ENOMEM. */
xio_err xio_auth_base64_decode(const char *text, unsigned char **out, size_t *out_len,
                               xio_error *err);

/** Wipes `n` bytes at `p` and frees it. `p` may be NULL. */
void xio_auth_secret_free(void *p, size_t n);

/* ----------------------------------------------------------------- URLs ---- */

/** A blob service URL taken apart. Strings are decoded except `path` and `query`. */
typedef struct xio_auth_url {
  char *scheme;    /* "http" or "https" */
  char *host;      /* "acct.blob.core.windows.net", "127.0.0.1", "localhost" */
  int port;        /* explicit port, or 0 */
  int path_style;  /* 1 when the account is the first path segment (IP or dotless host) */
  char *account;   /* account name */
  char *container; /* or NULL for an account URL */
  char *blob;      /* blob name (may contain '/'), or NULL */
  char *endpoint;  /* scheme://host[:port][/account] with no trailing '/' */
  char *path;      /* encoded path as sent on the wire, starting with '/' */
  char *query;     /* raw query without '?', or NULL; may hold a SAS */
} xio_auth_url;

/**
 * Parses an https:// or http:// blob URL: virtual-host style
 * (https://ACCOUNT.blob.core.windows.net/C/B) or path style for IP and dotless hosts
 * (http://127.0.0.1:PORT/ACCOUNT/C/B). Refused, so that the request sent is always
 * the one named and signed: a "." or ".." path segment in any spelling ("%2E", behind
 * an encoded '/', between backslashes), since it would be resolved away on the way
 * to the service; and a query parameter that is neither a SAS's (xio_auth_sas_param)
 * nor snapshot (a '?' in a blob name is written %3F). Errors: XIO_EPARSE (names what
 * is wrong: scheme, host, account, container name rules, the dot segment, the query
 * parameter by its name but never its value), XIO_ENOMEM.
 */
xio_err xio_auth_url_parse(const char *url, xio_auth_url *out, xio_error *err);

/** Frees what `u` owns and zeroes it. `u` may be NULL. */
void xio_auth_url_clear(xio_auth_url *u);

/** 1 when the query parameter named by the `n` bytes at `name` (decoded, any case) is
 *  one a SAS token carries: sv ss srt sp st se sip spr sr si sig ses sdd, the user
 *  delegation ones skoid sktid skt ske sks skv skdutid saoid suoid sduoid scid, and
 *  the response header overrides rscc rscd rsce rscl rsct. 0 otherwise (NULL too). */
int xio_auth_sas_param(const char *name, size_t n);

/** Checks a container name: 3-63 characters, lowercase letters, digits, single
 *  dashes not at either end. Errors: XIO_EPARSE naming the rule broken. */
xio_err xio_auth_check_container_name(const char *name, xio_error *err);

/** Percent-encodes a blob name for a URL path ('/' kept). malloc'd; NULL on ENOMEM. */
char *xio_auth_encode_path(const char *name);

/** 1 when `host` is a loopback name or address (localhost, 127.0.0.0/8, ::1). */
int xio_auth_host_is_loopback(const char *host);

/** 1 when `host` is a link-local address (169.254.0.0/16, fe80::/10), such as the
 *  instance metadata service's 169.254.169.254: never routed off the link. */
int xio_auth_host_is_link_local(const char *host);

/**
 * 1 when `u` is one of the URLs of account `account` itself, the only ones a
 * credential known by nothing but its account name (AZURE_STORAGE_ACCOUNT with
 * AZURE_STORAGE_KEY or AZURE_STORAGE_SAS_TOKEN) may be sent to: a host that is
 * ACCOUNT.blob.core.windows.net (any scheme and port), or a path-style emulator URL
 * on a loopback host (localhost, 127.0.0.0/8, ::1) whose first path segment is
 * ACCOUNT. Names compare without regard to case. 0 for anything else, in particular
 * a host that only begins with the name (ACCOUNT.evil.example), another cloud's or a
 * custom domain's endpoint, and an emulator on another machine (a connection string
 * or a credential file entry names those); 0 when an argument is NULL or empty.
 */
int xio_auth_url_of_account(const xio_auth_url *u, const char *account);

/** `url` without its query string, fragment or user:password@ (what traces and
 *  messages print, since a query may hold a SAS). malloc'd; NULL when `url` is NULL
 *  or on out-of-memory. */
char *xio_auth_url_strip_query(const char *url);

/* --------------------------------------------------------------- ranges ---- */

/** One range of bytes [start, end], inclusive: an allocated range of a file, a page
 *  range of a page blob (or, in diffs, a cleared one). */
typedef struct xio_range {
  uint64_t start;
  uint64_t end;
} xio_range;

/** A list of ranges, sorted and merged where they overlap or touch. Zero it to
 *  start (`{NULL, 0, 0}`); the caller owns it and frees it with xio_ranges_clear. */
typedef struct xio_ranges {
  xio_range *v; /* malloc'd */
  size_t n;
  size_t cap;
} xio_ranges;

/** Frees what `r` owns and zeroes it; `r` may be NULL. */
void xio_ranges_clear(xio_ranges *r);

/** Adds [start, end] (inclusive) to `r`, merging it with ranges it overlaps or
 *  touches; cheap when ranges come in ascending order. Errors: XIO_EINVAL (`r`
 *  NULL or start > end), XIO_ENOMEM (`r` is then unchanged). */
xio_err xio_ranges_add(xio_ranges *r, uint64_t start, uint64_t end);

/** Bytes covered by `r` (saturating at UINT64_MAX); 0 for NULL. */
uint64_t xio_ranges_bytes(const xio_ranges *r);

/** Makes room for `extra` more ranges in `r`, so that the next `extra` calls of
 *  xio_ranges_add cannot fail with XIO_ENOMEM (an add grows the list by at most one):
 *  lets a parser validate a whole body first and then apply it without leaving a
 *  half-applied list behind. Errors: XIO_ENOMEM, XIO_EINVAL (`r` NULL). */
xio_err xio_ranges_reserve(xio_ranges *r, size_t extra);

/* ----------------------------------------------------- percent-encoding ---- */

/** Percent-encodes (RFC 3986) every byte of `s` except the unreserved characters
 *  A-Z a-z 0-9 - . _ ~ and those listed in `keep` (may be NULL), with uppercase hex.
 *  '+' is encoded unless kept. `s` NULL encodes "". `*out` is malloc'd (free()).
 *  Errors: XIO_ENOMEM (*out NULL). */
xio_err xio_auth_pct_encode(const char *s, const char *keep, char **out, xio_error *err);

/** Decodes the %XX escapes of the `n` bytes at `s` (either hex case; '+' stays '+').
 *  `*out` is malloc'd and NUL-terminated (free()); NULL on failure. The message never
 *  quotes the text (it may be a secret). Errors: XIO_EPARSE (a '%' not followed by two
 *  hex digits, or %00; the message gives the offset), XIO_EINVAL (`s` NULL with `n`
 *  not 0), XIO_ENOMEM. */
xio_err xio_auth_pct_decode(const char *s, size_t n, char **out, xio_error *err);

#ifdef __cplusplus
}
#endif
#endif /* XIO_BASE_H */
