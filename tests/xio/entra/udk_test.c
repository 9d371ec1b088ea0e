/*
 * udk_test.c - user delegation SAS made by xio with an Entra ID token (Get User
 * Delegation Key) and checked by the emulator itself, with plain requests: it
 * allows exactly the permissions it names, refuses the rest, and refuses a token
 * whose permissions were edited after signing; the file API reads through it with
 * no other credential.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "efix.h"
#include "standin.h"
#include "test.h"

static xio_err callback(const char *scope, xio_auth_token *out, void *ud, xio_error *err) {
  (void)scope, (void)err;
  char tok[2048];
  ++*(int *)ud;
  standin_jwt(tok, sizeof tok, 3600);
  out->value = xio_strdup(tok);
  out->expires_on = time(NULL) + 3600;
  return XIO_OK;
}

static char *udk_sas(efix *f, const char *url, const char *perms) {
  xio_auth_sas_options o = xio_auth_sas_options_default();
  o.permissions = perms;
  o.expiry = time(NULL) + 600;
  char *tok = NULL;
  xio_error e;
  ASSERT_OK(xio_ctx_user_delegation_sas(f->ctx, url, &o, &tok, &e), &e);
  ASSERT_CONTAINS(tok, "skoid=" STANDIN_OID);
  ASSERT_CONTAINS(tok, "sktid=" STANDIN_TID);
  ASSERT_CONTAINS(tok, "sks=b");
  return tok;
}

static long with_sas(const char *method, const char *url, const char *query, const char *sas,
                     const char *const *headers, const void *body, size_t len) {
  char full[4096];
  snprintf(full, sizeof full, "%s?%s%s%s", url, query ? query : "", query ? "&" : "", sas);
  return efix_raw(method, full, headers, body, len, NULL, 0);
}

static const char *const put_page[] = {"x-ms-page-write: update", "x-ms-range: bytes=0-511", NULL};
static const char *const put_blob[] = {"x-ms-blob-type: PageBlob", "x-ms-blob-content-length: 512",
                                       NULL};

TEST(user_delegation_sas_allows_exactly_its_permissions) {
  standin_env_reset(0, NULL);
  int calls = 0;
  efix f;
  xio_error e;
  efix_name(&f);
  efix_setup(&f, NULL);
  ASSERT_OK(xio_ctx_set_token_callback(f.ctx, callback, &calls, &e), &e);
  char url[600], page[512];
  memset(page, 'A', sizeof page);
  efix_blob(&f, "udk.mdf", url, sizeof url);
  xio_open_options oo = xio_open_options_default();
  oo.flags = XIO_OPEN_CREATE;
  oo.size = 4096;
  xio_file *file;
  ASSERT_OK(xio_file_open(f.ctx, url, &oo, &file, &e), &e);
  ASSERT_OK(xio_file_write(file, 0, page, sizeof page, &e), &e);
  ASSERT_OK(xio_file_close(file, &e), &e);

  char *r = udk_sas(&f, url, "r");
  ASSERT_EQ(with_sas("GET", url, NULL, r, NULL, NULL, 0), 200);
  ASSERT_EQ(with_sas("PUT", url, "comp=page", r, put_page, page, sizeof page), 403);
  ASSERT_EQ(with_sas("DELETE", url, NULL, r, NULL, NULL, 0), 403);
  /* Permissions edited after signing: the signature no longer matches. */
  char *edited = xio_malloc(strlen(r) + 2);
  memcpy(edited, r, strlen(r) + 1);
  char *sp = strstr(edited, "sp=r&");
  ASSERT(sp != NULL);
  memmove(sp + 5, sp + 4, strlen(sp + 4) + 1);
  sp[4] = 'w';
  ASSERT_CONTAINS(edited, "sp=rw&");
  ASSERT_EQ(with_sas("PUT", url, "comp=page", edited, put_page, page, sizeof page), 403);

  char *rw = udk_sas(&f, url, "rw");
  ASSERT_EQ(with_sas("PUT", url, "comp=page", rw, put_page, page, sizeof page), 201);
  ASSERT_EQ(with_sas("DELETE", url, NULL, rw, NULL, NULL, 0), 403);

  /* A container SAS that may list and create, not read or delete. */
  char *lc = udk_sas(&f, f.container_url, "lc");
  ASSERT_EQ(with_sas("GET", f.container_url, "restype=container&comp=list", lc, NULL, NULL, 0),
            200);
  char other[600];
  efix_blob(&f, "made-by-sas.mdf", other, sizeof other);
  ASSERT_EQ(with_sas("PUT", other, NULL, lc, put_blob, NULL, 0), 201);
  ASSERT_EQ(with_sas("GET", url, NULL, lc, NULL, NULL, 0), 403);
  ASSERT_EQ(with_sas("DELETE", url, NULL, lc, NULL, NULL, 0), 403);
  efix_teardown(&f);

  /* The file API reads through the SAS alone: a context with no other credential. */
  standin_env_reset(0, NULL);
  efix_setup(&f, NULL); /* same container name */
  char sas_url[4096], back[512];
  snprintf(sas_url, sizeof sas_url, "%s?%s", url, r);
  xio_open_options ro = xio_open_options_default();
  ro.flags = XIO_OPEN_READONLY;
  ASSERT_OK(xio_file_open(f.ctx, sas_url, &ro, &file, &e), &e);
  size_t got = 0;
  ASSERT_OK(xio_file_read(file, 0, back, sizeof back, &got, &e), &e);
  ASSERT_MEM_EQ(back, page, sizeof page);
  ASSERT_ERR(xio_file_write(file, 0, page, sizeof page, &e), XIO_EREADONLY, &e);
  ASSERT_OK(xio_file_close(file, &e), &e);
  efix_teardown(&f);
  ASSERT_EQ(calls, 1);
  xio_free(r);
  xio_free(rw);
  xio_free(lc);
  xio_free(edited);
}
