/*
 * test_sas.c - SAS tokens: generation (the reference vectors exactly, canonical letter
 * order, rejected letters and options), parsing, and the checks made before a request.
 */
#include <stdlib.h>

#include "auth_test.h"

/* The reference vectors: a blob SAS (sp=rcw on /blob/devstoreaccount1/vectors/disk.mdf)
 * and an account SAS (ss=b, srt=sco, sp=rwdlac), both valid 2024-01-01 to 2099-01-01,
 * spr=https,http, sv=2020-12-06, signed with Azurite's public dev key and accepted by
 * Azurite. Each signature is its own literal so that secret scanners looking for
 * "sig=<token>" are not misled. */
#define SERVICE_TOKEN                                                                              \
  "sv=2020-12-06&sp=rcw&st=2024-01-01T00%3A00%3A00Z&se=2099-01-01T00%3A00%3A00Z"                   \
  "&spr=https%2Chttp&sr=b&sig="                                                                    \
  "6RBuzXFd%2FP%2Fpb7fsgIUWLjtHRtEocNsuw%2FKMmAgWnTE%3D"
#define ACCOUNT_TOKEN                                                                              \
  "sv=2020-12-06&ss=b&srt=sco&sp=rwdlac&st=2024-01-01T00%3A00%3A00Z"                               \
  "&se=2099-01-01T00%3A00%3A00Z&spr=https%2Chttp"                                                  \
  "&sig="                                                                                          \
  "qjZsEWqkhpxmMi2HyXnJXo7OBX47a7JPbudYdfYSQh8%3D"

static xio_auth_sas_options vector_options(const char *perms) {
  xio_auth_sas_options o = xio_auth_sas_options_default();
  o.permissions = perms;
  o.start = T_2024;
  o.expiry = T_2099;
  o.protocol = "https,http";
  o.version = "2020-12-06";
  return o;
}

static char *service(const char *container, const char *blob, xio_auth_sas_options o) {
  size_t n = 0;
  unsigned char *key = dev_key(&n);
  char *out = NULL;
  xio_error e;
  xio_error_clear(&e);
  ASSERT_OK(
      xio_auth_sas_generate_service("devstoreaccount1", key, n, container, blob, &o, &out, &e), &e);
  xio_auth_secret_free(key, n);
  return out;
}

static xio_err account(const char *ss, const char *srt, xio_auth_sas_options o, char **out,
                       xio_error *e) {
  size_t n = 0;
  unsigned char *key = dev_key(&n);
  xio_error_clear(e);
  xio_err rc = xio_auth_sas_generate_account("devstoreaccount1", key, n, ss, srt, &o, out, e);
  xio_auth_secret_free(key, n);
  return rc;
}

TEST(sas_service_vector) {
  char *t = service("vectors", "disk.mdf", vector_options("rcw"));
  ASSERT_STR_EQ(t, SERVICE_TOKEN);
  free(t);
  /* letters in any order come out canonical: same token */
  t = service("vectors", "disk.mdf", vector_options("wrc"));
  ASSERT_STR_EQ(t, SERVICE_TOKEN);
  free(t);
}

TEST(sas_account_vector) {
  char *t = NULL;
  xio_error e;
  ASSERT_OK(account("b", "sco", vector_options("rwdlac"), &t, &e), &e);
  ASSERT_STR_EQ(t, ACCOUNT_TOKEN);
  free(t);
  ASSERT_OK(account("b", "ocs", vector_options("cawdrl"), &t, &e), &e);
  ASSERT_STR_EQ(t, ACCOUNT_TOKEN);
  free(t);
}

TEST(sas_canonical_order) {
  xio_auth_sas_options o = vector_options("itlyxdwcar");
  char *t = service("vectors", NULL, o);
  ASSERT_CONTAINS(t, "&sp=racwdxylti&");
  ASSERT_CONTAINS(t, "&sr=c&");
  free(t);
  char *a = NULL;
  xio_error e;
  ASSERT_OK(account("b", "s", vector_options("ftipucalyxdwr"), &a, &e), &e);
  ASSERT_CONTAINS(a, "&sp=rwdxylacupitf&");
  free(a);
}

TEST(sas_generate_optional_fields) {
  xio_auth_sas_options o = xio_auth_sas_options_default();
  ASSERT(o.permissions == NULL && o.start == 0 && o.expiry == 0 && o.protocol == NULL &&
         o.ip == NULL && o.identifier == NULL && o.version == NULL);
  o.permissions = "r";
  o.expiry = T_2099;
  o.ip = "10.0.0.1-10.0.0.9";
  o.identifier = "policy 1";
  char *t = service("vectors", "dir/a b.mdf", o);
  /* sv defaults to 2020-12-06; no st, no spr; order sv sp se sip sr si sig */
  const char *want = "sv=2020-12-06&sp=r&se=2099-01-01T00%3A00%3A00Z&sip=10.0.0.1-10.0.0.9"
                     "&sr=b&si=policy%201&sig=";
  if (strncmp(t, want, strlen(want)) != 0) FAIL("token %s does not start %s", t, want);
  ASSERT_NOT_CONTAINS(t, "st=");
  ASSERT_NOT_CONTAINS(t, "spr=");
  free(t);
}

TEST(sas_generate_rejects) {
  size_t n = 0;
  unsigned char *key = dev_key(&n);
  char *out = (char *)"unchanged";
  xio_error e;
  xio_auth_sas_options o = vector_options("rl");
  xio_error_clear(&e);
  o.permissions = "ru";
  ASSERT_ERR(xio_auth_sas_generate_service("a", key, n, "vectors", "b", &o, &out, &e), XIO_EINVAL,
             &e);
  ASSERT(out == NULL);
  ASSERT_CONTAINS(e.message, "'u'");
  o.permissions = "rR";
  ASSERT_ERR(xio_auth_sas_generate_service("a", key, n, "vectors", "b", &o, &out, &e), XIO_EINVAL,
             &e);
  o.permissions = "";
  ASSERT_ERR(xio_auth_sas_generate_service("a", key, n, "vectors", "b", &o, &out, &e), XIO_EINVAL,
             &e);
  ASSERT_CONTAINS(e.message, "permissions");
  o = vector_options("r");
  o.expiry = 0;
  ASSERT_ERR(xio_auth_sas_generate_service("a", key, n, "vectors", "b", &o, &out, &e), XIO_EINVAL,
             &e);
  ASSERT_CONTAINS(e.message, "expiry");
  o = vector_options("r");
  o.version = "2019-12-12";
  ASSERT_ERR(xio_auth_sas_generate_service("a", key, n, "vectors", "b", &o, &out, &e), XIO_EINVAL,
             &e);
  ASSERT_CONTAINS(e.message, "version");
  o = vector_options("r");
  o.protocol = "http";
  ASSERT_ERR(xio_auth_sas_generate_service("a", key, n, "vectors", "b", &o, &out, &e), XIO_EINVAL,
             &e);
  o = vector_options("r");
  ASSERT_ERR(xio_auth_sas_generate_service("a", key, n, "Bad_Name", "b", &o, &out, &e), XIO_EINVAL,
             &e);
  ASSERT_CONTAINS(e.message, "container name");
  ASSERT_ERR(xio_auth_sas_generate_service("a", key, 0, "vectors", "b", &o, &out, &e), XIO_EINVAL,
             &e);
  ASSERT_STR_EQ(e.operation, "GenerateSas");
  xio_auth_secret_free(key, n);
}

TEST(sas_account_rejects) {
  char *out = NULL;
  xio_error e;
  ASSERT_ERR(account("b", "sco", vector_options("rm"), &out, &e), XIO_EINVAL, &e);
  ASSERT_CONTAINS(e.message, "'m'");
  ASSERT_ERR(account("bx", "sco", vector_options("r"), &out, &e), XIO_EINVAL, &e);
  ASSERT_CONTAINS(e.message, "ss");
  ASSERT_ERR(account("b", "scx", vector_options("r"), &out, &e), XIO_EINVAL, &e);
  ASSERT_CONTAINS(e.message, "srt");
  ASSERT_ERR(account("", "sco", vector_options("r"), &out, &e), XIO_EINVAL, &e);
  xio_auth_sas_options o = vector_options("r");
  o.identifier = "policy";
  ASSERT_ERR(account("b", "sco", o, &out, &e), XIO_EINVAL, &e);
  ASSERT(out == NULL);
}

TEST(sas_parse_service) {
  xio_auth_sas s;
  xio_error e;
  xio_error_clear(&e);
  ASSERT_OK(xio_auth_sas_parse("?" SERVICE_TOKEN "&snapshot=x", &s, &e), &e);
  ASSERT_EQ(s.is_account, 0);
  ASSERT_STR_EQ(s.sv, "2020-12-06");
  ASSERT_STR_EQ(s.sr, "b");
  ASSERT_STR_EQ(s.sp, "rcw");
  ASSERT_STR_EQ(s.spr, "https,http");
  ASSERT_STR_EQ(s.ss, "");
  ASSERT_EQ(s.start, T_2024);
  ASSERT_EQ(s.expiry, T_2099);
  ASSERT_EQ(s.perms, XIO_AUTH_PERM('r') | XIO_AUTH_PERM('c') | XIO_AUTH_PERM('w'));
  ASSERT_EQ(s.has_sig, 1);
}

TEST(sas_parse_account) {
  xio_auth_sas s;
  xio_error e;
  xio_error_clear(&e);
  ASSERT_OK(xio_auth_sas_parse(ACCOUNT_TOKEN "&sip=1.2.3.4", &s, &e), &e);
  ASSERT_EQ(s.is_account, 1);
  ASSERT_STR_EQ(s.ss, "b");
  ASSERT_STR_EQ(s.srt, "sco");
  ASSERT_STR_EQ(s.sip, "1.2.3.4");
  ASSERT_EQ(s.perms, XIO_AUTH_PERM('r') | XIO_AUTH_PERM('w') | XIO_AUTH_PERM('d') |
                         XIO_AUTH_PERM('l') | XIO_AUTH_PERM('a') | XIO_AUTH_PERM('c'));
  ASSERT_OK(xio_auth_sas_check(&s, XIO_AUTH_PERM('w') | XIO_AUTH_PERM('l'), T_2024, &e), &e);
}

static void expect_sas_parse_error(const char *token, const char *needle) {
  xio_auth_sas s;
  xio_error e;
  char line[1600];
  xio_error_clear(&e);
  ASSERT_ERR(xio_auth_sas_parse(token, &s, &e), XIO_EPARSE, &e);
  ASSERT_CONTAINS(e.message, needle);
  ASSERT_EQ(s.has_sig, 0);
  ASSERT_EQ(s.perms, 0);
  xio_error_format(&e, line, sizeof line);
  ASSERT_NOT_CONTAINS(line, "SECRETSIG");
}

TEST(sas_parse_errors) {
  expect_sas_parse_error("sv=2020-12-06&sp=r&se=2099-01-01", "no sig");
  expect_sas_parse_error("sp=r&se=2099-01-01&sig=SECRETSIG", "no sv");
  expect_sas_parse_error("sv=2020-12-06&sp=r&sig=", "sig is empty");
  expect_sas_parse_error("sv=2020-12-06&sp=rz&sig=SECRETSIG", "'z'");
  expect_sas_parse_error("sv=2020-12-06&sp=R&sig=SECRETSIG", "'R'");
  expect_sas_parse_error("sv=2020-12-06&se=2099-13-01&sig=SECRETSIG", "se");
  expect_sas_parse_error("sv=2020-12-06&st=yesterday&sig=SECRETSIG", "st");
  expect_sas_parse_error("sv=2020-12-06&sig=SECRETSIG%zz", "'sig'");
  expect_sas_parse_error("sv=2020-12-06&ss=b&sig=SECRETSIG", "srt");
  expect_sas_parse_error("sv=2020-12-06-and-more-than-16&sig=SECRETSIG", "too long");
}

TEST(sas_check_times) {
  xio_auth_sas s;
  xio_error e;
  xio_error_clear(&e);
  ASSERT_OK(xio_auth_sas_parse("sv=2020-12-06&sp=r&st=2024-01-01T00%3A00%3A00Z"
                               "&se=2024-01-02T00%3A00%3A00Z&sig=x",
                               &s, &e),
            &e);
  uint32_t r = XIO_AUTH_PERM('r');
  ASSERT_OK(xio_auth_sas_check(&s, r, T_2024, &e), &e);
  ASSERT_OK(xio_auth_sas_check(&s, r, T_2024 + 86399, &e), &e);
  ASSERT_ERR(xio_auth_sas_check(&s, r, T_2024 + 86400, &e), XIO_EEXPIRED, &e);
  ASSERT_CONTAINS(e.message, "2024-01-02T00:00:00Z");
  ASSERT_STR_EQ(e.operation, "CheckSas");
  /* five minutes of grace on the start, not more */
  ASSERT_OK(xio_auth_sas_check(&s, r, T_2024 - 300, &e), &e);
  xio_error_clear(&e);
  ASSERT_ERR(xio_auth_sas_check(&s, r, T_2024 - 301, &e), XIO_ENOTYET, &e);
  ASSERT_CONTAINS(e.message, "2024-01-01T00:00:00Z");
}

TEST(sas_check_permissions) {
  xio_auth_sas s;
  xio_error e;
  xio_error_clear(&e);
  ASSERT_OK(xio_auth_sas_parse("sv=2020-12-06&sp=rl&sr=c&sig=x", &s, &e), &e);
  ASSERT_OK(xio_auth_sas_check(&s, XIO_AUTH_PERM('r'), T_2099 * 2, &e), &e);
  ASSERT_OK(xio_auth_sas_check(&s, 0, T_2024, &e), &e);
  ASSERT_ERR(xio_auth_sas_check(&s, XIO_AUTH_PERM('r') | XIO_AUTH_PERM('w') | XIO_AUTH_PERM('c'),
                                T_2024, &e),
             XIO_EPERM, &e);
  ASSERT_CONTAINS(e.message, "'cw'");
  ASSERT_ERR(xio_auth_sas_check(&s, 1u << 30, T_2024, &e), XIO_EINVAL, &e);
  ASSERT_ERR(xio_auth_sas_check(NULL, 0, T_2024, &e), XIO_EINVAL, &e);
}

TEST(sas_check_account_needs_blob_service) {
  xio_auth_sas s;
  xio_error e;
  xio_error_clear(&e);
  ASSERT_OK(xio_auth_sas_parse("sv=2020-12-06&ss=qt&srt=sco&sp=rwdl&sig=x", &s, &e), &e);
  ASSERT_EQ(s.is_account, 1);
  ASSERT_ERR(xio_auth_sas_check(&s, XIO_AUTH_PERM('r'), T_2024, &e), XIO_EPERM, &e);
  ASSERT_CONTAINS(e.message, "'b'");
}

TEST(sas_generate_parse_round_trip) {
  xio_auth_sas_options o = vector_options("dwr");
  o.start = 0;
  char *t = service("vectors", "a/b c.mdf", o);
  xio_auth_sas s;
  xio_error e;
  xio_error_clear(&e);
  ASSERT_OK(xio_auth_sas_parse(t, &s, &e), &e);
  ASSERT_STR_EQ(s.sp, "rwd");
  ASSERT_EQ(s.start, 0);
  ASSERT_EQ(s.expiry, T_2099);
  ASSERT_OK(xio_auth_sas_check(&s, XIO_AUTH_PERM('w') | XIO_AUTH_PERM('d'), T_2024, &e), &e);
  free(t);
}
