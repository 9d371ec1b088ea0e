/*
 * hmac.c - HMAC-SHA256 with base64 output: the signature of Shared Key and SAS.
 * Part of libxio_auth's credentials and signing (auth/cred/).
 */
#include <limits.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "cred_int.h"

xio_err xio_auth_hmac_sha256_base64(const unsigned char *key, size_t key_len, const void *msg,
                                    size_t msg_len, char out[45]) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int md_len = 0;
  if (out) out[0] = '\0';
  if (!key || key_len == 0 || key_len > INT_MAX || !out || (!msg && msg_len)) return XIO_EINVAL;
  static const unsigned char empty[1] = {0};
  if (!HMAC(EVP_sha256(), key, (int)key_len, msg ? msg : empty, msg_len, md, &md_len) ||
      md_len != 32)
    return XIO_EINVAL;
  xio_auth_base64_encode(md, md_len, out);
  OPENSSL_cleanse(md, sizeof md);
  return XIO_OK;
}
