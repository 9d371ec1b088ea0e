/*
 * badinput.h - the bad-input tables: inputs a new user, a broken proxy, a corrupt
 * credential file or a hostile service could hand xio, one row each, with the answer
 * every row must give: an exit status (the xio program) or an xio_err code (the
 * library), and a phrase its message must contain.
 *
 * Every row is also checked for what must never happen: a crash (a signal, a
 * sanitizer report), a secret in any output (the account key, "sig=", the marker
 * BI_SECRET that every signature in the tables carries), and a write: the fixture
 * blob and the fixture local file must read back unchanged after every row, a
 * target a row names as absent must not exist afterwards, and the program's trace
 * must hold no storage request that changed something and succeeded.
 *
 * Placeholders in table strings are expanded before a row runs (bi_expand):
 *   @A  the emulator account URL, http://127.0.0.1:PORT/devstoreaccount1
 *   @C  this process's fixture container URL (@A/bi-PID-N)
 *   @X  the fixture container addressed through the fault proxy
 *   @E  the emulator endpoint, http://127.0.0.1:PORT
 *   @D  this process's local directory
 *   @K  the emulator's (public) account key
 *   @S  a real SAS for the fixture container that may only read and list
 *   @L  1025 'b' characters (one past the longest blob name)
 */
#ifndef XIO_TEST_BADINPUT_H
#define XIO_TEST_BADINPUT_H

#include <stddef.h>

#include <xio/xio.h>

/* The mark every signature in the tables carries: it must never be printed. */
#define BI_SECRET "SECRETSIG"

/* The fixture files: FIXTURE_SIZE bytes of test_fill_random(FIXTURE_SEED). */
#define BI_FIXTURE_SIZE (64 * 1024)
#define BI_FIXTURE_SEED 1066

/** Makes the fixture: a fresh container holding data.mdf (a data file) and
 *  log.ldf (a log file), local files data.img and src.img, and a context for the
 *  checks. Call at the start of a test; later calls in the same process keep it. */
void bi_setup(void);

/** Expands the placeholders of `in` into `out`. */
void bi_expand(const char *in, char *out, size_t size);

/** The context the checks use (dev account on the emulator). */
xio_ctx *bi_ctx(void);

/** "" when the fixture blob and local file are unchanged, else what changed. */
const char *bi_fixture_changed(void);

/** 1 when `target` (expanded) exists, as the file layer sees it. */
int bi_exists(const char *target);

/** Starts the fault proxy in front of the emulator (for @X); idempotent. */
struct faultproxy *bi_proxy(void);

/** "" when `text` holds no secret, else which one it holds. */
const char *bi_secret_in(const char *text);

/** Row bookkeeping of one table: counts the rows run and prints the failed ones;
 *  bi_end fails the test when any row failed. */
typedef struct bi_tally {
  const char *table;
  int rows, failed;
} bi_tally;

void bi_row_failed(bi_tally *t, int row, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void bi_end(bi_tally *t);

/* A row of the library tables: `fn` gets `in` (expanded) and must return `want`,
 * with a detail record of the same code whose message contains `phrase`; no secret
 * in the formatted record, the fixture unchanged and @C/new.mdf absent afterwards. */
typedef struct bi_api_row {
  xio_err (*fn)(const char *in, xio_error *e);
  const char *in;
  xio_err want;
  const char *phrase;
} bi_api_row;

/** Runs a library table as one test (after bi_setup) and tallies it. */
void bi_run_api_rows(const char *name, const bi_api_row *rows, size_t n);

/* How many rows each table holds (for the total). */
size_t bi_cli_rows(void);
size_t bi_api_rows(void);
size_t bi_service_rows(void);

#endif
