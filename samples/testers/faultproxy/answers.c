/*
 * answers.c - the fidelity front's side of the service's answers (fidelity.c says
 * what the front is): Get Page Ranges cut into pages as Azure cuts them, the UTF-8
 * byte-order mark put before every XML body, and the blob sizes the answers confirm
 * (a page blob created, resized, deleted), which the front's range check uses. A
 * rewritten answer carries a Content-Length (a chunked one is decoded first); an
 * answer the front cannot read passes unchanged.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "faultproxy_int.h"

#define BOM     "\xEF\xBB\xBF"
#define BOM_LEN 3

/* ------------------------------------------------------------ bodies ---- */

/* The body of the response in `up` as a malloc'd copy with its length: chunks
 * decoded. NULL when malformed or out of memory. */
static char *body_of(const buf *up, const msg *m, size_t *len) {
  const char *b = up->d + m->head_len, *end = b + m->body_len;
  char te[64];
  char *out = malloc(m->body_len + 1);
  if (!out) return NULL;
  if (!faultproxy__header(up->d, m->head_len, "Transfer-Encoding", te, sizeof te)) {
    memcpy(out, b, m->body_len);
    *len = m->body_len;
    return out;
  }
  size_t k = 0;
  while (b < end) {
    /* The chunk's size line, read within the body: the buffer holds no NUL after it. */
    const char *data = memmem(b, (size_t)(end - b), "\r\n", 2);
    char hex[24];
    size_t hl = data ? (size_t)(data - b) : 0;
    if (!data || hl == 0 || hl >= sizeof hex) break;
    memcpy(hex, b, hl);
    hex[hl] = '\0';
    unsigned long long n = strtoull(hex, NULL, 16);
    if ((size_t)(end - data) < n + 2) break;
    if (n == 0) {
      *len = k;
      return out;
    }
    memcpy(out + k, data + 2, n);
    k += n;
    b = data + 2 + n + 2;
  }
  free(out);
  return NULL;
}

/* Replaces the body of the response in `up` with `body` (`len` bytes), framed by a
 * Content-Length. 0, or -1 out of memory (the response unchanged). */
static int replace_body(buf *up, msg *m, const char *body, size_t len) {
  size_t cap = m->head_len + len + 64;
  char *d = malloc(cap), *line = up->d;
  if (!d) return -1;
  size_t k = 0;
  const char *end = up->d + m->head_len - 2; /* before the blank line */
  while (line < end) {
    char *eol = strstr(line, "\r\n");
    size_t n = (size_t)(eol - line) + 2;
    if (strncasecmp(line, "Content-Length:", 15) != 0 &&
        strncasecmp(line, "Transfer-Encoding:", 18) != 0) {
      memcpy(d + k, line, n);
      k += n;
    }
    line = eol + 2;
  }
  k += (size_t)snprintf(d + k, cap - k, "Content-Length: %zu\r\n\r\n", len);
  m->head_len = k;
  memcpy(d + k, body, len);
  free(up->d);
  up->d = d;
  up->n = up->cap = k + len;
  m->body_len = len;
  m->total = k + len;
  m->until_close = 0;
  return 0;
}

/* ------------------------------------------------------------ markers ---- */

static void base64(const unsigned char *in, size_t n, char *out) {
  static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  size_t k = 0;
  for (size_t i = 0; i < n; i += 3) {
    uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0) |
                 (i + 2 < n ? in[i + 2] : 0);
    out[k++] = t[v >> 18 & 63];
    out[k++] = t[v >> 12 & 63];
    out[k++] = i + 1 < n ? t[v >> 6 & 63] : '=';
    out[k++] = i + 2 < n ? t[v & 63] : '=';
  }
  out[k] = '\0';
}

static int unbase64(const char *in, unsigned char *out, size_t size) {
  static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  size_t k = 0;
  uint32_t v = 0;
  int bits = 0;
  for (; *in && *in != '='; in++) {
    const char *c = strchr(t, *in);
    if (!c) return -1;
    v = v << 6 | (uint32_t)(c - t);
    if ((bits += 6) >= 8) {
      if (k + 1 >= size) return -1;
      out[k++] = (unsigned char)(v >> (bits -= 8));
    }
  }
  out[k] = '\0';
  return (int)k;
}

/* Azure's shape of a page list marker for the range starting at `offset`:
 * "2!LEN!" then base64 of "NNNNNN!OFFSET!" (NNNNNN: the digits of OFFSET). */
static void marker_for(uint64_t offset, char *out, size_t size) {
  char digits[24], payload[40], b64[64];
  int nd = snprintf(digits, sizeof digits, "%" PRIu64, offset);
  int n = snprintf(payload, sizeof payload, "%06d!%s!", nd, digits);
  base64((const unsigned char *)payload, (size_t)n, b64);
  snprintf(out, size, "2!%zu!%s", strlen(b64), b64);
}

/* The offset a marker continues from: 0, or -1 when it is not one of ours. */
static int marker_offset(const char *m, uint64_t *out) {
  unsigned char payload[64];
  const char *b = strchr(m, '!');
  b = b ? strchr(b + 1, '!') : NULL;
  if (strncmp(m, "2!", 2) != 0 || !b || unbase64(b + 1, payload, sizeof payload) < 8) return -1;
  const char *o = strchr((const char *)payload, '!');
  if (!o) return -1;
  *out = strtoull(o + 1, NULL, 10);
  return 0;
}

/* ------------------------------------------------------------ page lists ---- */

/* The value of the element <name> in [s, e), or -1. */
static int64_t element(const char *s, const char *e, const char *name) {
  char open[32];
  snprintf(open, sizeof open, "<%s>", name);
  const char *v = memmem(s, (size_t)(e - s), open, strlen(open));
  return v ? (int64_t)strtoull(v + strlen(open), NULL, 10) : -1;
}

/* The ranges of a page list body, in order. A malloc'd array, count in *n; NULL when
 * there are none or on out of memory (*n 0). */
static prange *parse_ranges(const char *body, size_t len, size_t *n) {
  const char *end = body + len, *s = body;
  size_t cap = 0;
  prange *r = NULL;
  *n = 0;
  while ((s = memmem(s, (size_t)(end - s), "Range>", 6)) != NULL) {
    int clear = s - body >= 6 && memcmp(s - 5, "Clear", 5) == 0 && s[-6] == '<';
    int page = s - body >= 5 && memcmp(s - 4, "Page", 4) == 0 && s[-5] == '<';
    s += 6;
    if (!clear && !page) continue;
    const char *close = memmem(s, (size_t)(end - s), "Range>", 6);
    if (!close) break;
    if (*n == cap) {
      prange *g = realloc(r, (cap = cap ? cap * 2 : 256) * sizeof *r);
      if (!g) break;
      r = g;
    }
    r[*n].start = (uint64_t)element(s, close, "Start");
    r[*n].end = (uint64_t)element(s, close, "End");
    r[(*n)++].clear = clear;
    s = close + 6;
  }
  return r;
}

/* Writes one page of `r` from `first` (at most `max`) as Azure's page list body. */
static char *page_body(const prange *r, size_t n, size_t first, size_t max, size_t *len) {
  size_t count = n - first < max ? n - first : max, cap = 256 + count * 96;
  char *b = malloc(cap), marker[96] = "";
  if (!b) return NULL;
  size_t k = (size_t)snprintf(b, cap, BOM "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<PageList>");
  for (size_t i = first; i < first + count; i++) {
    const char *el = r[i].clear ? "ClearRange" : "PageRange";
    k += (size_t)snprintf(b + k, cap - k,
                          "<%s><Start>%" PRIu64 "</Start><End>%" PRIu64 "</End></%s>", el,
                          r[i].start, r[i].end, el);
  }
  /* r[first + count] is one of the n ranges read.
   * NOLINTNEXTLINE(clang-analyzer-core.CallAndMessage) */
  if (first + count < n) marker_for(r[first + count].start, marker, sizeof marker);
  if (marker[0])
    k += (size_t)snprintf(b + k, cap - k, "<NextMarker>%s</NextMarker></PageList>", marker);
  else
    k += (size_t)snprintf(b + k, cap - k, "<NextMarker /></PageList>");
  *len = k;
  return b;
}

/* The page of `r` (n ranges) the request's marker and maxresults ask for, as Azure's
 * page list body (malloc'd, length in *len; NULL out of memory or a marker not of
 * ours). *paged: 1 when it is one page of several. */
static char *page_of(const char *target, int page_size, const prange *r, size_t n, size_t *len,
                     int *paged) {
  char v[256];
  size_t first = 0, max = (size_t)page_size;
  uint64_t from = 0;
  if (faultproxy__query(target, "maxresults", v, sizeof v) && atol(v) > 0 && (size_t)atol(v) < max)
    max = (size_t)atol(v);
  int had_marker = faultproxy__query(target, "marker", v, sizeof v) && v[0];
  if (had_marker && marker_offset(v, &from) != 0) return NULL;
  while (first < n && r[first].start < from)
    first++;
  *paged = n - first > max || had_marker;
  return page_body(r, n, first, max, len);
}

static void count_paged(faultproxy *p, int diff) {
  pthread_mutex_lock(&p->mu);
  if (diff)
    p->stats.diffs++;
  else
    p->stats.paged++;
  pthread_mutex_unlock(&p->mu);
  faultproxy__notify(p);
}

/* Cuts a Get Page Ranges answer to the page the request's marker and maxresults
 * ask for. 1 rewritten, 0 left as it was. */
static int page_the_list(faultproxy *p, const char *target, int page_size, buf *up, msg *m) {
  size_t len, n;
  int paged = 0;
  char *body = body_of(up, m, &len);
  if (!body) return 0;
  prange *r = parse_ranges(body, len, &n);
  free(body);
  char *page = page_of(target, page_size, r, n, &len, &paged);
  int ok = page && replace_body(up, m, page, len) == 0;
  free(page);
  free(r);
  if (ok && paged) count_paged(p, 0);
  return ok;
}

/* Replaces the whole response in `up` with one of the front's making: `status`, the
 * request id and date of the service's answer, `headers` (each ending in CRLF) and an
 * XML `body`. 0, or -1 out of memory (the response unchanged). */
static int new_response(buf *up, msg *m, int status, const char *reason, const char *headers,
                        const char *body, size_t len) {
  char id[128], date[64], head[1536];
  faultproxy__header(up->d, m->head_len, "x-ms-request-id", id, sizeof id);
  faultproxy__header(up->d, m->head_len, "Date", date, sizeof date);
  int hn = snprintf(head, sizeof head,
                    "HTTP/1.1 %d %s\r\nContent-Type: application/xml\r\n"
                    "Server: Windows-Azure-Blob/1.0 Microsoft-HTTPAPI/2.0\r\n"
                    "x-ms-request-id: %s\r\nx-ms-version: 2025-11-05\r\nDate: %s\r\n%s"
                    "Content-Length: %zu\r\n\r\n",
                    status, reason, id, date, headers, len);
  if (hn < 0 || (size_t)hn >= sizeof head) return -1;
  char *d = malloc((size_t)hn + len);
  if (!d) return -1;
  memcpy(d, head, (size_t)hn);
  memcpy(d + hn, body, len);
  free(up->d);
  up->d = d;
  up->n = up->cap = (size_t)hn + len;
  m->head_len = (size_t)hn;
  m->body_len = len;
  m->total = up->n;
  m->status = status;
  m->until_close = 0;
  return 0;
}

/* Answers a refused diff as the service does. */
static void diff_refusal(buf *up, msg *m, const refusal *no) {
  char body[1024], headers[128];
  int bl = snprintf(body, sizeof body,
                    BOM "<?xml version=\"1.0\" encoding=\"utf-8\"?><Error><Code>%s</Code>"
                        "<Message>%s\nTime:2026-01-01T00:00:00.0000000Z</Message></Error>",
                    no->code, no->message);
  snprintf(headers, sizeof headers, "x-ms-error-code: %s\r\n", no->code);
  new_response(up, m, no->status, "Refused", headers, body, (size_t)bl);
}

/* Keeps the ranges of `a` inside [s, e] and the target's size, cut at the edges. */
static void clip(diff_answer *a, uint64_t s, uint64_t e) {
  size_t k = 0;
  if (a->size <= 0) {
    a->n = 0;
    return;
  }
  if (e > (uint64_t)a->size - 1) e = (uint64_t)a->size - 1;
  for (size_t i = 0; i < a->n; i++) {
    prange r = a->ranges[i];
    if (r.end < s || r.start > e) continue;
    if (r.start < s) r.start = s;
    if (r.end > e) r.end = e;
    a->ranges[k++] = r;
  }
  a->n = k;
}

/* Answers a Get Page Ranges with prevsnapshot, which the service behind ignores or
 * refuses as not implemented, from what the front saw after the snapshot. In a chain
 * of fronts each answers alike from the same requests. */
static void answer_diff(faultproxy *p, const buf *in, const request *r, const char *target,
                        int page_size, buf *up, msg *m) {
  diff_answer a;
  refusal no;
  char range[64], headers[256], etag[64] = "", size[32] = "";
  unsigned long long s = 0, e = UINT64_MAX;
  if (m->status == 200) { /* the service's own view of the target, when it gave one */
    faultproxy__header(up->d, m->head_len, "ETag", etag, sizeof etag);
    faultproxy__header(up->d, m->head_len, "x-ms-blob-content-length", size, sizeof size);
  }
  int64_t seen = size[0] ? (int64_t)strtoull(size, NULL, 10) : -1;
  pthread_mutex_lock(&p->mu);
  int tracking = p->front && p->front->diffs;
  int refused = tracking && faultproxy__diffs_answer(p->front->diffs, target, seen, etag, &a, &no);
  pthread_mutex_unlock(&p->mu);
  if (!tracking) return;
  if (refused) {
    diff_refusal(up, m, &no);
    return;
  }
  if (faultproxy__header(in->d, r->m.head_len, "x-ms-range", range, sizeof range) ||
      faultproxy__header(in->d, r->m.head_len, "Range", range, sizeof range))
    sscanf(range, "bytes=%llu-%llu", &s, &e);
  clip(&a, s, e);
  size_t len;
  int paged = 0;
  char *page = page_of(target, page_size, a.ranges, a.n, &len, &paged);
  snprintf(headers, sizeof headers, "ETag: %s\r\nx-ms-blob-content-length: %" PRId64 "\r\n", a.etag,
           a.size);
  if (page && new_response(up, m, 200, "OK", headers, page, len) == 0) count_paged(p, 1);
  free(page);
  free(a.ranges);
}

/* Puts the byte-order mark before an XML body that lacks it. */
static void add_bom(buf *up, msg *m) {
  char type[128];
  size_t len;
  if (!m->body_len || !faultproxy__header(up->d, m->head_len, "Content-Type", type, sizeof type) ||
      !strcasestr(type, "xml"))
    return;
  char *body = body_of(up, m, &len);
  char *with = body ? malloc(len + BOM_LEN) : NULL;
  if (with && (len < BOM_LEN || memcmp(body, BOM, BOM_LEN) != 0)) {
    /* A body of bytes, not a string. NOLINTNEXTLINE(bugprone-not-null-terminated-result) */
    memcpy(with, BOM, BOM_LEN);
    memcpy(with + BOM_LEN, body, len);
    replace_body(up, m, with, len + BOM_LEN);
  }
  free(with);
  free(body);
}

/* ------------------------------------------------------------ sizes ---- */

/* Notes what a successful answer says of the blob's size. */
static void note_size(faultproxy *p, const buf *in, const request *r, const char *target,
                      int status) {
  char comp[32], type[32], size[32], path[1024];
  size_t hl = r->m.head_len;
  faultproxy__query(target, "comp", comp, sizeof comp);
  snprintf(path, sizeof path, "%.*s", (int)strcspn(target, "?"), target);
  int64_t to = -2; /* -2: says nothing */
  if (strcmp(r->method, "DELETE") == 0 && status == 202 && !strchr(target, '?')) to = -1;
  if (strcmp(r->method, "PUT") == 0 && (status == 201 || status == 200) &&
      faultproxy__header(in->d, hl, "x-ms-blob-content-length", size, sizeof size) &&
      (strcmp(comp, "properties") == 0 ||
       (!comp[0] && faultproxy__header(in->d, hl, "x-ms-blob-type", type, sizeof type) &&
        strcasecmp(type, "PageBlob") == 0)))
    to = (int64_t)strtoull(size, NULL, 10);
  if (to == -2) return;
  pthread_mutex_lock(&p->mu);
  if (p->front) faultproxy__blob(p->front, path, faultproxy__now_us())->size = to;
  pthread_mutex_unlock(&p->mu);
}

void faultproxy__front_answer(faultproxy *p, const buf *in, const request *r, buf *up, msg *m) {
  char target[2048], prev[8];
  pthread_mutex_lock(&p->mu);
  int on = p->front != NULL, page_size = on ? p->front->prof.page_list_size : 0;
  pthread_mutex_unlock(&p->mu);
  if (!on) return;
  faultproxy__request_target(in, r->m.head_len, target, sizeof target);
  note_size(p, in, r, target, m->status);
  pthread_mutex_lock(&p->mu);
  if (p->front && p->front->diffs) faultproxy__diffs_note(p->front->diffs, in, r, target, up, m);
  pthread_mutex_unlock(&p->mu);
  faultproxy__front_read_checksum(in, r, up, m);
  char comp[32];
  faultproxy__query(target, "comp", comp, sizeof comp);
  /* Azurite answers a diff with the plain list (200) or 501: either way it has
   * checked the credential, and with 200 that the blob (and snapshot) exist. */
  if (strcmp(r->method, "GET") == 0 && strcmp(comp, "pagelist") == 0 &&
      (m->status == 200 || m->status == 501) &&
      faultproxy__query(target, "prevsnapshot", prev, sizeof prev)) {
    answer_diff(p, in, r, target, page_size, up, m);
    return;
  }
  if (strcmp(r->method, "GET") == 0 && strcmp(comp, "pagelist") == 0 && m->status == 200 &&
      page_the_list(p, target, page_size, up, m))
    return;
  if (!r->is_head) add_bom(up, m);
}
