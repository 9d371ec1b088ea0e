/*
 * token.c - Entra ID access tokens as values: wiping release, and the JSON answers
 * of managed identity endpoints and of the Azure CLI.
 * Part of libxio_auth's credentials and signing (auth/cred/).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>
#include <openssl/crypto.h>

#include <xio/alloc.h>
#include <xio/entra.h>

#include "cred_int.h"

void xio_auth_token_clear(xio_auth_token *t) {
  if (!t) return;
  xio__auth_str_free(t->value);
  memset(t, 0, sizeof *t);
}

static void wipe_tree(cJSON *node) {
  for (; node; node = node->next) {
    if (node->valuestring) OPENSSL_cleanse(node->valuestring, strlen(node->valuestring));
    wipe_tree(node->child);
  }
}

/* Seconds since the epoch from a number or a string of digits; 0 when neither. */
static time_t seconds(const cJSON *v) {
  if (cJSON_IsNumber(v) && v->valuedouble > 0) return (time_t)v->valuedouble;
  if (!cJSON_IsString(v) || !v->valuestring[0]) return 0;
  char *end = NULL;
  long long s = strtoll(v->valuestring, &end, 10);
  return end && *end == '\0' && s > 0 ? (time_t)s : 0;
}

/* The CLI's expiresOn: local time "YYYY-MM-DD HH:MM:SS[.ffffff]". */
static time_t local_time(const cJSON *v) {
  struct tm tm;
  memset(&tm, 0, sizeof tm);
  if (!cJSON_IsString(v)) return 0;
  if (sscanf(v->valuestring, "%d-%d-%d %d:%d:%d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
             &tm.tm_min, &tm.tm_sec) != 6)
    return 0;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  tm.tm_isdst = -1;
  time_t t = mktime(&tm);
  return t == (time_t)-1 ? 0 : t;
}

static time_t expiry_of(const cJSON *root, time_t now) {
  time_t t = seconds(cJSON_GetObjectItemCaseSensitive(root, "expires_on"));
  if (!t) t = local_time(cJSON_GetObjectItemCaseSensitive(root, "expiresOn"));
  if (!t) {
    time_t in = seconds(cJSON_GetObjectItemCaseSensitive(root, "expires_in"));
    if (in) t = now + in;
  }
  return t;
}

static xio_err from_tree(const cJSON *root, time_t now, xio_auth_token *out, xio_error *err) {
  const cJSON *tok = cJSON_GetObjectItemCaseSensitive(root, "access_token");
  if (!cJSON_IsString(tok)) tok = cJSON_GetObjectItemCaseSensitive(root, "accessToken");
  if (!cJSON_IsString(tok) || !tok->valuestring[0])
    return xio_error_set(err, XIO_EPARSE, "the answer has no access_token or accessToken");
  time_t exp = expiry_of(root, now);
  if (!exp)
    return xio_error_set(err, XIO_EPARSE,
                         "the answer has no usable expires_on, expiresOn or expires_in");
  if (!(out->value = xio__auth_strdup(tok->valuestring)))
    return xio_error_set(err, XIO_ENOMEM, "out of memory");
  out->expires_on = exp;
  return XIO_OK;
}

xio_err xio_auth_token_parse_json(const char *json, time_t now, xio_auth_token *out,
                                  xio_error *err) {
  if (!out) return xio_error_set(err, XIO_EINVAL, "no output for the token");
  memset(out, 0, sizeof *out);
  if (!json) return xio_error_set(err, XIO_EINVAL, "no token answer");
  unsigned long refused = xio_alloc_failures();
  cJSON *root = cJSON_Parse(json);
  xio_err rc;
  if (!root && xio_alloc_failures() != refused)
    rc = xio_error_set(err, XIO_ENOMEM, "out of memory reading the token answer");
  else if (!cJSON_IsObject(root))
    rc = xio_error_set(err, XIO_EPARSE, "the answer is not a JSON object");
  else
    rc = from_tree(root, now, out, err);
  wipe_tree(root);
  cJSON_Delete(root);
  return rc;
}
