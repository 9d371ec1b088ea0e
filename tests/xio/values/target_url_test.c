/*
 * target_url_test.c - xio_target_url builds a blob's URL in the context's own account
 * from a container and a blob name: the connection string's endpoint (an emulator's
 * path-style one too) or AZURE_STORAGE_ACCOUNT's, the name percent-encoded, no
 * credential in it; bad names and a context without an account are refused with an
 * error that says what is wrong. No storage is touched.
 */
#include <string.h>

#include "test.h"
#include "xio/xio.h"

#define KEY                                                                                        \
  "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="

static xio_ctx *ctx_with(const char *conn) {
  xio_ctx_options o = xio_ctx_options_default();
  o.use_environment = 0;
  o.connection_string = conn;
  xio_ctx *ctx = NULL;
  xio_error e;
  ASSERT_OK(xio_ctx_new(&o, &ctx, &e), &e);
  return ctx;
}

TEST(target_url_uses_the_connection_strings_endpoint) {
  xio_ctx *ctx =
      ctx_with("DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=" KEY
               ";BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;");
  char url[256];
  xio_error e;
  ASSERT_OK(xio_target_url(ctx, "mssql01", "db/log 1.ldf", url, sizeof url, &e), &e);
  ASSERT_STR_EQ(url, "http://127.0.0.1:10000/devstoreaccount1/mssql01/db/log%201.ldf");
  ASSERT_NOT_CONTAINS(url, "Eby8");
  xio_ctx_free(ctx);
}

TEST(target_url_of_an_azure_account) {
  xio_ctx *ctx = ctx_with("DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=" KEY
                          ";EndpointSuffix=core.windows.net");
  char url[256];
  xio_error e;
  ASSERT_OK(xio_target_url(ctx, "data", "x.mdf", url, sizeof url, &e), &e);
  ASSERT_STR_EQ(url, "https://acct.blob.core.windows.net/data/x.mdf");
  xio_ctx_free(ctx);
}

TEST(target_url_refuses_bad_names_and_no_account) {
  xio_ctx *ctx = ctx_with("DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=" KEY
                          ";EndpointSuffix=core.windows.net");
  char url[64];
  xio_error e;
  ASSERT_ERR(xio_target_url(ctx, "Bad_Name", "x", url, sizeof url, &e), XIO_EINVAL, &e);
  ASSERT_CONTAINS(e.message, "container name 'Bad_Name'");
  ASSERT_ERR(xio_target_url(ctx, "a--b", "x", url, sizeof url, &e), XIO_EINVAL, &e);
  ASSERT_ERR(xio_target_url(ctx, "ok1", "", url, sizeof url, &e), XIO_EINVAL, &e);
  ASSERT_CONTAINS(e.message, "blob name");
  char tiny[20];
  ASSERT_ERR(xio_target_url(ctx, "data", "x.mdf", tiny, sizeof tiny, &e), XIO_ERANGE, &e);
  ASSERT_STR_EQ(tiny, "");
  xio_ctx_free(ctx);
  ctx = ctx_with(NULL);
  ASSERT_ERR(xio_target_url(ctx, "data", "x.mdf", url, sizeof url, &e), XIO_ENOCRED, &e);
  ASSERT_CONTAINS(e.message, "no storage account");
  xio_ctx_free(ctx);
}
