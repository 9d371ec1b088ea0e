/*
 * rates_test.c - the fault proxy's random faults without a network: the spec
 * people write parsed into rates per kind (and refused, naming what is wrong), the
 * spec written back, and the draw: a pure function of seed and request number
 * whose frequencies follow the rates.
 */
#include <stdio.h>
#include <string.h>

#include "faultproxy.h"
#include "test.h"

static faultproxy_rates parse_ok(const char *spec) {
  faultproxy_rates r;
  char err[256] = "";
  if (faultproxy_rates_parse(spec, &r, err, sizeof err) != 0) FAIL("'%s' refused: %s", spec, err);
  return r;
}

TEST(parse_every_kind) {
  faultproxy_rates r = parse_ok("503=10%,500=2%,reset=2%,lost=2%,torn=5%,stall=1%:3000ms");
  ASSERT_EQ(r.ppm[FAULTPROXY_RULE_503], 100000);
  ASSERT_EQ(r.ppm[FAULTPROXY_RULE_500], 20000);
  ASSERT_EQ(r.ppm[FAULTPROXY_RULE_RESET], 20000);
  ASSERT_EQ(r.ppm[FAULTPROXY_RULE_LOST], 20000);
  ASSERT_EQ(r.ppm[FAULTPROXY_RULE_TORN], 50000);
  ASSERT_EQ(r.ppm[FAULTPROXY_RULE_STALL], 10000);
  ASSERT_EQ(r.stall_ms, 3000);
  ASSERT_EQ(r.retry_after_ms, 0);
  r = parse_ok("503=0.25%:2s,stall=99.75%:250");
  ASSERT_EQ(r.ppm[FAULTPROXY_RULE_503], 2500);
  ASSERT_EQ(r.retry_after_ms, 2000);
  ASSERT_EQ(r.ppm[FAULTPROXY_RULE_STALL], 997500);
  ASSERT_EQ(r.stall_ms, 250);
  ASSERT_EQ(r.ppm[FAULTPROXY_RULE_RESET], 0);
  r = parse_ok("torn=0.0001%");
  ASSERT_EQ(r.ppm[FAULTPROXY_RULE_TORN], 1);
}

TEST(parse_refuses_with_reason) {
  static const struct {
    const char *spec, *says;
  } cases[] = {
      {"", "empty fault spec"},
      {"flood=1%", "unknown fault kind 'flood'"},
      {"503", "fault '503' needs a rate"},
      {"503=101%", "rate 101% of fault '503' is over 100%"},
      {"reset=60%,lost=40.0001%", "add up to 100"},
      {"500=1.5", "rate '1.5' of fault '500' is not a percentage"},
      {"500=1.23456%", "is not a percentage"},
      {"500=-1%", "is not a percentage"},
      {"503=1%,,500=1%", "empty item"},
      {"reset=1%:10ms", "fault 'reset' takes no duration"},
      {"stall=1%:0ms", "duration '0ms' of fault 'stall'"},
      {"stall=1%:2h", "duration '2h' of fault 'stall'"},
      {"torn=1%,torn=1%", "fault kind 'torn' is given twice"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    faultproxy_rates r;
    char err[256] = "";
    if (faultproxy_rates_parse(cases[i].spec, &r, err, sizeof err) != -1)
      FAIL("'%s' was accepted", cases[i].spec);
    ASSERT_CONTAINS(err, cases[i].says);
  }
}

TEST(format_parses_back) {
  faultproxy_rates a = parse_ok("503=12.5%,lost=0.01%,stall=3%:1500ms"), b;
  char spec[256], err[256];
  faultproxy_rates_format(&a, spec, sizeof spec);
  ASSERT_STR_EQ(spec, "503=12.5%:1000ms,lost=0.01%,stall=3%:1500ms");
  ASSERT_EQ(faultproxy_rates_parse(spec, &b, err, sizeof err), 0);
  ASSERT_MEM_EQ(b.ppm, a.ppm, sizeof a.ppm);
  ASSERT_EQ(b.stall_ms, a.stall_ms);
}

TEST(draw_follows_seed_and_rates) {
  faultproxy_rates r = parse_ok("503=10%,500=2%,reset=2%,lost=2%,torn=5%,stall=1%");
  faultproxy_rates other = r;
  r.seed = 7;
  other.seed = 8;
  enum { N = 200000 };
  long counts[FAULTPROXY_NRULES + 1] = {0};
  int differ = 0;
  for (uint64_t no = 1; no <= N; no++) {
    int k = faultproxy_rates_draw(&r, no);
    ASSERT(k >= -1 && k < FAULTPROXY_NRULES);
    ASSERT_EQ(faultproxy_rates_draw(&r, no), k); /* the same request, the same fault */
    differ += faultproxy_rates_draw(&other, no) != k;
    counts[k + 1]++;
  }
  ASSERT(differ > N / 10);
  /* Each kind within 10% of its expected count (thousands of draws each). */
  for (int k = 0; k < FAULTPROXY_NRULES; k++) {
    double want = (double)r.ppm[k] / FAULTPROXY_PPM * N;
    if (counts[k + 1] < want * 0.9 || counts[k + 1] > want * 1.1)
      FAIL("%s drawn %ld times of %d, expected about %.0f", faultproxy_rule_name(k), counts[k + 1],
           N, want);
  }
  faultproxy_rates none;
  memset(&none, 0, sizeof none);
  for (uint64_t no = 1; no <= 1000; no++)
    ASSERT_EQ(faultproxy_rates_draw(&none, no), -1);
  faultproxy_rates all = parse_ok("reset=100%");
  for (uint64_t no = 1; no <= 1000; no++)
    ASSERT_EQ(faultproxy_rates_draw(&all, no), FAULTPROXY_RULE_RESET);
}
