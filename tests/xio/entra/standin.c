/*
 * standin.c - the token stand-ins of the Entra ID tests (see standin.h).
 */
#define _GNU_SOURCE
#include "standin.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <openssl/ssl.h>

#include "scratch.h"
#include "test.h"

static atomic_int jwt_serial;

/* base64url without padding. */
static void b64url(const char *in, char *out, size_t size) {
  static const char tbl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  size_t n = strlen(in), o = 0;
  for (size_t i = 0; i < n && o + 5 < size; i += 3) {
    unsigned v = (unsigned char)in[i] << 16;
    if (i + 1 < n) v |= (unsigned char)in[i + 1] << 8;
    if (i + 2 < n) v |= (unsigned char)in[i + 2];
    out[o++] = tbl[(v >> 18) & 63];
    out[o++] = tbl[(v >> 12) & 63];
    if (i + 1 < n) out[o++] = tbl[(v >> 6) & 63];
    if (i + 2 < n) out[o++] = tbl[v & 63];
  }
  out[o] = '\0';
}

void standin_jwt(char *out, size_t size, int lifetime_s) {
  standin_jwt_for(out, size, lifetime_s, "https://storage.azure.com");
}

void standin_jwt_for(char *out, size_t size, int lifetime_s, const char *audience) {
  char payload[512], h[128], p[768];
  long now = (long)time(NULL);
  snprintf(payload, sizeof payload,
           "{\"aud\":\"%s\",\"iss\":\"https://sts.windows.net/%s/\","
           "\"iat\":%ld,\"nbf\":%ld,\"exp\":%ld,\"oid\":\"%s\",\"tid\":\"%s\",\"jti\":\"%d-%d\"}",
           audience, STANDIN_TID, now - 1, now - 1, now + lifetime_s, STANDIN_OID, STANDIN_TID,
           (int)getpid(), atomic_fetch_add(&jwt_serial, 1));
  b64url("{\"typ\":\"JWT\",\"alg\":\"RS256\"}", h, sizeof h);
  b64url(payload, p, sizeof p);
  snprintf(out, size, "%s.%s.c3RhbmQtaW4", h, p);
}

int standin_has_token(const char *text) { return text && strstr(text, "eyJ") != NULL; }

/* ------------------------------------------------------------ server ---- */

static int has_header(const char *req, const char *line) { return strcasestr(req, line) != NULL; }

/* Checks the request as the real endpoint would. */
static int well_formed(const standin_idserver *s, const char *req, const char *query) {
  if (s->imds)
    return has_header(req, "\r\nMetadata: true\r\n") && strstr(query, "api-version=2018-02-01");
  return has_header(req, "\r\nX-IDENTITY-HEADER: " STANDIN_HEADER_SECRET "\r\n") &&
         strstr(query, "api-version=2019-08-01");
}

/* One accepted connection: its socket and, over https, its TLS session. */
typedef struct conn {
  int fd;
  SSL *ssl;
} conn;

static ssize_t conn_read(conn *c, char *buf, size_t n) {
  return c->ssl ? SSL_read(c->ssl, buf, (int)n) : read(c->fd, buf, n);
}

static int conn_write(conn *c, const char *buf, size_t n) {
  if (c->ssl) return SSL_write(c->ssl, buf, (int)n) == (int)n;
  return send(c->fd, buf, n, MSG_NOSIGNAL) == (ssize_t)n; /* the client may be gone */
}

static void answer(conn *c, int status, const char *body) {
  char head[256];
  int n = snprintf(head, sizeof head,
                   "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n"
                   "Connection: close\r\n\r\n",
                   status, status == 200 ? "OK" : "Error", strlen(body));
  if (!conn_write(c, head, (size_t)n) || !conn_write(c, body, strlen(body))) return;
}

/* 1 when this request is one of those to answer 500 (counting it down). */
static int take_failure(standin_idserver *s) {
  int left = atomic_load(&s->fail);
  while (left > 0 && !atomic_compare_exchange_weak(&s->fail, &left, left - 1)) {
  }
  return left > 0;
}

static void serve_one(standin_idserver *s, conn *c) {
  char req[8192];
  size_t len = 0;
  while (len < sizeof req - 1) {
    ssize_t n = conn_read(c, req + len, sizeof req - 1 - len);
    if (n <= 0) break;
    len += (size_t)n;
    req[len] = '\0';
    if (strstr(req, "\r\n\r\n")) break;
  }
  req[len] = '\0';
  atomic_fetch_add(&s->requests, 1);
  char query[512] = "";
  const char *q = strchr(req, '?'), *sp = q ? strchr(q, ' ') : NULL;
  if (q && sp) snprintf(query, sizeof query, "%.*s", (int)(sp - q - 1), q + 1);
  pthread_mutex_lock(&s->mu);
  snprintf(s->last_query, sizeof s->last_query, "%s", query);
  pthread_mutex_unlock(&s->mu);
  int ok = well_formed(s, req, query) &&
           strstr(query, "resource=https%3A%2F%2Fstorage.azure.com%2F") != NULL;
  if (!ok) atomic_fetch_add(&s->bad, 1);
  if (!ok || take_failure(s)) {
    answer(c, ok ? 500 : 400, "{\"error\":\"unavailable\"}");
    return;
  }
  char tok[2048], body[2560];
  standin_jwt(tok, sizeof tok, s->lifetime_s);
  snprintf(body, sizeof body,
           "{\"access_token\":\"%s\",\"expires_on\":\"%ld\",\"resource\":"
           "\"https://storage.azure.com/\",\"token_type\":\"Bearer\"}",
           tok, (long)time(NULL) + s->lifetime_s);
  atomic_fetch_add(&s->tokens, 1);
  answer(c, 200, body);
}

static void *serve(void *ud) {
  standin_idserver *s = ud;
  while (!atomic_load(&s->stop)) {
    struct pollfd p = {s->fd, POLLIN, 0};
    if (poll(&p, 1, 50) <= 0) continue;
    conn c = {accept(s->fd, NULL, NULL), NULL};
    if (c.fd < 0) continue;
    struct timeval tv = {2, 0};
    setsockopt(c.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(c.fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    if (s->tls &&
        (!(c.ssl = SSL_new(s->tls)) || SSL_set_fd(c.ssl, c.fd) != 1 || SSL_accept(c.ssl) != 1)) {
      SSL_free(c.ssl); /* the client refused the certificate: no request */
      close(c.fd);
      continue;
    }
    serve_one(s, &c);
    if (c.ssl) SSL_shutdown(c.ssl);
    SSL_free(c.ssl);
    close(c.fd);
  }
  return NULL;
}

/* Starts the endpoint, serving TLS with `tls` when not NULL (then owned). */
static void start(standin_idserver *s, int imds, int lifetime_s, SSL_CTX *tls) {
  memset(s, 0, sizeof *s);
  s->imds = imds;
  s->lifetime_s = lifetime_s;
  s->tls = tls;
  struct sigaction ignore = {.sa_handler = SIG_IGN};
  sigaction(SIGPIPE, &ignore, NULL); /* a TLS write to a client that went away ends no test */
  pthread_mutex_init(&s->mu, NULL);
  s->fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a;
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t alen = sizeof a;
  if (s->fd < 0 || bind(s->fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(s->fd, 16) != 0 ||
      getsockname(s->fd, (struct sockaddr *)&a, &alen) != 0)
    FAIL("cannot listen on 127.0.0.1");
  s->port = ntohs(a.sin_port);
  if (pthread_create(&s->thread, NULL, serve, s) != 0) FAIL("cannot start the stand-in endpoint");
}

void standin_idserver_start(standin_idserver *s, int imds, int lifetime_s) {
  start(s, imds, lifetime_s, NULL);
}

void standin_idserver_start_tls(standin_idserver *s, int imds, int lifetime_s,
                                const char *cert_file, const char *key_file) {
  SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
  if (!ctx || SSL_CTX_use_certificate_chain_file(ctx, cert_file) != 1 ||
      SSL_CTX_use_PrivateKey_file(ctx, key_file, SSL_FILETYPE_PEM) != 1)
    FAIL("cannot load %s and %s", cert_file, key_file);
  start(s, imds, lifetime_s, ctx);
}

void standin_idserver_stop(standin_idserver *s) {
  atomic_store(&s->stop, 1);
  pthread_join(s->thread, NULL);
  close(s->fd);
  SSL_CTX_free(s->tls);
  pthread_mutex_destroy(&s->mu);
}

void standin_idserver_url(const standin_idserver *s, char *out, size_t size) {
  snprintf(out, size, "%s://127.0.0.1:%d/msi/token", s->tls ? "https" : "http", s->port);
}

void standin_idserver_last_query(standin_idserver *s, char *out, size_t size) {
  pthread_mutex_lock(&s->mu);
  snprintf(out, size, "%s", s->last_query);
  pthread_mutex_unlock(&s->mu);
}

#ifndef XIO_TEST_AZ_DIR
#error "XIO_TEST_AZ_DIR must name the directory of the stand-in az"
#endif

const char *standin_az_dir(void) { return XIO_TEST_AZ_DIR; }

int standin_az_runs(const char *log) {
  FILE *f = fopen(log, "r");
  int n = 0, ch;
  if (!f) return 0;
  while ((ch = fgetc(f)) != EOF)
    n += ch == '\n';
  fclose(f);
  return n;
}

/* ------------------------------------------------------- environment ---- */

static char dir[512];

void standin_path(const char *name, char *out, size_t size) {
  if (!dir[0]) test_scratch_dir(dir, sizeof dir, "xio-entra");
  int n = snprintf(out, size, "%s/%s", dir, name);
  if (n < 0 || (size_t)n >= size) FAIL("%s/%s does not fit in %zu bytes", dir, name, size);
}

void standin_write_file(const char *path, const char *text) {
  char tmp[600];
  snprintf(tmp, sizeof tmp, "%s.new", path);
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
  if (!f && fd >= 0) close(fd);
  if (!f || fputs(text, f) < 0 || fclose(f) != 0) FAIL("cannot write %s", tmp);
  if (rename(tmp, path) != 0) FAIL("cannot rename %s", tmp);
}

void standin_env_reset(int with_az, const char *az_log) {
  static const char *const drop[] = {"AZURE_STORAGE_CONNECTION_STRING",
                                     "AZURE_STORAGE_ACCOUNT",
                                     "AZURE_STORAGE_KEY",
                                     "AZURE_STORAGE_SAS_TOKEN",
                                     "XIO_CREDENTIALS",
                                     "XIO_TRACE",
                                     "IDENTITY_ENDPOINT",
                                     "IDENTITY_HEADER",
                                     "AZURE_CLIENT_ID",
                                     "XIO_ENTRA_METHOD",
                                     "XIO_TEST_AZ_FAIL",
                                     "XIO_TEST_AZ_LIFETIME",
                                     "XIO_TEST_AZ_FORMAT"};
  for (size_t i = 0; i < sizeof drop / sizeof *drop; i++)
    unsetenv(drop[i]);
  char path[1024], tag[512];
  snprintf(path, sizeof path, "%s:/usr/local/bin:/usr/bin:/bin",
           with_az ? standin_az_dir() : "/nonexistent");
  setenv("PATH", path, 1);
  if (az_log) {
    setenv("XIO_TEST_AZ_LOG", az_log, 1);
    standin_write_file(az_log, "");
  }
  standin_path("asset_tag", tag, sizeof tag);
  standin_write_file(tag, "None\n");
  setenv("XIO_DMI_ASSET_TAG_FILE", tag, 1);
  setenv("XIO_IMDS_ENDPOINT", "http://127.0.0.1:9/metadata/identity/oauth2/token", 1);
}
