/*
 * target_url.c - the URL of a blob in the context's own account, built from a
 * container and a blob name, so that an engine names its files without parsing a
 * connection string. The account is the one the context's credentials name: the
 * connection string's blob endpoint (Azure or an emulator), else
 * AZURE_STORAGE_ACCOUNT's https endpoint. The URL carries no credential.
 */
#include <stdio.h>
#include <string.h>

#include "creds_int.h"
#include "ctx_int.h"

static int container_ok(const char *c) {
  size_t n = strlen(c);
  if (n < 3 || n > 63 || c[0] == '-' || c[n - 1] == '-') return 0;
  for (size_t i = 0; i < n; i++) {
    char ch = c[i];
    int ok = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-';
    if (!ok || (ch == '-' && c[i + 1] == '-')) return 0;
  }
  return 1;
}

static int unreserved(unsigned char ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
         ch == '-' || ch == '.' || ch == '_' || ch == '~' || ch == '/';
}

/* Appends `blob` percent-encoded (but '/') to out[*len..size); 0 when it did not fit. */
static int put_blob(char *out, size_t size, size_t *len, const char *blob) {
  static const char hex[] = "0123456789ABCDEF";
  for (const unsigned char *p = (const unsigned char *)blob; *p; p++) {
    size_t need = unreserved(*p) ? 1 : 3;
    if (*len + need >= size) return 0;
    if (need == 1) {
      out[(*len)++] = (char)*p;
    } else {
      out[(*len)++] = '%';
      out[(*len)++] = hex[*p >> 4];
      out[(*len)++] = hex[*p & 15];
    }
  }
  out[*len] = '\0';
  return 1;
}

/* The account's blob endpoint into `base`; 0 when the context names no account. */
static int account_endpoint(xio_ctx *ctx, char *base, size_t size) {
  xio__credsrc *s = ctx->creds.src;
  int ok = 0;
  pthread_mutex_lock(&s->mu);
  if (s->conn.blob_endpoint)
    ok = snprintf(base, size, "%s", s->conn.blob_endpoint) < (int)size;
  else if (s->env_account && *s->env_account)
    ok = snprintf(base, size, "https://%s.blob.core.windows.net", s->env_account) < (int)size;
  pthread_mutex_unlock(&s->mu);
  return ok;
}

xio_err xio_target_url(xio_ctx *ctx, const char *container, const char *blob, char *out,
                       size_t size, xio_error *err) {
  if (out && size) out[0] = '\0';
  if (!ctx || !container || !blob || !out || !size)
    return xio_error_set(err, XIO_EINVAL, "no context, container, blob name or buffer");
  if (!container_ok(container))
    return xio_error_set(err, XIO_EINVAL,
                         "container name '%s' is not valid: 3 to 63 lowercase letters, digits "
                         "and single dashes, starting and ending with a letter or digit",
                         container);
  if (!*blob || blob[0] == '/' || strlen(blob) > 1024)
    return xio_error_set(err, XIO_EINVAL,
                         "blob name must be 1 to 1024 characters and not start with '/'");
  char base[512];
  if (!account_endpoint(ctx, base, sizeof base))
    return xio_error_set(err, XIO_ENOCRED,
                         "the context names no storage account: give it a connection string "
                         "(option or AZURE_STORAGE_CONNECTION_STRING) or AZURE_STORAGE_ACCOUNT");
  int n = snprintf(out, size, "%s/%s/", base, container);
  size_t len = n > 0 ? (size_t)n : 0;
  if (n < 0 || len >= size || !put_blob(out, size, &len, blob)) {
    out[0] = '\0';
    return xio_error_set(err, XIO_ERANGE, "the URL of %s/%s does not fit in %zu bytes", container,
                         blob, size);
  }
  return XIO_OK;
}
