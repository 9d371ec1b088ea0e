/*
 * wire_test.c - what reaches the wire is what xio named and signed, checked on the
 * fault proxy, which records each request's path as sent and whether it carried an
 * Authorization header: a request path is sent as it is (libcurl is told not to
 * resolve dot segments, so the path signed is the path sent, even for a path that
 * did not come through the URL parser); AZURE_STORAGE_ACCOUNT's key and SAS go to
 * the account's own URLs only, never to a host that merely begins with its name
 * (devstoreaccount1.localhost reaches the proxy on loopback, as libcurl resolves
 * every *.localhost name there), and `xio sas` signs no SAS for such a host.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xio/blob.h>

#include "badinput.h"
#include "call_int.h"
#include "clirun.h"
#include "faultproxy.h"
#include "test.h"
#include "util.h"

/* The proxy's last record (fails when it saw nothing since `before`). */
static faultproxy_record last_record(faultproxy *p, int before) {
  faultproxy_record rec;
  int n = faultproxy_count(p);
  if (n <= before) FAIL("the proxy saw no request");
  if (faultproxy_record_get(p, n - 1, &rec) != 0) FAIL("no record %d", n - 1);
  return rec;
}

TEST(wire_path_sent_as_signed) {
  faultproxy *p = bi_proxy();
  char url[512];
  snprintf(url, sizeof url, "%s/devstoreaccount1/wire/b.mdf", faultproxy_endpoint(p));
  unsigned char *key;
  size_t key_len;
  xio_error e;
  ASSERT_OK(xio_auth_base64_decode(XIO_AUTH_DEV_KEY, &key, &key_len, &e), &e);
  xio_auth_cred cred = {.kind = XIO_AUTH_CRED_SHARED_KEY,
                        .account = (char *)XIO_AUTH_DEV_ACCOUNT,
                        .key = key,
                        .key_len = key_len};
  xio_blob_target *t;
  ASSERT_OK(xio_blob_target_new(url, &cred, &t, &e), &e);
  xio_auth_secret_free(key, key_len);
  xio_blob_engine *eng;
  ASSERT_OK(xio_blob_engine_new(NULL, &eng, &e), &e);
  /* A call whose path holds dot segments, as no parsed URL can: it must be sent,
   * and signed, exactly so. */
  xio_blob_call *c;
  ASSERT_OK(xio_blob_call_get_properties(t, NULL, &c, &e), &e);
  c->service_level = 1;
  c->owned_path = strdup("/devstoreaccount1/wire/a/../b.mdf");
  int before = faultproxy_count(p);
  xio_blob_send(eng, c, &e); /* the service's answer does not matter here */
  faultproxy_record rec = last_record(p, before);
  ASSERT_STR_EQ(rec.target, "/devstoreaccount1/wire/a/../b.mdf");
  ASSERT(rec.has_auth);
  xio_blob_call_free(c);
  xio_blob_engine_free(eng);
  xio_blob_target_free(t);
}

/* The fixture container's URL at host devstoreaccount1.localhost on the proxy's port
 * (virtual-host style: it names account devstoreaccount1 as its first label, like
 * devstoreaccount1.evil.example would), with `blob`. */
static void look_alike_url(const char *blob, char *out, size_t size) {
  char cont[512];
  bi_expand("@C", cont, sizeof cont);
  const char *port = strrchr(faultproxy_endpoint(bi_proxy()), ':');
  snprintf(out, size, "http://devstoreaccount1.localhost%s%s/%s", port, strrchr(cont, '/'), blob);
}

/* The number of requests the proxy saw from `before` on that carried an
 * Authorization header or a "sig=" in their query; fails when it saw none at all. */
static int signed_since(faultproxy *p, int before) {
  int n = faultproxy_count(p), found = 0;
  if (n <= before) FAIL("the proxy saw no request");
  for (int i = before; i < n; i++) {
    faultproxy_record rec;
    if (faultproxy_record_get(p, i, &rec) != 0) FAIL("no record %d", i);
    found += rec.has_auth || strstr(rec.target, "sig=") != NULL;
  }
  return found;
}

TEST(wire_env_key_only_to_its_own_account) {
  bi_setup();
  faultproxy *p = bi_proxy();
  char own[600], alike[600];
  const char *env[] = {"AZURE_STORAGE_ACCOUNT=devstoreaccount1",
                       "AZURE_STORAGE_KEY=" XIO_AUTH_DEV_KEY, NULL};
  clirun r = {0};
  /* The account's own emulator URL is signed with the key. */
  bi_expand("@X/data.mdf", own, sizeof own);
  int before = faultproxy_count(p);
  XIO_ENV(&r, CLIRUN_NO_CREDS, env, "stat", own);
  EXPECT_EXIT(&r, 0);
  ASSERT(signed_since(p, before) > 0);
  /* A host that only begins with the account's name gets no signature. */
  look_alike_url("data.mdf", alike, sizeof alike);
  before = faultproxy_count(p);
  XIO_ENV(&r, CLIRUN_NO_CREDS, env, "--allow-insecure-http", "stat", alike);
  ASSERT_EQ(signed_since(p, before), 0);
  clirun_free(&r);
}

TEST(wire_env_sas_only_to_its_own_account) {
  bi_setup();
  faultproxy *p = bi_proxy();
  char alike[600], sas[2048];
  bi_expand("AZURE_STORAGE_SAS_TOKEN=@S", sas, sizeof sas);
  const char *env[] = {"AZURE_STORAGE_ACCOUNT=devstoreaccount1", sas, NULL};
  clirun r = {0};
  look_alike_url("data.mdf", alike, sizeof alike);
  int before = faultproxy_count(p);
  XIO_ENV(&r, CLIRUN_NO_CREDS, env, "--allow-insecure-http", "stat", alike);
  ASSERT_EQ(signed_since(p, before), 0);
  clirun_free(&r);
}

TEST(wire_sas_command_signs_nothing_for_a_look_alike) {
  const char *env[] = {"AZURE_STORAGE_ACCOUNT=devstoreaccount1",
                       "AZURE_STORAGE_KEY=" XIO_AUTH_DEV_KEY, NULL};
  clirun r = {0};
  XIO_ENV(&r, CLIRUN_NO_CREDS, env, "sas", "https://devstoreaccount1.evil.test/cont/b.mdf",
          "--permissions", "rw", "--expiry", "1h");
  EXPECT_EXIT(&r, 1);
  ASSERT_STR_EQ(r.out, "");
  ASSERT_CONTAINS(r.err, "none was found");
  /* The account's own URL still gets one. */
  XIO_ENV(&r, CLIRUN_NO_CREDS | CLIRUN_SECRET_STDOUT, env, "sas",
          "https://devstoreaccount1.blob.core.windows.net/cont/b.mdf", "--permissions", "rw",
          "--expiry", "1h");
  EXPECT_EXIT(&r, 0);
  ASSERT_CONTAINS(r.out, "sig=");
  clirun_free(&r);
}
