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

/* The secrets inside a SAS (parameters split at '&') and a connection string. */
static const char *const sas_secrets[] = {"sig", NULL};
static const char *const connstr_secrets[] = {"sig", "AccountKey", "SharedAccessSignature", NULL};

/* The strings of a file: every member name and string value, in tree order. */
typedef struct strings {
  const char *v[512];
  int value[512]; /* 1 for a string value, 0 for a name */
  size_t n;
} strings;

static void collect(const cJSON *node, strings *s) {
  for (; node && s->n < 512; node = node->next) {
    if (node->string && s->n < 512) s->value[s->n] = 0, s->v[s->n++] = node->string;
    if (cJSON_IsString(node) && node->valuestring && s->n < 512)
      s->value[s->n] = 1, s->v[s->n++] = node->valuestring;
    collect(node->child, s);
  }
}

/* Every string but the i-th, '\n'-joined, malloc'd: what a message may quote for
 * some other reason than the i-th value (a name, an account, another entry's SAS). */
static char *all_but(const strings *s, size_t skip) {
  size_t len = 1;
  for (size_t i = 0; i < s->n; i++)
    len += strlen(s->v[i]) + 1;
  char *b = malloc(len), *p = b;
  if (!b) abort();
  for (size_t i = 0; i < s->n; i++) {
    if (i == skip) continue;
    size_t n = strlen(s->v[i]);
    memcpy(p, s->v[i], n);
    p += n;
    *p++ = '\n';
  }
  *p = '\0';
  return b;
}

/* The member a string value belongs to, or NULL. */
static const cJSON *member_of(const cJSON *node, const char *value) {
  for (; node; node = node->next) {
    if (cJSON_IsString(node) && node->valuestring == value) return node;
    const cJSON *m = member_of(node->child, value);
    if (m) return m;
  }
  return NULL;
}

#define BASE64 "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="

/* 1 when a "key" value v[0..n) could be an account key: at least 8 base64
 * characters with a digit, '+' or '/'. Other text (words, spaces) may be spelled by
 * a message template and the numbers it prints ("not valid JSON (at byte 14)"). */
static int key_like(const char *v, size_t n) {
  return n >= 8 && strspn(v, BASE64) == n && strpbrk(v, "0123456789+/");
}

/* Looks for every secret of the file in `msg`: the whole value of a "key", and
 * the secret parameters of a SAS or connection string. */
static void no_secret(const cJSON *root, const char *msg) {
  strings s = {.n = 0};
  collect(root, &s);
  for (size_t i = 0; i < s.n; i++) {
    if (!s.value[i]) continue;
    const char *v = s.v[i];
    const cJSON *m = member_of(root, v);
    const char *name = m && m->string ? m->string : "";
    char *except = all_but(&s, i);
    size_t n = strlen(v);
    if (strcmp(name, "key") == 0 && key_like(v, n))
      FUZZ_CHECK(!xio__fuzz_leaked(msg, v, n, except));
    if (strcmp(name, "connection_string") == 0)
      xio__fuzz_no_secret(v, connstr_secrets, "?&;", msg, except);
    else if (strcmp(name, "account") != 0)
      xio__fuzz_no_secret(v + (v[0] == '?'), sas_secrets, "&", msg, except);
    free(except);
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
    FUZZ_CHECK(rc == XIO_EPARSE || rc == XIO_ENOMEM);
    FUZZ_CHECK(err.code == rc && err.message[0]);
    check_unchanged(s);
    no_secret(root, err.message);
  }
  cJSON_Delete(root);
  xio_auth_credstore_free(s);
  free(text);
  return 0;
}
