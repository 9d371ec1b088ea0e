/*
 * node.c - the per-process table of open databases, and the process's xio context.
 *
 * A VFS serves the whole process, so this is process-wide state by nature: one xio
 * context (made on first use from the environment: credentials, XIO_TRACE, ...,
 * XIO_SQLITE_LEASE_S for the lease duration and XIO_SQLITE_RETRIES,
 * XIO_SQLITE_RETRY_DELAY_MS, XIO_SQLITE_TRY_TIMEOUT_MS for the retry policy) and
 * lease news logged as it comes (on_lease_news), and one node per database, keyed by its URL
 * without the query and refcounted by the files SQLite opened on it. The first connection opens the
 * database blob with a lease; the last one to close sends what is pending, closes the journal and
 * WAL (deleting a journal that holds nothing live) and releases the lease.
 *
 * fork(): the child is another process, with none of the context's threads. A
 * handler run in the child right after fork() (pthread_atfork) makes the state the
 * child's own: the parent's context is set aside, and the parent's nodes stay in the
 * table, marked by the process that made them, but no lookup finds them and no
 * method touches them (methods.c refuses a connection the parent opened). So the
 * child opens databases with a context of its own, and never flushes, closes or
 * releases what the parent holds; the parent's leases keep other processes out, the
 * child included.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sq_int.h"

#define DEFAULT_CACHE_MB 32

static pthread_mutex_t table_mu = PTHREAD_MUTEX_INITIALIZER;
static xsq_node *table;
static pthread_mutex_t ctx_mu = PTHREAD_MUTEX_INITIALIZER;
static xio_ctx *ctx;
static xio_error ctx_error;
static pid_t self;           /* this process: nodes made by another are the parent's */
static xio_ctx *parents_ctx; /* set aside in a forked child, never used there */
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* Runs in the child of a fork(), on its only thread, before fork() returns there.
 * Whatever the parent's threads held is the parent's: the locks start afresh. */
static void in_child(void) {
  pthread_mutex_init(&table_mu, NULL);
  pthread_mutex_init(&ctx_mu, NULL);
  self = getpid();
  if (ctx) parents_ctx = ctx;
  ctx = NULL;
  xio_error_clear(&ctx_error);
}

static void setup(void) {
  self = getpid();
  pthread_atfork(NULL, NULL, in_child);
}

void xsq_table_lock(void) {
  pthread_once(&once, setup);
  pthread_mutex_lock(&table_mu);
}
void xsq_table_unlock(void) { pthread_mutex_unlock(&table_mu); }

int xsq_node_inherited(const xsq_node *node) { return node->pid != self; }

/* Environment variable `name` as an integer in lo..hi, or `dflt` when it is unset
 * or not such a number. */
static int env_int(const char *name, long lo, long hi, int dflt) {
  const char *v = getenv(name);
  char *end = NULL;
  long s = v && *v ? strtol(v, &end, 10) : 0;
  return end && *end == '\0' && s >= lo && s <= hi ? (int)s : dflt;
}

/* Lease news from the file layer, on whatever thread learnt it: a lost lease is logged
 * (sqlite3_log, SQLITE_IOERR_LOCK) the moment it is known, so the application hears
 * that another process took the database over (or this one was paused past its
 * lease) before its next statement fails on it. Nothing here blocks or calls xio. */
static void on_lease_news(xio_file *f, xio_lease_news news, void *ud) {
  (void)ud;
  if (news == XIO_LEASE_LOST)
    xsq_log(SQLITE_IOERR_LOCK,
            "lease lost on %s: another process may own the database now; every read "
            "and write of it fails from here on (close it and open it again)",
            xio_file_path(f));
}

/* The context's options: xio's defaults, with the lease duration from
 * XIO_SQLITE_LEASE_S (15..60 seconds; how long a dead holder keeps others out) and
 * the retry policy from XIO_SQLITE_RETRIES (retries per request, 0..100),
 * XIO_SQLITE_RETRY_DELAY_MS (the first delay, 1..60000) and XIO_SQLITE_TRY_TIMEOUT_MS
 * (per try, 0 for none .. 3600000). */
static xio_ctx_options ctx_options(void) {
  xio_ctx_options o = xio_ctx_options_default();
  o.lease_news = on_lease_news;
  int s = env_int("XIO_SQLITE_LEASE_S", 15, 60, 0);
  if (s) {
    o.lease_duration_s = s;
    o.lease_renew_s = s / 3;
  }
  o.retry.max_retries = env_int("XIO_SQLITE_RETRIES", 0, 100, o.retry.max_retries);
  o.retry.base_delay_ms = env_int("XIO_SQLITE_RETRY_DELAY_MS", 1, 60000, o.retry.base_delay_ms);
  o.retry.try_timeout_ms = env_int("XIO_SQLITE_TRY_TIMEOUT_MS", 0, 3600000, o.retry.try_timeout_ms);
  return o;
}

xio_ctx *xsq_ctx(xio_error *err) {
  pthread_once(&once, setup);
  pthread_mutex_lock(&ctx_mu);
  xio_ctx_options o = ctx_options();
  if (!ctx && xio_ctx_new(&o, &ctx, &ctx_error) != XIO_OK) ctx = NULL;
  xio_ctx *c = ctx;
  if (!c && err) *err = ctx_error;
  pthread_mutex_unlock(&ctx_mu);
  return c;
}

xsq_node *xsq_node_find(const char *key) {
  for (xsq_node *n = table; n; n = n->next)
    if (n->pid == self && strcmp(n->key, key) == 0) return n;
  return NULL;
}

/* The journal's and WAL's targets: the database's with the suffix on the path. */
static void role_targets(xsq_node *node, const char *db_target) {
  const char *q = strchr(db_target, '?');
  int blen = q ? (int)(q - db_target) : (int)strlen(db_target);
  snprintf(node->targets[XSQ_DB], XSQ_NAME_MAX, "%s", db_target);
  snprintf(node->targets[XSQ_JOURNAL], XSQ_NAME_MAX, "%.*s-journal%s", blen, db_target, q ? q : "");
  snprintf(node->targets[XSQ_WAL], XSQ_NAME_MAX, "%.*s-wal%s", blen, db_target, q ? q : "");
}

static int busy(const xsq_name *n) {
  return xsq_fail(SQLITE_BUSY,
                  "the database %s is in use: another process holds its lease. To take it "
                  "over once that process is gone, wait until its lease runs out (at most "
                  "60 s) or open it with ?xio_takeover=1 in the URL (or "
                  "XIO_SQLITE_TAKEOVER=1), which breaks the lease",
                  n->safe);
}

/* Opens the database blob of a new node. */
static int open_db(xsq_node *node, const xsq_name *n, int create) {
  xio_error e;
  xio_error_clear(&e);
  xio_ctx *c = xsq_ctx(&e);
  if (!c) return xsq_fail_xio(SQLITE_CANTOPEN, "making the xio context", &e);
  xio_open_options o = xio_open_options_default();
  o.kind = XIO_KIND_DATA;
  if (node->readonly) {
    o.flags = XIO_OPEN_READONLY;
  } else {
    o.flags = XIO_OPEN_LEASE | XIO_OPEN_UNALIGNED | (create ? XIO_OPEN_CREATE : 0);
    if (n->takeover) o.flags |= XIO_OPEN_BREAK_LEASE;
  }
  node->ctx = c;
  xsq_store *s = &node->st[XSQ_DB];
  xio_err rc = xio_file_open(c, node->targets[XSQ_DB], &o, &s->xf, &e);
  if (rc == XIO_EBUSY) return busy(n);
  if (rc != XIO_OK) return xsq_fail_xio(SQLITE_CANTOPEN, "opening the database", &e);
  if (!node->readonly) xio_file_set_commit_range(s->xf, 0, XSQ_PAGE1_HELD);
  s->size = s->hwm = xio_file_size(s->xf);
  s->known = s->exists = 1;
  return SQLITE_OK;
}

/* The key of the node `n` names into `key` (`size` bytes): its key, or the URL of its
 * snapshot when it names one. */
static void node_key(const xsq_name *n, char *key, size_t size) {
  char *snap = NULL;
  if (n->snapshot[0] && xio_target_snapshot_url(n->key, n->snapshot, &snap, NULL) == XIO_OK)
    snprintf(key, size, "%s", snap);
  else
    snprintf(key, size, "%s", n->key);
  xio_free(snap);
}

static xsq_node *new_node(const xsq_name *n, int readonly) {
  xsq_node *node = calloc(1, sizeof *node);
  if (!node) return NULL;
  node_key(n, node->key, sizeof node->key);
  node->pid = self;
  node->readonly = readonly || n->snapshot[0];
  node->takeover = n->takeover;
  node->cache_bytes = (uint64_t)(n->cache_mb >= 0 ? n->cache_mb : DEFAULT_CACHE_MB) << 20;
  pthread_mutex_init(&node->mu, NULL);
  for (int r = 0; r < 3; r++)
    xsq_store_init(&node->st[r], (xsq_role)r, node->cache_bytes);
  role_targets(node, n->target);
  return node;
}

static void free_node(xsq_node *node) {
  for (int r = 0; r < 3; r++)
    xsq_store_close(node, (xsq_role)r);
  for (int i = 0; i < node->nregions; i++)
    free(node->regions[i]);
  free(node->regions);
  pthread_mutex_destroy(&node->mu);
  free(node);
}

int xsq_node_acquire(const xsq_name *n, int readonly, int create, xsq_node **out) {
  char key[XSQ_KEY_MAX];
  node_key(n, key, sizeof key);
  xsq_table_lock();
  xsq_node *node = xsq_node_find(key);
  if (node) {
    node->refs++;
    xsq_table_unlock();
    *out = node;
    return SQLITE_OK;
  }
  node = new_node(n, readonly);
  int rc = node ? open_db(node, n, create) : SQLITE_NOMEM;
  if (rc != SQLITE_OK) {
    xsq_table_unlock();
    if (node) free_node(node);
    return rc;
  }
  node->refs = 1;
  node->next = table;
  table = node;
  xsq_table_unlock();
  *out = node;
  return SQLITE_OK;
}

void xsq_node_release(xsq_node *node) {
  xsq_table_lock();
  if (--node->refs > 0) {
    xsq_table_unlock();
    return;
  }
  for (xsq_node **pp = &table; *pp; pp = &(*pp)->next)
    if (*pp == node) {
      *pp = node->next;
      break;
    }
  xsq_table_unlock();
  pthread_mutex_lock(&node->mu);
  if (!node->readonly) xsq_node_flush(node); /* a failure was logged; SQLite recovers */
  pthread_mutex_unlock(&node->mu);
  free_node(node);
}
