/*
 * credfile.c - the credential file: a JSON object mapping URL prefixes to a SAS
 * string, {"sas": ...}, {"account": ..., "key": ...} or {"connection_string": ...}.
 * A file loads whole or not at all. Messages name the entry by its prefix (query
 * stripped), never a secret; secret strings in the parsed tree are wiped.
 * Part of libxio_auth's credentials and signing (auth/cred/).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <openssl/crypto.h>

#include "cred_int.h"

/* Wipes every string value in the tree before it is freed. */
static void wipe_json(cJSON *node) {
  for (; node; node = node->next) {
    if (node->valuestring) OPENSSL_cleanse(node->valuestring, strlen(node->valuestring));
    wipe_json(node->child);
  }
}

/* Fails with XIO_EPARSE naming `entry`, then `what` is wrong. */
static xio_err bad_entry(xio_error *err, const char *entry, const char *what) {
  char *safe = xio_auth_url_strip_query(entry);
  xio_error_set(err, XIO_EPARSE, "credential entry \"%.200s\": %s", safe ? safe : "?", what);
  free(safe);
  return XIO_EPARSE;
}

static const char *member_string(const cJSON *obj, const char *name) {
  const cJSON *m = cJSON_GetObjectItemCaseSensitive(obj, name);
  return cJSON_IsString(m) ? m->valuestring : NULL;
}

static xio_err from_sas(const char *entry, const char *sas, xio_auth_cred *c, xio_error *err) {
  xio_auth_sas parsed;
  xio_error e;
  xio_error_clear(&e);
  if (xio_auth_sas_parse(sas, &parsed, &e) != XIO_OK) {
    char what[sizeof e.message + 16];
    snprintf(what, sizeof what, "bad SAS: %s", e.message);
    return bad_entry(err, entry, what);
  }
  c->kind = XIO_AUTH_CRED_SAS;
  c->sas = xio__auth_strdup(sas + (sas[0] == '?'));
  return c->sas ? XIO_OK : xio_error_set(err, XIO_ENOMEM, "out of memory");
}

static xio_err from_key(const char *entry, const char *account, const char *key, xio_auth_cred *c,
                        xio_error *err) {
  if (!*account) return bad_entry(err, entry, "account is empty");
  xio_err rc = xio_auth_base64_decode(key, &c->key, &c->key_len, NULL);
  if (rc == XIO_ENOMEM) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  if (rc != XIO_OK || c->key_len == 0) return bad_entry(err, entry, "key is not base64");
  c->kind = XIO_AUTH_CRED_SHARED_KEY;
  c->account = xio__auth_strdup(account);
  return c->account ? XIO_OK : xio_error_set(err, XIO_ENOMEM, "out of memory");
}

/* A connection string's key wins over its SAS (the key can do everything). */
static xio_err from_connstr(const char *entry, const char *text, xio_auth_cred *c, xio_error *err) {
  xio_auth_account a;
  xio_error e;
  xio_error_clear(&e);
  if (xio_auth_connstr_parse(text, &a, &e) != XIO_OK) {
    if (e.code == XIO_ENOMEM) return xio_error_set(err, XIO_ENOMEM, "out of memory");
    return bad_entry(err, entry, e.message);
  }
  if (a.key) {
    c->kind = XIO_AUTH_CRED_SHARED_KEY;
    c->account = a.name, a.name = NULL;
    c->key = a.key, c->key_len = a.key_len, a.key = NULL, a.key_len = 0;
  } else {
    c->kind = XIO_AUTH_CRED_SAS;
    c->sas = a.sas, a.sas = NULL;
  }
  xio_auth_account_clear(&a);
  return XIO_OK;
}

static xio_err from_object(const char *entry, const cJSON *obj, xio_auth_cred *c, xio_error *err) {
  const char *sas = member_string(obj, "sas");
  const char *account = member_string(obj, "account");
  const char *key = member_string(obj, "key");
  const char *connstr = member_string(obj, "connection_string");
  if (sas) return from_sas(entry, sas, c, err);
  if (account && key) return from_key(entry, account, key, c, err);
  if (connstr) return from_connstr(entry, connstr, c, err);
  return bad_entry(err, entry,
                   "expected a SAS string or an object with \"sas\", \"account\" and "
                   "\"key\", or \"connection_string\"");
}

/* Reads one member of the top-level object into `tmp`. */
static xio_err load_entry(xio_auth_credstore *tmp, const cJSON *item, xio_error *err) {
  const char *entry = item->string;
  xio_auth_cred c;
  memset(&c, 0, sizeof c);
  xio_err rc = cJSON_IsString(item)   ? from_sas(entry, item->valuestring, &c, err)
               : cJSON_IsObject(item) ? from_object(entry, item, &c, err)
                                      : bad_entry(err, entry, "must be a string or object");
  if (rc == XIO_OK) {
    xio_error e;
    xio_error_clear(&e);
    rc = xio_auth_credstore_add(tmp, entry, &c, &e);
    if (rc == XIO_EINVAL)
      rc = bad_entry(err, entry, "name is not an http(s) URL prefix");
    else if (rc != XIO_OK)
      rc = xio_error_set(err, rc, "%s", e.message);
  }
  xio_auth_cred_clear(&c);
  return rc;
}

static xio_err load_tree(xio_auth_credstore *s, const cJSON *root, xio_error *err) {
  if (!cJSON_IsObject(root))
    return xio_error_set(err, XIO_EPARSE, "credential file must hold a JSON object");
  xio_auth_credstore *tmp = xio_auth_credstore_new();
  if (!tmp) return xio_error_set(err, XIO_ENOMEM, "out of memory");
  xio_err rc = XIO_OK;
  for (const cJSON *item = root->child; item && rc == XIO_OK; item = item->next)
    rc = load_entry(tmp, item, err);
  if (rc == XIO_OK) rc = xio__auth_credstore_merge(s, tmp, err);
  xio_auth_credstore_free(tmp);
  return rc;
}

xio_err xio_auth_credstore_load_json(xio_auth_credstore *s, const char *json, xio_error *err) {
  const char *end = NULL;
  if (!s || !json) return xio_error_set(err, XIO_EINVAL, "missing argument");
  cJSON *root = cJSON_ParseWithOpts(json, &end, 1);
  xio_err rc;
  if (!root)
    rc = xio_error_set(err, XIO_EPARSE, "credential file is not valid JSON (at byte %zu)",
                       end && end >= json ? (size_t)(end - json) : (size_t)0);
  else
    rc = load_tree(s, root, err);
  wipe_json(root);
  cJSON_Delete(root);
  if (rc != XIO_OK) xio__auth_operation(err, "LoadCredentials");
  return rc;
}
