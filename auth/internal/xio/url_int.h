/*
 * xio/url_int.h - blob service URLs taken apart and checked, loopback and link-local
 * hosts, percent-encoding and base64: the text helpers the xio libraries share, for
 * them and the programs built in this tree; never installed. Part of libxio_auth's
 * shared base (auth/base/: url.c, account_url.c, host.c, names.c, pct.c, base64.c).
 *
 * Ownership: every `char *` or struct member returned is heap memory owned by the
 * caller, released with the matching *_clear function (which accepts NULL) or with
 * xio_free where stated.
 */
#ifndef XIO_URL_INT_H
#define XIO_URL_INT_H

#include <stddef.h>

#include <xio/base.h>
#include <xio/error_int.h>

#ifdef __cplusplus
extern "C" {
#endif

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

/** The raw (still percent-encoded) value of parameter `name` in the raw query `query`
 *  ("a=1&snapshot=X", no '?'; may be NULL): a pointer into `query`, with the value's
 *  length in `*len` (may be NULL), or NULL when no parameter has exactly that name
 *  and a value ("xsnapshot=1" is not "snapshot"). The first one wins. */
const char *xio_auth_query_value(const char *query, const char *name, size_t *len);

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

/* --------------------------------------------------------------- base64 ---- */

/** Base64-encodes `n` bytes into `out` (size at least 4*((n+2)/3)+1), NUL-terminated.
 *  Returns the length written, excluding the NUL. */
size_t xio_auth_base64_encode(const void *data, size_t n, char *out);

/** Decodes standard base64 (padding required, no whitespace). `*out` is malloc'd,
 *  wiped and freed by the caller (xio_auth_secret_free). Errors: XIO_EPARSE, XIO_ENOMEM. */
xio_err xio_auth_base64_decode(const char *text, unsigned char **out, size_t *out_len,
                               xio_error *err);

#ifdef __cplusplus
}
#endif
#endif /* XIO_URL_INT_H */
