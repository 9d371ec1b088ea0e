/*
 * faults.c - the fault proxy's faults: scripted ones (faultproxy_add, matched in
 * order, each spent after its uses) and random ones drawn from the rates and the
 * request number (faultproxy_set_rates, rates.c); choosing the one for a request,
 * and applying those that answer in place of the service (STATUS, STALL, TORN).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/socket.h>

#include "faultproxy_int.h"

static int slot_matches(slot *s, const faultproxy_record *rec) {
  const faultproxy_fault *f = &s->f;
  if (s->left <= 0) return 0;
  if (f->method && strcmp(f->method, rec->method) != 0) return 0;
  if (f->match && !strstr(rec->target, f->match)) return 0;
  if (f->request_no && f->request_no != rec->no) return 0;
  if (f->kind == FAULTPROXY_CORRUPT_BODY && rec->body_len == 0) return 0;
  if (s->skipped < f->skip) {
    s->skipped++;
    return 0;
  }
  return 1;
}

/* Under mu: the random fault of rule `rule` as an action. */
static void random_fault(const faultproxy_rates *r, int rule, action *a) {
  static const faultproxy_kind kinds[FAULTPROXY_NRULES] = {
      FAULTPROXY_STATUS,        FAULTPROXY_STATUS, FAULTPROXY_RESET,
      FAULTPROXY_LOST_RESPONSE, FAULTPROXY_TORN,   FAULTPROXY_STALL};
  a->rule = rule;
  a->kind = kinds[rule];
  a->stall_ms = r->stall_ms > 0 ? r->stall_ms : 3000;
  if (rule == FAULTPROXY_RULE_503) {
    a->status = 503;
    a->retry_after_ms = r->retry_after_ms > 0 ? r->retry_after_ms : 1000;
    a->retry_after_s = (a->retry_after_ms + 999) / 1000;
    snprintf(a->code, sizeof a->code, "ServerBusy");
  } else if (rule == FAULTPROXY_RULE_500) {
    a->status = 500;
    snprintf(a->code, sizeof a->code, "OperationTimedOut");
  }
}

/* Under mu: the first matching scripted fault with uses left, spent once, copied to
 * `a`; else the random fault drawn for the request, if any. */
void faultproxy__pick_fault(faultproxy *p, const faultproxy_record *rec, action *a) {
  memset(a, 0, sizeof *a);
  a->rule = -1;
  for (int i = 0; i < p->nfaults; i++) {
    slot *s = &p->faults[i];
    if (!slot_matches(s, rec)) continue;
    s->left--;
    a->kind = s->f.kind;
    a->stall_ms = s->f.stall_ms;
    a->status = s->f.status;
    a->retry_after_ms = s->f.retry_after_ms;
    a->retry_after_s = s->f.retry_after_s;
    snprintf(a->code, sizeof a->code, "%s", s->f.error_code ? s->f.error_code : "ServerBusy");
    return;
  }
  int rule = p->rates_on ? faultproxy_rates_draw(&p->rates, (uint64_t)rec->no) : -1;
  if (rule >= 0) random_fault(&p->rates, rule, a);
}

static const char *reason(int status) {
  switch (status) {
  case 400: return "Bad Request";
  case 403: return "Forbidden";
  case 404: return "Not Found";
  case 408: return "Request Timeout";
  case 409: return "Conflict";
  case 412: return "Precondition Failed";
  case 429: return "Too Many Requests";
  case 500: return "Internal Server Error";
  case 502: return "Bad Gateway";
  case 503: return "Service Unavailable";
  case 504: return "Gateway Timeout";
  default: return "Injected";
  }
}

/* Answers with a service error of the proxy's own making. 0 ok, -1 client gone. */
int faultproxy__send_status(faultproxy *p, int fd, const request *r, const action *a, int no) {
  char body[512], head[1024], hints[128] = "";
  int bl = snprintf(body, sizeof body,
                    "<?xml version=\"1.0\" encoding=\"utf-8\"?><Error><Code>%s</Code>"
                    "<Message>Injected by faultproxy for request %d.</Message></Error>",
                    a->code, no);
  int hl = 0;
  if (a->retry_after_ms > 0)
    hl += snprintf(hints, sizeof hints, "x-ms-retry-after-ms: %d\r\n", a->retry_after_ms);
  if (a->retry_after_s > 0)
    snprintf(hints + hl, sizeof hints - (size_t)hl, "Retry-After: %d\r\n", a->retry_after_s);
  int n = snprintf(head, sizeof head,
                   "HTTP/1.1 %d %s\r\nContent-Type: application/xml\r\nContent-Length: %d\r\n"
                   "x-ms-error-code: %s\r\nx-ms-request-id: faultproxy-%d\r\n%s\r\n",
                   a->status, reason(a->status), bl, a->code, no, hints);
  faultproxy__note_answer(p, r, a->status, a->code);
  faultproxy__count_fault(p, a);
  if (faultproxy__send_all(p, fd, head, (size_t)n) != 0) return -1;
  return r->is_head ? 0 : faultproxy__send_all(p, fd, body, (size_t)bl);
}

/* Holds a stalled request for `ms`. 1 when the client is still there afterwards, 0
 * when it hung up (or the proxy is stopping). */
int faultproxy__hold(faultproxy *p, int fd, int ms) {
  int64_t end = faultproxy__now_us() + (int64_t)ms * 1000;
  int watch = 1;
  while (!faultproxy__stopping(p)) {
    int64_t left = (end - faultproxy__now_us()) / 1000;
    if (left <= 0) return 1;
    int slice = left < TICK_MS ? (int)left : TICK_MS;
    if (!watch) {
      poll(NULL, 0, slice);
      continue;
    }
    struct pollfd pfd = {fd, POLLIN, 0};
    if (poll(&pfd, 1, slice) <= 0) continue;
    char c;
    ssize_t r = recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) continue;
    if (r <= 0) return 0; /* hung up */
    watch = 0;            /* bytes waiting (a next request): stop watching, keep holding */
  }
  return 0;
}

/* Sends the response headers and half the body (at least one byte short), then
 * ends the connection in order: the client sees a body cut short of its length. */
void faultproxy__send_torn(faultproxy *p, int fd, const buf *resp, const msg *m, const action *a) {
  size_t half = m->body_len / 2;
  faultproxy__count_fault(p, a);
  faultproxy__send_all(p, fd, resp->d, m->head_len + half);
  shutdown(fd, SHUT_WR);
}

static void free_slot(slot *s) {
  free(s->method);
  free(s->match);
  free(s->error_code);
  memset(s, 0, sizeof *s);
}

/* strdup of NULL is NULL; *ok drops to 0 on ENOMEM. */
static char *dup_or_null(const char *s, int *ok) {
  char *d = s ? strdup(s) : NULL;
  if (s && !d) *ok = 0;
  return d;
}

int faultproxy_add(faultproxy *p, const faultproxy_fault *f) {
  slot s = {0};
  int ok = 1;
  s.f = *f;
  s.f.method = s.method = dup_or_null(f->method, &ok);
  s.f.match = s.match = dup_or_null(f->match, &ok);
  s.f.error_code = s.error_code = dup_or_null(f->error_code, &ok);
  s.left = f->times > 0 ? f->times : 1;
  pthread_mutex_lock(&p->mu);
  if (ok && p->nfaults < FAULTPROXY_MAX_FAULTS)
    p->faults[p->nfaults++] = s;
  else
    ok = 0;
  pthread_mutex_unlock(&p->mu);
  if (!ok) free_slot(&s);
  return ok ? 0 : -1;
}

void faultproxy_clear_faults(faultproxy *p) {
  pthread_mutex_lock(&p->mu);
  for (int i = 0; i < p->nfaults; i++)
    free_slot(&p->faults[i]);
  p->nfaults = 0;
  pthread_mutex_unlock(&p->mu);
}

int faultproxy_pending(faultproxy *p) {
  int n = 0;
  pthread_mutex_lock(&p->mu);
  for (int i = 0; i < p->nfaults; i++)
    n += p->faults[i].left;
  pthread_mutex_unlock(&p->mu);
  return n;
}

void faultproxy_set_rates(faultproxy *p, const faultproxy_rates *r) {
  pthread_mutex_lock(&p->mu);
  p->rates_on = r != NULL;
  if (r) p->rates = *r;
  pthread_mutex_unlock(&p->mu);
}

const char *faultproxy_kind_name(faultproxy_kind k) {
  static const char *const names[] = {"NONE",  "RESET",  "LOST_RESPONSE", "TORN",
                                      "STALL", "STATUS", "CORRUPT_BODY",  "CORRUPT_RESPONSE"};
  return (unsigned)k < sizeof names / sizeof *names ? names[k] : "?";
}
