/*
 * credfile.c - fuzz target: the credential file (xio_auth_credstore_load_json).
 * The input is loaded into a store that already holds one credential. Properties: a
 * file loads whole or not at all (after a failure the old credential is still there
 * and nothing else is; after success every entry's prefix finds a credential with a
 * secret); no key, SAS signature or connection-string secret shows in the message.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <xio/auth.h>

#include "fuzz.h"

#define KEEP_URL "http://127.0.0.1:10000/devstoreaccount1/keep"
#define KEEP_SAS "sv=2020-12-06&sp=r&sig=keep"

/* The secrets inside a SAS (split at '&') and inside a connection string. */
static const char *const sas_secrets[] = {"sig", NULL};
static const char *const connstr_secrets[] = {"sig", "AccountKey", "SharedAccessSignature", NULL};

/* The texts a message may quote: every member name and account value, '\n'-joined. */
static void quotable(const cJSON *node, char **buf, size_t *len) {
  for (; node; node = node->next) {
    const char *parts[2] = {node->string, NULL};
    if (node->string && strcmp(node->string, "account") == 0 && cJSON_IsString(node))
      parts[1] = node->valuestring;
    for (int i = 0; i < 2; i++) {
      if (!parts[i]) continue;
      size_t n = strlen(parts[i]);
      char *b = realloc(*buf, *len + n + 2);
      if (!b) abort();
      memcpy(b + *len, parts[i], n);
      *len += n;
      b[(*len)++] = '\n';
      b[*len] = '\0';
      *buf = b;
    }
    quotable(node->child, buf, len);
  }
}

/* Looks for every secret string of the tree in `msg`. */
static void no_secret(const cJSON *node, const char *msg, const char *names) {
  for (; node; node = node->next) {
    if (cJSON_IsString(node) && node->valuestring) {
      const char *v = node->valuestring;
      int key = node->string && strcmp(node->string, "key") == 0;
      /* The whole value of "key", and the secret parameters inside any string
       * (a SAS, a connection string). */
      if (key && strlen(v) >= 8 && !xio__fuzz_contains(names, v, strlen(v)) &&
          strspn(v, "0123456789+/=") > 0)
        FUZZ_CHECK(!xio__fuzz_contains(msg, v, strlen(v)));
      if (node->string && strcmp(node->string, "connection_string") == 0)
        xio__fuzz_no_secret(v, connstr_secrets, "?&;", msg, names);
      else
        xio__fuzz_no_secret(v, sas_secrets, "?&", msg, names);
    }
    no_secret(node->child, msg, names);
  }
}

static xio_auth_credstore *store_with_one(void) {
  xio_auth_credstore *s = xio_auth_credstore_new();
  xio_auth_cred keep = {.kind = XIO_AUTH_CRED_SAS, .sas = KEEP_SAS};
  if (!s || xio_auth_credstore_add(s, KEEP_URL, &keep, NULL) != XIO_OK) abort();
  return s;
}

static void check_loaded(const xio_auth_credstore *s, const cJSON *root) {
  for (const cJSON *m = root ? root->child : NULL; m; m = m->next) {
    xio_auth_cred c;
    FUZZ_CHECK(xio_auth_credstore_lookup(s, m->string, &c, NULL) == XIO_OK);
    FUZZ_CHECK((c.kind == XIO_AUTH_CRED_SAS && c.sas) ||
               (c.kind == XIO_AUTH_CRED_SHARED_KEY && c.account && c.key && c.key_len));
    xio_auth_cred_clear(&c);
  }
}

static void check_unchanged(const xio_auth_credstore *s) {
  xio_auth_cred c;
  FUZZ_CHECK(xio_auth_credstore_lookup(s, KEEP_URL "/blob", &c, NULL) == XIO_OK);
  FUZZ_CHECK(c.kind == XIO_AUTH_CRED_SAS && strcmp(c.sas, KEEP_SAS) == 0);
  xio_auth_cred_clear(&c);
  FUZZ_CHECK(xio_auth_credstore_lookup(s, "http://127.0.0.1:10000/devstoreaccount1/x", &c, NULL) ==
             XIO_ENOCRED);
  xio_auth_cred_clear(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = xio__fuzz_text(data, size);
  xio_auth_credstore *s = store_with_one();
  xio_error err;
  xio_error_clear(&err);
  xio_err rc = xio_auth_credstore_load_json(s, text, &err);
  cJSON *root = cJSON_Parse(text);
  if (rc == XIO_OK) {
    check_loaded(s, root);
  } else {
    char *names = NULL;
    size_t len = 0;
    FUZZ_CHECK(rc == XIO_EPARSE || rc == XIO_ENOMEM);
    FUZZ_CHECK(err.code == rc && err.message[0]);
    check_unchanged(s);
    quotable(root, &names, &len);
    no_secret(root, err.message, names ? names : "");
    free(names);
  }
  cJSON_Delete(root);
  xio_auth_credstore_free(s);
  free(text);
  return 0;
}
