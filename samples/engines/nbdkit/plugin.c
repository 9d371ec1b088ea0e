/*
 * plugin.c - nbdkit-xio-plugin: serves a page blob (or any xio target) as an NBD
 * block device, on nbdkit's plugin API version 2.
 *
 *   nbdkit xio url=https://ACCOUNT.blob.core.windows.net/disks/d1 size=64G
 *
 * The callbacks only translate: config.c holds the parameters, export.c the open
 * target and its lease, writes.c writes, zeroing and flushes, extents.c block
 * status.
 *
 * Threads: the thread model is parallel. xio's functions are thread-safe and many
 * threads may do I/O on one file at once, so nbdkit may run requests of every
 * connection together; each callback blocks only its own worker thread.
 *
 * Multi-conn is safe, so it is advertised: every connection shares the one open
 * file of the process, every write is acknowledged by the service before its reply
 * (nothing is cached on the client side), and a flush waits for the file's requests
 * whichever connection sent them. A flush on any connection therefore covers the
 * writes every connection saw acknowledged, which is what multi-conn promises.
 *
 * FUA is native: a Put Page is durable once acknowledged, and every write is
 * acknowledged before its reply, so a write with FUA needs nothing more.
 */
#define NBDKIT_API_VERSION 2
#include <errno.h>
#include <inttypes.h>
#include <nbdkit-plugin.h>

#include "nbd_int.h"

#define THREAD_MODEL NBDKIT_THREAD_MODEL_PARALLEL

static void xio_nbd_unload(void) {
  xnbd_export_close();
  xnbd_config_free();
}

/* Before nbdkit listens, forks or runs --run's command: the open is tried once, so
 * that its usual failures end nbdkit here (export.c). */
static int xio_nbd_get_ready(void) { return xnbd_export_check(); }

/* The context runs threads, so it is made after nbdkit forked into the background. */
static int xio_nbd_after_fork(void) {
  if (xnbd_export_open() != 0) return -1;
  nbdkit_debug("xio: serving %s (%s, %" PRIu64 " bytes%s)", xio_file_path(xnbd_ex.file),
               xio_file_backend(xnbd_ex.file), xnbd_ex.size,
               xnbd_ex.readonly ? ", read-only snapshot" : ", lease held");
  return 0;
}

/* Every connection is gone: close the file, releasing its lease. */
static void xio_nbd_cleanup(void) { xnbd_export_close(); }

static void *xio_nbd_open(int readonly) {
  (void)readonly;
  return &xnbd_ex;
}

static int64_t xio_nbd_get_size(void *h) {
  (void)h;
  return (int64_t)xnbd_ex.size;
}

static int xio_nbd_block_size(void *h, uint32_t *minimum, uint32_t *preferred, uint32_t *maximum) {
  (void)h;
  *minimum = XIO_PAGE_SIZE;      /* a page */
  *preferred = 4096;             /* what file systems write */
  *maximum = 4u * 1024u * 1024u; /* Put Page's largest */
  return 0;
}

static int xio_nbd_can_write(void *h) {
  (void)h;
  return !xnbd_ex.readonly;
}

static int xio_nbd_yes(void *h) {
  (void)h;
  return 1;
}

static int xio_nbd_can_fua(void *h) {
  (void)h;
  return NBDKIT_FUA_NATIVE;
}

static int xio_nbd_pread(void *h, void *buf, uint32_t count, uint64_t offset, uint32_t flags) {
  (void)h, (void)flags;
  size_t got = 0;
  xio_error err = {0};
  if (xio_file_read(xnbd_ex.file, offset, buf, count, &got, &err) != XIO_OK)
    return xnbd_fail("read", offset, count, &err);
  if (got < count) {
    nbdkit_error("xio: read at %llu: short read of %zu bytes", (unsigned long long)offset, got);
    nbdkit_set_error(EIO);
    return -1;
  }
  return 0;
}

static int xio_nbd_pwrite(void *h, const void *buf, uint32_t count, uint64_t offset,
                          uint32_t flags) {
  (void)h, (void)flags;
  return xnbd_write(buf, count, offset);
}

static int xio_nbd_flush(void *h, uint32_t flags) {
  (void)h, (void)flags;
  return xnbd_flush();
}

static int xio_nbd_trim(void *h, uint32_t count, uint64_t offset, uint32_t flags) {
  (void)h, (void)flags;
  return xnbd_zero(count, offset);
}

/* Zeroing is always fast here (one metadata request), so FAST_ZERO changes nothing. */
static int xio_nbd_zero(void *h, uint32_t count, uint64_t offset, uint32_t flags) {
  (void)h, (void)flags;
  return xnbd_zero(count, offset);
}

static int xio_nbd_extents(void *h, uint32_t count, uint64_t offset, uint32_t flags,
                           struct nbdkit_extents *extents) {
  (void)h;
  return xnbd_extents(count, offset, (flags & NBDKIT_FLAG_REQ_ONE) != 0, extents);
}

static struct nbdkit_plugin plugin = {
    .name = "xio",
    .longname = "xio: a page blob as a block device",
    .version = XIO_NBD_VERSION,
    .description = "Serves an Azure page blob (or a local file) through xio, with zeroing and "
                   "trim as Put Page clear",
    .unload = xio_nbd_unload,
    .config = xnbd_config_key,
    .config_complete = xnbd_config_complete,
    .config_help = XNBD_CONFIG_HELP,
    .magic_config_key = "url",
    .get_ready = xio_nbd_get_ready,
    .after_fork = xio_nbd_after_fork,
    .cleanup = xio_nbd_cleanup,
    .open = xio_nbd_open,
    .get_size = xio_nbd_get_size,
    .block_size = xio_nbd_block_size,
    .can_write = xio_nbd_can_write,
    .can_flush = xio_nbd_yes,
    .can_trim = xio_nbd_can_write,
    .can_zero = xio_nbd_can_write,
    .can_fast_zero = xio_nbd_can_write,
    .can_extents = xio_nbd_yes,
    .can_multi_conn = xio_nbd_yes,
    .can_fua = xio_nbd_can_fua,
    .pread = xio_nbd_pread,
    .pwrite = xio_nbd_pwrite,
    .flush = xio_nbd_flush,
    .trim = xio_nbd_trim,
    .zero = xio_nbd_zero,
    .extents = xio_nbd_extents,
};

NBDKIT_REGISTER_PLUGIN(plugin)
