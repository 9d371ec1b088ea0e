/*
 * api_table.c - bad input handed to the library directly, one row per call: the
 * function (a driver below), the text it gets, the xio_err it must return and a
 * phrase of the message in the detail record. Connection strings, SAS tokens and
 * their checks, credential files, URLs and container names, sizes, dates, base64
 * and percent escapes, blob targets, context options, and file calls with ranges
 * past the end, past 2^64 or not aligned. The file calls go to the fixture blob and
 * local file, which must read back unchanged after every row.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <xio/auth.h>
#include <xio/blob.h>
#include <xio/xio.h>
#include <xio/url_int.h>

#include "badinput.h"
#include "clirun.h"
#include "test.h"
#include "util.h"

typedef bi_api_row api_row;

/* ------------------------------------------------------- auth drivers ---- */

static xio_err connstr(const char *in, xio_error *e) {
  xio_auth_account a;
  memset(&a, 0, sizeof a);
  xio_err rc = xio_auth_connstr_parse(in, &a, e);
  xio_auth_account_clear(&a);
  return rc;
}

static xio_err sas_parse(const char *in, xio_error *e) {
  xio_auth_sas s;
  return xio_auth_sas_parse(in, &s, e);
}

/* "LETTERS TOKEN": parses TOKEN and checks it for LETTERS now. */
static xio_err sas_check(const char *in, xio_error *e) {
  char letters[16];
  const char *sp = strchr(in, ' ');
  snprintf(letters, sizeof letters, "%.*s", (int)(sp - in), in);
  xio_auth_sas s;
  xio_err rc = xio_auth_sas_parse(sp + 1, &s, e);
  if (rc != XIO_OK) return rc;
  uint32_t need = 0;
  for (const char *p = letters; *p; p++)
    need |= XIO_AUTH_PERM(*p);
  return xio_auth_sas_check(&s, need, time(NULL), e);
}

static xio_err cred_json(const char *in, xio_error *e) {
  xio_auth_credstore *s = xio_auth_credstore_new();
  if (!s) FAIL("out of memory");
  xio_err rc = xio_auth_credstore_load_json(s, in, e);
  xio_auth_credstore_free(s);
  return rc;
}

static xio_err cred_prefix(const char *in, xio_error *e) {
  xio_auth_credstore *s = xio_auth_credstore_new();
  xio_auth_cred c = {XIO_AUTH_CRED_SAS, NULL, NULL, 0, "sv=2022-11-02&sig=" BI_SECRET};
  xio_err rc = xio_auth_credstore_add(s, in, &c, e);
  xio_auth_credstore_free(s);
  return rc;
}

/* Looks `in` up in a store that only knows another account. */
static xio_err cred_lookup(const char *in, xio_error *e) {
  xio_auth_credstore *s = xio_auth_credstore_new();
  xio_auth_cred c = {XIO_AUTH_CRED_SAS, NULL, NULL, 0, "sv=2022-11-02&sig=" BI_SECRET};
  xio_err rc = xio_auth_credstore_add(s, "https://other.blob.core.windows.net", &c, e);
  xio_auth_cred out;
  memset(&out, 0, sizeof out);
  if (rc == XIO_OK) rc = xio_auth_credstore_lookup(s, in, &out, e);
  xio_auth_cred_clear(&out);
  xio_auth_credstore_free(s);
  return rc;
}

static xio_err url(const char *in, xio_error *e) {
  xio_auth_url u;
  memset(&u, 0, sizeof u);
  xio_err rc = xio_auth_url_parse(in, &u, e);
  xio_auth_url_clear(&u);
  return rc;
}

static xio_err container(const char *in, xio_error *e) {
  return xio_auth_check_container_name(in, e);
}

static xio_err iso8601(const char *in, xio_error *e) {
  time_t t;
  return xio_auth_parse_iso8601(in, &t, e);
}

static xio_err base64(const char *in, xio_error *e) {
  unsigned char *out = NULL;
  size_t n = 0;
  xio_err rc = xio_auth_base64_decode(in, &out, &n, e);
  xio_auth_secret_free(out, n);
  return rc;
}

static xio_err pct(const char *in, xio_error *e) {
  char *out = NULL;
  xio_err rc = xio_auth_pct_decode(in, strlen(in), &out, e);
  free(out);
  return rc;
}

static xio_err sharedkey(const char *in, xio_error *e) {
  xio_auth_header h[] = {{"x-ms-date", "Tue, 01 Dec 2026 08:00:00 GMT"},
                         {"x-ms-version", XIO_AUTH_API_VERSION}};
  xio_auth_request r = {"GET", "/devstoreaccount1/c/b", in, h, 2};
  char *out = NULL;
  xio_err rc = xio_auth_sharedkey_authorization("devstoreaccount1", (const unsigned char *)"k", 1,
                                                &r, &out, e);
  free(out);
  return rc;
}

/* ---------------------------------------------------- xio and blobio ---- */

static xio_err size(const char *in, xio_error *e) {
  uint64_t v;
  return xio_size_parse(in, &v, e);
}

static xio_err target(const char *in, xio_error *e) {
  xio_blob_target *t = NULL;
  xio_err rc = xio_blob_target_new(in, NULL, &t, e);
  xio_blob_target_free(t);
  return rc;
}

static xio_err open_ro(const char *in, xio_error *e) {
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_READONLY;
  xio_file *f = NULL;
  xio_err rc = xio_file_open(bi_ctx(), in, &o, &f, e);
  xio_file_close(f, NULL);
  return rc;
}

/* "FLAGS TARGET": opens with the flags (hex) and kind data. */
static xio_err open_flags(const char *in, xio_error *e) {
  char *end;
  xio_open_options o = xio_open_options_default();
  o.flags = (unsigned)strtoul(in, &end, 16);
  xio_file *f = NULL;
  xio_err rc = xio_file_open(bi_ctx(), end + 1, &o, &f, e);
  xio_file_close(f, NULL);
  return rc;
}

/* "SIZE TARGET": creates TARGET of SIZE bytes. */
static xio_err create_sized(const char *in, xio_error *e) {
  char *end;
  xio_open_options o = xio_open_options_default();
  o.flags = XIO_OPEN_CREATE_ONLY;
  o.size = strtoull(in, &end, 10);
  xio_file *f = NULL;
  xio_err rc = xio_file_open(bi_ctx(), end + 1, &o, &f, e);
  xio_file_close(f, NULL);
  return rc;
}

/* "OP A B TARGET": one call on TARGET opened for writing, OP one of zero (offset,
 * length), write (offset, length of a zero buffer), grow (size, init), zeroinit
 * (offset, length, init as a number). */
static xio_err file_op(const char *in, xio_error *e) {
  char op[16], tgt[1024];
  unsigned long long a, b;
  if (sscanf(in, "%15s %llu %llu %1023s", op, &a, &b, tgt) != 4) FAIL("bad row: %s", in);
  xio_open_options o = xio_open_options_default();
  xio_file *f = NULL;
  xio_err rc = xio_file_open(bi_ctx(), tgt, &o, &f, e);
  if (rc != XIO_OK) FAIL("cannot open %s", tgt);
  static char zeros[8192];
  if (strcmp(op, "zero") == 0)
    rc = xio_file_zero(f, a, b, XIO_INIT_DEFAULT, e);
  else if (strcmp(op, "zeroinit") == 0)
    rc = xio_file_zero(f, 0, a, (xio_init)b, e);
  else if (strcmp(op, "write") == 0)
    rc = xio_file_write(f, a, zeros, b, e);
  else if (strcmp(op, "grow") == 0)
    rc = xio_file_set_size(f, a, (xio_init)b, e);
  else
    FAIL("unknown op %s", op);
  xio_file_close(f, NULL);
  return rc;
}

/* A context with one option set from `in` ("NAME VALUE"). */
static xio_err ctx_option(const char *in, xio_error *e) {
  char name[32];
  const char *v = strchr(in, ' ') + 1;
  snprintf(name, sizeof name, "%.*s", (int)(v - 1 - in), in);
  xio_ctx_options o = xio_ctx_options_default();
  o.use_environment = 0;
  long n = strtol(v, NULL, 10);
  if (strcmp(name, "connection_string") == 0)
    o.connection_string = v;
  else if (strcmp(name, "credential_file") == 0)
    o.credential_file = v;
  else if (strcmp(name, "ca_file") == 0)
    o.ca_file = v;
  else if (strcmp(name, "trace_path") == 0)
    o.trace_path = v;
  else if (strcmp(name, "lease_duration_s") == 0)
    o.lease_duration_s = (int)n;
  else if (strcmp(name, "lease_renew_s") == 0)
    o.lease_renew_s = (int)n;
  else if (strcmp(name, "local_threads") == 0)
    o.local_threads = (int)n;
  else if (strcmp(name, "max_in_flight") == 0)
    o.max_in_flight = (int)n;
  else
    FAIL("unknown option %s", name);
  xio_ctx *c = NULL;
  xio_err rc = xio_ctx_new(&o, &c, e);
  xio_ctx_free(c);
  return rc;
}

/* A credential file holding `in`, given to a new context. */
static xio_err cred_file(const char *in, xio_error *e) {
  char path[256];
  static int n;
  snprintf(path, sizeof path, "%s/api-cred%d.json", clirun_dir(), n++);
  clirun_write_private_file(path, in, strlen(in));
  xio_ctx_options o = xio_ctx_options_default();
  o.use_environment = 0;
  o.credential_file = path;
  xio_ctx *c = NULL;
  xio_err rc = xio_ctx_new(&o, &c, e);
  xio_ctx_free(c);
  return rc;
}

/* ----------------------------------------------------------- tables ---- */

#define FUTURE "se=2100-01-01T00:00:00Z"
#define SIG    "&sig=" BI_SECRET

static const api_row auth_rows[] = {
    {connstr, "", XIO_EPARSE, "neither AccountName nor BlobEndpoint"},
    {connstr, "garbage", XIO_EPARSE, "segment 1 is not Key=Value"},
    {connstr, ";;;", XIO_EPARSE, "neither AccountName nor BlobEndpoint"},
    {connstr, "AccountName=a;garbage", XIO_EPARSE, "segment 2 is not Key=Value"},
    {connstr, "=x", XIO_EPARSE, "segment 1 has an empty key"},
    {connstr, "AccountName=devstoreaccount1", XIO_EPARSE,
     "neither AccountKey nor SharedAccessSignature"},
    {connstr, "AccountName=a;AccountKey=" BI_SECRET "!!", XIO_EPARSE, "AccountKey is not base64"},
    {connstr, "AccountName=a;AccountKey=", XIO_EPARSE, "AccountKey is empty"},
    {connstr, "AccountKey=@K", XIO_EPARSE, "neither AccountName nor BlobEndpoint"},
    {connstr, "AccountName=a;AccountKey=@K;BlobEndpoint=notaurl", XIO_EPARSE,
     "BlobEndpoint must be an http(s) URL"},
    {connstr, "AccountName=a;AccountKey=@K;BlobEndpoint=ftp://x", XIO_EPARSE,
     "BlobEndpoint must be an http(s) URL"},
    {connstr, "UseDevelopmentStorage=yes", XIO_EPARSE, "UseDevelopmentStorage must be true"},
    {connstr, "AccountName=a;AccountKey=@K;DefaultEndpointsProtocol=ftp", XIO_EPARSE,
     "DefaultEndpointsProtocol must be http or https"},
    {connstr, "AccountName=a;AccountKey=@K;EndpointSuffix=", XIO_EPARSE, "EndpointSuffix"},
    {connstr, "AccountName=a;SharedAccessSignature=", XIO_EPARSE, "SharedAccessSignature"},
    {sas_parse, "", XIO_EPARSE, "no sig"},
    {sas_parse, "?", XIO_EPARSE, "no sig"},
    {sas_parse, "sv=2022-11-02&sp=r&" FUTURE, XIO_EPARSE, "SAS token has no sig"},
    {sas_parse, "sp=r&" FUTURE SIG, XIO_EPARSE, "SAS token has no sv"},
    {sas_parse, "sv=2022-11-02&sp=r&se=tomorrow" SIG, XIO_EPARSE, "SAS se is not an ISO 8601 time"},
    {sas_parse, "sv=2022-11-02&sp=r&st=now&" FUTURE SIG, XIO_EPARSE,
     "SAS st is not an ISO 8601 time"},
    {sas_parse, "sv=2022-11-02&sp=rwq&" FUTURE SIG, XIO_EPARSE, "unknown permission letter 'q'"},
    {sas_parse, "sv=2022-11-02&sp=R&" FUTURE SIG, XIO_EPARSE, "unknown permission letter 'R'"},
    {sas_parse, "sv=2022-11-02&sp=r&" FUTURE "&sig=", XIO_EPARSE, "SAS sig is empty"},
    {sas_parse, "sv=2022-11-02&sp=r&se=2100-02-30T00:00:00Z" SIG, XIO_EPARSE, "se"},
    {sas_parse, "sv=2022-11-02&sp=r&se=2100-01-01T25:00:00Z" SIG, XIO_EPARSE, "se"},
    {sas_parse, "sv=2022-11-02&sp=r&se=%zz" SIG, XIO_EPARSE, "se"},
    {sas_parse, "sv=2022-11-02&sp=%72&se=99999-01-01T00:00:00Z" SIG, XIO_EPARSE, "se"},
    {sas_check, "r sv=2022-11-02&sp=r&se=2000-01-01T00:00:00Z" SIG, XIO_EEXPIRED,
     "SAS expired at 2000-01-01T00:00:00Z"},
    {sas_check, "r sv=2022-11-02&sp=r&st=2100-01-01T00:00:00Z&se=2101-01-01T00:00:00Z" SIG,
     XIO_ENOTYET, "SAS is valid from 2100-01-01T00:00:00Z"},
    {sas_check, "rw sv=2022-11-02&sp=r&" FUTURE SIG, XIO_EPERM, "lacks permission 'w'"},
    {sas_check, "d sv=2022-11-02&sp=rcw&" FUTURE SIG, XIO_EPERM, "lacks permission 'd'"},
    {sas_check, "r sv=2022-11-02&ss=q&srt=o&sp=r&" FUTURE SIG, XIO_EPERM, "b"},
    {cred_json, "", XIO_EPARSE, "not valid JSON"},
    {cred_json, "null", XIO_EPARSE, "must hold a JSON object"},
    {cred_json, "\"sv=1" SIG "\"", XIO_EPARSE, "must hold a JSON object"},
    {cred_json, "{\"https://a.blob.core.windows.net\": null}", XIO_EPARSE,
     "must be a string or object"},
    {cred_json, "{\"https://a.blob.core.windows.net\": [1]}", XIO_EPARSE,
     "must be a string or object"},
    {cred_json, "{\"https://a.blob.core.windows.net\": {\"key\": \"@K\"}}", XIO_EPARSE,
     "expected a SAS string or an object"},
    {cred_json, "{\"https://a.blob.core.windows.net\": {\"account\": 5, \"key\": \"@K\"}}",
     XIO_EPARSE, "expected a SAS string or an object"},
    {cred_json, "{\"https://a.blob.core.windows.net\": {\"account\": \"a\", \"key\": \"\"}}",
     XIO_EPARSE, "key"},
    {cred_json, "{\"ftp://a/b\": \"sv=2022-11-02" SIG "\"}", XIO_EPARSE,
     "name is not an http(s) URL prefix"},
    {cred_json, "{\"\": \"sv=2022-11-02" SIG "\"}", XIO_EPARSE,
     "name is not an http(s) URL prefix"},
    {cred_json, "{\"https://a.blob.core.windows.net\": \"sp=r" SIG "\"}", XIO_EPARSE,
     "bad SAS: SAS token has no sv"},
    {cred_json, "{\"https://a.blob.core.windows.net\": {\"connection_string\": \"x=\"}}",
     XIO_EPARSE, "connection string"},
    {cred_json, "{\"https://a.blob.core.windows.net\": {\"connection_string\": 1}}", XIO_EPARSE,
     "expected a SAS string or an object"},
    {cred_json, "{\"https://a.blob.core.windows.net\": \"x\"", XIO_EPARSE, "not valid JSON"},
    {cred_json, "{\"https://a.blob.core.windows.net\" \"x\"}", XIO_EPARSE, "not valid JSON"},
    {cred_prefix, "ftp://a/b", XIO_EINVAL, "http"},
    {cred_prefix, "", XIO_EINVAL, "http"},
    {cred_prefix, "a.blob.core.windows.net", XIO_EINVAL, "http"},
    {cred_lookup, "https://acct.blob.core.windows.net/c/b", XIO_ENOCRED, "no credential"},
    {cred_lookup, "https://other.blob.core.windows.netx/c/b", XIO_ENOCRED, "no credential"},
    {url, "", XIO_EPARSE, "scheme"},
    {url, "ftp://a.blob.core.windows.net/c/b", XIO_EPARSE, "scheme"},
    {url, "https://", XIO_EPARSE, "URL host is missing"},
    {url, "https:///c/b", XIO_EPARSE, "URL host is missing"},
    {url, "http://127.0.0.1", XIO_EPARSE, "path-style URL has no account in its path"},
    {url, "http://127.0.0.1:65536/a/ccc/b", XIO_EPARSE, "URL port is not a number in 1..65535"},
    {url, "http://127.0.0.1:-1/a/ccc/b", XIO_EPARSE, "URL port is not a number in 1..65535"},
    {url, "http://127.0.0.1:/a/ccc/b", XIO_EPARSE, "port"},
    {url, "http://u:" BI_SECRET "@127.0.0.1:1/a/ccc/b", XIO_EPARSE,
     "URL must not carry user information"},
    {url, "https://a.blob.core.windows.net/UPPER/b", XIO_EPARSE, "container name may hold only"},
    {url, "https://a.blob.core.windows.net/c/b", XIO_EPARSE, "3-63 characters long (got 1)"},
    {url, "https://a.blob.core.windows.net/ccc/@L", XIO_EPARSE, "blob name is longer than 1024"},
    {url, "https://a.blob.core.windows.net/ccc/b%2", XIO_EPARSE, "malformed % escape"},
    {url, "https://a.blob.core.windows.net/ccc/b%00", XIO_EPARSE, "%"},
    {url, "http://[::1/a/ccc/b", XIO_EPARSE, "host"},
    {container, "", XIO_EPARSE, "3-63 characters long (got 0)"},
    {container, "ab", XIO_EPARSE, "3-63 characters long (got 2)"},
    {container, "a-b-", XIO_EPARSE, "must start and end with a letter or digit"},
    {container, "a--b", XIO_EPARSE, "consecutive dashes"},
    {container, "abc.def", XIO_EPARSE, "may hold only lowercase letters"},
    {container, "ab\xc3\xa9", XIO_EPARSE, "may hold only lowercase letters"},
    {iso8601, "", XIO_EPARSE, "ISO 8601"},
    {iso8601, "2024", XIO_EPARSE, "ISO 8601"},
    {iso8601, "2024-13-01", XIO_EPARSE, "ISO 8601"},
    {iso8601, "2024-01-01T00:00:00Q", XIO_EPARSE, "ISO 8601"},
    {iso8601, "2024-01-01 00:00:00Z", XIO_EPARSE, "ISO 8601"},
    {iso8601, "99999999999-01-01T00:00:00Z", XIO_EPARSE, "ISO 8601"},
    {base64, "abc", XIO_EPARSE, "base64"},
    {base64, "a===", XIO_EPARSE, "base64"},
    {base64, "ab\ncd==", XIO_EPARSE, "base64"},
    {base64, "!!!!", XIO_EPARSE, "base64"},
    {pct, "%", XIO_EPARSE, "offset 0"},
    {pct, "ab%g0", XIO_EPARSE, "offset 2"},
    {pct, "%00", XIO_EPARSE, "%00"},
    {sharedkey, "comp=%zz", XIO_EINVAL, "escape"},
};

static const api_row xio_rows[] = {
    {size, "", XIO_EINVAL, "not a number"},
    {size, "K", XIO_EINVAL, "not a number"},
    {size, "-4K", XIO_EINVAL, "cannot be negative"},
    {size, "1.5G", XIO_EINVAL, "fractions are not taken"},
    {size, "12 ", XIO_EINVAL, "unknown unit"},
    {size, " 12", XIO_EINVAL, "not a number"},
    {size, "4KiBs", XIO_EINVAL, "unknown unit"},
    {size, "4X", XIO_EINVAL, "unknown unit (use K, M, G or T)"},
    {size, "18446744073709551616", XIO_EINVAL, "too large"},
    {size, "16777216T", XIO_EINVAL, "too large"},
    {size, "18014398509481984K", XIO_EINVAL, "too large"},
    {target, "@C/data.mdf?sv=2022-11-02&sp=r&se=soon" SIG, XIO_EPARSE,
     "SAS se is not an ISO 8601 time"},
    {target, "@C/data.mdf?sp=r&" FUTURE SIG, XIO_EPARSE, "SAS token has no sv"},
    {target, "@C/data.mdf?sv=2022-11-02&sp=rx!&" FUTURE SIG, XIO_EPARSE,
     "unknown permission letter"},
    {target, "@C/data.mdf?snapshot=x&sig=", XIO_EPARSE, "SAS sig is empty"},
    {target, "@A/x_y/b", XIO_EPARSE, "container name may hold only"},
    {open_ro, "ftp://x/y/z", XIO_EUNSUPPORTED, "ftp"},
    {open_ro, "", XIO_EINVAL, ""},
    {open_ro, "@C/nosuch.mdf", XIO_ENOTFOUND, ""},
    {open_ro, "@D/nosuch.img", XIO_ENOTFOUND, "No such file or directory"},
    {open_ro, "@D", XIO_EINVAL, "not a regular file"},
    {open_ro, "file://elsewhere/tmp/x", XIO_EPARSE, "absolute path on this host"},
    {open_ro, "file:///tmp/x%2", XIO_EPARSE, "bad %-escape"},
    {open_flags, "6 @C/data.mdf", XIO_EINVAL, "read-only opens cannot create or lease"},
    {open_flags, "10 @C/data.mdf", XIO_EINVAL, "break-lease needs a leased open (XIO_OPEN_LEASE)"},
    {open_flags, "100 @C/data.mdf", XIO_EINVAL, "flag"},
    {open_flags, "80 @C/data.mdf", XIO_EINVAL, "pinned open reads one version"},
    {open_flags, "2 @C/data.mdf", XIO_EEXIST, ""},
    {open_flags, "2 @D/data.img", XIO_EEXIST, "exists"},
    {create_sized, "9895604649984 @C/new.mdf", XIO_ELIMIT, "8 TiB"},
    {create_sized, "18446744073709551615 @C/new.mdf", XIO_ELIMIT, "8 TiB"},
    {file_op, "zero 512 18446744073709551615 @C/data.mdf", XIO_ERANGE,
     "zero range at offset 512 of 18446744073709551615 bytes overflows"},
    {file_op, "zero 512 18446744073709551615 @D/data.img", XIO_ERANGE, "overflows"},
    {file_op, "zero 18446744073709551104 1024 @C/log.ldf", XIO_ERANGE, "overflows"},
    {file_op, "zero 65536 512 @C/data.mdf", XIO_ERANGE, "ends past the file's 65536 bytes"},
    {file_op, "zero 0 65537 @D/data.img", XIO_ERANGE, "ends past the file's 65536 bytes"},
    {file_op, "zero 100 512 @C/data.mdf", XIO_EALIGN, "not aligned to 512 bytes"},
    {file_op, "zeroinit 512 1 @C/data.mdf", XIO_EINVAL, "zeroing takes init clear or zero"},
    {file_op, "zeroinit 512 9 @D/data.img", XIO_EINVAL, "zeroing takes init clear or zero"},
    {file_op, "write 18446744073709551104 1024 @D/data.img", XIO_ERANGE,
     "write at offset 18446744073709551104 of 1024 bytes overflows"},
    {file_op, "write 18446744073709551104 1024 @C/data.mdf", XIO_ERANGE, "overflows"},
    {file_op, "write 100 512 @C/data.mdf", XIO_EALIGN, "not aligned"},
    {file_op, "write 9895604649984 512 @C/data.mdf", XIO_ELIMIT, "8 TiB"},
    {file_op, "write 9895604649984 512 @D/data.img", XIO_ELIMIT,
     "growing to 9895604650496 bytes exceeds the 8 TiB limit of a file"},
    {file_op, "grow 9895604649984 0 @D/data.img", XIO_ELIMIT, "exceeds the 8 TiB limit of a file"},
    {file_op, "grow 9895604649984 0 @C/data.mdf", XIO_ELIMIT, "8 TiB"},
    {file_op, "grow 18446744073709551615 3 @C/log.ldf", XIO_ELIMIT, "8 TiB"},
    {file_op, "grow 131072 7 @C/data.mdf", XIO_EINVAL, "init"},
    {ctx_option, "connection_string garbage", XIO_EPARSE, "segment 1 is not Key=Value"},
    {ctx_option, "connection_string AccountName=a;AccountKey=" BI_SECRET "*", XIO_EPARSE,
     "AccountKey is not base64"},
    {ctx_option, "credential_file @D/none.json", XIO_EIO, "cannot open the credential file"},
    {ctx_option, "credential_file @D", XIO_EIO, "cannot read the credential file"},
    {ctx_option, "ca_file @D/none.pem", XIO_EIO, "cannot open the CA file"},
    {ctx_option, "ca_file @D/src.img", XIO_EPARSE, "holds no CA certificate (PEM)"},
    {ctx_option, "trace_path /nonexistent/dir/t", XIO_EIO, "cannot open the trace file"},
    {ctx_option, "lease_duration_s 14", XIO_EINVAL, "lease_duration_s 14 outside 15..60"},
    {ctx_option, "lease_duration_s 61", XIO_EINVAL, "lease_duration_s 61 outside 15..60"},
    {ctx_option, "lease_renew_s 60", XIO_EINVAL, "lease_renew_s 60 must be at least 1"},
    {ctx_option, "lease_renew_s 0", XIO_EINVAL, "lease_renew_s 0 must be at least 1"},
    {ctx_option, "local_threads 0", XIO_EINVAL, "local_threads 0 outside 1..256"},
    {ctx_option, "local_threads 100000", XIO_EINVAL, "local_threads 100000 outside 1..256"},
    {ctx_option, "max_in_flight -1", XIO_EINVAL, "max_in_flight"},
    {cred_file, "{\"@A\": 5}", XIO_EPARSE, "credential entry \"@A\": must be a string or object"},
    {cred_file, "{\"@A\": {\"account\": \"devstoreaccount1\", \"key\": \"#\"}}", XIO_EPARSE,
     "key is not base64"},
    {cred_file, "\xef\xbb\xbf{", XIO_EPARSE, "not valid JSON"},
};

/* ----------------------------------------------------------- runner ---- */

#define NROWS(t) (sizeof(t) / sizeof *(t))

size_t bi_api_rows(void) { return NROWS(auth_rows) + NROWS(xio_rows); }

TEST(api_credentials_and_urls) { bi_run_api_rows("api_auth", auth_rows, NROWS(auth_rows)); }
TEST(api_files_and_contexts) { bi_run_api_rows("api_xio", xio_rows, NROWS(xio_rows)); }
