/*
 * test_error.c - the reasons an error record carries beside its code: their numbers
 * stay as released (the list is append-only), each has a distinct name and text,
 * and the detail record keeps the reason it was given until a fresh record starts; a
 * record of a service answer without a message says so by its fields, not its words.
 */
#include <string.h>

#include <xio/error.h>
#include <xio/error_int.h>

#include "test.h"

/* The numbers released so far: a reason's number never changes. */
TEST(reason_numbers_are_append_only) {
  ASSERT_EQ(XIO_REASON_NONE, 0);
  ASSERT_EQ(XIO_REASON_RESOLVE, 1);
  ASSERT_EQ(XIO_REASON_CONNECT, 2);
  ASSERT_EQ(XIO_REASON_CONNECTION_LOST, 3);
  ASSERT_EQ(XIO_REASON_TLS_HANDSHAKE, 4);
  ASSERT_EQ(XIO_REASON_TLS_UNTRUSTED, 5);
  ASSERT_EQ(XIO_REASON_TLS_HOSTNAME, 6);
  ASSERT_EQ(XIO_REASON_TLS_EXPIRED, 7);
  ASSERT_EQ(XIO_REASON_CA_FILE, 8);
  ASSERT_EQ(XIO_REASON_HTTP_REMOTE, 9);
  ASSERT_EQ(XIO_REASON_TOKEN_OVER_HTTP, 10);
  ASSERT_EQ(XIO_REASON_CRED_FILE_EXPOSED, 11);
  ASSERT_EQ(XIO_REASON_NO_TOKEN_SOURCE, 12);
  ASSERT_EQ(XIO_REASON_TOKEN_SOURCES_FAILED, 13);
  ASSERT_EQ(XIO_REASON_NO_CREDENTIAL_SENT, 14);
  ASSERT_EQ(XIO_REASON_CONTAINER_NAME, 15);
  ASSERT_EQ(XIO_REASON_SPEAKS_HTTP, 16);
  ASSERT_EQ(XIO_REASON_SPEAKS_HTTPS, 17);
  ASSERT_EQ(XIO__REASON_COUNT, 18);
}

TEST(reason_names_and_texts) {
  ASSERT_STR_EQ(xio_reason_name(XIO_REASON_NONE), "XIO_REASON_NONE");
  ASSERT_STR_EQ(xio_reason_text(XIO_REASON_NONE), "");
  ASSERT_STR_EQ(xio_reason_name(XIO_REASON_TLS_HOSTNAME), "XIO_REASON_TLS_HOSTNAME");
  ASSERT_STR_EQ(xio_reason_text(XIO_REASON_TLS_HOSTNAME),
                "the server's certificate is not for this host name");
  ASSERT_STR_EQ(xio_reason_name(XIO__REASON_COUNT), "XIO_REASON_?");
  ASSERT_STR_EQ(xio_reason_name((xio_reason)-1), "XIO_REASON_?");
  ASSERT_STR_EQ(xio_reason_text(XIO__REASON_COUNT), "");
  for (int i = 1; i < XIO__REASON_COUNT; i++) {
    const char *name = xio_reason_name((xio_reason)i), *text = xio_reason_text((xio_reason)i);
    if (strncmp(name, "XIO_REASON_", 11) != 0 || !name[11] || strcmp(name, "XIO_REASON_?") == 0)
      FAIL("reason %d is named \"%s\"", i, name);
    if (!text[0]) FAIL("reason %d (%s) has no text", i, name);
    for (int j = 1; j < i; j++) {
      if (strcmp(name, xio_reason_name((xio_reason)j)) == 0) FAIL("two reasons named %s", name);
      if (strcmp(text, xio_reason_text((xio_reason)j)) == 0) FAIL("two reasons read \"%s\"", text);
    }
  }
}

TEST(reason_kept_until_a_fresh_record) {
  xio_error e;
  xio_error_clear(&e);
  ASSERT_EQ(e.reason, XIO_REASON_NONE);
  ASSERT_EQ(xio_error_set(&e, XIO_EPERM, "refused"), XIO_EPERM);
  xio_error_set_reason(&e, XIO_REASON_CRED_FILE_EXPOSED);
  xio_error_set_operation(&e, "LoadCredentials");
  ASSERT_EQ(e.reason, XIO_REASON_CRED_FILE_EXPOSED);
  xio_error_set(&e, XIO_EIO, "another failure");
  ASSERT_EQ(e.reason, XIO_REASON_NONE);
  xio_error_set_reason(NULL, XIO_REASON_CONNECT); /* no record: nothing happens */
}

TEST(message_that_only_repeats_the_status) {
  xio_error e;
  ASSERT_EQ(xio_error_set_status(&e, XIO_ENOTFOUND, 404, "BlobNotFound"), XIO_ENOTFOUND);
  ASSERT_EQ(e.http_status, 404);
  ASSERT_STR_EQ(e.service_code, "BlobNotFound");
  ASSERT_STR_EQ(e.message, "the service answered HTTP 404 BlobNotFound");
  ASSERT_EQ(xio_error_message_is_status(&e), 1);
  xio_error_set_status(&e, XIO_EHTTP, 302, NULL);
  ASSERT_STR_EQ(e.message, "the service answered HTTP 302");
  ASSERT_EQ(xio_error_message_is_status(&e), 1);
  e.http_status = 500; /* the words no longer those of the record's status */
  ASSERT_EQ(xio_error_message_is_status(&e), 0);
  xio_error_set(&e, XIO_ENOTFOUND, "The specified blob does not exist.");
  e.http_status = 404;
  ASSERT_EQ(xio_error_message_is_status(&e), 0);
  xio_error_clear(&e);
  ASSERT_EQ(xio_error_message_is_status(&e), 0);
  ASSERT_EQ(xio_error_message_is_status(NULL), 0);
  ASSERT_EQ(xio_error_set_status(NULL, XIO_EBUSY, 409, "LeaseIdMissing"), XIO_EBUSY);
}
