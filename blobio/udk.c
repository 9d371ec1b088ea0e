/*
 * udk.c - Get User Delegation Key (POST /?restype=service&comp=userdelegationkey):
 * the builder, which writes the <KeyInfo> body and owns it, and the reader of the
 * key in the answer. The call must be made with an Entra ID token (a target with a
 * credential source that gives bearer tokens); the key it returns is a secret.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xio/alloc.h>
#include <xio/entra.h>

#include "call_int.h"
#include "xml_int.h"

xio_err xio_blob_call_user_delegation_key(const xio_blob_target *t, time_t start, time_t expiry,
                                          xio_blob_call **out, xio_error *err) {
  *out = NULL;
  char st[21], se[21];
  if (!t) return xio_error_set(err, XIO_EINVAL, "GetUserDelegationKey: no target");
  if (!expiry || (start && start >= expiry))
    return xio_error_set(err, XIO_EINVAL, "GetUserDelegationKey: the expiry must follow the start");
  xio_blob_call *c;
  xio_err rc = xio__blob_call_new(t, "GetUserDelegationKey", "POST",
                                  "restype=service&comp=userdelegationkey", &c, err);
  if (rc != XIO_OK) return rc;
  size_t n = 160;
  c->owned_path = xio__blob_target_account_path(t);
  if (!c->owned_path || !(c->owned_body = xio_malloc(n))) {
    xio_blob_call_free(c);
    return xio_error_set(err, XIO_ENOMEM, "out of memory building GetUserDelegationKey");
  }
  xio_auth_format_iso8601(expiry, se);
  if (start) xio_auth_format_iso8601(start, st);
  int len = snprintf(c->owned_body, n,
                     "<?xml version=\"1.0\" encoding=\"utf-8\"?><KeyInfo>%s%s%s<Expiry>%s</Expiry>"
                     "</KeyInfo>",
                     start ? "<Start>" : "", start ? st : "", start ? "</Start>" : "", se);
  c->body = c->owned_body;
  c->body_len = (size_t)len;
  c->service_level = 1;
  c->retryable = 1;
  xio__blob_call_header(c, "Content-Type", "application/xml", &rc);
  if (rc != XIO_OK) {
    xio_blob_call_free(c);
    return xio_error_set(err, rc, "out of memory building GetUserDelegationKey");
  }
  *out = c;
  return XIO_OK;
}

xio_err xio_blob_call_udk(const xio_blob_call *c, xio_auth_udk *out, xio_error *err) {
  memset(out, 0, sizeof *out);
  if (c->result != XIO_OK) return xio_blob_call_result(c, err);
  xio_err rc = xio__blob_xml_udk(c->resp_body, c->resp_len, out, err);
  if (rc != XIO_OK) xio_error_set_operation(err, "GetUserDelegationKey");
  return rc;
}
