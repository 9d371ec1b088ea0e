/*
 * secret_check_test.c - the fuzz targets' "no secret in the output" check
 * (xio__fuzz_no_secret, xio__fuzz_leaked in util.c) still fires on a real leak (a
 * sig or an AccountKey printed verbatim) and stays quiet on the outputs that once
 * set it off without leaking anything.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <xio/auth.h>
#include <xio/url_int.h>

#include "fuzz.h"
#include "test.h"

static const char *const sig_names[] = {"sig", NULL};
static const char *const key_names[] = {"sig", "AccountKey", NULL};

/* Azurite's public development key. */
#define DEV_KEY                                                                                    \
  "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="

/* Runs xio__fuzz_no_secret in a child (it aborts on a leak, its report to stderr is
 * dropped: it quotes the value); returns 1 when the check fired. */
static int fires(const char *text, const char *const *names, const char *seps, const char *out,
                 const char *except) {
  pid_t pid = fork();
  ASSERT(pid >= 0);
  if (pid == 0) {
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0) dup2(null, 2);
    xio__fuzz_no_secret(text, names, seps, out, except);
    _exit(0);
  }
  int st = 0;
  ASSERT(waitpid(pid, &st, 0) == pid);
  ASSERT((WIFEXITED(st) && WEXITSTATUS(st) == 0) || (WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT));
  return WIFSIGNALED(st);
}

TEST(secret_check_fires_on_a_verbatim_sig) {
  const char *url = "https://a.blob.core.windows.net/c/b?sv=2020-12-06&sig=Zm9vYmFy1234%2Bab%3D";
  /* A redactor that changes nothing, and a message quoting the whole query. */
  ASSERT(fires(url, sig_names, "?&", url, NULL));
  ASSERT(fires(url, sig_names, "?&", "bad query 'sig=Zm9vYmFy1234%2Bab%3D'", NULL));
  /* Right after a "://" the value is still seen (only text across one is not). */
  ASSERT(fires("?sig=Zm9vYmFy1234", sig_names, "?&", "http://Zm9vYmFy1234/", NULL));
  /* The real redactor hides it. */
  char *r = xio_auth_redact(url);
  ASSERT(r != NULL);
  ASSERT(!fires(url, sig_names, "?&", r, NULL));
  free(r);
}

TEST(secret_check_fires_on_a_verbatim_account_key) {
  const char *cs = "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;"
                   "AccountKey=" DEV_KEY ";BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1";
  ASSERT(fires(cs, key_names, "?&;", cs, NULL));
  ASSERT(fires(cs, key_names, "?&;", "key " DEV_KEY " is not valid", NULL));
  /* The key check of the credential file target. */
  ASSERT(xio__fuzz_leaked("key " DEV_KEY " is not valid", DEV_KEY, strlen(DEV_KEY), "account1"));
  ASSERT(!xio__fuzz_leaked("key is not base64", DEV_KEY, strlen(DEV_KEY), "account1"));
  char *r = xio_auth_redact(cs);
  ASSERT(r != NULL);
  ASSERT(!fires(cs, key_names, "?&;", r, NULL));
  free(r);
}

TEST(secret_check_ignores_text_glued_after_a_dropped_user) {
  /* Redacted twice, the sig's '/' no longer ends the user information, which is
   * dropped: "://" then the text after the '@' spell the sig value. */
  const char *text = "0=0pp6://KT0Z&sig=/ZFM=00\xa1g&si0@ZFM=00\xa1g";
  char *r = xio_auth_redact(text), *again = r ? xio_auth_redact(r) : NULL;
  ASSERT(again != NULL);
  ASSERT_STR_EQ(again, "0=0pp6://ZFM=00\xa1g");
  ASSERT(!fires(text, sig_names, "?&;", r, NULL));
  ASSERT(!fires(text, sig_names, "?&;", again, NULL));
  free(again);
  free(r);
}

TEST(secret_check_ignores_a_scheme_slash_glued_to_a_host) {
  /* A refused URL is named without its user information: the last '/' of "://"
   * and the host after it spell the sig. */
  const char *text = "ab://u@cdefgh12&sig=/cdefgh12";
  xio_auth_url u;
  xio_error e;
  xio_error_clear(&e);
  ASSERT_EQ(xio_auth_url_parse(text, &u, &e), XIO_EPARSE);
  ASSERT_STR_EQ(e.target, "ab://cdefgh12");
  ASSERT(!fires(text, sig_names, "?&", e.target, NULL));
}

TEST(secret_check_ignores_a_quoted_decoded_lowercased_name) {
  /* The SAS parser names a parameter with a bad escape in its value by its name,
   * lowercased and decoded: here that spells the sig. */
  const char *text = "sv=2020-12-06&sig=abcdefg1&ABCDEFG%31=%zz";
  xio_auth_sas sas;
  xio_error e;
  xio_error_clear(&e);
  ASSERT_EQ(xio_auth_sas_parse(text, &sas, &e), XIO_EPARSE);
  ASSERT_CONTAINS(e.message, "'abcdefg1'");
  ASSERT(!fires(text, sig_names, "&", e.message, NULL));
  /* The same message for a token where nothing else spells the sig. */
  ASSERT(fires("sv=2020-12-06&sig=abcdefg1&x=%zz", sig_names, "&", e.message, NULL));
  /* Text another string of the input holds (`except`) may be quoted too. */
  ASSERT(!xio__fuzz_leaked("entry \"http://h/Ab12345678\"", "ab12345678", 10,
                           "http://h/AB%312345678"));
}
