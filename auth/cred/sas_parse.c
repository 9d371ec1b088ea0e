/*
 * sas_parse.c - reads a SAS token into its fields (decoded) and tells, before any
 * request is sent, whether it can do an operation now: expired, not yet valid, or
 * lacking a permission. The signature itself is never kept, only whether it is there.
 * Part of libxio_auth's credentials and signing (auth/cred/).
 */
#include <stdio.h>
#include <string.h>

#include "cred_int.h"

#define START_GRACE 300 /* seconds of clock skew allowed on st */

/* Copies a decoded value into a fixed field; the field name is used in messages. */
static xio_err copy_field(char *dst, size_t size, const char *name, const char *value,
                          xio_error *err) {
  size_t n = strlen(value);
  if (n >= size)
    return xio_error_set(err, XIO_EPARSE, "SAS %s is too long (%zu characters)", name, n);
  memcpy(dst, value, n + 1);
  return XIO_OK;
}

static xio_err take_time(const char *name, const char *value, time_t *out, xio_error *err) {
  if (xio_auth_parse_iso8601(value, out, NULL) == XIO_OK) return XIO_OK;
  return xio_error_set(err, XIO_EPARSE, "SAS %s is not an ISO 8601 time: \"%.40s\"", name, value);
}

static xio_err take_perms(xio_auth_sas *out, const char *value, xio_error *err) {
  char bad = 0;
  xio_err rc = copy_field(out->sp, sizeof out->sp, "sp", value, err);
  if (rc != XIO_OK) return rc;
  if (xio__auth_perm_bits(value, XIO__AUTH_PERM_KNOWN, &out->perms, &bad) != 0)
    return xio_error_set(err, XIO_EPARSE, "SAS sp has an unknown permission letter '%c'", bad);
  return XIO_OK;
}

/* Records one parameter; unknown ones (snapshot, sig's companions) are ignored. */
static xio_err take_param(xio_auth_sas *out, const xio__auth_param *p, xio_error *err) {
  const char *n = p->name, *v = p->value;
  if (strcmp(n, "sig") == 0) {
    if (!*v) return xio_error_set(err, XIO_EPARSE, "SAS sig is empty");
    out->has_sig = 1;
    return XIO_OK;
  }
  if (strcmp(n, "sv") == 0) return copy_field(out->sv, sizeof out->sv, n, v, err);
  if (strcmp(n, "sr") == 0) return copy_field(out->sr, sizeof out->sr, n, v, err);
  if (strcmp(n, "ss") == 0) return copy_field(out->ss, sizeof out->ss, n, v, err);
  if (strcmp(n, "srt") == 0) return copy_field(out->srt, sizeof out->srt, n, v, err);
  if (strcmp(n, "spr") == 0) return copy_field(out->spr, sizeof out->spr, n, v, err);
  if (strcmp(n, "sip") == 0) return copy_field(out->sip, sizeof out->sip, n, v, err);
  if (strcmp(n, "sp") == 0) return take_perms(out, v, err);
  if (strcmp(n, "st") == 0) return take_time(n, v, &out->start, err);
  if (strcmp(n, "se") == 0) return take_time(n, v, &out->expiry, err);
  return XIO_OK;
}

static xio_err parse(const char *token, xio_auth_sas *out, xio_error *err) {
  xio__auth_params q;
  xio_err rc = xio__auth_query_parse(token, 1, XIO_EPARSE, &q, err);
  for (size_t i = 0; rc == XIO_OK && i < q.n; i++)
    rc = take_param(out, &q.v[i], err);
  xio__auth_params_free(&q);
  if (rc != XIO_OK) return rc;
  if (!out->has_sig) return xio_error_set(err, XIO_EPARSE, "SAS token has no sig");
  if (!out->sv[0]) return xio_error_set(err, XIO_EPARSE, "SAS token has no sv");
  out->is_account = out->ss[0] || out->srt[0];
  if (out->is_account && (!out->ss[0] || !out->srt[0]))
    return xio_error_set(err, XIO_EPARSE, "account SAS needs both ss and srt");
  return XIO_OK;
}

xio_err xio_auth_sas_parse(const char *token, xio_auth_sas *out, xio_error *err) {
  if (!out) return xio_error_set(err, XIO_EINVAL, "no SAS to fill");
  memset(out, 0, sizeof *out);
  if (!token) return xio_error_set(err, XIO_EINVAL, "SAS token is NULL");
  xio_err rc = parse(token + (token[0] == '?'), out, err);
  if (rc != XIO_OK) {
    memset(out, 0, sizeof *out);
    xio__auth_operation(err, "ParseSas");
  }
  return rc;
}

static xio_err check_perms(const xio_auth_sas *sas, uint32_t need, xio_error *err) {
  char missing[32];
  if (sas->is_account && !strchr(sas->ss, 'b'))
    return xio_error_set(err, XIO_EPERM,
                         "account SAS does not cover the blob service (ss has no 'b')");
  uint32_t lack = need & ~sas->perms;
  if (!lack) return XIO_OK;
  xio__auth_perm_string(lack, "abcdefghijklmnopqrstuvwxyz", missing, sizeof missing);
  return xio_error_set(err, XIO_EPERM, "SAS lacks permission '%s' (sp=%s)", missing, sas->sp);
}

xio_err xio_auth_sas_check(const xio_auth_sas *sas, uint32_t need, time_t now, xio_error *err) {
  char when[21];
  xio_err rc = XIO_OK;
  if (!sas)
    rc = xio_error_set(err, XIO_EINVAL, "no SAS to check");
  else if (need >> 26)
    rc = xio_error_set(err, XIO_EINVAL, "needed permissions are not letters a-z");
  else if (sas->expiry && now >= sas->expiry)
    rc = xio_error_set(err, XIO_EEXPIRED, "SAS expired at %s (se)",
                       xio_auth_format_iso8601(sas->expiry, when));
  else if (sas->start && now + START_GRACE < sas->start)
    rc = xio_error_set(err, XIO_ENOTYET, "SAS is valid from %s (st)",
                       xio_auth_format_iso8601(sas->start, when));
  else
    rc = check_perms(sas, need, err);
  if (rc != XIO_OK) xio__auth_operation(err, "CheckSas");
  return rc;
}
