/*
 * fidelity.c - the front that makes the emulator behind the proxy answer as Azure
 * does where Azurite does not (see faultproxy_profile), between the faults and the
 * service:
 *   - Azure's limits, checked before a request is forwarded, answered with Azure's
 *     status, code and message: a Put Page range not 512-aligned (416
 *     InvalidPageRange), a Put Page body over 4 MiB (413 RequestBodyTooLarge), a page
 *     blob size over 8 TiB (400 InvalidHeaderValue), a Put Page range past the end
 *     of a blob whose size the front saw set (416 InvalidPageRange), a snapshot past
 *     the profile's count per blob (premium: 100; 409 SnapshotCountExceeded);
 *   - the profile's targets (throttle.c): 503 ServerBusy, no Retry-After (or 500
 *     OperationTimedOut every Nth time, when the profile says so);
 *   - Get Page Ranges in pages: at most the profile's page size or `maxresults`
 *     ranges per answer, from the range the marker names, with a NextMarker shaped
 *     like Azure's ("2!16!MDAwMDA0ITIwNDgh": a version, the length of the base64,
 *     base64 of "LLLLLL!OFFSET!"; it may hold '=') and an empty <NextMarker /> on
 *     the last page;
 *   - the UTF-8 byte-order mark before every XML body, as Azure sends it;
 *   - Get Page Ranges with prevsnapshot (a diff, which Azurite ignores or refuses)
 *     answered from what the front saw changed after each snapshot (diffs.c), with
 *     PageRange and ClearRange elements in page order, paged like the plain list.
 * Anything the front does not understand passes unchanged.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "faultproxy_int.h"

#define MAX_PUT_PAGE (4u * 1024 * 1024)
#define MAX_SIZE     (8ull * 1024 * 1024 * 1024 * 1024)
#define BOM          "\xEF\xBB\xBF"

/* ------------------------------------------------------------ requests ---- */

static int hexval(int c) {
  return isdigit(c) ? c - '0' : isxdigit(c) ? (tolower(c) - 'a' + 10) : -1;
}

int faultproxy__query(const char *target, const char *name, char *out, size_t size) {
  const char *q = strchr(target, '?');
  size_t nl = strlen(name);
  out[0] = '\0';
  for (const char *s = q; s && *s; s = strchr(s + 1, '&')) {
    if (strncmp(s + 1, name, nl) != 0 || s[1 + nl] != '=') continue;
    size_t k = 0;
    for (const char *v = s + 2 + nl; *v && *v != '&' && k + 1 < size; v++) {
      int hi = v[0] == '%' ? hexval((unsigned char)v[1]) : -1;
      int lo = hi >= 0 ? hexval((unsigned char)v[2]) : -1;
      if (hi >= 0 && lo >= 0) {
        out[k++] = (char)(hi * 16 + lo);
        v += 2;
      } else {
        out[k++] = *v == '+' ? ' ' : *v;
      }
    }
    out[k] = '\0';
    return 1;
  }
  return 0;
}

/* The blob's path ("/account/container/blob") of a request target. */
static void blob_path(const char *target, char *out, size_t size) {
  size_t n = strcspn(target, "?");
  snprintf(out, size, "%.*s", (int)n, target);
}

/* "bytes=S-E" into *s and *e: 0, or -1 when malformed. */
static int parse_range(const char *v, uint64_t *s, uint64_t *e) {
  unsigned long long a, b;
  if (sscanf(v, "bytes=%llu-%llu", &a, &b) != 2 || b < a) return -1;
  *s = a;
  *e = b;
  return 0;
}

/* What the front reads of one request. */
typedef struct req_view {
  char target[2048], path[1024], comp[32];
  char page_write[16], range[64], blob_type[32], size[32];
  uint64_t body_len;
  const char *method;
} req_view;

static void view(const buf *in, const request *r, req_view *v) {
  const char *h = in->d;
  size_t n = r->m.head_len;
  memset(v, 0, sizeof *v);
  v->method = r->method;
  v->body_len = r->m.body_len;
  faultproxy__request_target(in, n, v->target, sizeof v->target);
  blob_path(v->target, v->path, sizeof v->path);
  faultproxy__query(v->target, "comp", v->comp, sizeof v->comp);
  faultproxy__header(h, n, "x-ms-page-write", v->page_write, sizeof v->page_write);
  if (!faultproxy__header(h, n, "x-ms-range", v->range, sizeof v->range))
    faultproxy__header(h, n, "Range", v->range, sizeof v->range);
  faultproxy__header(h, n, "x-ms-blob-type", v->blob_type, sizeof v->blob_type);
  faultproxy__header(h, n, "x-ms-blob-content-length", v->size, sizeof v->size);
}

int faultproxy__refuse(refusal *out, int status, const char *code, const char *message) {
  memset(out, 0, sizeof *out);
  out->status = status;
  snprintf(out->code, sizeof out->code, "%s", code);
  snprintf(out->message, sizeof out->message, "%s", message);
  return 1;
}

/* A page blob size over 8 TiB, as Azure refuses it. */
static int size_limit(const req_view *v, refusal *out) {
  unsigned long long size = strtoull(v->size, NULL, 10);
  if (!v->size[0] || size <= MAX_SIZE) return 0;
  faultproxy__refuse(out, 400, "InvalidHeaderValue",
                     "The value for one of the HTTP headers is not in the correct format.");
  snprintf(out->detail, sizeof out->detail,
           "<HeaderName>x-ms-blob-content-length</HeaderName><HeaderValue>%.32s</HeaderValue>",
           v->size);
  return 1;
}

/* Under mu: the limits of Put Page. */
static int put_page_limits(front *f, const req_view *v, refusal *out) {
  uint64_t s, e;
  if (parse_range(v->range, &s, &e) != 0) return 0;
  if (s % 512 || (e + 1) % 512)
    return faultproxy__refuse(out, 416, "InvalidPageRange", "The page range specified is invalid.");
  if (strcasecmp(v->page_write, "update") == 0 && v->body_len > MAX_PUT_PAGE) {
    faultproxy__refuse(out, 413, "RequestBodyTooLarge",
                       "The request body is too large and exceeds the maximum permissible limit.");
    snprintf(out->detail, sizeof out->detail, "<MaxLimit>%u</MaxLimit>", MAX_PUT_PAGE);
    return 1;
  }
  blob_entry *b = faultproxy__blob(f, v->path, faultproxy__now_us());
  if (b->size >= 0 && e >= (uint64_t)b->size)
    return faultproxy__refuse(out, 416, "InvalidPageRange", "The page range specified is invalid.");
  return 0;
}

/* Under mu: a snapshot past the profile's count (premium: 100 per blob). */
static int snapshot_limit(front *f, const req_view *v, refusal *out) {
  if (f->prof.max_snapshots <= 0 || !f->diffs ||
      faultproxy__diffs_count(f->diffs, v->path) < (size_t)f->prof.max_snapshots)
    return 0;
  return faultproxy__refuse(out, 409, "SnapshotCountExceeded",
                            "The snapshot count against this blob has been exceeded.");
}

/* Under mu: 1 with `out` when the request breaks one of Azure's limits. */
static int limits(front *f, const req_view *v, refusal *out) {
  if (strcmp(v->method, "PUT") != 0) return 0;
  if (strcmp(v->comp, "page") == 0) return put_page_limits(f, v, out);
  if (strcmp(v->comp, "snapshot") == 0) return snapshot_limit(f, v, out);
  if ((!v->comp[0] && strcasecmp(v->blob_type, "PageBlob") == 0) ||
      strcmp(v->comp, "properties") == 0)
    return size_limit(v, out);
  return 0;
}

/* The bytes a request moves, for the throttle: a write's body, a read's range. */
static uint64_t moved(const req_view *v) {
  uint64_t s, e;
  if (strcmp(v->method, "GET") == 0 && !v->comp[0] && parse_range(v->range, &s, &e) == 0)
    return e - s + 1;
  return v->body_len;
}

int faultproxy__front_refuse(faultproxy *p, const buf *in, const request *r, refusal *out) {
  req_view v;
  int which = 0; /* 1 refused for a limit, 2 throttled */
  view(in, r, &v);
  pthread_mutex_lock(&p->mu);
  if (p->front && limits(p->front, &v, out))
    which = 1;
  else if (p->front && faultproxy__throttle(p->front, v.path, moved(&v), out))
    which = 2;
  if (which == 1) p->stats.refused++;
  if (which == 2) p->stats.throttled++;
  pthread_mutex_unlock(&p->mu);
  if (which) faultproxy__notify(p);
  return which != 0;
}

/* ------------------------------------------------------------ answers ---- */

int faultproxy__send_refusal(faultproxy *p, int fd, const request *r, const refusal *f) {
  char body[1024], head[1024], id[40];
  snprintf(id, sizeof id, "00000000-0000-0000-0000-%012d", r->no);
  int bl = snprintf(body, sizeof body,
                    BOM "<?xml version=\"1.0\" encoding=\"utf-8\"?><Error><Code>%s</Code>"
                        "<Message>%s\nRequestId:%s\nTime:2026-01-01T00:00:00.0000000Z</Message>"
                        "%s</Error>",
                    f->code, f->message, id, f->detail);
  int n = snprintf(head, sizeof head,
                   "HTTP/1.1 %d %s\r\nContent-Length: %d\r\nContent-Type: application/xml\r\n"
                   "Server: Windows-Azure-Blob/1.0 Microsoft-HTTPAPI/2.0\r\n"
                   "x-ms-error-code: %s\r\nx-ms-request-id: %s\r\n\r\n",
                   f->status, f->status == 503 ? "Server Busy" : "Refused", bl, f->code, id);
  faultproxy__note_answer(p, r, f->status, f->code);
  if (faultproxy__send_all(p, fd, head, (size_t)n) != 0) return -1;
  return r->is_head ? 0 : faultproxy__send_all(p, fd, body, (size_t)bl);
}
