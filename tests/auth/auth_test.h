/*
 * auth_test.h - fixtures shared by the auth unit tests: the dev key decoded, the
 * fixed times of the Shared Key and SAS reference vectors.
 */
#ifndef XIO_AUTH_TEST_H
#define XIO_AUTH_TEST_H

#include <xio/auth.h>
#include <xio/url_int.h>

#include "test.h"

#define T_2024      ((time_t)1704067200) /* 2024-01-01T00:00:00Z */
#define T_2099      ((time_t)4070908800) /* 2099-01-01T00:00:00Z */
#define VECTOR_DATE "Mon, 01 Jan 2024 00:00:00 GMT"

/* The dev key decoded; free with xio_auth_secret_free(key, len). */
static inline unsigned char *dev_key(size_t *len) {
  unsigned char *key = NULL;
  xio_error e;
  xio_error_clear(&e);
  ASSERT_OK(xio_auth_base64_decode(XIO_AUTH_DEV_KEY, &key, len, &e), &e);
  ASSERT_EQ(*len, 64);
  return key;
}

#endif
