/*
 * uuid_test.c - xio_blob_new_uuid: well-formed version 4 UUIDs, no repeats, and still
 * unique ones when OpenSSL's generator fails (the kernel's takes over), including ids
 * made one after another into the same buffer.
 */
#define OPENSSL_SUPPRESS_DEPRECATED /* RAND_METHOD: the only way to make RAND_bytes fail */
#include <string.h>

#include <openssl/rand.h>

#include <xio/blob.h>

#include "test.h"

static void assert_uuid_v4(const char *id) {
  ASSERT_EQ(strlen(id), 36);
  for (int i = 0; i < 36; i++) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      ASSERT_EQ(id[i], '-');
      continue;
    }
    ASSERT((id[i] >= '0' && id[i] <= '9') || (id[i] >= 'a' && id[i] <= 'f'));
  }
  ASSERT_EQ(id[14], '4');              /* version */
  ASSERT(strchr("89ab", id[19]) != 0); /* RFC 4122 variant */
}

/* Makes `n` ids into one buffer (as a caller's stack slot would be reused) and checks
 * that each is well formed and none repeats. */
static void assert_unique_ids(int n) {
  static char seen[64][37];
  char id[37];
  xio_error e;
  ASSERT(n <= 64);
  for (int i = 0; i < n; i++) {
    ASSERT_OK(xio_blob_new_uuid(id, &e), &e);
    assert_uuid_v4(id);
    for (int j = 0; j < i; j++)
      ASSERT(strcmp(seen[j], id) != 0);
    memcpy(seen[i], id, sizeof id);
  }
}

TEST(uuid_well_formed_and_unique) { assert_unique_ids(64); }

static int failing_calls;

static int failing_bytes(unsigned char *buf, int num) {
  (void)buf;
  (void)num;
  failing_calls++;
  return 0;
}

static int failing_status(void) { return 0; }

TEST(uuid_unique_when_openssl_random_fails) {
  static const RAND_METHOD failing = {NULL, failing_bytes, NULL,
                                      NULL, failing_bytes, failing_status};
  const RAND_METHOD *old = RAND_get_rand_method();
  ASSERT_EQ(RAND_set_rand_method(&failing), 1);
  unsigned char probe[16];
  ASSERT(RAND_bytes(probe, sizeof probe) != 1); /* the generator really fails now */
  failing_calls = 0;
  assert_unique_ids(64);
  ASSERT_EQ(failing_calls, 64); /* every id asked OpenSSL first */
  RAND_set_rand_method(old);
}
