/*
 * rates.c - random faults for the fault proxy: the spec people write
 * ("503=10%,reset=2%,stall=1%:3000ms"), parsed into rates per kind, and the draw
 * that picks a request's fault from its number and the seed (see faultspec.h).
 *
 * The draw hashes the seed and the request number (splitmix64), so it needs no
 * state: the same seed and the same sequence of requests give the same faults,
 * whatever the threads do in between.
 */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "faultspec.h"

static const char *const rule_names[FAULTPROXY_NRULES] = {"503",  "500",  "reset",
                                                          "lost", "torn", "stall"};

const char *faultproxy_rule_name(int rule) {
  return rule >= 0 && rule < FAULTPROXY_NRULES ? rule_names[rule] : "?";
}

static uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

int faultproxy_rates_draw(const faultproxy_rates *r, uint64_t no) {
  uint64_t u = splitmix64(splitmix64(r->seed) ^ no) % FAULTPROXY_PPM, edge = 0;
  for (int i = 0; i < FAULTPROXY_NRULES; i++) {
    edge += r->ppm[i];
    if (u < edge) return i;
  }
  return -1;
}

/* ------------------------------------------------------------ parsing ---- */

/* The rule named by the `n` bytes at `s`, or -1. */
static int rule_of(const char *s, size_t n) {
  for (int i = 0; i < FAULTPROXY_NRULES; i++)
    if (strlen(rule_names[i]) == n && strncmp(s, rule_names[i], n) == 0) return i;
  return -1;
}

/* "12.5%" (the `n` bytes at `s`) into parts per million. 0 ok, 1 over 100%,
 * -1 malformed. */
static int parse_rate(const char *s, size_t n, uint32_t *ppm) {
  uint64_t whole = 0, frac = 0;
  size_t i = 0, places = 0;
  if (n < 2 || s[n - 1] != '%') return -1;
  n--;
  for (; i < n && isdigit((unsigned char)s[i]); i++)
    if ((whole = whole * 10 + (uint64_t)(s[i] - '0')) > 1000) return 1;
  if (i == 0) return -1;
  if (i < n && s[i] == '.') {
    for (i++; i < n && isdigit((unsigned char)s[i]); i++, places++)
      if (places < 4) frac = frac * 10 + (uint64_t)(s[i] - '0');
    if (places == 0 || places > 4) return -1;
  }
  if (i != n) return -1;
  for (; places < 4; places++)
    frac *= 10;
  uint64_t v = whole * 10000 + frac; /* in units of 0.0001% = 1 ppm */
  if (v > FAULTPROXY_PPM) return 1;
  *ppm = (uint32_t)v;
  return 0;
}

/* "3000ms", "3s" or "3000" (the `n` bytes at `s`) into milliseconds in 1..3600000.
 * 0 ok, -1 not that. */
static int parse_ms(const char *s, size_t n, int *ms) {
  uint64_t v = 0, unit = 1;
  size_t i = 0;
  for (; i < n && isdigit((unsigned char)s[i]); i++)
    if ((v = v * 10 + (uint64_t)(s[i] - '0')) > 3600000) return -1;
  if (i == 0) return -1;
  if (n - i == 1 && s[i] == 's')
    unit = 1000;
  else if (!(n - i == 2 && s[i] == 'm' && s[i + 1] == 's') && i != n)
    return -1;
  v *= unit;
  if (v == 0 || v > 3600000) return -1;
  *ms = (int)v;
  return 0;
}

/* One KIND=RATE%[:DURATION] item of `n` bytes at `s` into `out`; `seen` marks the
 * kinds given so far. 0 ok, -1 with a message. */
static int parse_item(const char *s, size_t n, faultproxy_rates *out, int *seen, char *err,
                      size_t errsize) {
  const char *eq = memchr(s, '=', n), *colon = memchr(s, ':', n);
  size_t kn = eq ? (size_t)(eq - s) : n;
  int rule = rule_of(s, kn);
  if (rule < 0) {
    snprintf(err, errsize,
             "unknown fault kind '%.*s' (the kinds are 503, 500, reset, lost, torn, stall)",
             (int)kn, s);
    return -1;
  }
  if (!eq) {
    snprintf(err, errsize, "fault '%.*s' needs a rate, e.g. %s=5%%", (int)n, s, rule_names[rule]);
    return -1;
  }
  if (seen[rule]++) {
    snprintf(err, errsize, "fault kind '%s' is given twice", rule_names[rule]);
    return -1;
  }
  const char *rate = eq + 1, *end = s + n;
  size_t rn = (size_t)((colon && colon > eq ? colon : end) - rate);
  int rc = parse_rate(rate, rn, &out->ppm[rule]);
  if (rc != 0) {
    snprintf(err, errsize,
             rc > 0 ? "rate %.*s of fault '%s' is over 100%%"
                    : "rate '%.*s' of fault '%s' is not a percentage such as 5%% or 0.5%%",
             (int)rn, rate, rule_names[rule]);
    return -1;
  }
  if (!colon || colon < eq) return 0;
  int ms = 0;
  size_t dn = (size_t)(end - colon - 1);
  if (rule != FAULTPROXY_RULE_STALL && rule != FAULTPROXY_RULE_503) {
    snprintf(err, errsize, "fault '%s' takes no duration (only 503 and stall do)",
             rule_names[rule]);
    return -1;
  }
  if (parse_ms(colon + 1, dn, &ms) != 0) {
    snprintf(err, errsize,
             "duration '%.*s' of fault '%s' is not one such as 3000ms or 3s (at most 1h)", (int)dn,
             colon + 1, rule_names[rule]);
    return -1;
  }
  if (rule == FAULTPROXY_RULE_STALL)
    out->stall_ms = ms;
  else
    out->retry_after_ms = ms;
  return 0;
}

int faultproxy_rates_parse(const char *spec, faultproxy_rates *out, char *err, size_t errsize) {
  int seen[FAULTPROXY_NRULES] = {0};
  memset(out, 0, sizeof *out);
  if (!spec || !*spec) {
    snprintf(err, errsize, "empty fault spec: give KIND=RATE%%[,...], e.g. 503=10%%,reset=2%%");
    return -1;
  }
  for (const char *s = spec;;) {
    size_t n = strcspn(s, ",");
    if (n == 0) {
      snprintf(err, errsize, "empty item in fault spec '%s'", spec);
      return -1;
    }
    if (parse_item(s, n, out, seen, err, errsize) != 0) return -1;
    if (!s[n]) break;
    s += n + 1;
  }
  uint64_t sum = 0;
  for (int i = 0; i < FAULTPROXY_NRULES; i++)
    sum += out->ppm[i];
  if (sum > FAULTPROXY_PPM) {
    snprintf(err, errsize, "the fault rates add up to %.4g%%, over 100%%", (double)sum / 10000.0);
    return -1;
  }
  return 0;
}

void faultproxy_rates_format(const faultproxy_rates *r, char *out, size_t size) {
  size_t k = 0;
  out[0] = '\0';
  for (int i = 0; i < FAULTPROXY_NRULES && k < size; i++) {
    if (!r->ppm[i]) continue;
    int w = snprintf(out + k, size - k, "%s%s=%.4g%%", k ? "," : "", rule_names[i],
                     (double)r->ppm[i] / 10000.0);
    if (w > 0) k += (size_t)w;
    int ms = i == FAULTPROXY_RULE_STALL ? (r->stall_ms > 0 ? r->stall_ms : 3000)
             : i == FAULTPROXY_RULE_503 ? (r->retry_after_ms > 0 ? r->retry_after_ms : 1000)
                                        : 0;
    if (ms && k < size) {
      w = snprintf(out + k, size - k, ":%dms", ms);
      if (w > 0) k += (size_t)w;
    }
  }
}
