/*
 * faultspec.h - what the fault proxy is told, as text and as values: the spec of
 * random faults people write ("503=10%,reset=2%,stall=1%:3000ms", rates.c) and the
 * fidelity profiles by name ("standard", "premium-p30", ..., profile.c). Pure: no
 * sockets, threads or files. A library of its own (xio_faultspec), so that a program
 * that only starts the proxy (the emulator library behind `xio emulator`) checks and
 * writes what it passes to xio-faultproxy with the proxy's own words, without the
 * proxy: the proxy library (faultproxy.h, which includes this header) runs on them.
 */
#ifndef XIO_FAULTSPEC_H
#define XIO_FAULTSPEC_H

#include <stddef.h>
#include <stdint.h>

#define FAULTPROXY_PPM            1000000 /* rates are parts per million */
#define FAULTPROXY_PAGE_LIST_SIZE 2000    /* ranges per Get Page Ranges page, by default */

/** The kinds of random fault (faultproxy_set_rates), in the order they are drawn. */
typedef enum faultproxy_rule {
  FAULTPROXY_RULE_503 = 0, /* STATUS 503 ServerBusy with a retry hint */
  FAULTPROXY_RULE_500,     /* STATUS 500 OperationTimedOut */
  FAULTPROXY_RULE_RESET,   /* RESET: connection reset before the request is forwarded */
  FAULTPROXY_RULE_LOST,    /* LOST_RESPONSE: applied by the service, answer lost */
  FAULTPROXY_RULE_TORN,    /* TORN: response body cut short (only bodies can be torn) */
  FAULTPROXY_RULE_STALL,   /* STALL: held `stall_ms` before forwarding */
  FAULTPROXY_NRULES
} faultproxy_rule;

/** Random faults: rates per kind and the seed that makes a run repeatable. */
typedef struct faultproxy_rates {
  uint32_t ppm[FAULTPROXY_NRULES]; /* parts per million of requests; sum <= 1000000 */
  int stall_ms;                    /* STALL: hold time (0: 3000) */
  int retry_after_ms;              /* 503: the retry hint (0: 1000) */
  uint64_t seed;
} faultproxy_rates;

/**
 * The fidelity front: how far the proxy makes the emulator behind it answer as Azure
 * does (fidelity.c, throttle.c), on top of which the faults apply. Every profile but
 * "none" pages Get Page Ranges, puts the UTF-8 byte-order mark on XML bodies and
 * enforces Azure's limits with Azure's status, code and message; the targets (zero:
 * none) are what it throttles to, per blob and per account, answering 503 ServerBusy
 * without a retry hint over them, as the service does.
 */
typedef struct faultproxy_profile {
  char name[32];       /* "standard", "premium-p10".."premium-p80", "unthrottled", "none" */
  int faithful;        /* 0: "none", requests and answers pass unchanged */
  double blob_iops;    /* requests per second per blob */
  double blob_bps;     /* bytes per second per blob (request bodies and ranges read) */
  double account_iops; /* requests per second over all blobs */
  double account_bps;  /* bytes per second over all blobs */
  int page_list_size;  /* ranges per Get Page Ranges page (FAULTPROXY_PAGE_LIST_SIZE) */
  int max_snapshots;   /* snapshots a blob may have (premium: 100; 0: no limit); one more
                          is refused 409 SnapshotCountExceeded */
  int timeout_every;   /* every Nth answer over a target is 500 OperationTimedOut instead
                          of 503 ServerBusy, as Azure answers either (0: always 503) */
  double burst_s;      /* what each throttling bucket holds, in seconds of its rate: the
                          burst a target allows (0: one second) */
} faultproxy_profile;

/* ---------------------------------------------------------- profile.c ---- */

/** Fills `out` for profile `name` (see faultproxy_profile). Returns 0, or -1 with the
 *  profiles there are named in `err`. */
int faultproxy_profile_parse(const char *name, faultproxy_profile *out, char *err, size_t errsize);

/* ------------------------------------------------------------ rates.c ---- */

/**
 * Parses a fault spec: comma-separated KIND=RATE% items, KIND one of 503, 500,
 * reset, lost, torn, stall (faultproxy_rule_name), RATE a decimal of at most four
 * places in 0..100; `503` and `stall` take an optional ":DURATION" ("3000ms", "3s",
 * or plain milliseconds): the retry hint and the hold time. Example:
 * "503=10%,500=2%,reset=2%,lost=2%,torn=5%,stall=1%:3000ms". Fills `out` (its seed
 * left 0). Returns 0, or -1 with a message naming what is wrong in `err` (an unknown
 * kind, a rate over 100%, rates adding up to more than 100%, a kind given twice, a
 * malformed rate or duration).
 */
int faultproxy_rates_parse(const char *spec, faultproxy_rates *out, char *err, size_t errsize);

/** The random fault for request number `no` (1-based), or -1 for none: a pure
 *  function of the rates, the seed and `no`. */
int faultproxy_rates_draw(const faultproxy_rates *r, uint64_t no);

/** "503", "500", "reset", "lost", "torn", "stall" (as in a spec), or "?". */
const char *faultproxy_rule_name(int rule);

/** Writes the rates back as a spec ("503=10%:1000ms,reset=2%") into `out`. */
void faultproxy_rates_format(const faultproxy_rates *r, char *out, size_t size);

#endif
