/*
 * cli_table.c - bad input to the xio program, one row per run: the arguments, an
 * environment, a credential file's text or a fault the service answers with, and
 * the exit status (2 bad usage, 1 the operation failed) and phrase of the message it
 * must give. Each row runs the real program as a child (tests/samples/cli/clirun.c, which
 * also fails a run that prints the key or a signature); afterwards nothing may
 * have been written (see badinput.h).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "badinput.h"
#include "clirun.h"
#include "faultproxy.h"
#include "test.h"
#include "util.h"

#define MAX_ARGS 12

/* The row may create its target before failing, if it removes it again: only the
 * absence afterwards is checked, not the trace. */
#define MAY_CREATE 0x100

typedef struct cli_row {
  const char *args[MAX_ARGS]; /* after "xio" (placeholders expanded), NULL-ended */
  int exit;                   /* 1 or 2 */
  const char *phrase;         /* stderr must contain it */
  const char *env[3];         /* NAME=value extras */
  unsigned flags;             /* CLIRUN_NO_CREDS, MAY_CREATE */
  const char *absent;         /* must not exist afterwards */
  const char *credfile;       /* text of a file passed as --credentials FILE */
  faultproxy_fault fault;     /* answered instead of the service (targets at @X) */
} cli_row;

#define ARGS(...)                                                                                  \
  { __VA_ARGS__, NULL }
#define NEW         "@C/new.mdf"
#define SAS(q)      "@C/data.mdf?" q "&sig=" BI_SECRET "0"
#define FUTURE      "se=2100-01-01T00:00:00Z"
#define CS_NO_CREDS .flags = CLIRUN_NO_CREDS
#define CS(s)       .env = {"AZURE_STORAGE_CONNECTION_STRING=" s}, CS_NO_CREDS
#define STATUS(m, s, c)                                                                            \
  .fault = {.kind = FAULTPROXY_STATUS, .method = (m), .status = (s), .error_code = (c)}

/* ---------------------------------------------------------------- usage ---- */

static const cli_row usage_rows[] = {
    {ARGS(NULL), 2, "no command given"},
    {ARGS("frobnicate"), 2, "unknown command frobnicate"},
    {ARGS("--frob", "stat", "@C/data.mdf"), 2, "unknown option --frob"},
    {ARGS("help", "frob"), 2, "help: unknown command frob"},
    {ARGS("help", "stat", "zero"), 2, "help takes one command, not more: zero"},
    {ARGS("create", NEW), 2, "missing --size SIZE", .absent = NEW},
    {ARGS("create", NEW, "--size"), 2, "option --size needs a value", .absent = NEW},
    {ARGS("create", NEW, "--size", "1M", "extra"), 2, "unexpected argument 'extra'", .absent = NEW},
    {ARGS("create", NEW, "--size", "1M", "--kind", "foo"), 2, "bad --kind 'foo': use data or log",
     .absent = NEW},
    {ARGS("create", NEW, "--size", "1M", "--init", "foo"), 2,
     "bad --init 'foo': use none, zero or clear", .absent = NEW},
    {ARGS("create", NEW, "--size", "1M", "--bogus"), 2, "unknown option --bogus", .absent = NEW},
    {ARGS("create", "--size", "1M"), 2, "missing TARGET"},
    {ARGS("zero", "@C/data.mdf", "--offset", "512"), 2, "missing --length LEN"},
    {ARGS("zero", "@C/data.mdf", "--length", "512"), 2, "missing --offset OFF"},
    {ARGS("zero", "@C/data.mdf", "--offset", "0", "--length", "512", "--init", "none"), 2,
     "--init"},
    {ARGS("grow", "@C/data.mdf"), 2, "missing --size SIZE"},
    {ARGS("grow", "@C/data.mdf", "--size", "1K"), 2, "grow never shrinks"},
    {ARGS("stat"), 2, "missing TARGET"},
    {ARGS("stat", "@C/data.mdf", "b"), 2, "unexpected argument 'b'"},
    {ARGS("stat", ""), 2, "empty TARGET"},
    {ARGS("ranges"), 2, "missing TARGET"},
    {ARGS("rm"), 2, "missing TARGET"},
    {ARGS("put", "@D/src.img"), 2, "missing TARGET"},
    {ARGS("put", "@D/src.img", "@D/src.img"), 2, "LOCAL and TARGET are the same file"},
    {ARGS("put", "@D/src.img", NEW, "--kind", "journal"), 2, "bad --kind 'journal'", .absent = NEW},
    {ARGS("get", "@C/data.mdf"), 2, "missing LOCAL", .absent = "@D/data.mdf"},
    {ARGS("lease", "bogus", "@C/data.mdf"), 2, "unknown action 'bogus'"},
    {ARGS("lease", "renew", "@C/data.mdf"), 2, "renew needs --lease-id ID"},
    {ARGS("lease", "acquire", "@C/data.mdf", "--duration", "5"), 2, "--duration"},
    {ARGS("lease", "acquire", "@C/data.mdf", "--duration", "61"), 2, "--duration"},
    {ARGS("lease", "acquire", "@C/data.mdf", "--duration", "abc"), 2, "--duration"},
    {ARGS("sas", "@C/data.mdf"), 2, "missing --permissions"},
    {ARGS("sas", "@C/data.mdf", "--permissions", "rq", "--expiry", "1h"), 2,
     "permission 'q' is not valid for a blob SAS"},
    {ARGS("sas", "@C/data.mdf", "--permissions", "r", "--expiry", "xyz"), 2,
     "bad --expiry 'xyz': not a duration"},
    {ARGS("sas", "@C/data.mdf", "--permissions", "r", "--expiry", "-1h"), 2,
     "bad --expiry '-1h': not a duration"},
    {ARGS("sas", "@D/data.img", "--permissions", "r", "--expiry", "1h"), 2,
     "sas needs a blob or container URL"},
    {ARGS("snapshot", "bogus", "@C/data.mdf"), 2, "unexpected argument"},
    {ARGS("stat", "@C/data.mdf", "--trace"), 2, "option --trace needs a value"},
    {ARGS("--credentials"), 2, "option --credentials needs a value"},
    {ARGS("--cacert"), 2, "option --cacert needs a value"},
    {ARGS("ls"), 2, "missing CONTAINER_URL"},
    {ARGS("ls", "@D"), 2, "CONTAINER_URL must be a container or account URL"},
    {ARGS("ls", "@C", "--page-size", "0"), 2, "--page-size"},
    {ARGS("cp", "@C/data.mdf"), 2, "missing DST"},
    {ARGS("cp", "@D/src.img", "@D/other.img"), 2, "SRC or DST must be a blob URL",
     .absent = "@D/other.img"},
    {ARGS("snapshot", "delete", "@C/data.mdf"), 2, "name the snapshot"},
};

/* ------------------------------------------- sizes, offsets and lengths ---- */

static const cli_row value_rows[] = {
    {ARGS("create", NEW, "--size", ""), 2, "bad --size '': not a number", .absent = NEW},
    {ARGS("create", NEW, "--size", "abc"), 2, "bad --size 'abc': not a number", .absent = NEW},
    {ARGS("create", NEW, "--size", "-1"), 2, "a size cannot be negative", .absent = NEW},
    {ARGS("create", NEW, "--size", "1.5G"), 2, "fractions are not taken", .absent = NEW},
    {ARGS("create", NEW, "--size", "1Q"), 2, "unknown unit (use K, M, G or T)", .absent = NEW},
    {ARGS("create", NEW, "--size", "99999999999999999999"), 2, "too large", .absent = NEW},
    {ARGS("create", NEW, "--size", "18446744073709551616"), 2, "too large", .absent = NEW},
    {ARGS("create", NEW, "--size", "17179869184G"), 2, "too large", .absent = NEW},
    {ARGS("create", NEW, "--size", "1 G"), 2, "bad --size '1 G'", .absent = NEW},
    {ARGS("create", NEW, "--size", "0x10"), 2, "bad --size '0x10'", .absent = NEW},
    {ARGS("create", NEW, "--size", "1e9"), 2, "bad --size '1e9'", .absent = NEW},
    {ARGS("create", NEW, "--size", "+5"), 2, "bad --size '+5'", .absent = NEW},
    {ARGS("create", NEW, "--size", "5KK"), 2, "bad --size '5KK'", .absent = NEW},
    {ARGS("create", NEW, "--size", "9T"), 1, "exceeds 8 TiB", .absent = NEW},
    {ARGS("create", NEW, "--size", "16384G"), 1, "exceeds 8 TiB", .absent = NEW},
    {ARGS("zero", "@C/data.mdf", "--offset", "abc", "--length", "512"), 2,
     "bad --offset 'abc': not a number"},
    {ARGS("zero", "@C/data.mdf", "--offset", "0", "--length", "-5"), 2,
     "a size cannot be negative"},
    {ARGS("zero", "@C/data.mdf", "--offset", "1.5K", "--length", "512"), 2, "bad --offset '1.5K'"},
    {ARGS("zero", "@C/data.mdf", "--offset", "100", "--length", "512"), 1,
     "not aligned to 512 bytes"},
    {ARGS("zero", "@C/data.mdf", "--offset", "512", "--length", "100"), 1,
     "not aligned to 512 bytes"},
    {ARGS("zero", "@C/data.mdf", "--offset", "64K", "--length", "512"), 1,
     "ends past the file's 65536 bytes"},
    {ARGS("zero", "@C/data.mdf", "--offset", "512", "--length", "18446744073709551615"), 1,
     "zero range at offset 512 of 18446744073709551615 bytes overflows"},
    {ARGS("zero", "@C/log.ldf", "--offset", "512", "--length", "18446744073709551615"), 1,
     "overflows: it would end past 2^64 - 1"},
    {ARGS("zero", "@C/data.mdf", "--offset", "18446744073709551615", "--length", "512"), 1,
     "overflows"},
    {ARGS("zero", "@C/data.mdf", "--offset", "9T", "--length", "512"), 1,
     "ends past the file's 65536 bytes"},
    {ARGS("zero", "@C/log.ldf", "--offset", "0", "--length", "1T"), 1,
     "ends past the file's 65536 bytes"},
    {ARGS("zero", "@D/data.img", "--offset", "512", "--length", "18446744073709551615"), 1,
     "zero range at offset 512 of 18446744073709551615 bytes overflows"},
    {ARGS("zero", "@D/data.img", "--offset", "64K", "--length", "1"), 1,
     "ends past the file's 65536 bytes"},
    {ARGS("grow", "@C/data.mdf", "--size", "9T"), 1,
     "resizing to 9895604649984 bytes exceeds the 8 TiB limit of a file"},
    {ARGS("grow", "@C/log.ldf", "--size", "18446744073709551615"), 1,
     "resizing to 18446744073709551615 bytes exceeds the 8 TiB limit"},
    {ARGS("grow", "@D/data.img", "--size", "9T"), 1, "exceeds the 8 TiB limit of a file"},
    {ARGS("grow", "@D/data.img", "--size", "18446744073709551615"), 1,
     "exceeds the 8 TiB limit of a file"},
    {ARGS("grow", "@C/data.mdf", "--size", "x"), 2, "bad --size 'x': not a number"},
    {ARGS("grow", "@C/data.mdf", "--size", "100"), 2, "grow never shrinks"},
    {ARGS("grow", "@D/data.img", "--size", "1K"), 2, "grow never shrinks"},
};

/* ------------------------------------------ URLs, container and blob names ---- */

/* A target that is not a valid URL (ParseUrl) is bad usage: exit 2, as a bad option. */
static const cli_row url_rows[] = {
    {ARGS("stat", "ftp://x/y/z"), 2, "unsupported URL scheme 'ftp'"},
    {ARGS("stat", "gopher://x/y"), 2, "unsupported URL scheme 'gopher'"},
    {ARGS("create", "ftp://x/y/z", "--size", "1M"), 2, "unsupported URL scheme 'ftp'"},
    {ARGS("put", "@D/src.img", "ftp://x/y/z"), 2, "unsupported URL scheme 'ftp'"},
    {ARGS("get", "ftp://x/y/z", "@D/g.img"), 2, "unsupported URL scheme 'ftp'",
     .absent = "@D/g.img"},
    {ARGS("rm", "s3://bucket/key"), 2, "unsupported URL scheme 's3'"},
    {ARGS("cp", "@C/data.mdf", "ftp://x/y/z"), 2, "unsupported URL scheme 'ftp' in DST"},
    {ARGS("cp", "ftp://x/y/z", NEW), 2, "unsupported URL scheme 'ftp' in SRC", .absent = NEW},
    {ARGS("cp", "@C/nosuch.mdf", NEW), 1, "HTTP 404 BlobNotFound", .absent = NEW},
    {ARGS("cp", "@C/data.mdf", "@C/data.mdf"), 1, "source and destination are the same blob"},
    {ARGS("cp", "@C/data.mdf", "@C/log.ldf"), 1, "--force"},
    {ARGS("cp", "@C/data.mdf?snapshot=garbage", NEW), 1, "HTTP 404", .absent = NEW},
    {ARGS("ls", "@A/nosuchcontainer"), 1, "HTTP 404 ContainerNotFound"},
    {ARGS("ls", "@A/ABC"), 2, "container name may hold only lowercase letters"},
    {ARGS("snapshot", "delete", "@C/data.mdf?snapshot=2000-01-01T00:00:00.0000000Z"), 1,
     "HTTP 404 BlobNotFound"},
    {ARGS("stat", "http://"), 2, "URL host is missing"},
    {ARGS("stat", "@E"), 2, "path-style URL has no account in its path"},
    {ARGS("stat", "@A"), 1, "names no blob"},
    {ARGS("stat", "@C"), 1, "names no blob"},
    {ARGS("stat", "@C/"), 1, "names no blob"},
    {ARGS("stat", "@A/ABC/b"), 2, "container name may hold only lowercase letters"},
    {ARGS("stat", "@A/bad_name/b"), 2, "container name may hold only lowercase letters"},
    {ARGS("stat", "@A/ab/b"), 2, "container name must be 3-63 characters long (got 2)"},
    {ARGS("stat", "@A/a--b/b"), 2, "container name has consecutive dashes"},
    {ARGS("stat", "@A/-ab/b"), 2, "container name must start and end with a letter or digit"},
    {ARGS("stat", "@A/ab-/b"), 2, "container name must start and end with a letter or digit"},
    {ARGS("stat", "@A/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/b"), 2,
     "container name must be 3-63 characters long (got 64)"},
    {ARGS("create", "@A/Mixed/b.mdf", "--size", "1M"), 2,
     "container name may hold only lowercase letters"},
    {ARGS("stat", "@C/@L"), 2, "blob name is longer than 1024 characters"},
    {ARGS("stat", "@C/b%zz"), 2, "URL path has a malformed % escape"},
    {ARGS("stat", "http://127.0.0.1:99999/devstoreaccount1/ccc/b"), 2,
     "URL port is not a number in 1..65535"},
    {ARGS("stat", "http://127.0.0.1:abc/devstoreaccount1/ccc/b"), 2,
     "URL port is not a number in 1..65535"},
    {ARGS("stat", "http://127.0.0.1:0/devstoreaccount1/ccc/b"), 2,
     "URL port is not a number in 1..65535"},
    {ARGS("stat", "http://user:" BI_SECRET "@127.0.0.1:1/devstoreaccount1/ccc/b"), 2,
     "URL must not carry user information"},
    {ARGS("stat", "HTTP://127.0.0.1:1/x/y/z"), 2, "container name must be 3-63 characters long"},
    {ARGS("stat", "@A/nosuchcontainer/b.mdf"), 1, "the container does not exist"},
    {ARGS("stat", "@C/nosuch.mdf"), 1, "HTTP 404 BlobNotFound"},
    {ARGS("rm", "@C/nosuch.mdf"), 1, "HTTP 404 BlobNotFound"},
    {ARGS("rm", "@A/nosuchcontainer/b.mdf"), 1, "HTTP 404 ContainerNotFound"},
    {ARGS("ranges", "@C/nosuch.mdf"), 1, "HTTP 404 BlobNotFound"},
    {ARGS("get", "@C/nosuch.mdf", "@D/g1.img"), 1, "HTTP 404 BlobNotFound", .absent = "@D/g1.img"},
    {ARGS("lease", "acquire", "@C/nosuch.mdf"), 1, "HTTP 404 BlobNotFound",
     .absent = "@C/nosuch.mdf"},
    {ARGS("snapshot", "@C/nosuch.mdf"), 1, "HTTP 404 BlobNotFound", .absent = "@C/nosuch.mdf"},
    {ARGS("zero", "@C/nosuch.mdf", "--offset", "0", "--length", "512"), 1, "HTTP 404 BlobNotFound",
     .absent = "@C/nosuch.mdf"},
    {ARGS("grow", "@C/nosuch.mdf", "--size", "1M"), 1, "HTTP 404 BlobNotFound",
     .absent = "@C/nosuch.mdf"},
    {ARGS("lease", "release", "@C/data.mdf", "--lease-id", "not-a-lease"), 1,
     "HTTP 409 LeaseIdMismatchWithLeaseOperation"},
    {ARGS("lease", "break", "@C/nosuch.mdf"), 1, "HTTP 404 BlobNotFound",
     .absent = "@C/nosuch.mdf"},
};

/* ------------------------------------------------------------ SAS fields ---- */

static const cli_row sas_rows[] = {
    {ARGS("stat", SAS("sv=2022-11-02&sr=b&sp=r&se=2000-01-01T00:00:00Z")), 1,
     "SAS expired at 2000-01-01T00:00:00Z (se)"},
    {ARGS("stat", SAS("sv=2022-11-02&sr=b&sp=r&st=2100-01-01T00:00:00Z&se=2101-01-01T00:00:00Z")),
     1, "SAS is valid from 2100-01-01T00:00:00Z (st)"},
    {ARGS("stat", SAS("sr=b&sp=r&" FUTURE)), 1, "SAS token has no sv"},
    {ARGS("stat", SAS("sv=2022-11-02&sr=b&sp=r&se=garbage")), 1, "SAS se is not an ISO 8601 time"},
    {ARGS("stat", SAS("sv=2022-11-02&sr=b&sp=r&st=yesterday&" FUTURE)), 1,
     "SAS st is not an ISO 8601 time"},
    {ARGS("stat", SAS("sv=2022-11-02&sr=b&sp=rz&" FUTURE)), 1,
     "SAS sp has an unknown permission letter 'z'"},
    {ARGS("stat", "@C/data.mdf?sv=2022-11-02&sr=b&sp=r&" FUTURE "&sig="), 1, "SAS sig is empty"},
    {ARGS("stat", SAS("sv=2022-11-02&sr=b&sp=r&se=2100-13-45T99:00:00Z")), 1,
     "SAS se is not an ISO 8601 time"},
    {ARGS("create", "@C/new.mdf?sv=2022-11-02&sr=b&sp=r&" FUTURE "&sig=" BI_SECRET "1", "--size",
          "1M"),
     1, "SAS lacks permission", .absent = NEW},
    {ARGS("zero", "@C/data.mdf?@S", "--offset", "0", "--length", "512"), 1,
     "SAS lacks permission 'w'"},
    {ARGS("grow", "@C/data.mdf?@S", "--size", "1M"), 1, "SAS lacks permission 'w'"},
    {ARGS("rm", "@C/data.mdf?@S"), 1, "SAS lacks permission 'd'"},
    {ARGS("put", "@D/src.img", "@C/new.mdf?@S"), 1, "SAS lacks permission", .absent = NEW},
    {ARGS("snapshot", "@C/data.mdf?@S"), 1, "SAS lacks permission"},
    {ARGS("lease", "acquire", "@C/data.mdf?@S"), 1, "SAS lacks permission"},
    {ARGS("rm", SAS("sv=2022-11-02&sr=b&sp=rw&" FUTURE)), 1, "SAS lacks permission 'd'"},
    {ARGS("put", "@D/src.img", "@C/new.mdf?sv=2022-11-02&sr=b&sp=r&" FUTURE "&sig=" BI_SECRET "2"),
     1, "SAS lacks permission", .absent = NEW},
    {ARGS("get", SAS("sv=2022-11-02&sr=b&sp=w&" FUTURE), "@D/g2.img"), 1,
     "SAS lacks permission 'r'", .absent = "@D/g2.img"},
    {ARGS("stat", SAS("sv=2022-11-02&sr=b&sp=r&" FUTURE)), 1, "HTTP 403"},
    {ARGS("zero", SAS("sv=2022-11-02&sr=b&sp=rw&" FUTURE), "--offset", "0", "--length", "512"), 1,
     "HTTP 403"},
    {ARGS("stat", "@C/data.mdf"), 1, "SAS se is not an ISO 8601 time",
     .env = {"AZURE_STORAGE_SAS_TOKEN=sv=2022-11-02&sp=r&se=bad&sig=" BI_SECRET "3"}, CS_NO_CREDS},
    {ARGS("stat", "@C/data.mdf"), 1, "SAS expired at 2001-01-01T00:00:00Z",
     .env = {"AZURE_STORAGE_SAS_TOKEN=?sv=2022-11-02&sp=r&se=2001-01-01&sig=" BI_SECRET "4"},
     CS_NO_CREDS},
    {ARGS("zero", "@C/data.mdf", "--offset", "0", "--length", "512"), 1, "SAS lacks permission",
     .env = {"AZURE_STORAGE_SAS_TOKEN=@S"}, CS_NO_CREDS},
};

/* ------------------------------ connection strings, keys, credential files ---- */

static const cli_row cred_rows[] = {
    {ARGS("stat", "@C/data.mdf"), 1, "connection string: segment 1 is not Key=Value",
     CS("garbage")},
    {ARGS("stat", "@C/data.mdf"), 1, "neither AccountKey nor SharedAccessSignature is set",
     CS("AccountName=devstoreaccount1")},
    {ARGS("stat", "@C/data.mdf"), 1, "connection string: AccountKey is not base64",
     CS("AccountName=devstoreaccount1;AccountKey=" BI_SECRET "!!;BlobEndpoint=@A")},
    {ARGS("stat", "@C/data.mdf"), 1, "neither AccountName nor BlobEndpoint is set",
     CS("AccountKey=@K")},
    {ARGS("stat", "@C/data.mdf"), 1, "AccountKey is empty",
     CS("AccountName=devstoreaccount1;AccountKey=;BlobEndpoint=@A")},
    {ARGS("stat", "@C/data.mdf"), 1, "segment 1 has an empty key", CS("=;=;")},
    {ARGS("stat", "@C/data.mdf"), 1, "BlobEndpoint must be an http(s) URL",
     CS("AccountName=devstoreaccount1;AccountKey=@K;BlobEndpoint=notaurl")},
    {ARGS("stat", "@C/data.mdf"), 1, "BlobEndpoint must be an http(s) URL",
     CS("AccountName=devstoreaccount1;AccountKey=@K;BlobEndpoint=ftp://x")},
    {ARGS("stat", "@C/data.mdf"), 1, "UseDevelopmentStorage must be true",
     CS("UseDevelopmentStorage=maybe")},
    {ARGS("stat", "@C/data.mdf"), 1, "DefaultEndpointsProtocol must be http or https",
     CS("AccountName=devstoreaccount1;AccountKey=@K;DefaultEndpointsProtocol=gopher")},
    {ARGS("stat", "@C/data.mdf"), 1, "SAS se is not an ISO 8601 time",
     CS("AccountName=devstoreaccount1;SharedAccessSignature=sv=2022-11-02&se=garbage&sig=" BI_SECRET
        ";BlobEndpoint=@A")},
    {ARGS("stat", "@C/data.mdf"), 1, "HTTP 403",
     CS("AccountName=devstoreaccount1;AccountKey=QUJDREVG;BlobEndpoint=@A")},
    {ARGS("zero", "@C/data.mdf", "--offset", "0", "--length", "512"), 1, "HTTP 403",
     CS("AccountName=devstoreaccount1;AccountKey=QUJD;BlobEndpoint=@A")},
    {ARGS("stat", "@C/data.mdf"), 1, "AZURE_STORAGE_KEY is not valid base64",
     .env = {"AZURE_STORAGE_ACCOUNT=devstoreaccount1", "AZURE_STORAGE_KEY=" BI_SECRET "!!"},
     CS_NO_CREDS},
    {ARGS("stat", "@C/data.mdf"), 1, "HTTP 403", CS_NO_CREDS},
    {ARGS("create", NEW, "--size", "1M"), 1, "HTTP 403", CS_NO_CREDS, .absent = NEW},
    {ARGS("stat", "@C/data.mdf"), 1, "cannot open the credential file", CS_NO_CREDS,
     .env = {"XIO_CREDENTIALS=@D/none.json"}},
    {ARGS("--credentials", "@D/none.json", "stat", "@C/data.mdf"), 1,
     "cannot open the credential file", CS_NO_CREDS},
    {ARGS("--credentials", "@D", "stat", "@C/data.mdf"), 1, "cannot read the credential file",
     CS_NO_CREDS},
    {ARGS("stat", "@C/data.mdf"), 1, "credential file is not valid JSON (at byte 0)", CS_NO_CREDS,
     .credfile = ""},
    {ARGS("stat", "@C/data.mdf"), 1, "credential file must hold a JSON object", CS_NO_CREDS,
     .credfile = "[]"},
    {ARGS("stat", "@C/data.mdf"), 1, "credential file is not valid JSON (at byte 1)", CS_NO_CREDS,
     .credfile = "{"},
    {ARGS("stat", "@C/data.mdf"), 1, "credential entry \"@A\": must be a string or object",
     CS_NO_CREDS, .credfile = "{\"@A\": 5}"},
    {ARGS("stat", "@C/data.mdf"), 1, "expected a SAS string or an object", CS_NO_CREDS,
     .credfile = "{\"@A\": {\"account\": \"devstoreaccount1\"}}"},
    {ARGS("stat", "@C/data.mdf"), 1, "credential entry \"notaurl\": name is not an http(s) URL",
     CS_NO_CREDS, .credfile = "{\"notaurl\": \"sv=2022-11-02&" FUTURE "&sp=r&sig=" BI_SECRET "\"}"},
    {ARGS("stat", "@C/data.mdf"), 1, "key is not base64", CS_NO_CREDS,
     .credfile = "{\"@A\": {\"account\": \"devstoreaccount1\", \"key\": \"" BI_SECRET "!!\"}}"},
    {ARGS("stat", "@C/data.mdf"), 1, "bad SAS: SAS token has no sig", CS_NO_CREDS,
     .credfile = "{\"@A\": \"sv=2022-11-02&sp=r&" FUTURE "\"}"},
    {ARGS("stat", "@C/data.mdf"), 1, "connection string: segment 1 is not Key=Value", CS_NO_CREDS,
     .credfile = "{\"@A\": {\"connection_string\": \"garbage\"}}"},
    {ARGS("stat", "@C/data.mdf"), 1, "expected a SAS string or an object", CS_NO_CREDS,
     .credfile = "{\"@A\": {\"sas\": 7}}"},
    {ARGS("stat", "@C/data.mdf"), 1, "expected a SAS string or an object", CS_NO_CREDS,
     .credfile = "{\"@A\": {}}"},
    {ARGS("stat", "@C/data.mdf"), 1, "SAS expired at 2000-01-01T00:00:00Z", CS_NO_CREDS,
     .credfile = "{\"@A\": \"sv=2022-11-02&sp=r&se=2000-01-01&sig=" BI_SECRET "\"}"},
    {ARGS("stat", "@C/data.mdf"), 1, "credential file is not valid JSON", CS_NO_CREDS,
     .credfile = "{\"@A\": {\"account\": \"devstoreaccount1\", \"key\": \"@K\"}} trailing"},
    {ARGS("stat", "@C/data.mdf"), 1, "credential file is not valid JSON", CS_NO_CREDS,
     .credfile = "{\"@A\": \"sv=2022-11-02&sp=r&se=2100-01-01&sig=" BI_SECRET},
    {ARGS("zero", "@C/data.mdf", "--offset", "0", "--length", "512"), 1, "SAS lacks permission",
     CS_NO_CREDS, .credfile = "{\"@C\": \"@S\"}"},
    {ARGS("--cacert", "@D/none.pem", "stat", "@C/data.mdf"), 1, "cannot open the CA file"},
    {ARGS("--cacert", "@D/src.img", "stat", "@C/data.mdf"), 1, "holds no CA certificate (PEM)"},
    {ARGS("--trace", "/nonexistent/dir/t", "stat", "@C/data.mdf"), 1,
     "cannot open the trace file /nonexistent/dir/t"},
    {ARGS("--pacing", "fast", "stat", "@C/data.mdf"), 1,
     "bad --pacing 'fast': use auto, on or off"},
    {ARGS("--max-rate", "12x", "stat", "@C/data.mdf"), 1, "bad --max-rate '12x'"},
    {ARGS("--max-rate", "0", "stat", "@C/data.mdf"), 1, "bad --max-rate '0'"},
    {ARGS("stat", "@C/data.mdf"), 1, "XIO_PACING is 'fast': use auto, on or off",
     .env = {"XIO_PACING=fast"}},
};

/* ----------------------------------------------------------- local files ---- */

static const cli_row local_rows[] = {
    {ARGS("stat", "@D/nofile"), 1, "No such file or directory"},
    {ARGS("create", "@D/data.img", "--size", "4K"), 1, "File exists"},
    {ARGS("create", "@D/new.img", "--size", "abc"), 2, "bad --size 'abc'", .absent = "@D/new.img"},
    {ARGS("put", "@D/nofile", NEW), 1, "No such file or directory", .absent = NEW},
    {ARGS("put", "@D", NEW), 1, "is not a regular file", .absent = NEW},
    {ARGS("put", "@D/src.img", "@C/data.mdf"), 1, "already exists; --force replaces it"},
    {ARGS("put", "@D/src.img", "@C/log.ldf"), 1, "HTTP 409 BlobAlreadyExists"},
    {ARGS("put", "@D/src.img", "@D/data.img"), 1, "already exists; --force replaces it"},
    {ARGS("get", "@C/data.mdf", "@D/data.img"), 1, "already exists; --force overwrites it"},
    {ARGS("get", "@C/data.mdf", "/nonexistent/dir/f"), 1, "No such file or directory"},
    {ARGS("get", "@C/data.mdf", "@D/data.img/"), 1, "Not a directory"},
    {ARGS("create", "file://remote/x", "--size", "1K"), 1,
     "a file URL needs an absolute path on this host"},
    {ARGS("stat", "file:///tmp/bad%zz"), 1, "bad %-escape in a file URL"},
    {ARGS("stat", "@D"), 1, "not a regular file"},
    {ARGS("rm", "@D/nofile"), 1, "No such file or directory"},
    {ARGS("ranges", "@D/nofile"), 1, "No such file or directory"},
    {ARGS("snapshot", "@D/data.img"), 1, "snapshot"},
};

/* ----------------------------------------- what the service (or a proxy) says ---- */

static const cli_row service_rows[] = {
    {ARGS("stat", "@X/data.mdf"), 1, "HTTP 403 AuthenticationFailed",
     STATUS("HEAD", 403, "AuthenticationFailed")},
    {ARGS("stat", "@X/data.mdf"), 1, "HTTP 403 AuthorizationPermissionMismatch",
     STATUS("HEAD", 403, "AuthorizationPermissionMismatch")},
    {ARGS("stat", "@X/data.mdf"), 1, "the container does not exist",
     STATUS("HEAD", 404, "ContainerNotFound")},
    {ARGS("stat", "@X/data.mdf"), 1, "another client holds its lease",
     STATUS("HEAD", 409, "LeaseAlreadyPresent")},
    {ARGS("stat", "@X/data.mdf"), 1, "HTTP 400 InvalidHeaderValue",
     STATUS("HEAD", 400, "InvalidHeaderValue")},
    {ARGS("stat", "@X/data.mdf"), 1, "HTTP 412 ConditionNotMet",
     STATUS("HEAD", 412, "ConditionNotMet")},
    {ARGS("stat", "@X/data.mdf"), 1, "HTTP 401 InvalidAuthenticationInfo",
     STATUS("HEAD", 401, "InvalidAuthenticationInfo")},
    {ARGS("stat", "@X/data.mdf"), 1, "HTTP 418 Teapot", STATUS("HEAD", 418, "Teapot")},
    {ARGS("stat", "@X/data.mdf"), 1, "HTTP 404 ",
     STATUS("HEAD", 404,
            "AVeryLongErrorCodeThatNoServiceWouldEverSendBecauseItIsFarLongerThanAnyRealOne"
            "AndKeepsGoingPastSixtyFourCharacters")},
    {ARGS("stat", "@X/data.mdf"), 1, "HTTP 400 Bad<Code>&amp;",
     STATUS("HEAD", 400, "Bad<Code>&amp;")},
    {ARGS("stat", "@X/data.mdf"), 1, "HTTP 400 Evil?[2J?]0;owned?",
     STATUS("HEAD", 400, "Evil\x1b[2J\x1b]0;owned\x07")},
    {ARGS("zero", "@X/data.mdf", "--offset", "0", "--length", "512"), 1,
     "HTTP 416 InvalidPageRange", STATUS("PUT", 416, "InvalidPageRange")},
    {ARGS("zero", "@X/data.mdf", "--offset", "0", "--length", "512"), 1, "HTTP 412 LeaseIdMissing",
     STATUS("PUT", 412, "LeaseIdMissing")},
    {ARGS("grow", "@X/data.mdf", "--size", "1M"), 1, "HTTP 409 LeaseAlreadyPresent",
     STATUS("PUT", 409, "LeaseAlreadyPresent")},
    {ARGS("rm", "@X/data.mdf"), 1, "HTTP 412 LeaseIdMissing",
     STATUS("DELETE", 412, "LeaseIdMissing")},
    {ARGS("lease", "acquire", "@X/data.mdf"), 1, "HTTP 409 LeaseAlreadyPresent",
     STATUS("PUT", 409, "LeaseAlreadyPresent")},
    {ARGS("get", "@X/data.mdf", "@D/g3.img"), 1, "HTTP 403 AuthenticationFailed",
     STATUS("GET", 403, "AuthenticationFailed"), .absent = "@D/g3.img"},
    {ARGS("put", "@D/src.img", "@X/new.mdf"), 1, "HTTP 413 RequestBodyTooLarge",
     .fault = {.kind = FAULTPROXY_STATUS,
               .method = "PUT",
               .match = "comp=page",
               .status = 413,
               .error_code = "RequestBodyTooLarge"},
     .flags = MAY_CREATE, .absent = NEW},
    {ARGS("create", "@X/new.mdf", "--size", "1M"), 1, "HTTP 400 InvalidHeaderValue",
     STATUS("PUT", 400, "InvalidHeaderValue"), .absent = NEW},
};

/* -------------------------------------------------------------- runner ---- */

#define NROWS(t) (sizeof(t) / sizeof *(t))

size_t bi_cli_rows(void) {
  return NROWS(usage_rows) + NROWS(value_rows) + NROWS(url_rows) + NROWS(sas_rows) +
         NROWS(cred_rows) + NROWS(local_rows) + NROWS(service_rows);
}

/* Requests that change a blob or file. A lease taken and given back is not among
 * them: commands that write open exclusively before they find a value wrong. */
static const char *const mutating[] = {"XIOTypeCreateFile",
                                       "XIOTypeWriteFile",
                                       "XIOTypeZeroFile",
                                       "XIOTypeSetFileSize",
                                       "XIOTypeDeleteFile",
                                       "XIOTypeSnapshot",
                                       NULL};

/* A trace line of a request that changed something and succeeded, or NULL. */
static const char *wrote_something(const char *trace) {
  static char line[1024];
  for (const char *p = trace; *p;) {
    size_t n = strcspn(p, "\n");
    snprintf(line, sizeof line, "%.*s", (int)n, p);
    p += n + (p[n] == '\n');
    if (!strstr(line, "\"result\":\"ok\"")) continue;
    for (size_t i = 0; mutating[i]; i++) {
      char want[64];
      snprintf(want, sizeof want, "\"request_type\":\"%s\"", mutating[i]);
      if (strstr(line, want)) return line;
    }
  }
  return NULL;
}

/* The run's arguments and environment, expanded; the strings live in `store`. */
typedef struct expanded {
  const char *args[MAX_ARGS + 2];
  const char *env[5];
  char store[MAX_ARGS + 6][4096];
} expanded;

static void expand_row(const cli_row *r, int i, expanded *x) {
  size_t k = 0, s = 0;
  if (r->credfile) {
    char path[256], text[4096];
    snprintf(path, sizeof path, "%s/cred%d.json", clirun_dir(), i);
    bi_expand(r->credfile, text, sizeof text);
    clirun_write_private_file(path, text, strlen(text));
    x->args[k++] = "--credentials";
    x->args[k++] = strcpy(x->store[s++], path);
  }
  for (size_t a = 0; r->args[a]; a++) {
    bi_expand(r->args[a], x->store[s], sizeof x->store[s]);
    x->args[k++] = x->store[s++];
  }
  x->args[k] = NULL;
  size_t e = 0;
  for (; e < 3 && r->env[e]; e++) {
    bi_expand(r->env[e], x->store[s], sizeof x->store[s]);
    x->env[e] = x->store[s++];
  }
  if (r->fault.kind) { /* the dev account, addressed through the proxy */
    char cs[1024];
    test_dev_connection_string_at(faultproxy_endpoint(bi_proxy()), cs, sizeof cs);
    snprintf(x->store[s], sizeof x->store[s], "AZURE_STORAGE_CONNECTION_STRING=%s", cs);
    x->env[e++] = x->store[s++];
  }
  x->env[e] = NULL;
}

/* Runs row `i` and checks everything a row must hold; the first broken rule is
 * reported. */
static void run_row(bi_tally *t, const cli_row *r, int i) {
  static expanded x;
  static char phrase[1024];
  clirun run = {0};
  expand_row(r, i, &x);
  bi_expand(r->phrase, phrase, sizeof phrase);
  if (r->fault.kind) {
    faultproxy_clear_faults(bi_proxy());
    if (faultproxy_add(bi_proxy(), &r->fault) != 0) FAIL("cannot script the fault");
  }
  unsigned flags = (r->flags | (r->fault.kind ? CLIRUN_NO_CREDS : 0)) & CLIRUN_NO_CREDS;
  clirun_v(&run, flags, x.env, x.args); /* fails the test on a secret in any output */
  t->rows++;
  const char *line, *changed, *cmd = x.args[0] ? x.args[0] : "(no arguments)";
  if (strstr(run.err, "Sanitizer") || strstr(run.err, "runtime error:"))
    bi_row_failed(t, i, "%s: crashed:\n%s", cmd, run.err);
  else if (run.status != r->exit)
    bi_row_failed(t, i, "%s: exit %d, wanted %d:\n%s", cmd, run.status, r->exit, run.err);
  else if (!strstr(run.err, phrase))
    bi_row_failed(t, i, "%s: the message lacks \"%s\":\n%s", cmd, phrase, run.err);
  else if (!(r->flags & MAY_CREATE) && (line = wrote_something(run.trace)))
    bi_row_failed(t, i, "%s: a request changed something:\n%s", cmd, line);
  else if (r->absent && bi_exists(r->absent))
    bi_row_failed(t, i, "%s: %s exists afterwards", cmd, r->absent);
  else if (*(changed = bi_fixture_changed()))
    bi_row_failed(t, i, "%s: %s", cmd, changed);
  else if (r->fault.kind && faultproxy_pending(bi_proxy()))
    bi_row_failed(t, i, "%s: the scripted fault was never met", cmd);
  clirun_free(&run);
}

static void run_table(const char *name, const cli_row *rows, size_t n) {
  bi_tally t = {name, 0, 0};
  bi_setup();
  for (size_t i = 0; i < n; i++)
    run_row(&t, &rows[i], (int)i);
  bi_end(&t);
}

TEST(cli_usage) { run_table("cli_usage", usage_rows, NROWS(usage_rows)); }
TEST(cli_sizes_offsets_lengths) { run_table("cli_values", value_rows, NROWS(value_rows)); }
TEST(cli_urls_and_names) { run_table("cli_urls", url_rows, NROWS(url_rows)); }
TEST(cli_sas_fields) { run_table("cli_sas", sas_rows, NROWS(sas_rows)); }
TEST(cli_credentials) { run_table("cli_credentials", cred_rows, NROWS(cred_rows)); }
TEST(cli_local_files) { run_table("cli_local", local_rows, NROWS(local_rows)); }
TEST(cli_service_answers) { run_table("cli_service", service_rows, NROWS(service_rows)); }
