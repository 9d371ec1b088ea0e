/*
 * replay.c - the loopback server of the conformance tests (see replay.h): shapes
 * read from files, one thread per client connection, each request answered with the
 * next shape and recorded.
 */
#define _GNU_SOURCE
#include "replay.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "test.h"

#define MAX_CONNS 16
#define MAX_HEAD  (64 * 1024)

typedef struct shape {
  char *head; /* status line and headers, CRLF-ended, without the blank line */
  char *body;
  size_t body_len;
  int chunked;
} shape;

struct replay {
  int lfd;
  char endpoint[64];
  pthread_t acceptor;
  pthread_mutex_t mu;
  shape shapes[REPLAY_MAX_SHAPES];
  int nshapes;
  replay_request seen[REPLAY_MAX_SHAPES + 8]; /* under mu */
  int nseen;                                  /* under mu */
  int fds[MAX_CONNS];                         /* under mu */
  pthread_t threads[MAX_CONNS];
  int nconns; /* under mu */
  int stopping;
};

/* ------------------------------------------------------------ shapes ---- */

static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *d = NULL;
  size_t cap = 0, n = 0, k;
  do {
    if (n + 4096 > cap) {
      cap = cap ? cap * 2 : 8192;
      char *nd = realloc(d, cap + 1);
      if (!nd) break;
      d = nd;
    }
    k = fread(d + n, 1, cap - n, f);
    n += k;
  } while (k > 0);
  fclose(f);
  if (d) d[n] = '\0';
  *len = n;
  return d;
}

/* Appends "line\r\n" to the head being built at *out (malloc'd, grown). */
static void head_line(char **out, size_t *len, const char *line, size_t n) {
  char *d = realloc(*out, *len + n + 3);
  ASSERT(d != NULL);
  memcpy(d + *len, line, n);
  memcpy(d + *len + n, "\r\n", 3);
  *out = d;
  *len += n + 2;
}

static void shape_load(shape *s, const char *name) {
  char path[1024];
  size_t len;
  snprintf(path, sizeof path, "%s/%s.http", XIO_SHAPES_DIR, name);
  char *text = slurp(path, &len);
  if (!text) FAIL("cannot read the shape %s", path);
  char *p = text, *end = text + len;
  while (p < end && *p == '#') /* the comment lines */
    p = strchr(p, '\n') ? strchr(p, '\n') + 1 : end;
  size_t hl = 0;
  char *content_length = NULL;
  s->head = NULL;
  while (p < end && *p != '\n') {
    char *eol = memchr(p, '\n', (size_t)(end - p));
    if (!eol) FAIL("shape %s: no empty line after the headers", name);
    size_t n = (size_t)(eol - p);
    if (strncasecmp(p, "Transfer-Encoding: chunked", 26) == 0) s->chunked = 1;
    if (strncasecmp(p, "Content-Length:", 15) == 0)
      content_length = strndup(p, n); /* kept for a HEAD answer, below */
    else
      head_line(&s->head, &hl, p, n);
    p = eol + 1;
  }
  if (p >= end) FAIL("shape %s: no empty line after the headers", name);
  p++;
  s->body_len = end > p && end[-1] == '\n' ? (size_t)(end - p) - 1 : (size_t)(end - p);
  s->body = malloc(s->body_len + 1);
  ASSERT(s->body != NULL);
  memcpy(s->body, p, s->body_len);
  char cl[64];
  if (!s->chunked && s->body_len == 0 && content_length)
    head_line(&s->head, &hl, content_length, strlen(content_length));
  else if (!s->chunked)
    head_line(&s->head, &hl, cl,
              (size_t)snprintf(cl, sizeof cl, "Content-Length: %zu", s->body_len));
  free(content_length);
  free(text);
}

/* ------------------------------------------------------------ serving ---- */

static int send_all(int fd, const char *d, size_t n) {
  while (n) {
    ssize_t k = send(fd, d, n, MSG_NOSIGNAL);
    if (k <= 0) return -1;
    d += k;
    n -= (size_t)k;
  }
  return 0;
}

static int send_shape(int fd, const shape *s, int is_head) {
  char frame[64];
  if (send_all(fd, s->head, strlen(s->head)) || send_all(fd, "\r\n", 2)) return -1;
  if (is_head) return 0;
  if (!s->chunked) return send_all(fd, s->body, s->body_len);
  size_t half = s->body_len / 2; /* two chunks, as the service sends long bodies */
  for (int i = 0; i < 2; i++) {
    size_t off = i ? half : 0, n = i ? s->body_len - half : half;
    if (n == 0) continue;
    if (send_all(fd, frame, (size_t)snprintf(frame, sizeof frame, "%zx\r\n", n)) ||
        send_all(fd, s->body + off, n) || send_all(fd, "\r\n", 2))
      return -1;
  }
  return send_all(fd, "0\r\n\r\n", 5);
}

static void header_value(const char *head, const char *name, char *out, size_t size) {
  size_t nl = strlen(name);
  out[0] = '\0';
  for (const char *l = strstr(head, "\r\n"); l && l[2] != '\r'; l = strstr(l + 2, "\r\n"))
    if (strncasecmp(l + 2, name, nl) == 0 && l[2 + nl] == ':') {
      const char *v = l + 3 + nl;
      while (*v == ' ')
        v++;
      size_t n = strcspn(v, "\r");
      snprintf(out, size, "%.*s", (int)(n < size ? n : size - 1), v);
      return;
    }
}

/* Reads one request: its head into `head` (NUL-ended), its body discarded.
 * 0, or -1 when the client has gone. */
static int read_request(int fd, char *head, char *carry, size_t *ncarry) {
  size_t n = *ncarry;
  memcpy(head, carry, n);
  char *blank;
  while (head[n] = '\0', !(blank = strstr(head, "\r\n\r\n"))) {
    if (n + 1 >= MAX_HEAD) return -1;
    ssize_t k = recv(fd, head + n, MAX_HEAD - 1 - n, 0);
    if (k <= 0) return -1;
    n += (size_t)k;
  }
  size_t hl = (size_t)(blank + 4 - head), have = n - hl;
  char cl[32];
  blank[2] = '\0';
  header_value(head, "Content-Length", cl, sizeof cl);
  size_t body = cl[0] ? strtoull(cl, NULL, 10) : 0;
  while (have < body) { /* the body is not needed: read past it */
    char sink[65536];
    ssize_t k = recv(fd, sink, body - have < sizeof sink ? body - have : sizeof sink, 0);
    if (k <= 0) return -1;
    have += (size_t)k;
  }
  *ncarry = have > body ? have - body : 0; /* a pipelined request's start */
  memmove(carry, head + hl + body, *ncarry);
  return 0;
}

static replay_request note(const char *head) {
  replay_request q;
  char v[16];
  memset(&q, 0, sizeof q);
  sscanf(head, "%15s %1023s", q.method, q.target);
  header_value(head, "x-ms-range", q.range, sizeof q.range);
  header_value(head, "x-ms-lease-id", q.lease_id, sizeof q.lease_id);
  header_value(head, "x-ms-client-request-id", q.client_id, sizeof q.client_id);
  header_value(head, "x-ms-range-get-content-crc64", v, sizeof v);
  q.asked_crc64 = strcmp(v, "true") == 0;
  header_value(head, "x-ms-range-get-content-md5", v, sizeof v);
  q.asked_md5 = strcmp(v, "true") == 0;
  header_value(head, "Authorization", v, sizeof v);
  q.has_auth = v[0] != '\0';
  return q;
}

typedef struct conn_arg {
  replay *r;
  int fd;
} conn_arg;

static void *serve(void *arg) {
  conn_arg a = *(conn_arg *)arg;
  free(arg);
  char *head = malloc(MAX_HEAD), *carry = malloc(MAX_HEAD);
  size_t ncarry = 0;
  static const shape none = {"HTTP/1.1 500 No shape left\r\nContent-Length: 0", "", 0, 0};
  while (head && carry && read_request(a.fd, head, carry, &ncarry) == 0) {
    pthread_mutex_lock(&a.r->mu);
    int i = a.r->nseen;
    if (i < (int)(sizeof a.r->seen / sizeof *a.r->seen)) a.r->seen[a.r->nseen++] = note(head);
    const shape *s = i < a.r->nshapes ? &a.r->shapes[i] : &none;
    pthread_mutex_unlock(&a.r->mu);
    if (send_shape(a.fd, s, strncmp(head, "HEAD ", 5) == 0) != 0) break;
  }
  free(head);
  free(carry);
  return NULL;
}

static void *accept_loop(void *arg) {
  replay *r = arg;
  for (;;) {
    int fd = accept(r->lfd, NULL, NULL);
    if (fd < 0) return NULL;
    pthread_mutex_lock(&r->mu);
    conn_arg *a = malloc(sizeof *a);
    if (r->stopping || r->nconns == MAX_CONNS || !a) {
      pthread_mutex_unlock(&r->mu);
      free(a);
      close(fd);
      continue;
    }
    *a = (conn_arg){r, fd};
    r->fds[r->nconns] = fd;
    if (pthread_create(&r->threads[r->nconns], NULL, serve, a) == 0)
      r->nconns++;
    else
      close(fd), free(a);
    pthread_mutex_unlock(&r->mu);
  }
}

replay *replay_start(const char *const *names, int n) {
  ASSERT(n >= 0 && n <= REPLAY_MAX_SHAPES);
  replay *r = calloc(1, sizeof *r);
  ASSERT(r != NULL);
  for (int i = 0; i < n; i++)
    shape_load(&r->shapes[i], names[i]);
  r->nshapes = n;
  pthread_mutex_init(&r->mu, NULL);
  struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t sl = sizeof sa;
  r->lfd = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT(r->lfd >= 0);
  ASSERT(bind(r->lfd, (struct sockaddr *)&sa, sizeof sa) == 0);
  ASSERT(listen(r->lfd, 16) == 0);
  ASSERT(getsockname(r->lfd, (struct sockaddr *)&sa, &sl) == 0);
  snprintf(r->endpoint, sizeof r->endpoint, "http://127.0.0.1:%d", ntohs(sa.sin_port));
  ASSERT(pthread_create(&r->acceptor, NULL, accept_loop, r) == 0);
  return r;
}

const char *replay_endpoint(const replay *r) { return r->endpoint; }

int replay_count(replay *r) {
  pthread_mutex_lock(&r->mu);
  int n = r->nseen;
  pthread_mutex_unlock(&r->mu);
  return n;
}

replay_request replay_request_at(replay *r, int i) {
  pthread_mutex_lock(&r->mu);
  int ok = i >= 0 && i < r->nseen;
  replay_request q = ok ? r->seen[i] : (replay_request){0};
  pthread_mutex_unlock(&r->mu);
  if (!ok) FAIL("no request %d: the server saw %d", i, replay_count(r));
  return q;
}

void replay_free(replay *r) {
  if (!r) return;
  pthread_mutex_lock(&r->mu);
  r->stopping = 1;
  for (int i = 0; i < r->nconns; i++)
    shutdown(r->fds[i], SHUT_RDWR);
  pthread_mutex_unlock(&r->mu);
  shutdown(r->lfd, SHUT_RDWR);
  pthread_join(r->acceptor, NULL);
  close(r->lfd);
  for (int i = 0; i < r->nconns; i++) {
    pthread_join(r->threads[i], NULL);
    close(r->fds[i]);
  }
  for (int i = 0; i < r->nshapes; i++) {
    free(r->shapes[i].head);
    free(r->shapes[i].body);
  }
  pthread_mutex_destroy(&r->mu);
  free(r);
}
