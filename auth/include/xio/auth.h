/*
 * xio/auth.h - credentials and signing for Azure Blob Storage (the credentials part
 * of libxio_auth): connection strings, Shared Key request signing, SAS tokens (parse,
 * check, generate), a credential store keyed by URL prefix, and redaction of secrets.
 * It builds on the shared base, <xio/base.h> (clock, time formats, ranges),
 * which it includes.
 *
 * This part is pure: it sends nothing, reads no files, runs no program, starts no
 * thread and keeps no global state. Time comes from an injectable clock so that
 * signatures are reproducible in tests. Entra ID tokens as values are beside it in
 * <xio/entra.h>; the sources that fetch them (managed identity endpoints, the Azure
 * CLI) and their token cache do I/O and belong to libxio (<xio/entra_sources.h>).
 * Secrets (account keys, SAS signatures) never appear in an xio_error it fills.
 *
 * Ownership: every `char *` or struct member this library returns is heap memory
 * owned by the caller, released with the matching *_free / *_clear function (which
 * accept NULL) or with free() where stated (xio_free, which is free() unless the
 * program installed its own allocator: see <xio/alloc.h>). Secret-bearing memory is
 * wiped on release.
 */
#ifndef XIO_AUTH_H
#define XIO_AUTH_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <xio/base.h>
#include <xio/error.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The REST API version every request sends (x-ms-version). */
#define XIO_AUTH_API_VERSION "2025-11-05"

/** Azurite's public development account and key (safe to publish). */
#define XIO_AUTH_DEV_ACCOUNT "devstoreaccount1"
#define XIO_AUTH_DEV_KEY                                                                           \
  "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="

/* ----------------------------------------------------------------- HMAC ---- */

/** base64(HMAC-SHA256(key, msg)) into `out` (45 bytes). Errors: XIO_EINVAL. */
xio_err xio_auth_hmac_sha256_base64(const unsigned char *key, size_t key_len, const void *msg,
                                    size_t msg_len, char out[45]);

/* ------------------------------------------------------------- accounts ---- */

/** An account as a connection string describes it. */
typedef struct xio_auth_account {
  char *name;         /* AccountName, or NULL */
  unsigned char *key; /* decoded AccountKey, or NULL */
  size_t key_len;
  char *blob_endpoint; /* e.g. "https://acct.blob.core.windows.net" or
                          "http://127.0.0.1:10000/devstoreaccount1"; no trailing '/' */
  char *sas;           /* SharedAccessSignature without a leading '?', or NULL */
} xio_auth_account;

/**
 * Parses an Azure Storage connection string: DefaultEndpointsProtocol, AccountName,
 * AccountKey, BlobEndpoint, EndpointSuffix, SharedAccessSignature, and the shorthand
 * UseDevelopmentStorage=true (Azurite on 127.0.0.1:10000). Unknown keys are ignored.
 * The blob endpoint is derived from protocol, name and suffix when not given.
 * On success `out` owns its strings (xio_auth_account_clear). On failure `out` is
 * left cleared.
 * Errors: XIO_EPARSE (names the offending key, never its value; e.g. an AccountKey
 * that is not base64, a pair without '=', no AccountName and no BlobEndpoint, neither
 * a key nor a SAS), XIO_ENOMEM.
 */
xio_err xio_auth_connstr_parse(const char *text, xio_auth_account *out, xio_error *err);

/** Frees and wipes everything `a` owns and zeroes it. `a` may be NULL. */
void xio_auth_account_clear(xio_auth_account *a);

/** 1 when `url` lies under the account's blob endpoint: it starts with
 *  `a->blob_endpoint`, followed by '/', '?' or nothing. 0 otherwise, and when `a`
 *  has no endpoint or an argument is NULL. */
int xio_auth_account_serves(const xio_auth_account *a, const char *url);

/* ------------------------------------------------------------ redaction ---- */

/**
 * The log-safe form of any URL or connection string: the value of `sig` and of every
 * other secret query parameter or connection-string field (AccountKey,
 * SharedAccessSignature's sig) is replaced by "REDACTED", and user:password@ is dropped.
 * Returns malloc'd text, or NULL on out-of-memory. `text` may be NULL (returns NULL).
 */
char *xio_auth_redact(const char *text);

/**
 * Overwrites in place, with '*', every secret value that xio_auth_redact would
 * replace in `text` (the value of sig, AccountKey, SharedAccessSignature's sig, the
 * signature of a SharedKey value; user:password of user:password@ after "://", its '@'
 * kept), leaving the length and everything else as it was. For a program that wipes
 * the secrets from its own command line (argv, as /proc/PID/cmdline and ps show it)
 * once it has copied what it needs, as curl does with its -u argument. Returns how
 * many bytes were overwritten (0: no secret found). `text` may be NULL (returns 0).
 */
size_t xio_auth_scrub(char *text);

/* ----------------------------------------------------------- Shared Key ---- */

/** One HTTP header, borrowed. */
typedef struct xio_auth_header {
  const char *name;
  const char *value;
} xio_auth_header;

/** What a Shared Key signature covers: the request exactly as it will be sent. */
typedef struct xio_auth_request {
  const char *method; /* "GET", "PUT", "HEAD", "DELETE" */
  const char *path;   /* encoded URI path, starting with '/' (emulator: /devstoreaccount1/...) */
  const char *query;  /* raw encoded query without '?', or NULL */
  const xio_auth_header *headers; /* every header sent, in any order, any case */
  size_t nheaders;
} xio_auth_request;

/**
 * The Shared Key string to sign for `req` on `account` (the blob service's
 * "Authorize with Shared Key" rules): the verb and eleven standard headers, one per
 * line (Content-Length empty when 0, Date empty since x-ms-date is sent), then every
 * x-ms-* header lowercased and sorted as "name:value\n" with inner whitespace folded,
 * then the canonicalized resource: /ACCOUNT + encoded path, then "\nname:value" per
 * query parameter (name lowercased, value decoded, sorted; repeats joined by ',').
 * On the emulator the path already starts with /ACCOUNT, so it appears twice.
 * Returns malloc'd text via `out`. Errors: XIO_EINVAL (missing method/path, malformed
 * query escape), XIO_ENOMEM.
 */
xio_err xio_auth_sharedkey_string_to_sign(const char *account, const xio_auth_request *req,
                                          char **out, xio_error *err);

/**
 * Computes the Authorization header value "SharedKey ACCOUNT:SIGNATURE" for `req`.
 * The caller must already have put x-ms-date and x-ms-version in req->headers.
 * `out` receives malloc'd text (a secret-derived value: never log it).
 * Errors: those of xio_auth_sharedkey_string_to_sign, XIO_EINVAL (empty key).
 */
xio_err xio_auth_sharedkey_authorization(const char *account, const unsigned char *key,
                                         size_t key_len, const xio_auth_request *req, char **out,
                                         xio_error *err);

/* ------------------------------------------------------------------ SAS ---- */

/** Permission letters as a bit set: bit ('x' - 'a') for letter x. */
#define XIO_AUTH_PERM(letter) (1u << ((letter) - 'a'))

/** A parsed SAS token. Every string member is decoded and NUL-terminated, "" if absent. */
typedef struct xio_auth_sas {
  int is_account; /* 1 for an account SAS (has ss/srt), 0 for a service SAS */
  char sv[16];    /* signed version */
  char sr[8];     /* service SAS resource: b, c, bs, bv */
  char ss[8];     /* account SAS services */
  char srt[8];    /* account SAS resource types */
  char sp[32];    /* permissions, as written */
  char spr[16];   /* protocols */
  char sip[64];   /* IP range */
  time_t start;   /* st, or 0 */
  time_t expiry;  /* se, or 0 */
  uint32_t perms; /* bit set of sp's letters (XIO_AUTH_PERM) */
  int has_sig;    /* sig present (its value is never kept here) */
} xio_auth_sas;

/**
 * Parses a SAS token (with or without a leading '?'; other query parameters such as
 * snapshot are ignored). Errors: XIO_EPARSE (no sig, no sv, bad date, unknown
 * permission letter; the message names the field), XIO_ENOMEM.
 */
xio_err xio_auth_sas_parse(const char *token, xio_auth_sas *out, xio_error *err);

/**
 * Tells before any request is sent whether `sas` can do an operation needing every
 * permission in `need` (XIO_AUTH_PERM bits; for account SAS also service 'b') at `now`.
 * A 5-minute grace is allowed on the start time for clock skew, none on expiry.
 * Errors: XIO_EEXPIRED (message gives the expiry time), XIO_ENOTYET (the start time),
 * XIO_EPERM (names the missing letters), XIO_EINVAL.
 */
xio_err xio_auth_sas_check(const xio_auth_sas *sas, uint32_t need, time_t now, xio_error *err);

/** Options for generating a SAS. Start from xio_auth_sas_options_default(). */
typedef struct xio_auth_sas_options {
  const char *permissions; /* letters in any order; written in canonical order */
  time_t start;            /* 0: omitted */
  time_t expiry;           /* required */
  const char *protocol;    /* "https" or "https,http"; NULL: omitted */
  const char *ip;          /* NULL: omitted */
  const char *identifier;  /* stored access policy (si), service SAS only; NULL: none */
  const char *version;     /* sv; NULL: "2020-12-06" */
} xio_auth_sas_options;

/** Default options: no permissions, no start, no expiry, all optional fields NULL. */
xio_auth_sas_options xio_auth_sas_options_default(void);

/**
 * Generates a service SAS for a blob (`blob` non-NULL, sr=b) or a container
 * (`blob` NULL, sr=c) signed with the account key. `*out` is the malloc'd token
 * without a leading '?', every value URL-encoded. Errors: XIO_EINVAL (no expiry, no
 * permissions, a letter not valid for the resource, version before 2020-12-06),
 * XIO_ENOMEM.
 */
xio_err xio_auth_sas_generate_service(const char *account, const unsigned char *key, size_t key_len,
                                      const char *container, const char *blob,
                                      const xio_auth_sas_options *opts, char **out, xio_error *err);

/**
 * Generates an account SAS for `services` (e.g. "b") and `resource_types` (subset of
 * "sco"). Same output and errors as xio_auth_sas_generate_service.
 */
xio_err xio_auth_sas_generate_account(const char *account, const unsigned char *key, size_t key_len,
                                      const char *services, const char *resource_types,
                                      const xio_auth_sas_options *opts, char **out, xio_error *err);

/* ------------------------------------------------------------ credentials ---- */

typedef enum xio_auth_cred_kind {
  XIO_AUTH_CRED_NONE = 0,   /* anonymous (public container) */
  XIO_AUTH_CRED_SHARED_KEY, /* account name + key */
  XIO_AUTH_CRED_SAS,        /* SAS token */
  XIO_AUTH_CRED_BEARER,     /* an Entra ID access token, sent as "Authorization: Bearer" */
  XIO_AUTH_CRED_ENTRA       /* get Entra ID tokens with the method `entra` names */
} xio_auth_cred_kind;

/** How Entra ID tokens are obtained (see <xio/entra_sources.h>). */
typedef enum xio_auth_entra_method {
  XIO_AUTH_ENTRA_DEFAULT = 0,      /* the chain: callback, managed identity endpoint, Azure
                                      CLI, instance metadata service (on Azure VMs only) */
  XIO_AUTH_ENTRA_CALLBACK,         /* the token callback set through the API */
  XIO_AUTH_ENTRA_MANAGED_IDENTITY, /* IDENTITY_ENDPOINT, else the instance metadata service */
  XIO_AUTH_ENTRA_AZURE_CLI,        /* az account get-access-token */
  XIO_AUTH_ENTRA_IMDS              /* the instance metadata service only */
} xio_auth_entra_method;

/** A credential for one account or container. Initialize it with designated
 *  initializers or memset: members may be added at the end. */
typedef struct xio_auth_cred {
  xio_auth_cred_kind kind;
  char *account;      /* SHARED_KEY: account name */
  unsigned char *key; /* SHARED_KEY: decoded key */
  size_t key_len;
  char *sas;                   /* SAS: token without '?' */
  char *token;                 /* BEARER: the access token (a secret) */
  xio_auth_entra_method entra; /* ENTRA: the method */
  char *client_id;             /* ENTRA: a user-assigned managed identity, or NULL */
} xio_auth_cred;

/** Name of an Entra ID method as the credential file writes it: "default",
 *  "callback", "managed_identity", "azure_cli", "imds". */
const char *xio_auth_entra_method_name(xio_auth_entra_method m);

/** The method named `name` (as above). Returns 0, or -1 for an unknown name. */
int xio_auth_entra_method_parse(const char *name, xio_auth_entra_method *out);

/** Deep copy of `src` into `dst`. Errors: XIO_ENOMEM. */
xio_err xio_auth_cred_copy(xio_auth_cred *dst, const xio_auth_cred *src);

/** Frees and wipes what `c` owns and zeroes it. `c` may be NULL. */
void xio_auth_cred_clear(xio_auth_cred *c);

/**
 * A credential store: credentials keyed by URL prefix (an account endpoint such as
 * "https://acct.blob.core.windows.net" or a container URL), like SQL Server's
 * CREATE CREDENTIAL named by container URL. Lookups pick the longest matching prefix
 * that ends at a path boundary. Safe for concurrent lookups once filled; adding is
 * not concurrent with lookups.
 */
typedef struct xio_auth_credstore xio_auth_credstore;

/** Creates an empty store. Returns NULL on out-of-memory. */
xio_auth_credstore *xio_auth_credstore_new(void);

/** Destroys `s` and wipes its secrets. `s` may be NULL. */
void xio_auth_credstore_free(xio_auth_credstore *s);

/** Adds (or replaces) the credential for `prefix` (trailing '/' ignored); copies
 *  both. Errors: XIO_EINVAL (prefix not an http(s) URL), XIO_ENOMEM. */
xio_err xio_auth_credstore_add(xio_auth_credstore *s, const char *prefix, const xio_auth_cred *cred,
                               xio_error *err);

/**
 * Loads a credential file's text: a JSON object mapping URL prefixes to either a SAS
 * token string, or an object {"sas": "..."} or {"account": "...", "key": "..."}
 * or {"connection_string": "..."} or {"entra": METHOD} (an Entra ID method, see
 * xio_auth_entra_method_name; with "managed_identity" an optional "client_id").
 * Errors: XIO_EPARSE (names the entry, never its secret), XIO_ENOMEM.
 */
xio_err xio_auth_credstore_load_json(xio_auth_credstore *s, const char *json, xio_error *err);

/** Removes the credential stored for exactly `prefix` (nothing when there is none).
 *  Errors: XIO_EINVAL (prefix not an http(s) URL), XIO_ENOMEM. */
xio_err xio_auth_credstore_remove(xio_auth_credstore *s, const char *prefix, xio_error *err);

/** Finds the credential for `url` (query ignored) and deep-copies it into `out`.
 *  Errors: XIO_ENOCRED (none matches), XIO_ENOMEM. */
xio_err xio_auth_credstore_lookup(const xio_auth_credstore *s, const char *url, xio_auth_cred *out,
                                  xio_error *err);

/** 1 when `s` holds a secret: a SAS, an account key or a bearer token (an entry
 *  that only names an Entra ID method is none). 0 otherwise, and for NULL. */
int xio_auth_credstore_has_secret(const xio_auth_credstore *s);

#ifdef __cplusplus
}
#endif
#endif /* XIO_AUTH_H */
