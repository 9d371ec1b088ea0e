/*
 * test_account_url.c - which URLs a credential known only by its account name
 * (AZURE_STORAGE_ACCOUNT) may go to: the account's Azure endpoint and its path-style
 * emulator URLs on loopback, never a host that only begins with the name; and which
 * URLs lie under a connection string's blob endpoint.
 */
#include <stdlib.h>

#include "auth_test.h"

static int of_account(const char *url, const char *account) {
  xio_auth_url u;
  xio_error e;
  xio_error_clear(&e);
  ASSERT_OK(xio_auth_url_parse(url, &u, &e), &e);
  int own = xio_auth_url_of_account(&u, account);
  xio_auth_url_clear(&u);
  return own;
}

TEST(account_own_urls) {
  const char *const own[] = {
      "https://acct.blob.core.windows.net/c01/b.mdf",
      "https://acct.blob.core.windows.net",
      "https://ACCT.Blob.Core.Windows.Net:443/c01/b.mdf",
      "http://acct.blob.core.windows.net/c01/b.mdf",
      "http://127.0.0.1:10000/acct/c01/b.mdf",
      "http://127.8.9.10:41000/acct/c01",
      "http://localhost:10000/acct/c01/b.mdf",
      "https://localhost/acct/c01/b.mdf",
      "http://[::1]:10000/acct/c01/b.mdf",
  };
  for (size_t i = 0; i < sizeof own / sizeof *own; i++)
    if (!of_account(own[i], "acct")) FAIL("%s is acct's own, but was not taken so", own[i]);
  ASSERT(of_account("https://acct.blob.core.windows.net/c01/b", "ACCT"));
}

TEST(account_look_alikes_are_not_its_own) {
  const char *const other[] = {
      "https://acct.evil.test/c01/b.mdf",
      "http://acct.evil.test/c01/b.mdf",
      "https://acct.localhost:10000/c01/b.mdf",
      "https://acct.blob.core.windows.net.evil.test/c01/b.mdf",
      "https://acct.blob.core.windows.netx/c01/b.mdf",
      "https://acct.file.core.windows.net/c01/b.mdf",
      "https://acct2.blob.core.windows.net/c01/b.mdf",
      "https://acc.blob.core.windows.net/c01/b.mdf",
      "https://evil.test/acct/c01/b.mdf",
      "https://acct.blob.core.chinacloudapi.cn/c01/b.mdf",
      "http://10.0.0.5:10000/acct/c01/b.mdf",
      "http://devbox:10000/acct/c01/b.mdf",
      "http://127.0.0.1:10000/acct2/c01/b.mdf",
      "http://127.0.0.1:10000/other/acct/b.mdf",
  };
  for (size_t i = 0; i < sizeof other / sizeof *other; i++)
    if (of_account(other[i], "acct")) FAIL("%s was taken for acct's own", other[i]);
  ASSERT(!of_account("https://acct.blob.core.windows.net/c01/b", ""));
  ASSERT(!of_account("https://acct.blob.core.windows.net/c01/b", NULL));
  ASSERT(!xio_auth_url_of_account(NULL, "acct"));
}

TEST(connection_string_serves_its_endpoint) {
  xio_auth_account a;
  xio_error e;
  xio_error_clear(&e);
  ASSERT_OK(xio_auth_connstr_parse("AccountName=acct;AccountKey=" XIO_AUTH_DEV_KEY, &a, &e), &e);
  ASSERT(xio_auth_account_serves(&a, "https://acct.blob.core.windows.net/c01/b"));
  ASSERT(xio_auth_account_serves(&a, "https://acct.blob.core.windows.net?comp=list"));
  ASSERT(xio_auth_account_serves(&a, "https://acct.blob.core.windows.net"));
  ASSERT(!xio_auth_account_serves(&a, "https://acct.blob.core.windows.net.evil.test/c01/b"));
  ASSERT(!xio_auth_account_serves(&a, "https://acct.evil.test/c01/b"));
  ASSERT(!xio_auth_account_serves(&a, "http://acct.blob.core.windows.net/c01/b"));
  ASSERT(!xio_auth_account_serves(&a, NULL));
  ASSERT(!xio_auth_account_serves(NULL, "https://acct.blob.core.windows.net/c01/b"));
  xio_auth_account_clear(&a);
  ASSERT_OK(xio_auth_connstr_parse("UseDevelopmentStorage=true", &a, &e), &e);
  ASSERT(xio_auth_account_serves(&a, "http://127.0.0.1:10000/devstoreaccount1/c01/b"));
  ASSERT(!xio_auth_account_serves(&a, "http://127.0.0.1:10000/devstoreaccount1x/c01/b"));
  ASSERT(!xio_auth_account_serves(&a, "http://127.0.0.1:10001/devstoreaccount1/c01/b"));
  xio_auth_account_clear(&a);
}
